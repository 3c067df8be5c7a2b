"""Train the course's shipped target/drafter pair on the Python standard library's source.

The corpus is the ``.py`` files of the running interpreter's standard library (test
suites and IDLE left out), so every machine has it offline. Steps:

1. a byte-level BPE tokenizer (``tokenizers``), saved as a transformers tokenizer with
   ``<pad>`` = 0, ``</s>`` = 1 (end of text) and ``<s>`` = 2, matching the course's
   default ``pad_token_id=0`` and ``eos_tokens_id=1``;
2. the target: a Llama (``--target-layers``, ``--target-hidden``) trained with cross-entropy;
3. the drafter: a one-layer Llama (``--drafter-layers``, ``--drafter-hidden``) distilled from
   the target's next-token distributions with lesson 10's ``distillation_loss``
   (``--objective``: forward KL, as shipped, reverse KL, JSD or total variation). When the
   two widths match it starts from the target's embeddings, final norm and first
   ``--drafter-layers`` layers.

Both are written with ``save_pretrained`` (safetensors, float32) into ``--out``.
One file in fifty is held out; ``scripts/measure_pair.py`` reports on it.

    python scripts/train_pair.py --out grader/models/shipped
"""
import argparse
import math
import time
from pathlib import Path

import torch
import torch.nn.functional as F
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from grader.models.corpus import corpus_files, encode, random_windows, read
from solutions.distill import KINDS, distillation_loss

SPECIAL_TOKENS = ["<pad>", "</s>", "<s>"]


def train_tokenizer(files: list[Path], vocab_size: int) -> PreTrainedTokenizerFast:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator((read(f) for f in files), trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", bos_token="<s>"
    )


def llama(vocab_size: int, layers: int, hidden: int):
    """A Llama with tied embeddings, heads of width 32 and an MLP three times as wide."""
    config = LlamaConfig(
        vocab_size=vocab_size,
        hidden_size=hidden,
        intermediate_size=3 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=hidden // 32,
        num_key_value_heads=hidden // 32,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        pad_token_id=0,
        eos_token_id=1,
        bos_token_id=2,
    )
    return LlamaForCausalLM(config)


def start_from_target(drafter, target):
    """Copy the target's embeddings (tied to the head), final norm and first layers."""
    drafter.model.embed_tokens.load_state_dict(target.model.embed_tokens.state_dict())
    drafter.model.norm.load_state_dict(target.model.norm.state_dict())
    for mine, theirs in zip(drafter.model.layers, target.model.layers):
        mine.load_state_dict(theirs.state_dict())


def lr_at(step: int, steps: int, peak: float, warmup: int = 100) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, steps - warmup)))


def fit(model, loss_fn, data, steps: int, peak_lr: float, name: str):
    """AdamW with warm-up and cosine decay, bf16 autocast; ``loss_fn(model, x, y)``."""
    opt = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=0.1, betas=(0.9, 0.95))
    model.train()
    start = time.time()
    for step in range(steps):
        x, y = next(data)
        for group in opt.param_groups:
            group["lr"] = lr_at(step, steps, peak_lr)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = loss_fn(model, x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"{name} step {step}/{steps} loss {loss.item():.3f} ({time.time() - start:.0f}s)", flush=True)
    model.eval()
    return model


def cross_entropy(model, x, y):
    logits = model(x).logits
    return F.cross_entropy(logits.float().flatten(0, 1), y.flatten())


def distillation(target, objective: str):
    """The ``objective`` divergence of the drafter from the target per position, averaged."""

    def loss(model, x, y):
        with torch.no_grad():
            target_logits = target(x).logits.float()
        return distillation_loss(target_logits.flatten(0, 1), model(x).logits.float().flatten(0, 1), objective)

    return loss


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("grader/models/shipped"))
    parser.add_argument("--vocab-size", type=int, default=4096)
    parser.add_argument("--target-steps", type=int, default=3000)
    parser.add_argument("--drafter-steps", type=int, default=1200)
    parser.add_argument("--target-layers", type=int, default=12)
    parser.add_argument("--target-hidden", type=int, default=128)
    parser.add_argument("--drafter-layers", type=int, default=1)
    parser.add_argument("--drafter-hidden", type=int, default=128)
    parser.add_argument("--target-from", type=Path,
                        help="a target saved by an earlier run: skip its training, distil a drafter from it")
    parser.add_argument("--drafter-from", type=Path,
                        help="a drafter saved by an earlier run: go on distilling it instead of starting afresh")
    parser.add_argument("--drafter-lr", type=float, default=3e-3)
    parser.add_argument("--objective", choices=KINDS, default="forward_kl",
                        help="the drafter's distillation loss (lesson 10's distillation_loss)")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seq", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_files, _ = corpus_files()
    tokenizer = train_tokenizer(train_files, args.vocab_size)
    tokens = encode(train_files, tokenizer)
    print(f"{len(train_files)} training files, {len(tokens):,} tokens", flush=True)
    gen = torch.Generator().manual_seed(args.seed)

    if args.target_from:
        target = LlamaForCausalLM.from_pretrained(args.target_from)
    else:
        target = llama(args.vocab_size, args.target_layers, args.target_hidden)
        fit(target, cross_entropy, random_windows(tokens, args.batch, args.seq, gen), args.target_steps, 3e-3, "target")

    if args.drafter_from:
        drafter = LlamaForCausalLM.from_pretrained(args.drafter_from)
    else:
        drafter = llama(args.vocab_size, args.drafter_layers, args.drafter_hidden)
        if args.drafter_hidden == args.target_hidden:
            start_from_target(drafter, target)
    data = random_windows(tokens, args.batch, args.seq, gen)
    fit(drafter, distillation(target, args.objective), data, args.drafter_steps, args.drafter_lr, "drafter")

    for name, model in (("target", target), ("drafter", drafter)):
        model.save_pretrained(args.out / name)
        tokenizer.save_pretrained(args.out / name)
    print(f"saved to {args.out}")


if __name__ == "__main__":
    main()
