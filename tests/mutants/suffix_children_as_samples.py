"""suffix_speculative_generate verifies a node's children as i.i.d. samples of the counts' distribution
(lesson 9's multi_draft_sampling with q = count / total), not as chosen point masses."""
EXERCISE = "suffix_generate"
MODULE = "suffix"
SLOW = "10.9 s of CI's time; suffix_generate keeps suffix_cache_cropped_like_a_chain and suffix_index_not_updated in the default run"
PATCHES = [
    ("        path, token = walk_deterministic_tree(processor(logits[0]), parents, nodes)",
     "        path, token = walk_as_samples(processor(logits[0]), parents, nodes, "
     "round_tree(text, own, corpus, max_nodes, threshold, total_len - end)[2])"),
    ("class CorpusIndex:",
     '''def walk_as_samples(p, parents, tokens, scores):
    from solutions.trees import multi_draft_sampling
    from solutions.verification import sample
    children = [[] for _ in range(len(parents) + 1)]
    for node, parent in enumerate(parents):
        children[parent + 1].append(node + 1)
    row, path = 0, []
    while children[row]:
        rows = torch.tensor(children[row])
        parent_score = 1.0 if row == 0 else scores[row - 1]
        q = torch.zeros_like(p[row])
        q[tokens[rows - 1]] = torch.tensor([scores[r - 1] / parent_score for r in children[row]], dtype=q.dtype)
        index, token = multi_draft_sampling(p[row], q / q.sum(), tokens[rows - 1])
        if index == len(rows):
            return path, token
        row = children[row][index]
        path.append(row)
    return path, sample(p[row])


class CorpusIndex:'''),
]
