"""The course's exercises: ids, lessons, the names each takes from an implementation.

``EXPORTS`` is the one list of the names ``lessons`` and ``solutions`` export, by module:
``solutions`` owns it (its ``MODULES`` and each module's ``__all__``, read here as text, never
imported), lessons/__init__.py is written from it (grader/release/lessons.py), and an
exercise's module is the one that exports its functions.
"""
import difflib
import functools
from dataclasses import dataclass

from grader import sources

SEED_BITS = 32  # a check's seed: its draws come from these low bits; above them, how many times its
# default samples the statistical checks draw (1 when none: ``grader grade`` with a config's ``draws``)
MIN_TIME_LIMIT = 15.0  # seconds: a cold start of the check (imports, models) fits in it
TIME_LIMIT_FACTOR = 10  # a learner's loop may be this much slower than the reference

LESSONS = {  # lesson -> its title (Markdown), one per notebook notebooks/<NN>_*.ipynb; README.md's Lessons
    # table is written from these and EXERCISES by `python -m grader.release.readme`
    0: "Sampling and the autoregressive baseline",
    1: "The residual and the verifier, in numpy",
    2: "The vectorised verifier",
    3: "The speculative decoding loop",
    4: "KV caches with rollback",
    5: "N-gram speculation",
    6: "Where the speed comes from",
    7: "The fast loop: a static cache rolled back by position, compiled steps",
    8: "Batches: ragged acceptance, padding that never leaks, where speculation stops paying",
    9: "Token trees: several drafts per position, verified in one target forward",
    10: "Training the drafter: α = 1 − TV, four distillation losses, on-policy data ([docs/distill.md](docs/distill.md))",
    11: "Drafting from the target's own features (EAGLE): a feature head, its loss and its unrolled training-time "
        "test (EAGLE-3), a loop whose verifying forward feeds the next round; chosen children verified as point "
        "masses; EAGLE-2's dynamic tree",
    12: "Drafting without a model (SuffixDecoding): a suffix automaton over the text so far and a suffix array over "
        "the corpus, frequency-scored speculation trees whose size follows the match, verified as point masses in "
        "one target forward; a model drafter's adaptive draft length",
}
WITHOUT_EXERCISES = {  # lesson with no exercise -> what it has the learner do instead
    6: "measures your loop: γ sweep, time breakdown, profile",
}


@functools.cache
def exports() -> dict[str, tuple[str, ...]]:
    """``EXPORTS``: {module of lessons/ and solutions/: the names both packages export from it},
    read on first use (a warm runner's zygote imports this module before any reference is sent)."""
    return sources.exports()


def __getattr__(name: str):
    if name == "EXPORTS":
        return exports()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: int
    title: str
    functions: tuple[str, ...]  # the names the exercise asks the learner to write
    check: str  # "grader.checks.<module>" whose run() grades it
    reference_seconds: float = 0.0  # the check on solutions/, one thread, idle 2-core CPU,
    # compiled artefacts cached (static_cache compiles the shipped pair: ~75 s the first time)
    helpers: tuple[str, ...] = ()  # the module's other stubs the learner writes for it
    needs_reference: str = ""  # what of the reference its check needs, in one line: "" when its check
    # runs on the public reference, so a learners' release checks it; else the autograder alone does,
    # and the release tells its learners this line (grader/release/public.py)

    @property
    def module(self) -> str:
        """The lessons/solutions module that defines the exercise: the one exporting its functions."""
        return next(module for module, names in exports().items() if set(names) & set(self.functions))

    @property
    def withheld(self) -> tuple[str, ...]:
        """The reference names a runner grading this exercise must not hold: what it asks
        for and the helpers the learner writes for it."""
        return self.functions + self.helpers

    @property
    def properties(self) -> int:
        """The properties a complete run of the check evaluates (``COMPLETE_PROPERTIES``): partial
        credit's denominator, so that a check stopped early counts what it never evaluated as not
        held (grader/gradebook/scoring.py); 0 where not counted."""
        return COMPLETE_PROPERTIES.get(self.id, 0)

    @property
    def time_limit(self) -> float:
        """Seconds a check may run before the grader stops it (`--timeout` overrides)."""
        return max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR * self.reference_seconds)


LOOP_NEEDS_REFERENCE = ("a loop's check: its greedy texts are compared with the reference autoregressive_generate's, "
                        "and it runs the loop with the reference's processors")  # every loop's ``needs_reference``

EXERCISES = (
    Exercise("processors", 0, "logits processors: greedy, temperature, top-k, top-p",
             ("LogitsProcessor", "GreedyProcessor", "MultinomialProcessor", "TopKProcessor",
              "NucleusProcessor", "TopKNucleusProcessor", "keep_top_k", "keep_top_p"),
             "grader.checks.processors", 0.7,
             needs_reference="its expected distributions are the reference processors', which the loops' "
                             "checks take as their input"),
    Exercise("autoregressive_generate", 0, "the autoregressive baseline, with and without cache",
             ("autoregressive_generate",), "grader.checks.autoregressive", 6.4,
             needs_reference="its expected texts are the reference autoregressive_generate's, and it "
                             "runs the loop with the reference's processors"),
    Exercise("max_fn", 1, "the residual distribution norm(max(0, x))",
             ("max_fn",), "grader.checks.max_fn", 0.1),
    Exercise("speculative_decoding_verify", 1, "the numpy verifier warm-up",
             ("speculative_decoding_verify",), "grader.checks.verify_numpy", 0.7),
    Exercise("speculative_sampling", 2, "the vectorised draft verifier",
             ("speculative_sampling",), "grader.checks.speculative_sampling", 1.7),
    Exercise("greedy_match", 2, "the greedy draft verifier",
             ("greedy_match",), "grader.checks.greedy_match", 0.1),
    Exercise("speculative_generate", 3, "the speculative decoding loop",
             ("speculative_generate",), "grader.checks.speculative_generate", 10.5,
             helpers=("forward", "draft", "settle", "roll_back", "show_round"), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("kv_cache", 4, "speculative_generate with KV caches and rollback",
             ("speculative_generate",), "grader.checks.kv_cache", 13.6,
             helpers=("forward", "draft", "settle", "roll_back", "show_round"), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("ngram", 5, "drafter-free n-gram speculation",
             ("NGramStorage", "ngram_assisted_speculative_generate"), "grader.checks.ngram", 6.1,
             helpers=("PromptLookup", "propose", "rate"), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("static_cache", 7, "the fast loop: a static cache rolled back by position, compiled steps",
             ("fast_speculative_generate", "fast_autoregressive_generate"), "grader.checks.static_cache",
             35.0, helpers=("draft", "roll_back"), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("batched_verify", 8, "the draft verifier for a batch of rows, each on its own",
             ("batched_speculative_sampling",), "grader.checks.batched_verify", 2.5),
    Exercise("batched_generate", 8, "speculative decoding for a batch of prompts of any lengths",
             ("Lane", "batched_speculative_generate"), "grader.checks.batched_generate", 10.0,
             needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("multi_draft", 9, "several i.i.d. drafts of one position, verified exactly",
             ("multi_draft_sampling",), "grader.checks.multi_draft", 1.2),
    Exercise("tree_attention", 9, "the tree attention mask and the nodes' depths",
             ("tree_layout",), "grader.checks.tree_attention", 0.1),
    Exercise("tree_generate", 9, "speculative decoding with a token tree per round",
             ("tree_speculative_generate",), "grader.checks.tree_generate", 6.4,
             helpers=("draft_tree", "walk_tree"), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("expected_acceptance", 10, "the acceptance probability α = Σ min(p, q) = 1 − TV(p, q)",
             ("expected_acceptance",), "grader.checks.expected_acceptance", 0.1),
    Exercise("distillation_loss", 10, "forward KL, reverse KL, JSD and total variation, with their gradients",
             ("distillation_loss", "divergence", "kl"), "grader.checks.distillation_loss", 0.1),
    Exercise("on_policy_batch", 10, "training rows continued by the drafter, labelled by the target",
             ("on_policy_batch",), "grader.checks.on_policy_batch", 0.1),
    Exercise("train_drafter", 10, "the distillation loop, α measured along held-out continuations",
             ("train_drafter", "held_out_alpha"), "grader.checks.train_drafter", 2.1),
    Exercise("deterministic_children", 11, "the head's top-k children, verified as point masses without replacement",
             ("verify_deterministic_children",), "grader.checks.deterministic_children", 1.0),
    Exercise("feature_draft", 11, "the feature head's step: [feature ; next token's embedding] → one layer → LM head",
             ("feature_draft_step",), "grader.checks.feature_draft", 1.5,
             needs_reference="its expected drafts are the reference feature_draft_step's, on the reference "
                             "tree_layout"),
    Exercise("eagle_loss", 11, "EAGLE's loss: feature regression plus the target's distribution, with gradients",
             ("eagle_loss",), "grader.checks.eagle_loss", 0.1),
    Exercise("unrolled_loss", 11, "EAGLE-3's training-time test: the loss unrolled over the head's own predictions",
             ("unrolled_eagle_loss",), "grader.checks.unrolled_loss", 0.5,
             needs_reference="its expected losses are the reference feature head step's and eagle_loss's"),
    Exercise("eagle_generate", 11, "speculative decoding drafted by a feature head, features from the verifying forward",
             ("eagle_generate",), "grader.checks.eagle_generate", 5.0, helpers=("feature_draft_step",),
             needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("dynamic_tree", 11, "EAGLE-2's tree: expand the most confident nodes, keep the most confident",
             ("grow_tree",), "grader.checks.dynamic_tree", 1.0,
             needs_reference="its expected trees are the reference grow_tree's, its drafts processed by the "
                             "reference's processors"),
    Exercise("eagle_tree_generate", 11, "speculative decoding with the head's dynamic tree, children verified as point masses",
             ("eagle_tree_generate",), "grader.checks.eagle_tree_generate", 6.0,
             helpers=("walk_deterministic_tree", "grow_tree", "feature_draft_step"),
             needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("suffix_index", 12, "a suffix automaton over token ids: the longest match and what follows it, how often",
             ("SuffixIndex",), "grader.checks.suffix_index", 0.2),
    Exercise("suffix_tree", 12, "SuffixDecoding's speculation tree: continuations of the match, best-first by frequency",
             ("speculation_tree",), "grader.checks.suffix_tree", 0.3,
             needs_reference="its expected trees are the reference speculation_tree's"),
    Exercise("suffix_generate", 12, "speculative decoding drafted by suffix matches: one tree per round, point masses",
             ("suffix_speculative_generate",), "grader.checks.suffix_generate", 10.0,
             needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("adaptive_generate", 12, "lesson 4's loop drafting while the drafter is confident: an adaptive draft length",
             ("adaptive_speculative_generate",), "grader.checks.adaptive_generate", 10.0,
             helpers=("draft_while_confident",), needs_reference=LOOP_NEEDS_REFERENCE),
    Exercise("fast_suffix_generate", 12, "the suffix loop made fast: a static cache, one fixed-width verification a round",
             ("fast_suffix_speculative_generate",), "grader.checks.fast_suffix_generate", 12.0,
             needs_reference=LOOP_NEEDS_REFERENCE),
)

BY_ID = {exercise.id: exercise for exercise in EXERCISES}

COMPLETE_PROPERTIES = {  # exercise -> the properties its check evaluates on the reference, run to
    # its end (seed 0): each notebook's check cell holds it to the reference's run (notebooks/conftest.py;
    # tests/test_solutions.py in -m slow), so it cannot drift
    "processors": 24, "autoregressive_generate": 19, "max_fn": 6, "speculative_decoding_verify": 46,
    "speculative_sampling": 47, "greedy_match": 6, "speculative_generate": 47, "kv_cache": 49, "ngram": 93,
    "static_cache": 92, "batched_verify": 56, "batched_generate": 58, "multi_draft": 34, "tree_attention": 18,
    "tree_generate": 72, "expected_acceptance": 8, "distillation_loss": 21, "on_policy_batch": 9,
    "train_drafter": 25, "deterministic_children": 16, "feature_draft": 5, "eagle_loss": 16, "unrolled_loss": 16,
    "eagle_generate": 32, "dynamic_tree": 15, "eagle_tree_generate": 32,
    "suffix_index": 11, "suffix_tree": 26, "suffix_generate": 35, "adaptive_generate": 37,
    "fast_suffix_generate": 39,
}


def draws(seed: int) -> int:
    """How many times their default samples the checks draw under ``seed``: its bits above
    SEED_BITS, 1 when none. The seed a verdict shows carries them, so ``grader check --seed``
    redraws as many samples as were graded."""
    return max(1, seed >> SEED_BITS)


def with_draws(seed: int, times: int) -> int:
    """``seed`` (below 2**SEED_BITS) carrying ``times`` the default samples (``draws``)."""
    return seed | (times << SEED_BITS) if times > 1 else seed


def get(exercise_id: str) -> Exercise:
    try:
        return BY_ID[exercise_id]
    except KeyError:
        raise ValueError(unknown_message(exercise_id)) from None


def unknown_message(name: str) -> str:
    """What is wrong with an unknown id, with a "did you mean" for a near miss (max-fn)."""
    normalised = name.strip().lower().replace("-", "_").replace(" ", "_")
    close = difflib.get_close_matches(normalised, BY_ID, n=1, cutoff=0.6)
    guess = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown exercise {name!r}{guess}; expected one of: {', '.join(BY_ID)}"
