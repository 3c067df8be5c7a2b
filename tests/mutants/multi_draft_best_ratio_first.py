"""The siblings are tried in order of decreasing p/q instead of the order they were drawn in."""
EXERCISE = "multi_draft"
MODULE = "trees"
PATCHES = [
    ("""    m = drafts.shape[0]
""", """    m = drafts.shape[0]
    order = (target_dist.gather(0, drafts) / proposal_dist.gather(0, drafts)).argsort(descending=True)
    drafts = drafts.index_select(0, order)
"""),
    ("""    candidates = torch.cat([drafts, sample(r[m], generator).view(1)])
    return index, candidates.index_select(0, index.view(1))[0]""",
     """    candidates = torch.cat([drafts, sample(r[m], generator).view(1)])
    original = torch.cat([order, order.new_full((1,), m)]).index_select(0, index.view(1))[0]
    return original, candidates.index_select(0, index.view(1))[0]"""),
]
SLOW = "one of the longest verifier mutants, 6-7 s in CI: its exercise keeps others by default"
