"""`grader bench` and `grader demo`: speculative decoding timed against autoregressive
decoding, batches and token trees, and the measurements the notebooks draw."""
