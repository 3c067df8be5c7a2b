"""speculation_tree grows the tree breadth-first (a queue) instead of best-first (a heap)."""
EXERCISE = "suffix_tree"
MODULE = "suffix"
PATCHES = [("heapq.heappop(heap)", "heap.pop(0)"),
           ("heapq.heappush(heap, (-child_score, next(order), token, child, node, depth))",
            "heap.append((-child_score, next(order), token, child, node, depth))")]
