"""Smoothing added to q: 5% of uniform mass mixed into the drafter's rows "to avoid zeros"."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
SLOW = "7.2 s of CI's time; speculative_sampling keeps twelve mutants in the default run, ratio_q_over_p among them"
PATCHES = [("    k = candidate_tokens.shape[0]\n    drafts",
            "    k = candidate_tokens.shape[0]\n"
            "    proposal_dists = 0.95 * proposal_dists + 0.05 / proposal_dists.shape[-1]\n"
            "    drafts")]
