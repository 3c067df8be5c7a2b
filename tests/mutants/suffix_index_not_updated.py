"""suffix_speculative_generate never appends the emitted tokens to the text's own index."""
EXERCISE = "suffix_generate"
MODULE = "suffix"
PATCHES = [("""        keep_positions(cache, torch.cat([torch.arange(end, device=device), end - 1 + rows]))
        own.extend(emitted)
""", """        keep_positions(cache, torch.cat([torch.arange(end, device=device), end - 1 + rows]))
""")]
