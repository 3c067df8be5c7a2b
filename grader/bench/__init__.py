"""`grader bench` and `grader demo`: speculative decoding timed against autoregressive
decoding, batches and token trees, and the measurements the notebooks draw."""

# `grader bench`'s sizes, and --quick's: half the prompts, half the tokens, and lesson 7's
# fast loops left out unless asked for (compiling them from an empty cache alone takes
# about 100 s on a 2-core CPU), so --quick ends within 3 minutes there.
PROMPTS, QUICK_PROMPTS = 8, 4
NEW_TOKENS, QUICK_NEW_TOKENS = 128, 64
# The fast suffix loop verifies a fixed [1, max_nodes + 1] block whatever the tree's size, and on
# a CPU a forward's cost grows with the tokens it reads. Shipped pair, one thread, 4 prompts × 96
# tokens, compiled, against the fast autoregressive loop: idle (load 0.7), at most 4 nodes 1.60x,
# 8 nodes 2.08x, 12 2.02x, 16 1.89x, the loop's default 24 1.58x; under other work (load 5),
# 6 nodes 2.12x, 8 2.38x, 10 2.24x. A GPU's forward at these widths is bound by reading the
# weights, so there the loop's default stands (not measured).
NARROW_MAX_NODES = 8
