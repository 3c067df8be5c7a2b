"""Check `fast_suffix_speculative_generate` (lesson 12), the suffix loop with lesson 7's static
cache and fixed-width verification step: every property of the suffix_generate check, on the
same cases and draws (grader/checks/suffix_generate.py), run eagerly (``compile=False``: the
same code the compiled step runs, on the tiny models, where the laws are exact). Its judges
(grader/judges/fast_suffix_generate.py) compare with the reference FAST loop: the greedy
mean_accepted (the same trees as the eager loop's) and the target's forwards, one of width
``max_nodes + 1`` per round with the static cache's counter where the reference leaves it (a path
kept without moving the counter back shows there; one whose keys stayed in their tree slots, in
the greedy text).

Then lesson 7's cache discipline, observed with the static_cache check's own observers and
requirements (grader/checks/static_cache.py): two calls on the same wrapped target, each with
one ``StaticCache`` for all its forwards and few host reads (a round reads its walk, one read or
two per tree level, its result and its emitted tokens; none per node).

Not checked: the loop compiled. A compiled run in the sandboxed runner failed to load the compile
cache's artifact of the verification step and compiled it again, round after round, past the
check's time limit (a correct loop passed in 18 s unsandboxed and timed out at 250 s sandboxed);
until that is understood, the compiled step's one graph is measured by `grader bench`, not graded."""
from grader.checks import static_cache, suffix_generate
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import GREEDY_LENGTH
from grader.observers.host_syncs import HostSyncCounter
from grader.observers.trace import LoggedModel

GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text: ONE fixed-width forward "
               "over the last token, the tree's nodes and padding, with a mask over the whole static cache, "
               "scores every node as a plain forward over its own path would; and a kept path's keys and values "
               "must sit right after the root before the next round reads them.",
               "static_tree_attention(mask, depths, end − 1, W, target_model.length, dtype), then "
               "target_model.run(tree_verify_step, ...); walk_deterministic_tree(p[:N + 1], parents, nodes); after "
               "the walk keep_path(target_model.cache, end − 1, rows, W) (row x of the verification sits at "
               "slot end − 1 + x)")
DISCIPLINE_PROMPTS = ([2, 3], [1, 4, 0])  # two calls on the same wrapped target, the greedy corpus
DISCIPLINE_SHAPE = {"max_nodes": 6, "threshold": 0.05}
READS_PER_ROUND = 3  # the walk's last level, settle's (n, first stop), the emitted tokens
READS_PER_LEVEL = 2  # an accepted level of the walk: is it the child? which child? (the reference reads both)
SYNC_ALLOWANCE = 3  # the prefill's first token and its end test, and one spare
STATIC_CACHE_HINT = ("a static cache is allocated once, at a fixed size, so that the compiled step always sees the "
                     "same shapes; a new one each round also loses the text's keys and values.",
                     "target_model = static_model(target, \"target\", L + W, compile) once, before the loop (it "
                     "keeps one StaticModel per model across calls), then target_model.prefill and "
                     "target_model.run(tree_verify_step, ...) with target_model.cache in every round")
SYNC_HINT = ("on a GPU each read of a tensor on the host waits for the device to finish: a round may read what "
             "the walk needs at each level of the tree, its result once and the tokens it emits once, never a "
             "value per tree node.",
             "write the nodes with one tensor (ids[0, end:end + N] = torch.tensor(tokens)); read n and the first "
             "end token together (settle) and the emitted tokens with one .tolist()")


def run(check: CheckRun) -> None:
    name = "fast_suffix_speculative_generate"
    suffix_generate.graded(check, name, GREEDY_HINT, observed=check_discipline, compile=False)


def check_discipline(check: CheckRun, generate, target, indexes: dict) -> None:
    """Two greedy calls on the same wrapped target (``generate``: the learner's loop, eager),
    each judged from its own forwards and host reads: one StaticCache, and at most
    ``READS_PER_ROUND`` reads a round and ``READS_PER_LEVEL`` per accepted node besides
    ``SYNC_ALLOWANCE``. The accepted nodes are counted from what was observed (the tokens
    emitted after the prefill's, less one per round), not from the loop's mean_accepted."""
    log = []
    with HostSyncCounter(check.observation) as syncs:
        wrapped = syncs.uncounted(LoggedModel(target, "target", log, check.observation))
        for call, prompt in enumerate(DISCIPLINE_PROMPTS, 1):
            label = f"greedy corpus, prompt {prompt}, {suffix_generate.described(DISCIPLINE_SHAPE)}, call {call}"
            log.clear()
            syncs.count = 0
            ids, _ = suffix_generate.generated(check, generate, prompt, wrapped, indexes["greedy"], **DISCIPLINE_SHAPE,
                                               max_gen_len=GREEDY_LENGTH,
                                               what=f"(greedy, {label}, the target wrapped to record forwards)")
            rounds = max(len(log) - 1, 0)  # the first forward is the prefill
            accepted = max(len(ids) - 1 - rounds, 0) if isinstance(ids, list) else 0
            allowed = SYNC_ALLOWANCE + READS_PER_ROUND * rounds + READS_PER_LEVEL * accepted
            with check.observing():
                static_cache.require_one_static_cache(check, "target", list(log), label, STATIC_CACHE_HINT)
                static_cache.require_host_reads(check, "host reads per round and tree level", syncs.count, allowed,
                                                f"{rounds} rounds and {accepted} accepted nodes", SYNC_HINT,
                                                case=label)

