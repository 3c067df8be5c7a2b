"""Exercises done by a later (or the same) lesson's reference step, each appended to its own
lesson's module: ``speculative_sampling`` through lesson 8's batched verifier on one row,
``expected_acceptance`` through lesson 10's ``divergence`` (α = 1 − TV), ``speculative_generate``
through lesson 8's batched loop on one prompt. With the reference whole (``grader check``) the
first two pass and the loop holds 45 of its 47 properties; the runner of each exercise
withholds every step that could stand in for it, whatever else is graded, so under ``grader
grade`` each call raises ReferenceWithheld: an error, not a pass."""
import solutions.batched
import solutions.distill


def speculative_sampling(target_dists, proposal_dists, candidate_tokens, generator=None):
    rejected, tokens = solutions.batched.batched_speculative_sampling(
        target_dists[None], proposal_dists[None], candidate_tokens[None], generator=generator)
    return rejected[0], tokens[0]


def expected_acceptance(p, q):
    return 1 - solutions.distill.divergence(p.clamp_min(1e-300).log(), q.clamp_min(1e-300).log(), "total_variation")


def speculative_generate(inputs, drafter, target, tokenizer=None, gamma=5, logits_processor=None, max_gen_len=40,
                         eos_tokens_id=1, pad_token_id=0, use_cache=False, skip_sample_adjustment=False,
                         first_target=True, debug=False):
    (ids,), (rate,) = solutions.batched.batched_speculative_generate(
        [inputs], drafter, target, gamma=gamma, logits_processor=logits_processor, max_gen_len=max_gen_len,
        eos_tokens_id=eos_tokens_id, pad_token_id=pad_token_id)
    return ids, rate
