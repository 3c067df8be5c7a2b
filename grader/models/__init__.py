"""The course's shipped target/drafter pair, and any other pair a user names.

The shipped pair lives in ``grader/models/shipped/`` (see its MODEL_CARD.md); loading it
never touches the network. ``--target``/``--drafter`` elsewhere accept a local directory
or a hub id (``meta-llama/Llama-3.2-3B``), which transformers resolves from its local
cache when offline. Beside it: ``corpus`` (the text it was trained on, and held-out
prompts) and ``synthetic`` (a benchmark pair built, not trained, at any size).
"""
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as transformers_logging

SHIPPED = Path(__file__).parent / "shipped"
SHIPPED_TARGET = str(SHIPPED / "target")
SHIPPED_DRAFTER = str(SHIPPED / "drafter")
SHIPPED_FEATURE_HEAD = str(SHIPPED / "feature_head")  # lesson 11's drafter for the shipped target
SHIPPED_MISSING = ("the shipped models are missing from grader/models/shipped/ (a checkout without them): "
                   "reinstall the course, or restore that folder with git")


def shipped_pair_present() -> bool:
    return all((Path(path) / "config.json").is_file() for path in (SHIPPED_TARGET, SHIPPED_DRAFTER))


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(name_or_path: str, device: str | None = None, dtype: torch.dtype | None = None):
    """A causal LM in eval mode on ``device`` (CUDA when there is one), in ``dtype``."""
    local = Path(name_or_path).is_dir()
    transformers_logging.disable_progress_bar()  # keeps notebooks and the demo readable
    model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=dtype or "auto",
                                                 local_files_only=local)
    return model.to(device or default_device()).eval()


def load_pair(device: str | None = None, dtype: torch.dtype | None = None,
              target: str = SHIPPED_TARGET, drafter: str = SHIPPED_DRAFTER):
    """(target, drafter, tokenizer); by default the shipped pair, loaded offline.

    The tokenizer is the target's; the two models must share its vocabulary.
    """
    target_model = load_model(target, device, dtype)
    drafter_model = load_model(drafter, device, dtype)
    tokenizer = AutoTokenizer.from_pretrained(target, local_files_only=Path(target).is_dir())
    if target_model.config.vocab_size != drafter_model.config.vocab_size:
        raise ValueError(f"target and drafter vocabularies differ: "
                         f"{target_model.config.vocab_size} vs {drafter_model.config.vocab_size}; "
                         "speculative decoding needs one shared vocabulary")
    return target_model, drafter_model, tokenizer
