"""No attention mask: left padding and rejected drafts' columns are attended like real tokens."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("attention_mask=self.mask, position_ids", "attention_mask=None, position_ids")]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
