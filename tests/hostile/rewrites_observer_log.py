"""autoregressive_generate that never uses a cache, then rewrites the log of forwards that
the grader's recording model keeps, so that with use_cache=True it reads as cached."""
import torch

from grader.observers.recording import Forward


def autoregressive_generate(inputs, model, max_gen_len=40, logits_processor=None,
                            eos_tokens_id=1, pad_token_id=0, use_cache=False, debug=False):
    ends = set(eos_tokens_id if isinstance(eos_tokens_id, list) else [eos_tokens_id])
    ids = list(inputs)
    for _ in range(max_gen_len):
        logits = model(torch.tensor([ids])).logits[0, -1]
        token = (int(logits.argmax()) if logits_processor is None
                 else int(logits_processor.sample(logits_processor(logits))))
        ids.append(token)
        if token in ends:
            break
    forwards = getattr(model, "forwards", None)
    if use_cache and forwards:
        prompt = len(inputs)
        forwards[:] = [Forward(fed=prompt if i == 0 else 1, cached=0 if i == 0 else prompt + i - 1,
                               **{k: v for k, v in vars(f).items() if k not in ("fed", "cached")})
                       for i, f in enumerate(forwards)]
    return ids[len(inputs):]
