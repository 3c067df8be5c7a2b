"""Check `autoregressive_generate`: greedy output against the reference loop, end tokens,
``max_gen_len``, what the cache is fed, and the exact law of sampled sequences. The
reference's outputs and the exact law are the decider's alone (grader/judges/loop_properties.py)."""
from itertools import zip_longest

from grader.checks.harness import CheckRun
from grader.observers.recording import RecordingModel
from grader.oracle import tiny
from solutions import sampling

NO_EOS = 10**6  # an end token the tiny models can never produce
LAW_DRAWS = 600
LAW_LENGTH = 3
LAW_CASES = [  # (processor, prompt, use_cache); the tiny models' eos (1) ends sequences early
    (sampling.MultinomialProcessor(temperature=1.0), [0], False),
    (sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], True),
    (sampling.TopKProcessor(temperature=1.0, top_k=3), [3], True),
    (sampling.NucleusProcessor(temperature=1.0, top_p=0.8), [4, 2], False),
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
        check_law(check, generate, models["tiny Llama"], *case)


def generated(check: CheckRun, generate, *args, what: str, **kwargs) -> list[int]:
    ids = check.call(generate, *args, what=what, **kwargs)
    if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        check.fail("return type", f"returned {type(ids).__name__} {str(ids)[:80]} {what}; "
                   "expected a list of Python ints (the generated ids, prompt excluded); "
                   "`tensor.tolist()` gives one")
    return ids


def check_greedy(check, generate, model, label, prompt, use_cache):
    ids = generated(check, generate, prompt, model, max_gen_len=8, eos_tokens_id=NO_EOS,
                    use_cache=use_cache, what=f"({label})")
    check.judge("loop_properties.greedy", "greedy output", ids, model, prompt, GREEDY_HINT,
                "gave {ids}; greedy decoding gives {expected}", case=label, max_gen_len=8, eos_tokens_id=NO_EOS)


def check_end_tokens(check, generate, model):
    """Two end tokens of the learner's own greedy text (the one of ``max_gen_len=10``): the
    later one alone, then both (the earlier must win); the judge holds the outputs to the
    reference's."""
    free = generated(check, generate, [5], model, max_gen_len=10, eos_tokens_id=NO_EOS,
                     what="(max_gen_len=10)")
    firsts = sorted({t: i for i, t in reversed(list(enumerate(free)))}.items(), key=lambda x: x[1])
    (early, _), (late, _) = (firsts[0], firsts[-1]) if firsts else ((NO_EOS, 0), (NO_EOS, 0))
    for eos, (prop, case), hint in ((late, ("end token", "int"), "stop right after the first end token "
                                     "and include it in the output"),
                                    ([late, early], ("end tokens", "list"), "with a list, stop at whichever "
                                     "end token comes first in the text, not at the first one listed")):
        ids = generated(check, generate, [5], model, max_gen_len=10, eos_tokens_id=eos,
                        what=f"(eos_tokens_id={eos})")
        check.judge("loop_properties.greedy", prop, ids, model, [5], hint,
                    f"with eos_tokens_id={eos} gave {{ids}}; expected {{expected}}", case=case,
                    max_gen_len=10, eos_tokens_id=eos)
    for length in (1, 10):
        ids = free if length == 10 else generated(check, generate, [5], model, max_gen_len=length,
                                                  eos_tokens_id=NO_EOS, what=f"(max_gen_len={length})")
        check.require(f"max_gen_len={length}", len(ids) == length,
                      f"gave {len(ids)} tokens; expected exactly {length} when no end token comes")


def check_forwards(check, generate, model, use_cache):
    recorder = RecordingModel(model, check.observation)
    prompt = [2, 3, 4]
    generated(check, generate, prompt, recorder, max_gen_len=5, eos_tokens_id=NO_EOS,
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


def check_shipped_pair(check, generate):
    from grader.models import SHIPPED_MISSING, SHIPPED_TARGET, load_model, shipped_pair_present

    if not shipped_pair_present():
        check.skip("the shipped pair", SHIPPED_MISSING)
        return
    from transformers import AutoTokenizer

    target = load_model(SHIPPED_TARGET, device="cpu")
    tokenizer = AutoTokenizer.from_pretrained(SHIPPED_TARGET)
    prompt = tokenizer("def read_config(path):\n")["input_ids"]
    ids = generated(check, generate, prompt, target, max_gen_len=16, use_cache=True,
                    what="(the shipped target, greedy, use_cache=True)")
    check.judge("loop_properties.greedy", "greedy output", ids, target, prompt,
                said="gave {ids}; greedy decoding gives {expected}", case="shipped target", max_gen_len=16,
                use_cache=True)


def check_law(check, generate, model, processor, prompt, use_cache):
    label = f"{processor!r}, prompt {prompt}, use_cache={use_cache}"
    check.seed_everything(label)
    samples = [tuple(generated(check, generate, prompt, model, max_gen_len=LAW_LENGTH,
                               logits_processor=processor, eos_tokens_id=1,
                               use_cache=use_cache, what=f"({label})"))
               for _ in range(LAW_DRAWS * check.draws)]
    check.judge("loop_properties.first_tokens", f"law of the first {LAW_LENGTH} tokens", samples,
                model, prompt, LAW_LENGTH, processor, 1, LAW_HINT, case=label)
