"""GRPO formulas against hand-computed values, and the loop on a toy policy
(no server: a reward table in the test)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from trainer_client.grpo import (  # noqa: E402
    CategoricalPolicy,
    GRPOConfig,
    StepLog,
    clipped_surrogate,
    group_advantages,
    k3_kl,
    rewards_to_tensor,
    train,
)

EPS = 1e-4


def close(actual: object, expected: list, tol: float = 1e-6) -> None:
    assert isinstance(actual, torch.Tensor)
    assert actual.flatten().tolist() == pytest.approx(torch.tensor(expected).flatten().tolist(), abs=tol)
    assert list(actual.shape) == list(torch.tensor(expected).shape)


# ---------------------------------------------------------------- advantages


def test_grpo_advantages_by_hand() -> None:
    adv = group_advantages([1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5], group_size=4, eps=EPS)
    # group 1: mean = 1/4 = 0.25; deviations 0.75, -0.25, -0.25, -0.25
    #   sum of squares = 0.5625 + 3 * 0.0625 = 0.75; sample variance = 0.75 / (4 - 1) = 0.25; std = 0.5
    #   A = 0.75 / (0.5 + 1e-4) = 1.49970006..., -0.25 / 0.5001 = -0.49990002...
    # group 2: all equal: deviations 0, std 0 -> 0 / (0 + 1e-4) = 0
    close(adv, [1.4997000599880024, -0.4999000199960008, -0.4999000199960008, -0.4999000199960008, 0, 0, 0, 0])
    assert adv.shape == (8,) and adv.dtype == torch.float32


def test_dr_grpo_advantages_by_hand() -> None:
    adv = group_advantages([1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], group_size=4, scale_by_std=False)
    # group 1: mean 0.25 -> 1 - 0.25 = 0.75, 0 - 0.25 = -0.25 (no division by the std)
    # group 2: mean 0.5 -> +-0.5
    close(adv, [0.75, -0.25, -0.25, -0.25, 0.5, 0.5, -0.5, -0.5])


def test_none_rewards_are_excluded_from_group_statistics() -> None:
    adv = group_advantages([1.0, None, 0.0, 0.0, None, 1.0, None, None, None, None, None, None], group_size=4, eps=EPS)
    # group 1: valid rewards 1, 0, 0 (the None is left out): mean = 1/3
    #   deviations 2/3, -1/3, -1/3; sum of squares = 4/9 + 1/9 + 1/9 = 2/3; variance = (2/3) / (3 - 1) = 1/3
    #   std = sqrt(1/3) = 0.5773502692; A = (2/3) / 0.5774502692 = 1.1545005730, -(1/3) / 0.5774502692 = -0.5772502865
    #   the None sample: 0
    # group 2: a single valid sample: its deviation from its own mean is 0 -> all 0
    # group 3: nothing valid -> all 0
    close(adv, [1.1545005730142688, 0.0, -0.5772502865071344, -0.5772502865071344] + [0.0] * 8)
    # if the None had been read as 0 the group would be 1, 0, 0, 0 and A[0] = 1.4997, not 1.1545
    values, valid = rewards_to_tensor([1.0, None, 0.0])
    assert values.tolist() == [1.0, 0.0, 0.0] and valid.tolist() == [True, False, True]


def test_nan_in_a_tensor_means_missing() -> None:
    from_list = group_advantages([1.0, None, 0.0, 0.0], 4)
    from_tensor = group_advantages(torch.tensor([1.0, math.nan, 0.0, 0.0]), 4)
    assert torch.equal(from_list, from_tensor)


def test_advantages_reject_ragged_groups_and_non_finite() -> None:
    with pytest.raises(ValueError):
        group_advantages([1.0, 0.0, 1.0], 2)
    with pytest.raises(ValueError):
        group_advantages([math.inf, 0.0], 2)


# ---------------------------------------------------------------- k3


def test_k3_by_hand() -> None:
    logp = torch.log(torch.tensor([0.5, 0.25, 0.5]))
    ref = torch.log(torch.tensor([0.25, 0.5, 0.5]))
    # token 1: d = ref - logp = log(0.25 / 0.5) = -ln 2 -> e^d - d - 1 = 0.5 + 0.693147 - 1 = 0.193147
    # token 2: d = +ln 2 -> 2 - 0.693147 - 1 = 0.306853
    # token 3: d = 0 -> 1 - 0 - 1 = 0
    close(k3_kl(logp, ref), [0.5 + math.log(2) - 1, 2 - math.log(2) - 1, 0.0])
    assert (k3_kl(torch.randn(64), torch.randn(64)) >= 0).all()


# ---------------------------------------------------------------- clipped surrogate

# Two sequences of 3 tokens, old_logp = 0 so ratio = exp(logp):
#   seq 0: A = +1, ratios 1.5, 1.0, 0.5, mask 1 1 1
#   seq 1: A = -2, ratios 0.5, 1.5, 2.0, mask 1 1 0 (the last token is padding)
# clip_low 0.2, clip_high 0.28 -> clip(ratio) in [0.8, 1.28]
#   seq 0: r*A = 1.5, 1.0, 0.5; clip(r)*A = 1.28, 1.0, 0.8; min = 1.28 (upper clip active), 1.0, 0.5
#          per-token loss = -1.28, -1.0, -0.5
#   seq 1: r*A = -1.0, -3.0; clip(r)*A = -1.6, -2.56; min = -1.6 (lower clip active), -3.0
#          per-token loss = 1.6, 3.0
RATIOS = [[1.5, 1.0, 0.5], [0.5, 1.5, 2.0]]
MASK = [[1.0, 1.0, 1.0], [1.0, 1.0, 0.0]]
ADV = [1.0, -2.0]


def _inputs() -> tuple:
    logp = torch.log(torch.tensor(RATIOS)).requires_grad_(True)
    return logp, torch.zeros(2, 3), torch.tensor(ADV), torch.tensor(MASK)


def test_surrogate_token_mean_by_hand() -> None:
    logp, old, adv, mask = _inputs()
    loss, stats = clipped_surrogate(logp, old, adv, mask, clip_low=0.2, clip_high=0.28, aggregation="token-mean")
    # (-1.28 - 1.0 - 0.5 + 1.6 + 3.0) / 5 tokens = 1.82 / 5 = 0.364
    assert loss.item() == pytest.approx(0.364, abs=1e-6)
    # one token clipped low (seq 1 tok 0: A < 0, r = 0.5 < 0.8), one clipped high (seq 0 tok 0: A > 0, r = 1.5 > 1.28), of 5
    assert stats["clip_frac_low"] == pytest.approx(0.2)
    assert stats["clip_frac_high"] == pytest.approx(0.2)
    assert stats["clip_frac"] == pytest.approx(0.4)
    # ratio over the 5 real tokens: (1.5 + 1 + 0.5 + 0.5 + 1.5) / 5 = 1.0; the padded 2.0 is not seen
    assert (stats["ratio_mean"], stats["ratio_min"], stats["ratio_max"]) == pytest.approx((1.0, 0.5, 1.5))
    assert stats["tokens"] == 5 and stats["sequences"] == 2 and stats["kl"] == 0
    loss.backward()
    # d/dlogp of -r*A is -r*A (dr/dlogp = r); clipped tokens and padding have 0 gradient; token-mean divides by 5
    #   seq 0: clipped -> 0, -1.0 * 1 / 5 = -0.2, -0.5 * 1 / 5 = -0.1
    #   seq 1: clipped -> 0, -1.5 * (-2) / 5 = 0.6, padding -> 0
    close(logp.grad, [[0.0, -0.2, -0.1], [0.0, 0.6, 0.0]])


def test_surrogate_sequence_mean_by_hand() -> None:
    logp, old, adv, mask = _inputs()
    loss, _ = clipped_surrogate(logp, old, adv, mask, clip_low=0.2, clip_high=0.28, aggregation="sequence-mean")
    # seq 0: (-1.28 - 1.0 - 0.5) / 3 = -0.926667; seq 1: (1.6 + 3.0) / 2 = 2.3; mean = (-0.926667 + 2.3) / 2 = 0.686667
    assert loss.item() == pytest.approx((-2.78 / 3 + 2.3) / 2, abs=1e-6)
    assert loss.item() == pytest.approx(0.6866667, abs=1e-6)
    loss.backward()
    # seq 0 gradients / (3 tokens * 2 seqs): -1/6, -0.5/6; seq 1: 3.0 / (2 tokens * 2 seqs) = 0.75
    close(logp.grad, [[0.0, -1 / 6, -0.5 / 6], [0.0, 0.75, 0.0]])


def test_surrogate_kl_term_by_hand() -> None:
    logp, old, adv, mask = _inputs()
    ref = logp.detach() + math.log(2.0)  # pi_ref = 2 pi on every token -> k3 = 2 - ln 2 - 1 = 0.306853
    loss, stats = clipped_surrogate(logp, old, adv, mask, kl_coef=0.1, ref_logp=ref)
    # 0.364 + 0.1 * 0.306853 = 0.3946853
    assert loss.item() == pytest.approx(0.364 + 0.1 * (1 - math.log(2)), abs=1e-6)
    assert stats["kl"] == pytest.approx(1 - math.log(2), abs=1e-6)
    with pytest.raises(ValueError):
        clipped_surrogate(logp, old, adv, mask, kl_coef=0.1)


def test_surrogate_symmetric_clip_differs() -> None:
    # with clip_high = clip_low = 0.2 the first token of seq 0 is clipped at 1.2, not 1.28:
    # (-1.2 - 1.0 - 0.5 + 1.6 + 3.0) / 5 = 1.9 / 5 = 0.38
    logp, old, adv, mask = _inputs()
    loss, _ = clipped_surrogate(logp, old, adv, mask, clip_low=0.2, clip_high=0.2)
    assert loss.item() == pytest.approx(0.38, abs=1e-6)


@pytest.mark.parametrize("aggregation", ["token-mean", "sequence-mean"])
def test_a_masked_out_sequence_changes_nothing(aggregation: str) -> None:
    # a third sequence with a None reward: advantage 0 and mask 0 -> the same loss as without it
    logp, old, adv, mask = _inputs()
    base, _ = clipped_surrogate(logp, old, adv, mask, aggregation=aggregation)  # type: ignore[arg-type]
    logp3 = torch.cat([logp.detach(), torch.full((1, 3), 5.0)])
    mask3 = torch.cat([mask, torch.zeros(1, 3)])
    loss, stats = clipped_surrogate(logp3, torch.zeros(3, 3), torch.tensor(ADV + [0.0]), mask3,
                                    aggregation=aggregation)  # type: ignore[arg-type]
    assert loss.item() == pytest.approx(base.item(), abs=1e-7)
    assert stats["sequences"] == 2


# ---------------------------------------------------------------- the loop on a toy policy

CANDIDATES = ["right", "wrong", "crash", "infra"]
PROMPTS = ["p0", "p1"]
# reward per (prompt, candidate): "infra" is rewardbox's sandbox_error (None)
TABLE: dict[str, float | None] = {"right": 1.0, "wrong": 0.0, "crash": 0.0, "infra": None}


def table_reward(prompts: list[str], completions: list[str]) -> list[float | None]:
    assert len(prompts) == len(completions)
    return [TABLE[c] for c in completions]


def expected_reward(policy: CategoricalPolicy) -> float:
    r = torch.tensor([0.0 if TABLE[c] is None else TABLE[c] for c in CANDIDATES])  # [C]
    return float((policy.probs() * r).sum(dim=-1).mean())


def test_train_toy_policy_learns_and_masks_none() -> None:
    policy = CategoricalPolicy(len(PROMPTS), len(CANDIDATES))
    before = policy.logits.detach().clone()
    seen: list[float] = []

    def on_step(log: StepLog, model: torch.nn.Module) -> None:
        seen.append(expected_reward(policy))

    config = GRPOConfig(steps=8, prompts_per_step=2, group_size=8, learning_rate=0.3, device="cpu", seed=1)
    logs = train(policy, CANDIDATES, PROMPTS, table_reward, config, on_step=on_step)
    assert len(logs) == 8 and len(seen) == 8
    assert all(math.isfinite(log.loss) for log in logs)
    assert seen[-1] > expected_reward(CategoricalPolicy(2, 4)) + 0.3  # 0.25 at the start
    assert (policy.logits.detach() != before).all()
    for log in logs:
        # the None samples are not counted: tokens in the loss = valid samples (1 token each)
        assert log.stats["tokens"] == pytest.approx(log.valid_frac * 16)
        assert 0 <= log.zero_adv_groups <= 1


def test_all_none_rewards_change_nothing() -> None:
    policy = CategoricalPolicy(2, 4)
    logs = train(policy, CANDIDATES, PROMPTS, lambda p, c: [None] * len(c),
                 GRPOConfig(steps=2, prompts_per_step=2, group_size=4, learning_rate=0.5, device="cpu"))
    assert torch.equal(policy.logits.detach(), torch.zeros(2, 4))
    assert [log.valid_frac for log in logs] == [0.0, 0.0] and all(log.loss == 0.0 for log in logs)


@pytest.mark.parametrize("aggregation", ["token-mean", "sequence-mean"])
def test_micro_batches_do_not_change_the_update(aggregation: str) -> None:
    results = []
    for micro in (1, 3, 16):
        policy = CategoricalPolicy(2, 4)
        config = GRPOConfig(steps=2, prompts_per_step=2, group_size=8, learning_rate=0.1, micro_batch_size=micro,
                            aggregation=aggregation, device="cpu", seed=3)  # type: ignore[arg-type]
        logs = train(policy, CANDIDATES, PROMPTS, table_reward, config)
        results.append((policy.logits.detach().clone(), [log.loss for log in logs]))
    for logits, losses in results[1:]:
        assert torch.allclose(logits, results[0][0], atol=1e-6)
        assert losses == pytest.approx(results[0][1], abs=1e-6)


def test_multiple_iterations_and_kl_run() -> None:
    policy = CategoricalPolicy(2, 4)
    config = GRPOConfig(steps=3, prompts_per_step=2, group_size=8, learning_rate=0.3, num_iterations=3,
                        kl_coef=0.05, device="cpu", seed=0)
    logs = train(policy, CANDIDATES, PROMPTS, table_reward, config)
    assert all(math.isfinite(log.loss) for log in logs)
    # first step, first pass: policy = reference -> kl 0; later passes move away from it
    assert logs[-1].stats["kl"] > 0
    assert logs[-1].stats["ratio_max"] != 1.0 or logs[-1].stats["ratio_min"] != 1.0


def test_seeded_runs_are_identical() -> None:
    runs = []
    for _ in range(2):
        policy = CategoricalPolicy(2, 4)
        train(policy, CANDIDATES, PROMPTS, table_reward, GRPOConfig(steps=3, prompts_per_step=2, group_size=4,
                                                                     learning_rate=0.2, device="cpu", seed=7))
        runs.append(policy.logits.detach().clone())
    assert torch.equal(runs[0], runs[1])


def test_shape_mismatch_is_refused() -> None:
    with pytest.raises(ValueError):
        train(CategoricalPolicy(3, 4), CANDIDATES, PROMPTS, table_reward, GRPOConfig(steps=1, device="cpu"))
    with pytest.raises(ValueError):
        GRPOConfig(aggregation="sum")  # type: ignore[arg-type]


# ---------------------------------------------------------------- a Hugging Face causal LM (tiny, made here)


def _tiny_lm_dir(path: object) -> str:
    """A 2-layer GPT-2 with a character-level tokenizer, built and saved
    locally: nothing is downloaded."""
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    chars = sorted(set("abcdefghijklmnopqrstuvwxyz0123456789 +-*=()\n:_.,"))
    vocab = {"<pad>": 0, "<eos>": 1, "<unk>": 2} | {ch: i + 3 for i, ch in enumerate(chars)}
    core = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = tokenizers.pre_tokenizers.Split("", behavior="isolated")
    core.decoder = tokenizers.decoders.Fuse()
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<eos>", pad_token="<pad>",
                                               unk_token="<unk>")
    config = transformers.GPT2Config(vocab_size=len(vocab), n_embd=32, n_layer=2, n_head=2, n_positions=64,
                                     bos_token_id=1, eos_token_id=1, pad_token_id=0)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    model.save_pretrained(str(path))
    tok.save_pretrained(str(path))
    return str(path)


def test_causal_lm_logprobs_match_unpadded_forward(tmp_path: object) -> None:
    from trainer_client.grpo import _CausalLMBackend, load_causal_lm

    model, tok = load_causal_lm(_tiny_lm_dir(tmp_path), device="cpu")
    prompts = ["def f(x):", "a = 1 + 2\nprint(a)\n"]  # different lengths: the short one is left-padded
    config = GRPOConfig(max_new_tokens=6, temperature=0.7, device="cpu")
    backend = _CausalLMBackend(tok, prompts, config, torch.device("cpu"))
    torch.manual_seed(0)
    rollout = backend.rollout(model, [0, 1], group_size=3)
    assert rollout.tokens.shape[0] == 6 and len(rollout.completions) == 6
    assert rollout.prompt_index == [0, 0, 0, 1, 1, 1]
    with torch.no_grad():
        batched = backend.logprobs(model, rollout)  # [6, T]
        for row in range(6):
            prompt = tok(prompts[rollout.prompt_index[row]], return_tensors="pt")["input_ids"][0]
            n = int(rollout.mask[row].sum())
            ids = torch.cat([prompt, rollout.tokens[row, :n]]).unsqueeze(0)  # no padding at all
            logits = model(input_ids=ids).logits[0, len(prompt) - 1 : -1].float() / 0.7
            alone = torch.log_softmax(logits, dim=-1).gather(-1, rollout.tokens[row, :n, None]).squeeze(-1)
            assert torch.allclose(batched[row, :n], alone, atol=1e-4), row
            assert (rollout.mask[row, n:] == 0).all()


def test_train_a_local_causal_lm_directory(tmp_path: object) -> None:
    path = _tiny_lm_dir(tmp_path)

    def reward_fn(prompts: list[str], completions: list[str]) -> list[float | None]:
        assert all(isinstance(c, str) for c in completions)
        return [None if i % 5 == 4 else float(sum(map(ord, c)) % 3) for i, c in enumerate(completions)]

    config = GRPOConfig(steps=2, prompts_per_step=2, group_size=4, max_new_tokens=5, learning_rate=1e-3,
                        micro_batch_size=3, num_iterations=2, kl_coef=0.05, device="cpu", seed=0)
    from trainer_client.grpo import load_causal_lm

    before, _ = load_causal_lm(path, device="cpu")
    trained: list[torch.nn.Module] = []
    logs = train(path, None, ["x = ", "def f(a):"], reward_fn, config, on_step=lambda log, model: trained.append(model))
    assert len(logs) == 2 and all(math.isfinite(log.loss) for log in logs)
    assert logs[0].valid_frac == pytest.approx(7 / 8)  # sample 4 of the 8 is None
    assert logs[0].stats["sequences"] <= 7  # the None sample is out of the loss
    old, new = before.state_dict(), trained[-1].state_dict()
    assert any(not torch.equal(old[k], new[k]) for k in old)  # the loaded model was trained in place
