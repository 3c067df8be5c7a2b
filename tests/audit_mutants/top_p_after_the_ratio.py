"""Top-p is applied after the acceptance ratio: drafts, the ratio, the residual and the bonus
use the temperature-only laws, so tokens outside the nucleus come out."""
EXERCISES = ("audit",)
MODULE = "speculative"
PATCHES = [(
    "        q_rows = draft(drafter, ids, end, k, logits_processor, drafter_cache)\n"
    "        p = logits_processor(forward(target, ids, end + k, target_cache, rows=k + 1))  # [k+1, V]",
    "        before_top_p = MultinomialProcessor(logits_processor.temperature)\n"
    "        q_rows = draft(drafter, ids, end, k, before_top_p, drafter_cache)\n"
    "        p = before_top_p(forward(target, ids, end + k, target_cache, rows=k + 1))  # [k+1, V]",
), ("\nfrom solutions.sampling import GreedyProcessor, LogitsProcessor",  # the import, not the lesson's copy of it
    "\nfrom solutions.sampling import GreedyProcessor, LogitsProcessor, MultinomialProcessor")]
