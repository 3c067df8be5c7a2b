"""Lesson 9: the tree layout, multi-draft verification and typical acceptance in closed form
(against brute-force enumeration), the exact law of the tree loop, the reference loop's
forwards, cache and host syncs, what the check's scenarios claim, the grader's verdict on
typical acceptance, and `grader bench --trees`."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import DynamicCache

from grader import exercises
from grader.bench import tree_shapes
from grader.checks import tree_attention, tree_generate
from grader.checks.loop_properties import NO_EOS, drafted_end_tokens, models
from grader.observers.host_syncs import HostSyncCounter
from grader.observers.trace import traced
from grader.oracle import laws, tree_laws
from grader.studies import mutant_laws, mutants
from grader.studies.in_process import replayed
from grader.verdict import FAILED, format_text
from solutions import sampling
from solutions.autoregressive import autoregressive_generate
from solutions.trees import (
    multi_draft_sampling,
    tree_forward,
    tree_layout,
    tree_parents,
    tree_speculative_generate,
    typical_acceptance,
)
from tests.conftest import run_grader

TARGET, DRAFTERS = models()
NEAR = DRAFTERS["near"]
T1 = sampling.MultinomialProcessor(temperature=1.0)
RNG = np.random.default_rng(9)


def test_tree_layout_by_hand():
    mask, depths = tree_layout([-1, -1, 0, 2])
    assert mask.dtype == torch.bool and depths.dtype == torch.long
    assert mask.int().tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1, 1]]
    assert depths.tolist() == [1, 1, 2, 3]
    assert tree_layout([])[0].shape == (0, 0)


def test_tree_parents_are_level_order():
    assert tree_parents((2, 2)) == [-1, -1, 0, 0, 1, 1]
    assert tree_parents((3, 1)) == [-1, -1, -1, 0, 1, 2]
    assert tree_parents((2, 2, 1)) == [-1, -1, 0, 0, 1, 1, 2, 3, 4, 5]
    assert tree_parents(()) == []


def enumerated(p, q, m, accept, final):
    """The law of (index, token) by enumerating every draft tuple: ``accept(i, x)`` is the
    probability that draft i, equal to x, is accepted when reached; ``final`` the law of
    the token when all are rejected."""
    law = {}
    for drafts in itertools.product(range(len(p)), repeat=m):
        weight = np.prod(q[list(drafts)])
        for i, x in enumerate(drafts):
            law[i, x] = law.get((i, x), 0.0) + weight * accept(i, x)
            weight *= 1 - accept(i, x)
        for t in np.flatnonzero(final):
            law[m, t] = law.get((m, t), 0.0) + weight * final[t]
    return {o: v for o, v in law.items() if v > 0}


def close(a: dict, b: dict) -> bool:
    return max(abs(a.get(o, 0.0) - b.get(o, 0.0)) for o in set(a) | set(b)) < 1e-12


@pytest.mark.parametrize("m", [1, 2, 3])
def test_multi_draft_law_is_the_enumeration_and_its_token_follows_p(m):
    for concentration in (0.3, 1.0, 20.0):
        p, q = RNG.dirichlet(np.full(5, concentration), size=2)
        r = tree_laws.residuals(p, q, m)
        law = tree_laws.multi_draft_law(p, q, m)
        assert close(law, enumerated(p, q, m, lambda i, x, r=r, q=q: min(1.0, r[i, x] / q[x]), r[m]))
        token = tree_laws.marginal(law, lambda o: o[1])
        assert np.allclose([token.get(t, 0.0) for t in range(5)], p, atol=1e-12)


def test_the_m_2_proof_in_numbers():
    """m = 2: P(t) = min(p, q)(t) + β_0 · min(q, r_1)(t) + β_0 β_1 · r_2(t) = p(t), with
    r_1 = norm(max(0, p − q)) and β_0 = 1 − Σ min(p, q) = Σ max(0, p − q)."""
    p, q = np.array([0.5, 0.3, 0.2, 0.0]), np.array([0.1, 0.2, 0.3, 0.4])
    beta0 = 1 - np.minimum(p, q).sum()
    r1 = np.maximum(p - q, 0) / beta0
    beta1 = 1 - np.minimum(q, r1).sum()
    r2 = np.maximum(r1 - q, 0) / np.maximum(r1 - q, 0).sum()
    total = np.minimum(p, q) + beta0 * np.minimum(q, r1) + beta0 * beta1 * r2
    assert np.allclose(total, p)


def test_typical_law_is_the_enumeration_and_not_p():
    p, q = np.array([0.5, 0.25, 0.15, 0.06, 0.04]), np.array([0.1, 0.1, 0.5, 0.2, 0.1])
    cut = tree_laws.typical_cut(p)
    typical = np.where(p >= cut, p, 0.0) / np.where(p >= cut, p, 0.0).sum()
    law = tree_laws.typical_law(p, q, 2)
    assert close(law, enumerated(p, q, 2, lambda i, x: float(p[x] > cut), typical))
    token = tree_laws.marginal(law, lambda o: o[1])
    assert 0.5 * sum(abs(token.get(t, 0.0) - p[t]) for t in range(5)) > 0.1


@pytest.mark.parametrize("rule, law_of", [(multi_draft_sampling, tree_laws.multi_draft_law),
                                          (typical_acceptance, tree_laws.typical_law)])
def test_the_functions_follow_their_closed_forms(rule, law_of):
    p = torch.tensor([0.45, 0.25, 0.15, 0.1, 0.05], dtype=torch.float64)
    q = torch.tensor([0.1, 0.15, 0.4, 0.3, 0.05], dtype=torch.float64)
    generator = torch.Generator().manual_seed(0)
    drafts = torch.multinomial(q, 3 * 4000, replacement=True, generator=generator).view(-1, 3)
    counts = {}
    for row in drafts:
        index, token = rule(p, q, row, generator)
        assert index == 3 or token == row[index]
        counts[int(index), int(token)] = counts.get((int(index), int(token)), 0) + 1
    law = law_of(p.numpy(), q.numpy(), 3)
    assert set(counts) <= set(law)
    assert max(abs(counts.get(o, 0) / 4000 - v) for o, v in law.items()) < 0.03


def test_generate_law_of_the_output_is_the_target_alone():
    """Enumerated round by round through the tree walk, the output's law is the one
    laws.sequence_law enumerates through the target alone; typical acceptance's is not."""
    for branching, eos in (((2, 2), [1]), ((3, 1), [NO_EOS]), ((2, 2, 1), [1, 4])):
        target_law = laws.sequence_law(TARGET, [2, 3], 4, T1, eos)
        law = tree_laws.generate_law(TARGET, NEAR, [2, 3], branching, 4, T1, eos)
        assert close(tree_laws.marginal(law, lambda o: o[0]), target_law)
        assert abs(sum(law.values()) - 1) < 1e-12
        typical = tree_laws.marginal(tree_laws.generate_law(TARGET, NEAR, [2, 3], branching, 4, T1, eos,
                                                            rule=tree_laws.typical_law), lambda o: o[0])
        assert 0.5 * sum(abs(typical.get(o, 0.0) - target_law.get(o, 0.0))
                         for o in set(typical) | set(target_law)) > 0.1


def test_a_tree_forward_gives_each_node_its_path_logits_with_and_without_cache():
    parents = [-1, 0, 1, 0, -1, 4, 4, 3]
    mask, depths = tree_layout(parents)
    ids = torch.tensor([[2, 3, 4, 5, 1, 2, 3, 0, 5, 4, 1, 2]])
    plain = tree_forward(TARGET, ids, 4, mask, depths, None, rows=9)
    cache = DynamicCache()
    TARGET(ids[:, :3], cache=cache, use_cache=True)
    cached = tree_forward(TARGET, ids, 4, mask, depths, cache, rows=9)
    assert torch.allclose(plain, cached, atol=1e-12, rtol=0)
    assert cache.get_seq_length() == 12
    path = ids[0, [4, 5, 6]]  # nodes 0, 1, 2: a chain
    assert torch.allclose(plain[3], TARGET(torch.cat([ids[0, :4], path])[None]).logits[0, -1], atol=1e-12)


@pytest.mark.parametrize("branching", [(1,), (2,), (2, 2), (3, 1), (2, 2, 1), (1, 1, 1, 1)])
def test_greedy_output_is_the_target_alone(branching):
    for drafter in (NEAR, DRAFTERS["GPT-2"], TARGET):
        for use_cache in (False, True):
            expected = autoregressive_generate([1, 2], TARGET, max_gen_len=14, eos_tokens_id=NO_EOS)
            ids, _ = tree_speculative_generate([1, 2], drafter, TARGET, branching=branching,
                                               max_gen_len=14, eos_tokens_id=NO_EOS, use_cache=use_cache)
            assert ids == expected


def test_forwards_and_cache_of_one_run():
    """drafter = target, branching (2, 2), 7 tokens: round 1 drafts two levels (the root,
    then its 2 children) and the target scores the prompt and 6 nodes; every level is
    accepted, and the caches keep the prompt and the path: both of its nodes in the
    target's, only the first in the drafter's (it never ran the leaves), so round 2 feeds
    the drafter the leaf and the bonus. Round 3 has no room for a tree."""
    _, mean, log = traced(tree_speculative_generate, [2, 3], TARGET, TARGET, branching=(2, 2),
                          max_gen_len=7, eos_tokens_id=NO_EOS, use_cache=True)
    seen = [(c.role, c.fed, c.cached) for c in log]
    assert seen == [("drafter", 2, 0), ("drafter", 2, 2), ("target", 8, 0),
                    ("drafter", 2, 3), ("drafter", 2, 5), ("target", 7, 4),
                    ("target", 1, 7)]
    assert mean == pytest.approx(4 / 3)


def test_mean_accepted_counts_nodes_per_target_forward():
    torch.manual_seed(0)
    for _ in range(20):
        ids, mean, log = traced(tree_speculative_generate, [5], NEAR, TARGET, branching=(2, 2, 1),
                                logits_processor=T1, max_gen_len=12, eos_tokens_id=NO_EOS)
        forwards = sum(c.role == "target" for c in log)
        assert len(ids) == pytest.approx(forwards * (1 + mean))


def test_host_syncs_outside_the_models_are_one_per_round():
    with HostSyncCounter() as syncs:
        target = syncs.uncounted(TARGET)
        tree_speculative_generate([2, 3], syncs.uncounted(NEAR), target, branching=(2, 2, 1),
                                  logits_processor=T1, max_gen_len=20, eos_tokens_id=NO_EOS, use_cache=True)
    assert target.forwards >= 5
    assert syncs.count <= target.forwards + 1, (syncs.count, target.forwards)  # + the ids


def test_check_scenarios_do_what_they_claim():
    free = autoregressive_generate([4], TARGET, max_gen_len=10, eos_tokens_id=NO_EOS)
    (early, _), (late, _) = drafted_end_tokens(free, tree_generate.as_loop(None, None))
    assert 0 <= early < late < 3  # two distinct end tokens, both nodes of round 1's path
    assert tree_generate.full_depth_mean(9, 3) == 2.0  # rounds of depth 3, 3 and 0
    for case in tree_generate.LAW_CASES:  # at the first root, some child is accepted or none
        with torch.no_grad():
            p, q = (case.processor(model(torch.tensor([case.prompt])).logits[0, -1]).numpy()
                    for model in (TARGET, DRAFTERS[case.drafter]))
        m = case.shape["branching"][0]
        all_rejected = tree_laws.marginal(tree_laws.multi_draft_law(p, q, m), lambda o: o[0])[m]
        assert 0.1 < all_rejected < 0.9, (case, all_rejected)
    for name in tree_attention.FORWARD_TREES:  # trees where a wrong mask or depth shows
        parents = tree_attention.TREES[name]
        assert len(set(parents)) < len(parents) and max(tree_layout(parents)[1]) >= 3


def test_the_grader_fails_typical_acceptance_on_the_output_law(tmp_path):
    mutant = mutants.load(Path(__file__).parent / "mutants" / "tree_typical_acceptance.py")
    verdict = replayed(exercises.get("tree_generate"), str(mutants.build(mutant, tmp_path)), seed=0)
    assert verdict.status == FAILED, format_text(verdict)
    assert any(f.property.startswith("law of token") for f in verdict.findings)
    assert not any(f.property.startswith("greedy") for f in verdict.findings)  # exact under greedy


def test_bench_times_trees_against_chains_of_as_many_drafts(tmp_path):
    result = run_grader("bench", "--layers", "2", "--hidden", "64", "--prompts", "1", "--new-tokens", "12",
                        "--gammas", "1", "--quick", "--no-hf", "--no-fast", "--trees", "--json",
                        "--plot", str(tmp_path / "sweep.png"), env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "token trees (lesson 9)" in result.stdout
    rows = json.loads(result.stdout.strip().splitlines()[-1])["trees"]
    assert [tuple(row["branching"]) for row in rows] == list(tree_shapes.SHAPES)
    for row in rows:
        chain = row["chain"]
        assert row["nodes"] == chain["gamma"] == tree_shapes.nodes(row["branching"])
        assert 1 <= row["tokens_per_target_call"] <= len(row["branching"]) + 1
        assert 1 <= chain["tokens_per_target_call"] <= row["nodes"] + 1
        # one prompt, no end token: every round emits its accepted nodes and one token
        assert row["tokens_per_target_call"] == pytest.approx(1 + row["mean_accepted"])
        assert row["speedup_vs_autoregressive"] > 0 and chain["speedup_vs_autoregressive"] > 0


@pytest.mark.parametrize("name", list(mutant_laws.MULTI_DRAFT_BUGS))
def test_each_multi_draft_bugs_exact_law_is_what_its_mutant_draws(name, tmp_path):
    """The laws behind the power statements (docs/statistics_power.md): the mutant's draws
    follow its enumerated law, which the exact law rejects."""
    from grader import implementation
    from grader.checks import multi_draft
    from grader.oracle import stats

    case = next(c for c in multi_draft.CASES if c.label == "middling acceptances, m=2")
    path = mutants.build(mutants.load(Path(__file__).parent / "mutants" / f"{name}.py"), tmp_path)
    module = implementation.load(str(path), "trees")
    p, q = torch.from_numpy(case.p), torch.from_numpy(case.q)
    generator = torch.Generator().manual_seed(0)
    drafts = torch.multinomial(q, 20000 * case.m, replacement=True, generator=generator).view(-1, case.m)
    outcomes = [tuple(int(x) for x in module.multi_draft_sampling(p, q, d, generator)) for d in drafts]
    buggy = mutant_laws.MULTI_DRAFT_BUGS[name](case.p, case.q, case.m)
    assert stats.goodness_of_fit(outcomes, buggy).p_value > 1e-4
    assert stats.goodness_of_fit(outcomes, tree_laws.multi_draft_law(case.p, case.q, case.m)).p_value < 1e-4


# --- lesson 11's loops: bugs named from what was observed (grader/judges/eagle_rounds.py) ---------

def test_observed_rounds_name_the_cache_the_count_and_the_row():
    from grader.judges import eagle_rounds as named
    # prompt [0], gamma 2, max_gen_len 5: rounds from end 2 (2 drafts, 1 accepted) and end 4 (1 draft, 1 accepted)
    ids = [4, 5, 6, 7, 8]
    right = [(1, 0, None, [0]), (3, 1, None, [4, 5, 9]), (2, 3, None, [6, 7])]
    assert named.diagnoses("eagle_generate", {"gamma": 2}, [0], ids, 2 / 3, 5, right, [], None) == []
    short = right[:2] + [(2, 2, None, [6, 7])]
    assert named.diagnoses("eagle_generate", {"gamma": 2}, [0], ids, 2 / 3, 5, short, [], 3)[0][0] == named.CACHE_SHORT
    gamma = named.diagnoses("eagle_generate", {"gamma": 2}, [0], ids, 2 / 4, 5, right, [], None)
    assert [name for name, _ in gamma] == [named.GAMMA_COUNT]
    rows = named.diagnoses("eagle_generate", {"gamma": 2}, [0], ids, 2 / 3, 5, right, [["q", 0, 3], ["q", 0, 1]], None)
    assert [name for name, _ in rows] == [named.Q_ROW]
    words, hint = named.worded(short and rows + gamma)
    assert named.Q_ROW in words and named.GAMMA_COUNT in words and hint.startswith("look at ")


def test_observed_tree_rounds_name_p_the_depth_the_leaf_and_a_stuck_walk():
    from grader.judges import eagle_rounds as named
    forwards = [(1, 0, None, [0]), (4, 1, [1, 2, 2, 3], [4, 1, 2, 3]), (3, 3, [3, 4, 5], [5, 6, 7])]
    processed = [["target", 1], ["p", 1, 1], ["target", 4], ["p", 4, 4], ["target", 3], ["p", 3, 3]]
    bare = [e for e in processed if e[0] != "p" or e[2] == 1]
    assert named.diagnoses("eagle_tree_generate", {}, [0], [4, 1, 2, 3], 1.0, 9, forwards, processed, None) == []
    assert named.diagnoses("eagle_tree_generate", {}, [0], [4, 1, 2, 3], 1.0, 9, forwards, bare, None)[0][0] \
        == named.P_UNPROCESSED
    # max_gen_len 4: at the last round (position 3, end 4) no token is left, yet its tree is 2 deep
    assert named.crash("eagle_tree_generate", [0], 4, forwards, processed, "RuntimeError")[0][0] == named.DEPTH
    assert named.leaf_bonus([4, 1, 1, 3], 2)[0][0] == named.LEAF_BONUS
    assert named.leaf_bonus([4, 1, 2, 3], 2) == []
    stuck = processed[:3] + [["stuck", 10_000, 2]]
    assert named.crash("eagle_tree_generate", [0], 9, forwards[:2], stuck, "LoopStuck")[0][0] == named.STUCK_WALK
    assert named.crash("eagle_tree_generate", [0], 9, forwards, processed,
                       "IndexError (at keep_positions(...))")[0][0] == named.KEEP_OFF


def test_round_watch_takes_no_malformed_entry_and_stops_a_stuck_loop():
    from grader.observers.round_watch import STUCK_READS, LoopStuck, RoundWatch, entry
    for hostile in (["q", 1], ["q", -1, 2], ["x", 1], "p", ["p", 1.0, 2], ["stuck", 1, 2, 3]):
        with pytest.raises(ValueError):
            entry(hostile)
    from grader.checks.eagle_generate import models as eagle_models
    target, head = eagle_models()
    watch = RoundWatch()
    p = torch.ones(3, 4)
    with watch.watching_call(target, head):
        with pytest.raises(LoopStuck):
            while True:  # a walk that never goes down
                p[0]
    assert watch.entries == [["stuck", STUCK_READS, 0]]
    ids = torch.tensor([[2, 3, 4]])
    with watch.watching_call(target, head):
        logits = target(ids).logits
        watch.processor(sampling.GreedyProcessor())(logits[0])
        pairs = torch.randn(1, 2, target.config.hidden_size, dtype=target.dtype, generator=torch.Generator().manual_seed(0))
        predicted = head.decoder(inputs_embeds=pairs)
        head_logits = head.lm_head(predicted.last_hidden_state)
        watch.processor(sampling.GreedyProcessor())(head_logits[0, 0])
    assert watch.entries[1:] == [["target", 3], ["p", 3, 3], ["q", 0, 2]]


def test_stall_guard_names_a_sampled_walk_that_never_advances(tmp_path):
    """The walk to node i instead of row 1 + i, under sampling (the law runs, which the
    indexing mode does not watch): stopped after STALL_CPU seconds of CPU, and named."""
    import time

    from grader.checks.eagle_generate import models as eagle_models
    from grader.judges import eagle_rounds as named
    from grader.observers.round_watch import STALL_CPU, LoopStuck, RoundWatch
    import importlib.util
    path = mutants.build(mutants.load(Path(__file__).parent / "mutants" / "eagle_tree_walk_to_node_index.py"), tmp_path)
    spec = importlib.util.spec_from_file_location("walk_to_node_index", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target, head = eagle_models()
    watch, started = RoundWatch(), time.process_time()
    torch.manual_seed(0)
    with watch.stall_guard(target, head), pytest.raises(LoopStuck):  # a cold p accepts the root's first
        # child almost surely, and this walk goes back to the root from there (at T = 1 it mostly ends,
        # its path longer than the tree, in a crash)
        module.eagle_tree_generate([2, 3], target, head, depth=3, top_k=2, total=5, max_gen_len=12,
                                   logits_processor=sampling.MultinomialProcessor(temperature=0.05))
    assert STALL_CPU <= time.process_time() - started < STALL_CPU + 10
    assert [e[0] for e in watch.entries] == ["stalled"]
    assert named.crash("eagle_tree_generate", [2, 3, 4, 5], 4, [], watch.entries, "LoopStuck")[0][0] \
        == named.STUCK_WALK
    with watch.stall_guard(target, head):  # a correct loop runs on
        from solutions.eagle import eagle_tree_generate
        eagle_tree_generate([2, 3], target, head, depth=3, top_k=2, total=5, max_gen_len=6, logits_processor=T1)
    assert len(watch.entries) == 1
