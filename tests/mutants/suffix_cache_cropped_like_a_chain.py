"""suffix_speculative_generate crops the target's cache after the round as a chain's (end + n), keeping rejected branches."""
EXERCISE = "suffix_generate"
MODULE = "suffix"
PATCHES = [("        keep_positions(cache, torch.cat([torch.arange(end, device=device), end - 1 + rows]))",
            "        roll_back(cache, end + len(path))")]
