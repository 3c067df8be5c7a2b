"""A row with less room than the batch's k keeps every token of the round: it overshoots max_gen_len."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("            emitted = (row_drafts[:n] + [token])[: room[b]]",
            "            emitted = row_drafts[:n] + [token]")]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
