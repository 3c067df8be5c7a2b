"""`grader audit lessons --loop suffix_speculative_generate` (and its fast form): lesson 12's loops,
drafted from a suffix index rather than a model, through the audit's adapter; on the tiny pair the
exact laws pass the reference and fail a loop that verifies each node with its parent's row."""
import json

import numpy as np
import pytest

from grader import cli
from grader.audit import SUFFIX_LOOPS, adapters, pit
from grader.audit.draws import draw
from grader.audit.exact import exact_audit
from grader.models import load_pair, shipped_pair_present
from grader.models.corpus import held_out_prompts
from grader.studies import mutants
from solutions import suffix

SETTINGS = adapters.Sampling(0.8, None, 0.95)  # grader audit's defaults
needs_shipped = pytest.mark.skipif(not shipped_pair_present(), reason="the shipped pair is missing")
ROW_LATE = mutants.Mutant(  # the "a tree row late": node i verified with its parent's p
    "suffix_tree_row_late", "each node verified with its parent's row of p", ("audit",), "suffix",
    [("path, token = walk_deterministic_tree(processor(logits[0]), parents, nodes)",
      "path, token = walk_deterministic_tree(processor(torch.cat([logits[0, :1], logits[0, :-1]])), parents, nodes)")])


@pytest.fixture(scope="module")
def shipped():
    """The shipped pair, four prompts, and a corpus index of other held-out text (cheap to build)."""
    target, drafter, tokenizer = load_pair("cpu")
    prompts = held_out_prompts(tokenizer, 8, 32)
    return target, drafter, prompts[:4], suffix.CorpusIndex(np.array([t for p in prompts[4:] for t in p], np.int32))


@needs_shipped
@pytest.mark.parametrize("loop", SUFFIX_LOOPS)
def test_lesson_12_loops_run_through_the_adapter_with_a_corpus(loop, shipped):
    """A few texts of the contract's length, drafted without a drafter model (the region tests
    then read the pair's drafter)."""
    target, drafter, prompts, corpus = shipped
    adapter = adapters.make("lessons", target, drafter, SETTINGS, 8, 3, "solutions", loop, corpus=corpus)
    assert adapter.drafter is None and "from the text and the corpus" in adapter.name
    record = draw(adapter, prompts, 4, 8, seed=0, region_model=drafter)
    assert record.outputs.shape == (4, 8)
    assert sum(t.name.startswith("PIT uniformity (KS)") for t in pit.audit_tests(record.token_stats)) == 9


@needs_shipped
@pytest.mark.slow
def test_the_command_audits_the_suffix_loop_with_the_shipped_corpus(capsys):
    """The command reads the implementation's corpus index (built once and cached on disk)."""
    assert cli.main(["audit", "lessons", "--impl", "solutions", "--loop", "suffix_speculative_generate",
                     "--texts", "8", "--new-tokens", "8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] and "from the text and the corpus" in report["sampler"]


@pytest.mark.slow
def test_exact_audit_of_the_suffix_loop_passes_the_reference_and_fails_a_tree_row_late(tmp_path):
    """On the tiny pair the loop drafts from the text's own index (no corpus fits its vocabulary);
    109 s for the reference at load 12 here, as long again for the mutant."""
    tests, cases = exact_audit("lessons", seed=0, impl="solutions", loop="suffix_speculative_generate", draws=60)
    assert not any(t.rejected for t in tests) and all("the text's suffix index" in c.label for c in cases)
    tests, _ = exact_audit("lessons", seed=0, impl=str(mutants.build(ROW_LATE, tmp_path)),
                           loop="suffix_speculative_generate", draws=60)
    assert any(t.rejected for t in tests)
