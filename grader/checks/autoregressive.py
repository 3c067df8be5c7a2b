"""Check `autoregressive_generate`: greedy output against the reference loop, end tokens,
``max_gen_len``, what the cache is fed, and the exact law of sampled sequences. The
reference's outputs and the exact law are the decider's alone (grader/judges/loop_properties.py)."""
from itertools import zip_longest

from grader.checks import loop_properties as suite
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import NO_EOS, SAID, Greedy, LawCase, Samples
from grader.observers.recording import RecordingModel
from grader.oracle import tiny
from solutions import sampling

LAW_DRAWS = 600
LAW_LENGTH = 3


def law_case(number: int, processor: sampling.LogitsProcessor, prompt: list[int], use_cache: bool) -> LawCase:
    """A law case of ``LAW_DRAWS`` runs of ``LAW_LENGTH`` tokens; the tiny models' eos (1)
    ends sequences early."""
    return LawCase(f"law-{number}", f"{processor!r}, prompt {prompt}, use_cache={use_cache}", LAW_DRAWS, processor,
                   prompt, LAW_LENGTH, eos=1, shape={"use_cache": use_cache})


LAW_CASES = [
    law_case(1, sampling.MultinomialProcessor(temperature=1.0), [0], False),
    law_case(2, sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], True),
    law_case(3, sampling.TopKProcessor(temperature=1.0, top_k=3), [3], True),
    law_case(4, sampling.NucleusProcessor(temperature=1.0, top_p=0.8), [4, 2], False),
]
GREEDY_HINT = ("each step predicts the next token from everything so far and appends it; the output is "
               "the new tokens only.",
               "at every step take the logits of the last position, append the chosen token, and return "
               "only the new tokens; with the cache, feed only the tokens the model has not seen yet.",
               "logits = model(ids).logits[0, -1]; token = logits_processor.sample(logits_processor(logits))")
CACHED_FEED_HINT = ("with the cache, the model keeps what it has seen: the first forward takes the prompt, "
                    "every later one only the token just generated.",
                    "model(ids[:, cache.get_seq_length():], cache=cache), one DynamicCache for the call")
FULL_FEED_HINT = ("without the cache, the model remembers nothing between forwards: every forward takes "
                  "the whole sequence so far.")
LAW_HINT = ("each token must be drawn from the processed distribution of the next token given "
            "everything so far, and the text must end right after an end token.",
            "probs = logits_processor(logits of the last position); token = logits_processor.sample(probs)")


def run(check: CheckRun) -> None:
    generate = check.function("autoregressive_generate")
    models = {"tiny Llama": tiny.tiny_llama(seed=11), "tiny GPT-2": tiny.tiny_gpt2(seed=12)}
    for use_cache in (False, True):  # first: a wrong feed explains the wrong outputs below
        check_forwards(check, generate, models["tiny GPT-2"], use_cache)
    for model_name, model in models.items():
        for prompt in ([0], [2, 3, 4]):
            for use_cache in (False, True):
                check_greedy(check, generate, model, f"{model_name}, prompt {prompt}, "
                             f"use_cache={use_cache}", prompt, use_cache)
    check_end_tokens(check, generate, models["tiny Llama"])
    check_shipped_pair(check, generate)
    for case in LAW_CASES:
        check_law(check, generate, models["tiny Llama"], case)


def check_greedy(check: CheckRun, generate, model, label: str, prompt: list[int], use_cache: bool) -> None:
    ids = suite.generated(check, generate, prompt, model, max_gen_len=8, eos_tokens_id=NO_EOS,
                          use_cache=use_cache, what=f"({label})")
    suite.GREEDY_JUDGE(check, Greedy("greedy output", ids, model, prompt, {"max_gen_len": 8, "eos_tokens_id": NO_EOS},
                                     GREEDY_HINT, "gave {ids}; greedy decoding gives {expected}", case=label))


def check_end_tokens(check: CheckRun, generate, model) -> None:
    """Two end tokens of the learner's own greedy text (the one of ``max_gen_len=10``): the
    later one alone, then both (the earlier must win); the judge holds the outputs to the
    reference's."""
    free = suite.generated(check, generate, [5], model, max_gen_len=10, eos_tokens_id=NO_EOS,
                           what="(max_gen_len=10)")
    (_, early), (_, late) = suite.end_tokens_in(free, range(len(free)))
    for eos, (prop, case), hint in ((late, ("end token", "int"), "stop right after the first end token "
                                     "and include it in the output"),
                                    ([late, early], ("end tokens", "list"), "with a list, stop at whichever "
                                     "end token comes first in the text, not at the first one listed")):
        ids = suite.generated(check, generate, [5], model, max_gen_len=10, eos_tokens_id=eos,
                              what=f"(eos_tokens_id={eos})")
        suite.GREEDY_JUDGE(check, Greedy(prop, ids, model, [5], {"max_gen_len": 10, "eos_tokens_id": eos}, hint,
                                         f"with eos_tokens_id={eos} {SAID}", case=case))
    for length in (1, 10):
        ids = free if length == 10 else suite.generated(check, generate, [5], model, max_gen_len=length,
                                                        eos_tokens_id=NO_EOS, what=f"(max_gen_len={length})")
        check.require(f"max_gen_len={length}", len(ids) == length,
                      f"gave {len(ids)} tokens; expected exactly {length} when no end token comes")


def check_forwards(check: CheckRun, generate, model, use_cache: bool) -> None:
    recorder = RecordingModel(model, check.observation)
    prompt = [2, 3, 4]
    suite.generated(check, generate, prompt, recorder, max_gen_len=5, eos_tokens_id=NO_EOS,
                    use_cache=use_cache, what=f"(use_cache={use_cache})")
    fed = [(f.fed, f.cached) for f in recorder.forwards]
    if use_cache:
        expected = [(len(prompt), 0)] + [(1, len(prompt) + k) for k in range(4)]
    else:
        expected = [(len(prompt) + k, 0) for k in range(5)]
    table = [["forward", "tokens fed", "cached", "expected fed", "expected cached"]]
    rows = zip_longest(fed, expected, fillvalue=("-", "-"))  # "-": no such forward
    table += [[str(i), *map(str, yours), *map(str, wanted)] for i, (yours, wanted) in enumerate(rows, 1)]
    with check.observing():
        check.require(f"forwards with use_cache={use_cache}", fed == expected,
                      f"the model was fed other tokens than expected, forward by forward (prompt "
                      f"of {len(prompt)}, 5 new tokens)", CACHED_FEED_HINT if use_cache else FULL_FEED_HINT, table)


def check_shipped_pair(check: CheckRun, generate) -> None:
    from grader.models import SHIPPED_MISSING, SHIPPED_TARGET, load_model, shipped_pair_present

    if not shipped_pair_present():
        check.skip("the shipped pair", SHIPPED_MISSING)
        return
    from transformers import AutoTokenizer

    target = load_model(SHIPPED_TARGET, device="cpu")
    tokenizer = AutoTokenizer.from_pretrained(SHIPPED_TARGET)
    prompt = tokenizer("def read_config(path):\n")["input_ids"]
    ids = suite.generated(check, generate, prompt, target, max_gen_len=16, use_cache=True,
                          what="(the shipped target, greedy, use_cache=True)")
    suite.GREEDY_JUDGE(check, Greedy("greedy output", ids, target, prompt, {"max_gen_len": 16, "use_cache": True},
                                     said="gave {ids}; greedy decoding gives {expected}", case="shipped target"))


def check_law(check: CheckRun, generate, model, case: LawCase) -> None:
    check.seed_everything(case.label)
    samples = [tuple(suite.generated(check, generate, case.prompt, model, **case.keywords,
                                     what=f"({case.label})"))
               for _ in range(case.draws * check.draws)]
    suite.LAW_JUDGE(check, Samples(samples, model, case, LAW_HINT, per_token=False))
