"""Every row advances by the batch's smallest accepted count, keeping its own token."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [
    ("        most_kept = max(r[0] for r, run in zip(rounds, running) if run)\n",
     "        most_kept = max(r[0] for r, run in zip(rounds, running) if run)\n"
     "        least_kept = min(r[0] for r, run in zip(rounds, running) if run)\n"),
    ("            emitted = (row_drafts[:n] + [token])[: room[b]]",
     "            emitted = (row_drafts[:least_kept] + [token])[: room[b]]"),
]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
