"""adaptive_speculative_generate verifies draft i against q of draft i + 1."""
EXERCISE = "adaptive_generate"
MODULE = "suffix"
PATCHES = [("""        m = len(q_rows)
        p = processor(forward(target, ids, end + m, target_cache, rows=m + 1))  # [m + 1, V]
        q = torch.stack(q_rows) if q_rows else p[:0]""", """        m = len(q_rows)
        p = processor(forward(target, ids, end + m, target_cache, rows=m + 1))  # [m + 1, V]
        q = torch.stack(q_rows[1:] + q_rows[-1:]) if q_rows else p[:0]""")]
