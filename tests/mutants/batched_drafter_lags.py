"""After a round that accepts every draft, the drafter is never fed its last draft (exact, but q is wrong)."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("            unfed = row_drafts[-1:] if n == k else []", "            unfed = []")]
FIRST_HINT = "the drafter has never run on its last draft"
