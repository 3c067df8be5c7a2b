"""draft_while_confident reads greedy decoding's one-hot q as the confidence: it never stops drafting."""
EXERCISE = "adaptive_generate"
MODULE = "suffix"
PATCHES = [("        confidence = (logits.softmax(-1) if processor.is_greedy else q).max()",
            "        confidence = q.max()")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
