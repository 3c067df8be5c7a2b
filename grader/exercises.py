"""The course's exercises: ids, lessons, the names each takes from an implementation."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: int
    title: str
    functions: tuple[str, ...]  # the names the exercise asks the learner to write
    module: str  # the lessons/solutions module that defines them
    check: str | None  # "grader.checks.<module>" whose run() grades it; None: coming


EXERCISES = (
    Exercise("processors", 0, "logits processors: greedy, temperature, top-k, top-p",
             ("LogitsProcessor", "GreedyProcessor", "MultinomialProcessor", "TopKProcessor",
              "NucleusProcessor", "TopKNucleusProcessor", "keep_top_k", "keep_top_p"),
             "sampling", "grader.checks.processors"),
    Exercise("autoregressive_generate", 0, "the autoregressive baseline, with and without cache",
             ("autoregressive_generate",), "autoregressive", "grader.checks.autoregressive"),
    Exercise("max_fn", 1, "the residual distribution norm(max(0, x))",
             ("max_fn",), "residual", "grader.checks.max_fn"),
    Exercise("speculative_decoding_verify", 1, "the numpy verifier warm-up",
             ("speculative_decoding_verify",), "verification", "grader.checks.verify_numpy"),
    Exercise("speculative_sampling", 2, "the vectorised draft verifier",
             ("speculative_sampling",), "verification", "grader.checks.speculative_sampling"),
    Exercise("greedy_match", 2, "the greedy draft verifier",
             ("greedy_match",), "verification", "grader.checks.greedy_match"),
    Exercise("speculative_generate", 3, "the speculative decoding loop",
             ("speculative_generate",), "speculative", "grader.checks.speculative_generate"),
    Exercise("kv_cache", 4, "speculative_generate with KV caches and rollback",
             ("speculative_generate",), "speculative", "grader.checks.kv_cache"),
    Exercise("ngram", 5, "drafter-free n-gram speculation",
             ("NGramStorage", "ngram_assisted_speculative_generate"), "ngram", "grader.checks.ngram"),
)

BY_ID = {exercise.id: exercise for exercise in EXERCISES}


def get(exercise_id: str) -> Exercise:
    try:
        return BY_ID[exercise_id]
    except KeyError:
        known = ", ".join(BY_ID)
        raise ValueError(f"unknown exercise {exercise_id!r}; expected one of: {known}") from None
