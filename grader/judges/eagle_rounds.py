"""The likeliest bugs of a lesson-11 loop, named from what was observed of its greedy runs.

A greedy run whose output or number is wrong says little by itself: many bugs give a wrong
text. What the observers saw while it ran tells them apart (grader/observers/round_watch.py
for the processor's inputs and a loop that stopped advancing, grader/observers/trace.py for
the target's forwards). ``diagnoses`` returns ``(name, detail)`` for each bug the run's
observations point at, the likeliest first; the judges put the names in the failing
property's message and first hint, or, when a run crashed, ``crash`` gives the diagnosis
of what it saw before the crash.

Observed inputs: ``forwards``, ``(fed, cached, positions, ids)`` per target forward (the
prefill first); ``events``, RoundWatch's entries; ``prompt``, ``ids`` (the run's output) and
``max_gen_len``.
"""
Forward = tuple  # (fed: int, cached: int, positions: list[int] | None, ids: list[int])

CACHE_SHORT = "the target's cache cropped one too short"
CACHE_LONG = "the target's cache not cropped back to the new length minus one"
GAMMA_COUNT = "the drafted count advanced by gamma instead of by the drafts made"
RATE_COUNT = "an acceptance rate that is not accepted drafts / drafts made"
Q_ROW = "the first draft's q taken from the head's first row, not its last"
Q_EARLIER_ROW = "a draft's q taken from an earlier row of the head than its last"
Q_UNPROCESSED = "the drafts' q taken without logits_processor"
P_UNPROCESSED = "the target's p taken without logits_processor"
LEAF_BONUS = "a leaf's bonus drawn from its parent's row of p, not the leaf's"
DEPTH = "a tree depth not capped at min(depth, tokens left − 1)"
STUCK_WALK = "a walk that never advances: it descends to node i instead of row 1 + i"
STUCK_LOOP = "a loop that stopped advancing between two forwards"
KEEP_OFF = "keep_positions given positions one off"
TREE_CACHE_SHORT = "the target's cache left short after a round: the text's last token or a path node not kept"
TREE_CACHE_LONG = "the target's cache left holding more than the text and the accepted path after a round"

HINTS = {
    CACHE_SHORT: "after a round the target's cache must hold every token but the round's last one: "
                 "roll_back(target_cache, end − 1) with end the new length (not end − 2)",
    CACHE_LONG: "after a round crop the target's cache to the new length minus one (roll_back(target_cache, "
                "end − 1)): the next round feeds it the last token and the drafts",
    GAMMA_COUNT: "a round near max_gen_len drafts k = min(gamma, tokens left − 1) tokens: add k, not gamma, to "
                 "the drafted count",
    RATE_COUNT: "the rate is the drafts accepted over the drafts made, summed over the rounds of the call",
    Q_ROW: "after the head reads its unread true pairs, the first draft's q is processor(logits of its LAST "
           "row) (head_logits[0, −1]): that row follows the last true pair; earlier rows score tokens already "
           "in the text",
    Q_EARLIER_ROW: "after the head reads its unread true pairs, the first draft's q is processor(logits of its "
                   "LAST row) (head_logits[0, −1]); each later draft's, the row of the step that fed the draft",
    Q_UNPROCESSED: "each draft's q is logits_processor(the head's logits row), and the draft is drawn from that "
                   "q (logits_processor.sample(q)): under greedy decoding the draft is then the head's argmax; "
                   "a softmax of the logits drafts other tokens, and the rate falls",
    P_UNPROCESSED: "p must come from the same logits_processor as the drafts: p = logits_processor(target "
                   "logits of the round's forward), [N + 1, V], before the walk",
    LEAF_BONUS: "when the walk reaches a node without children, the token it emits is drawn from that node's "
                "own row of p (p[row]), not its parent's",
    DEPTH: "grow the tree only k = min(depth, tokens left − 1) deep, so that the round's own token still fits "
           "within max_gen_len",
    STUCK_WALK: "children[row] should list rows (1 + node index); after accepting a child, go down to its row "
                "1 + i, so that every step goes one level deeper",
    STUCK_LOOP: "every round must move end forward by the tokens it emitted (n + 1) until max_gen_len or an end "
                "token",
    TREE_CACHE_SHORT: "keep the whole text, its last token (row 0, at position end − 1) included, then the path: "
                      "keep_positions(target_cache, cat([arange(end), end − 1 + path rows])) with end the length "
                      "before the round, so that the cache holds the new length minus one",
    TREE_CACHE_LONG: "after a round the target's cache holds the text and the accepted path only: "
                     "keep_positions(target_cache, cat([arange(end), end − 1 + path rows])), never the rejected "
                     "nodes",
    KEEP_OFF: "row x of the round's forward sits at position end − 1 + x: keep_positions(target_cache, "
              "cat([arange(end), end − 1 + path rows]))",
}


def diagnoses(loop: str, shape: dict, prompt: list[int], ids: list[int], number: float, max_gen_len: int,
              forwards: list[Forward], events: list[list], wrong_at: int | None) -> list[tuple[str, str]]:
    """``(name, detail)`` of every bug the observations of one greedy run point at;
    ``wrong_at``: the first output position that differs from the target's greedy text."""
    found = q_rows(events) + _p_unprocessed(events)
    if loop == "eagle_generate":  # the tree loop's grow_tree takes a softmax under greedy decoding, by contract
        rounds = _chain_rounds(prompt, ids, forwards)
        found += (_q_unprocessed(events) + _cache_lengths(forwards, rounds)
                  + _rate(number, shape["gamma"], forwards, rounds))
    else:
        found += _depths(prompt, max_gen_len, forwards) + _tree_cache_lengths(forwards) + leaf_bonus(ids, wrong_at)
    return found


def crash(loop: str, prompt: list[int], max_gen_len: int, forwards: list[Forward], events: list[list],
          raised: str) -> list[tuple[str, str]]:
    """What a greedy run that raised (``raised``: the diagnosis of the exception) had shown
    before: a loop that stopped advancing, a tree deeper than the tokens left, or a
    ``keep_positions`` past the positions the round's forward wrote."""
    stuck = next((e for e in events if e[0] in ("stuck", "stalled")), None)
    if stuck is not None:
        if stuck[0] == "stalled":  # a sampled run's guard: CPU time, no count of forwards
            seen = (f"the loop ran {stuck[1] / 1000:.1f} s of CPU without a forward of the target or the head, so "
                    "the grader stopped it")
        else:
            after = f"round {stuck[2] - 1}'s target forward" if stuck[2] > 1 else "the prefill"
            seen = (f"after {after} the loop indexed tensors {stuck[1]} times without another forward, so the "
                    "grader stopped it")
        if loop == "eagle_generate":
            return [(STUCK_LOOP, f"{seen}: look for a while loop whose end never grows")]
        return [(STUCK_WALK, f"{seen}: most likely the walk, going down to row i (node i − 1's row, or the root) "
                 "instead of row 1 + i, and so visiting a row again")]
    found = _depths(prompt, max_gen_len, forwards) + _tree_cache_lengths(forwards)
    if "keep_positions" in raised and forwards:
        fed, cached = forwards[-1][:2]
        found.append((KEEP_OFF, f"the last round's forward left {cached + fed} positions in the target's cache "
                      f"(0 … {cached + fed - 1}): its last token at position {cached} and node row x at "
                      f"{cached} + x; keep_positions was given one past them"))
    return found


def worded(found: list[tuple[str, str]]) -> tuple[str, str]:
    """(the message's words, the first hint level) for what ``diagnoses`` found."""
    if len(found) == 1:
        name, detail = found[0]
        return f"; what the grader observed points at {name}: {detail}", HINTS[name]
    names = [name for name, _ in found[:3]]
    return ("; what the grader observed points at one of these: "
            + "; ".join(f"{name} ({detail})" for name, detail in found[:3]),
            "look at " + ", then ".join(names) + ": " + "; ".join(HINTS[name] for name in names))


def q_rows(events) -> list:
    wrong = next((e for e in events if e[0] == "q" and e[1] != e[2] - 1), None)
    if wrong is None:
        return []
    name = Q_ROW if wrong[1] == 0 else Q_EARLIER_ROW
    return [(name, f"{name}: a draft's q came from row {wrong[1]} of the {wrong[2]} rows the head gave after "
             "reading its unread true pairs, not from the last row")]


def _q_unprocessed(events) -> list:
    """Chain rounds that drafted (a target forward fed more than its last token) before which
    the processor never saw a row of the head's logits: named only when no drafting round did."""
    drafting = unprocessed = 0
    seen, prefill = False, True
    for kind, *counts in events:
        if kind == "target":
            if counts[0] > 1 and not prefill:
                drafting += 1
                unprocessed += not seen
            seen, prefill = False, False
        elif kind == "q":
            seen = True
    if not drafting or unprocessed < drafting:
        return []
    return [(Q_UNPROCESSED, f"in none of the {drafting} rounds that drafted was logits_processor called on a row "
             "of the head's logits")]


def _p_unprocessed(events) -> list:
    """Rounds (target forwards after the prefill) after which the processor never saw the target's logits."""
    rounds = unprocessed = 0
    seen = True
    for kind, *_ in events:
        if kind == "target":
            rounds += 1
            unprocessed += rounds > 2 and not seen  # the round before this forward
            seen = False
        elif kind == "p":
            seen = True
    unprocessed += rounds > 1 and not seen
    if rounds < 2 or unprocessed < rounds - 1:
        return []
    return [(P_UNPROCESSED, f"in none of the {rounds - 1} rounds was logits_processor called on the target's "
             "logits of the round's forward")]


def _chain_rounds(prompt, ids, forwards) -> list[tuple[int, int]]:
    """``(end, accepted)`` of each round (forwards after the prefill): the sequence's length
    before it, from what the target was fed and what came out (a round emits its accepted
    drafts and one token; under greedy decoding that token never equals the rejected draft)."""
    sequence, end, found = list(prompt) + list(ids), len(prompt) + 1, []
    for _, _, _, fed_ids in forwards[1:]:
        drafts, n = fed_ids[1:], 0
        while n < len(drafts) and end + n < len(sequence) and sequence[end + n] == drafts[n]:
            n += 1
        found.append((end, n))
        end += n + 1
    return found


def _cache_lengths(forwards, rounds) -> list:
    for number, ((fed, cached, _, _), (end, _)) in enumerate(zip(forwards[1:], rounds), 1):
        if cached != end - 1:
            name = CACHE_SHORT if cached < end - 1 else CACHE_LONG
            return [(name, f"at round {number}'s forward the target's cache held {cached} tokens, where the "
                     f"{end - 1} before the round's last token belong")]
    return []


def _rate(number, gamma, forwards, rounds) -> list:
    made, accepted = sum(fed - 1 for fed, *_ in forwards[1:]), sum(n for _, n in rounds)
    if not made or abs(number - accepted / made) < 1e-9:
        return []
    if abs(number - accepted / (len(rounds) * gamma)) < 1e-9:
        return [(GAMMA_COUNT, f"{number:.4g} is {accepted} accepted / ({len(rounds)} rounds × gamma {gamma}); "
                 f"the rounds drafted {made} tokens, which gives {accepted / made:.4g}")]
    return [(RATE_COUNT, f"the rounds observed drafted {made} tokens and {accepted} were accepted "
             f"({accepted / made:.4g}); it returned {number:.4g}")]


def _depths(prompt, max_gen_len, forwards) -> list:
    total = len(prompt) + max_gen_len
    for round_, (fed, _, positions, _) in enumerate(forwards[1:], 1):
        if positions and len(positions) == fed:
            depth, left = max(positions) - positions[0], total - positions[0] - 1
            if depth > max(left - 1, 0):
                return [(DEPTH, f"round {round_}'s tree was {depth} deep (its positions {positions[0]} … "
                         f"{max(positions)}) with {left} tokens still allowed")]
    return []


def _tree_cache_lengths(forwards) -> list:
    """A tree round's forward whose cache does not end right before its root: the root (the
    text's last token) is fed at its position ``end − 1``, after the ``end − 1`` tokens kept."""
    for round_, (fed, cached, positions, _) in enumerate(forwards[1:], 1):
        if positions and len(positions) == fed and cached != positions[0]:
            name = TREE_CACHE_SHORT if cached < positions[0] else TREE_CACHE_LONG
            return [(name, f"at round {round_}'s forward the target's cache held {cached} tokens, where the "
                     f"{positions[0]} before the round's last token (fed at position {positions[0]}) belong")]
    return []


def leaf_bonus(ids, wrong_at) -> list:
    if wrong_at is None or wrong_at < 1 or wrong_at >= len(ids) or ids[wrong_at] != ids[wrong_at - 1]:
        return []
    return [(LEAF_BONUS, f"the token at position {wrong_at + 1}, wrong, repeats the one before it: under greedy "
             "decoding a parent's row picks the very token of the node accepted below it")]
