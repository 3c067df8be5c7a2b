"""`grader bench` and `grader demo`: speculative decoding timed against autoregressive
decoding, batches and token trees, and the measurements the notebooks draw."""

# `grader bench`'s sizes, and --quick's: half the prompts, half the tokens, and lesson 7's
# fast loops left out unless asked for (compiling them from an empty cache alone takes
# about 100 s on a 2-core CPU), so --quick ends within 3 minutes there.
PROMPTS, QUICK_PROMPTS = 8, 4
NEW_TOKENS, QUICK_NEW_TOKENS = 128, 64
