"""The shipped pair loads offline, is small, shares a vocabulary and generates."""
import subprocess
import sys

from grader.models import SHIPPED

LOAD_AND_GENERATE = """
from grader import load_pair
from solutions import autoregressive_generate
target, drafter, tokenizer = load_pair(device="cpu")
ids = tokenizer("import os\\n")["input_ids"]
out = autoregressive_generate(ids, target, max_gen_len=12, use_cache=True)
assert len(out) > 0 and all(0 <= t < target.config.vocab_size for t in out), out
assert target.config.vocab_size == drafter.config.vocab_size == len(tokenizer)
assert tokenizer.eos_token_id == 1 and tokenizer.pad_token_id == 0
print(tokenizer.decode(out))
"""


def test_pair_loads_offline_and_generates():
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin",
           "HF_HOME": "/nonexistent-hub-cache"}
    result = subprocess.run([sys.executable, "-c", LOAD_AND_GENERATE], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()


def test_weights_stay_under_40_mb():
    size = sum(f.stat().st_size for f in SHIPPED.rglob("*.safetensors"))
    assert 0 < size < 40 * 2**20, size


def test_model_card_is_there():
    card = (SHIPPED / "MODEL_CARD.md").read_text()
    for topic in ("held-out loss", "α", "greedy agreement", "License", "train_pair.py"):
        assert topic in card, topic
