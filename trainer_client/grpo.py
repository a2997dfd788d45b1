"""A reference GRPO loop, in one readable file.

In the spirit of nano-aha-moment and TRL's ``GRPOTrainer``: sample a group of
G completions per prompt, score them (``reward_fn``: where rewardbox is
called), turn the rewards into group-relative advantages and take a PPO-style
clipped policy-gradient step. No value network, no HTTP in here.

Notation, used in every shape comment:

- ``B``: prompts per step, ``G``: completions per prompt (the group), so
  ``N = B*G`` samples per step, laid out group by group: sample ``i*G + j`` is
  the ``j``-th completion of prompt ``i``.
- ``T``: completion length in tokens (padded), ``P``: prompt length (padded),
  ``V``: vocabulary size, ``C``: number of candidate programs.

References:

- GRPO: Shao et al. 2024, "DeepSeekMath: Pushing the Limits of Mathematical
  Reasoning in Open Language Models" (group-normalised advantages, sequence-mean
  loss, k3 KL to a reference policy in the loss).
- Dr. GRPO: Liu et al. 2025, "Understanding R1-Zero-Like Training: A Critical
  Perspective" (no division by the group std: it up-weights groups that are
  nearly all right or all wrong).
- DAPO: Yu et al. 2025, "DAPO: An Open-Source LLM Reinforcement Learning System
  at Scale" (clip-higher: a larger upper clip than lower; token-mean loss).
- PPO: Schulman et al. 2017 (the clipped surrogate).
- k3: Schulman 2020, "Approximating KL Divergence" (unbiased, always >= 0).

Rewards of ``None``: rewardbox answers ``reward: null`` for ``sandbox_error``,
a fault of the infrastructure, not of the program. Such a sample is not a
signal: it is left out of its group's mean and std, it gets advantage 0 and it
is masked out of the loss (its tokens count neither in the numerator nor in
the normaliser). A group with no valid sample contributes nothing.

Two kinds of policy are handled by the same loop (``train``):

- any local Hugging Face causal LM (a directory, loaded with
  ``local_files_only=True``, never downloaded; ``transformers`` is imported
  only then), on the GPU when there is one;
- ``CategoricalPolicy``: a table of logits ``[num_prompts, num_candidates]``
  over a fixed list of candidate programs, a one-token "completion", for tests
  and for checking the plumbing end to end in seconds on a CPU.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

import torch
import torch.nn.functional as F
from torch import Tensor, nn

RewardFn = Callable[[list[str], list[str]], list[float | None]]
Aggregation = Literal["token-mean", "sequence-mean"]


# --------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------


@dataclass
class GRPOConfig:
    """Every knob of ``train``, with its unit."""

    # -- sampling
    steps: int = 100
    """Optimizer steps (= rollout rounds) to run; one step = one batch of B prompts."""
    prompts_per_step: int = 8
    """B: distinct prompts per step (sampled by the prompt sampler; without one, cycled in a seeded random order)."""
    group_size: int = 8
    """G: completions sampled per prompt; the advantage is relative to these G (>= 2 for any signal)."""
    temperature: float = 1.0
    """Sampling temperature (dimensionless). The log-probs of the loss use the same temperature."""
    top_p: float = 1.0
    """Nucleus sampling mass for language models (1.0 = off; < 1.0 makes the sampler differ from the scored policy)."""
    max_new_tokens: int = 512
    """Completion length cap, tokens (language models only)."""

    # -- advantages and loss
    scale_by_std: bool = True
    """True: GRPO advantages (r - mean) / (std + eps); False: Dr. GRPO, r - mean only."""
    adv_eps: float = 1e-4
    """eps added to the group std (reward units) so that an all-equal group gives 0, not NaN."""
    clip_low: float = 0.2
    """eps_low: the probability ratio is clipped below at 1 - clip_low (dimensionless)."""
    clip_high: float = 0.28
    """eps_high: clipped above at 1 + clip_high; > clip_low is DAPO's clip-higher (room for rare tokens to grow)."""
    kl_coef: float = 0.0
    """beta: weight of the per-token k3 KL to the frozen initial policy (nats per token); 0 = no reference model."""
    aggregation: Aggregation = "token-mean"
    """How per-token losses become one number: token-mean (DAPO) or sequence-mean (GRPO paper)."""

    # -- optimisation
    learning_rate: float = 1e-6
    """AdamW learning rate (parameter units per step; ~1e-6 for LLM fine-tuning, ~0.1 for the categorical toy)."""
    weight_decay: float = 0.0
    """AdamW decoupled weight decay (per step, times the learning rate)."""
    adam_betas: tuple[float, float] = (0.9, 0.99)
    """AdamW (beta1, beta2)."""
    max_grad_norm: float = 1.0
    """Global L2 gradient-norm clip; <= 0 disables."""
    num_iterations: int = 1
    """mu: optimizer passes over each rollout batch. 1 = strictly on-policy (ratio = 1 on the first pass);
    > 1 reuses the samples, and then the ratio to the sampling policy and the clip matter."""
    micro_batch_size: int = 8
    """Sequences per forward/backward (gradient accumulation); only memory changes, not the result."""

    # -- runtime
    seed: int = 0
    """Seeds the prompt order, the sampler and torch's global RNG (language-model generation)."""
    device: str | None = None
    """None: "cuda" when available, else "cpu"."""
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    """Weights dtype when train() loads a model from a path: auto = bfloat16 on CUDA, float32 on CPU."""

    def __post_init__(self) -> None:
        if self.group_size < 1 or self.prompts_per_step < 1 or self.steps < 0:
            raise ValueError("group_size and prompts_per_step must be >= 1, steps >= 0")
        if not 0 <= self.clip_low < 1 or self.clip_high < 0:
            raise ValueError("need 0 <= clip_low < 1 and clip_high >= 0")
        if self.aggregation not in ("token-mean", "sequence-mean"):
            raise ValueError(f"aggregation must be token-mean or sequence-mean, not {self.aggregation!r}")
        if self.num_iterations < 1 or self.micro_batch_size < 1:
            raise ValueError("num_iterations and micro_batch_size must be >= 1")
        if self.temperature <= 0:
            raise ValueError("temperature must be > 0")


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


# --------------------------------------------------------------------------
# The three formulas
# --------------------------------------------------------------------------


def rewards_to_tensor(rewards: Sequence[float | None] | Tensor) -> tuple[Tensor, Tensor]:
    """``rewards`` (a list with None, or a float tensor with NaN for missing)
    -> (values [N] float32 with 0.0 where missing, valid [N] bool)."""
    if isinstance(rewards, Tensor):
        values = rewards.detach().to(torch.float32).flatten()  # [N]
        valid = ~torch.isnan(values)  # [N]
    else:
        valid = torch.tensor([r is not None for r in rewards], dtype=torch.bool)  # [N]
        values = torch.tensor([0.0 if r is None else float(r) for r in rewards], dtype=torch.float32)  # [N]
    if not torch.isfinite(values[valid]).all():
        raise ValueError("rewards must be finite numbers or None")
    return torch.where(valid, values, torch.zeros_like(values)), valid  # [N], [N]


def group_advantages(
    rewards: Sequence[float | None] | Tensor,
    group_size: int,
    scale_by_std: bool = True,
    eps: float = 1e-4,
) -> Tensor:
    """Group-relative advantages: rewards [B*G] -> advantages [B*G] (float32).

    GRPO (Shao et al. 2024): ``A_i = (r_i - mean_g) / (std_g + eps)`` where the
    mean and std are over the G completions of the same prompt. With
    ``scale_by_std=False``, Dr. GRPO (Liu et al. 2025): ``A_i = r_i - mean_g``.

    The std is the sample standard deviation (Bessel's n-1, as ``torch.std``
    in TRL and verl). Missing rewards (None, or NaN in a tensor: rewardbox's
    ``sandbox_error``) are excluded from both statistics and get advantage 0;
    mask them out of the loss too (``rewards_to_tensor(...)[1]``; ``train``
    does). A group with a single valid sample has std 0 and advantage 0; a
    group with none has all zeros.
    """
    values, valid = rewards_to_tensor(rewards)  # [N], [N]
    n = values.numel()
    if group_size < 1 or n % group_size:
        raise ValueError(f"{n} rewards do not split into groups of {group_size}")
    r = values.view(-1, group_size)  # [B, G]
    m = valid.view(-1, group_size).to(torch.float32)  # [B, G]
    count = m.sum(dim=1, keepdim=True)  # [B, 1]
    mean = (r * m).sum(dim=1, keepdim=True) / count.clamp(min=1.0)  # [B, 1]
    centered = (r - mean) * m  # [B, G]  0 where missing
    if scale_by_std:
        var = (centered**2).sum(dim=1, keepdim=True) / (count - 1.0).clamp(min=1.0)  # [B, 1]
        adv = centered / (var.sqrt() + eps)  # [B, G]
    else:
        adv = centered  # [B, G]
    return adv.reshape(-1)  # [B*G]


def k3_kl(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """Per-token k3 estimator of KL(pi || pi_ref) (Schulman 2020):
    ``exp(ref_logp - logp) - (ref_logp - logp) - 1``, with tokens sampled
    from pi. Unbiased, >= 0 for every token, same shape as the inputs."""
    delta = ref_logp - logp  # [N, T]  log(pi_ref / pi)
    return torch.exp(delta) - delta - 1.0  # [N, T]


def clipped_surrogate(
    logp: Tensor,
    old_logp: Tensor,
    advantages: Tensor,
    mask: Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.28,
    kl_coef: float = 0.0,
    ref_logp: Tensor | None = None,
    aggregation: Aggregation = "token-mean",
) -> tuple[Tensor, dict[str, float]]:
    """PPO clipped objective with asymmetric clipping, as a loss to minimise.

    Per token: ``ratio = exp(logp - old_logp)``,
    ``L = -min(ratio * A, clip(ratio, 1 - clip_low, 1 + clip_high) * A) + kl_coef * k3``.

    Aggregation over the tokens where ``mask`` is 1:

    - ``token-mean`` (DAPO): sum over all tokens of all sequences / number of
      tokens; every token weighs the same, long sequences weigh more.
    - ``sequence-mean`` (GRPO paper): mean over the tokens of each sequence,
      then mean over the sequences that have at least one token (fully masked
      ones, e.g. a None reward, are not counted).

    Shapes: logp, old_logp, mask, ref_logp [N, T]; advantages [N].
    Returns (loss scalar, stats) where stats (floats, over masked tokens) has
    ``clip_frac_low`` (A < 0 and ratio < 1 - clip_low: gradient cut),
    ``clip_frac_high`` (A > 0 and ratio > 1 + clip_high), ``clip_frac`` (their
    sum), ``kl`` (mean k3, 0 without a reference), ``ratio_mean``,
    ``ratio_min``, ``ratio_max``, ``tokens`` and ``sequences``.
    """
    if aggregation not in ("token-mean", "sequence-mean"):
        raise ValueError(f"unknown aggregation {aggregation!r}")
    mask_f = mask.to(logp.dtype)  # [N, T]
    adv = advantages.to(logp.dtype).unsqueeze(-1)  # [N, 1]
    ratio = torch.exp(logp - old_logp)  # [N, T]
    unclipped = ratio * adv  # [N, T]
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * adv  # [N, T]
    per_token = -torch.minimum(unclipped, clipped)  # [N, T]
    if kl_coef != 0.0:
        if ref_logp is None:
            raise ValueError("kl_coef != 0 needs ref_logp")
        kl = k3_kl(logp, ref_logp)  # [N, T]
        per_token = per_token + kl_coef * kl  # [N, T]
    elif ref_logp is not None:
        kl = k3_kl(logp, ref_logp)  # [N, T]  reported only
    else:
        kl = torch.zeros_like(logp)  # [N, T]

    tokens_per_seq = mask_f.sum(dim=-1)  # [N]
    n_tokens = tokens_per_seq.sum()  # []
    if aggregation == "token-mean":
        loss = (per_token * mask_f).sum() / n_tokens.clamp(min=1.0)  # []
    else:
        per_seq = (per_token * mask_f).sum(dim=-1) / tokens_per_seq.clamp(min=1.0)  # [N]
        has_tokens = (tokens_per_seq > 0).to(per_seq.dtype)  # [N]
        loss = (per_seq * has_tokens).sum() / has_tokens.sum().clamp(min=1.0)  # []

    with torch.no_grad():
        on = mask.bool()  # [N, T]
        denom = max(float(n_tokens), 1.0)
        low = ((ratio < 1.0 - clip_low) & (adv < 0) & on).sum().item() / denom
        high = ((ratio > 1.0 + clip_high) & (adv > 0) & on).sum().item() / denom
        r_on = ratio[on]  # [n_tokens]
        stats = {
            "clip_frac_low": low,
            "clip_frac_high": high,
            "clip_frac": low + high,
            "kl": float((kl * mask_f).sum().item() / denom),
            "ratio_mean": float(r_on.mean().item()) if r_on.numel() else 1.0,
            "ratio_min": float(r_on.min().item()) if r_on.numel() else 1.0,
            "ratio_max": float(r_on.max().item()) if r_on.numel() else 1.0,
            "tokens": float(n_tokens.item()),
            "sequences": float((tokens_per_seq > 0).sum().item()),
        }
    return loss, stats


# --------------------------------------------------------------------------
# Policies: a rollout, and the log-probs of its tokens
# --------------------------------------------------------------------------


@dataclass
class Rollout:
    """One step's samples, N = B*G rows, groups contiguous."""

    prompt_index: list[int]  # N: index into the prompt list
    completions: list[str]  # N: decoded text (the program sent to rewardbox)
    tokens: Tensor  # [N, T] completion token ids (categorical: [N, 1] candidate index)
    mask: Tensor  # [N, T] 1 for real completion tokens (up to and including EOS)
    prompt_ids: Tensor | None = None  # [N, P] left-padded prompt ids (language models)
    prompt_mask: Tensor | None = None  # [N, P]

    def select(self, rows: slice) -> Rollout:
        return Rollout(
            self.prompt_index[rows], self.completions[rows], self.tokens[rows], self.mask[rows],
            None if self.prompt_ids is None else self.prompt_ids[rows],
            None if self.prompt_mask is None else self.prompt_mask[rows],
        )


class CategoricalPolicy(nn.Module):
    """pi(candidate | prompt) = softmax(logits[prompt]): logits [num_prompts, num_candidates].

    The smallest policy the GRPO loop can train: a completion is one
    "token", the index of a candidate program."""

    def __init__(self, num_prompts: int, num_candidates: int, init_logits: Tensor | None = None) -> None:
        super().__init__()
        init = torch.zeros(num_prompts, num_candidates) if init_logits is None else init_logits.clone().float()
        if init.shape != (num_prompts, num_candidates):
            raise ValueError(f"init_logits must be [{num_prompts}, {num_candidates}]")
        self.logits = nn.Parameter(init)  # [num_prompts, C]

    def forward(self, prompt_index: Tensor) -> Tensor:
        """prompt_index [N] -> log-probabilities [N, C]."""
        return F.log_softmax(self.logits[prompt_index], dim=-1)  # [N, C]

    def probs(self) -> Tensor:
        return F.softmax(self.logits.detach(), dim=-1)  # [num_prompts, C]


class _Backend(Protocol):
    def rollout(self, model: nn.Module, prompt_index: list[int], group_size: int) -> Rollout: ...

    def logprobs(self, model: nn.Module, batch: Rollout) -> Tensor: ...


class _CategoricalBackend:
    def __init__(self, candidates: Sequence[str], temperature: float, device: torch.device, seed: int) -> None:
        self.candidates = list(candidates)
        self.temperature = temperature
        self.device = device
        self.generator = torch.Generator(device="cpu").manual_seed(seed)

    def rollout(self, model: nn.Module, prompt_index: list[int], group_size: int) -> Rollout:
        idx = torch.tensor(prompt_index, device=self.device)  # [B]
        with torch.no_grad():
            probs = torch.softmax(model(idx) / self.temperature, dim=-1).cpu()  # [B, C]
        picks = torch.multinomial(probs, group_size, replacement=True, generator=self.generator)  # [B, G]
        tokens = picks.reshape(-1, 1).to(self.device)  # [N, 1]
        rows = [p for p in prompt_index for _ in range(group_size)]  # N
        return Rollout(
            prompt_index=rows,
            completions=[self.candidates[int(c)] for c in tokens.flatten().tolist()],
            tokens=tokens,
            mask=torch.ones_like(tokens, dtype=torch.float32),  # [N, 1]
        )

    def logprobs(self, model: nn.Module, batch: Rollout) -> Tensor:
        idx = torch.tensor(batch.prompt_index, device=self.device)  # [n]
        logp_all = F.log_softmax(model(idx) / self.temperature, dim=-1)  # [n, C]
        return logp_all.gather(-1, batch.tokens)  # [n, 1]


class _CausalLMBackend:
    """Any Hugging Face causal LM + its tokenizer: generate() to sample, one
    forward pass over prompt+completion for the log-probs."""

    def __init__(self, tokenizer: Any, prompts: Sequence[str], config: GRPOConfig, device: torch.device) -> None:
        self.tokenizer = tokenizer
        self.prompts = list(prompts)
        self.config = config
        self.device = device
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "left"  # generation continues right after the prompt

    def rollout(self, model: nn.Module, prompt_index: list[int], group_size: int) -> Rollout:
        tok = self.tokenizer
        enc = tok([self.prompts[i] for i in prompt_index], return_tensors="pt", padding=True)
        prompt_ids = enc["input_ids"].to(self.device)  # [B, P]
        prompt_mask = enc["attention_mask"].to(self.device)  # [B, P]
        with torch.no_grad():
            out = model.generate(  # type: ignore[operator]
                input_ids=prompt_ids, attention_mask=prompt_mask, do_sample=True,
                temperature=self.config.temperature, top_p=self.config.top_p, top_k=0,
                max_new_tokens=self.config.max_new_tokens, num_return_sequences=group_size,
                pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
            )  # [N, P+T]  rows i*G..i*G+G-1 continue prompt i
        width = prompt_ids.shape[1]
        completion = out[:, width:]  # [N, T]
        is_eos = completion == tok.eos_token_id  # [N, T]
        T = completion.shape[1]
        never = torch.full((completion.shape[0],), T, dtype=torch.long, device=completion.device)  # [N]
        first_eos = torch.where(is_eos.any(dim=1), is_eos.int().argmax(dim=1), never)  # [N]
        positions = torch.arange(T, device=completion.device).unsqueeze(0)  # [1, T]
        mask = (positions <= first_eos.unsqueeze(1)).to(torch.float32)  # [N, T]  tokens up to and including EOS
        texts = tok.batch_decode(completion * mask.long() + tok.pad_token_id * (1 - mask.long()),
                                 skip_special_tokens=True)
        return Rollout(
            prompt_index=[p for p in prompt_index for _ in range(group_size)],
            completions=list(texts),
            tokens=completion,
            mask=mask,
            prompt_ids=prompt_ids.repeat_interleave(group_size, dim=0),  # [N, P]
            prompt_mask=prompt_mask.repeat_interleave(group_size, dim=0),  # [N, P]
        )

    def logprobs(self, model: nn.Module, batch: Rollout) -> Tensor:
        assert batch.prompt_ids is not None and batch.prompt_mask is not None
        width = batch.prompt_ids.shape[1]
        input_ids = torch.cat([batch.prompt_ids, batch.tokens], dim=1)  # [n, P+T]
        attention = torch.cat([batch.prompt_mask, batch.mask.to(batch.prompt_mask.dtype)], dim=1)  # [n, P+T]
        position_ids = (attention.long().cumsum(dim=1) - 1).clamp(min=0)  # [n, P+T]  as generate() with left padding
        logits = model(input_ids=input_ids, attention_mask=attention, position_ids=position_ids).logits  # [n, P+T, V]
        logits = logits[:, width - 1 : -1, :].float() / self.config.temperature  # [n, T, V]  position t predicts token t
        logp_all = torch.log_softmax(logits, dim=-1)  # [n, T, V]
        return logp_all.gather(-1, batch.tokens.unsqueeze(-1)).squeeze(-1)  # [n, T]


def load_causal_lm(path: str, device: str | None = None, dtype: str = "auto") -> tuple[nn.Module, Any]:
    """(model, tokenizer) from a local Hugging Face directory; never downloads
    (``local_files_only=True``). ``transformers`` is imported only here."""
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    device = device or default_device()
    auto = torch.bfloat16 if device.startswith("cuda") else torch.float32
    torch_dtype = auto if dtype == "auto" else getattr(torch, dtype)
    major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    dtype_kw = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"  # renamed in 4.56
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, **{dtype_kw: torch_dtype})
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    module: nn.Module = model
    return module.to(device), tokenizer


# --------------------------------------------------------------------------
# Prompt order
# --------------------------------------------------------------------------


class PromptSampler(Protocol):
    """Chooses the prompts of each step and hears their rewards back
    (``trainer_client.curriculum.CurriculumSampler`` is one)."""

    def sample(self, n: int) -> list[int]: ...

    def update(self, prompt_index: Sequence[int], rewards: Sequence[float | None]) -> None: ...


class CyclingSampler:
    """Every prompt once per epoch, in a seeded random order per epoch."""

    def __init__(self, num_prompts: int, seed: int = 0) -> None:
        self.num_prompts = num_prompts
        self.generator = torch.Generator().manual_seed(seed)
        self.queue: list[int] = []

    def sample(self, n: int) -> list[int]:
        picked: list[int] = []
        while len(picked) < n:
            if not self.queue:
                self.queue = torch.randperm(self.num_prompts, generator=self.generator).tolist()
            candidate = self.queue.pop(0)
            if candidate in picked and self.num_prompts >= n:
                self.queue.append(candidate)  # keep the B prompts of one step distinct when possible
                continue
            picked.append(candidate)
        return picked

    def update(self, prompt_index: Sequence[int], rewards: Sequence[float | None]) -> None:
        pass


# --------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------


@dataclass
class StepLog:
    step: int
    loss: float  # the last pass's loss over the whole batch (sum of weighted micro-batch losses)
    reward_mean: float  # over valid samples
    reward_std: float
    valid_frac: float  # share of samples whose reward was not None
    zero_adv_groups: float  # share of groups whose advantages are all 0 (all equal, or <2 valid): no signal
    grad_norm: float
    seconds: float
    stats: dict[str, float] = field(default_factory=dict)  # clipped_surrogate stats, averaged over micro-batches

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_EXTREMES = {"ratio_min": min, "ratio_max": max}


def _accumulate(total: dict[str, float], stats: dict[str, float], token_share: float) -> None:
    """Per-token stats averaged with token weights, counts summed, extremes kept."""
    for key, value in stats.items():
        if key in _EXTREMES:
            total[key] = _EXTREMES[key](total.get(key, value), value)
        elif key in ("tokens", "sequences"):
            total[key] = total.get(key, 0.0) + value
        else:
            total[key] = total.get(key, 0.0) + value * token_share


def train(
    policy: nn.Module | str,
    tokenizer_or_candidates: Any,
    prompts: Sequence[str],
    reward_fn: RewardFn,
    config: GRPOConfig | None = None,
    *,
    sampler: PromptSampler | None = None,
    on_step: Callable[[StepLog, nn.Module], None] | None = None,
) -> list[StepLog]:
    """Train ``policy`` with GRPO; returns one ``StepLog`` per step.

    - ``policy``: a ``CategoricalPolicy`` (then ``tokenizer_or_candidates`` is
      the list of C candidate programs and row i of the logits is prompt i), a
      Hugging Face causal LM module (then it is its tokenizer), or a path to a
      local model directory (tokenizer loaded from it when
      ``tokenizer_or_candidates`` is None). The module is moved to
      ``config.device`` and trained in place (for a path, ``on_step`` gets
      it; or call ``load_causal_lm`` first and pass the module).
    - ``reward_fn(prompts, completions) -> list[float | None]``: N = B*G of
      each, same order; None = no signal (sandbox_error).
    - ``sampler``: picks each step's prompts and gets their rewards (a
      curriculum); default: seeded cycling through all prompts.
    - ``on_step(log, policy)``: called after every optimizer step.
    """
    config = config or GRPOConfig()
    device = torch.device(config.device or default_device())
    torch.manual_seed(config.seed)

    if isinstance(policy, str):
        policy, loaded_tokenizer = load_causal_lm(policy, str(device), config.dtype)
        tokenizer_or_candidates = tokenizer_or_candidates or loaded_tokenizer
    model = policy.to(device)
    model.eval()  # no dropout: the sampling policy and the scored policy must be the same function
    backend: _Backend
    if isinstance(model, CategoricalPolicy):
        candidates = list(tokenizer_or_candidates)
        if model.logits.shape != (len(prompts), len(candidates)):
            raise ValueError(f"logits {tuple(model.logits.shape)} != [{len(prompts)} prompts, {len(candidates)} candidates]")
        backend = _CategoricalBackend(candidates, config.temperature, device, config.seed)
    else:
        backend = _CausalLMBackend(tokenizer_or_candidates, prompts, config, device)

    reference: nn.Module | None = None
    if config.kl_coef != 0.0:
        # frozen pi_ref = the initial policy (a second copy of the weights on the device)
        reference = copy.deepcopy(model).eval().requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.learning_rate, betas=config.adam_betas,
                                  weight_decay=config.weight_decay)
    sampler = sampler or CyclingSampler(len(prompts), config.seed)
    G = config.group_size
    history: list[StepLog] = []

    for step in range(config.steps):
        started = time.monotonic()
        # 1. rollout: B prompts x G completions, no gradient
        chosen = sampler.sample(config.prompts_per_step)  # B
        rollout = backend.rollout(model, chosen, G)  # N = B*G rows

        # 2. rewards -> advantages; None rewards are masked out of the loss
        rewards = reward_fn([prompts[i] for i in rollout.prompt_index], rollout.completions)  # N
        if len(rewards) != len(rollout.completions):
            raise ValueError(f"reward_fn returned {len(rewards)} rewards for {len(rollout.completions)} completions")
        values, valid = rewards_to_tensor(rewards)  # [N], [N]
        advantages = group_advantages(rewards, G, config.scale_by_std, config.adv_eps).to(device)  # [N]
        loss_mask = rollout.mask * valid.to(device).unsqueeze(1).to(rollout.mask.dtype)  # [N, T]

        # 3. log-probs that stay fixed during the step: sampling policy (mu > 1) and reference (KL)
        n = len(rollout.completions)
        chunks = [slice(s, min(s + config.micro_batch_size, n)) for s in range(0, n, config.micro_batch_size)]
        with torch.no_grad():
            # per micro-batch: [n, T] each
            old_logp = [backend.logprobs(model, rollout.select(c)) for c in chunks] if config.num_iterations > 1 else None
            ref_logp = [backend.logprobs(reference, rollout.select(c)) for c in chunks] if reference is not None else None

        # 4. mu optimizer steps on the same samples, micro-batches weighted so the sum is the whole-batch loss
        total_tokens = float(loss_mask.sum().item())
        total_seqs = float((loss_mask.sum(dim=1) > 0).sum().item())
        step_loss = 0.0
        grad_norm = 0.0
        stats_sum: dict[str, float] = {}
        for _ in range(config.num_iterations):
            optimizer.zero_grad(set_to_none=True)
            step_loss = 0.0
            for k, c in enumerate(chunks):
                part = rollout.select(c)
                logp = backend.logprobs(model, part)  # [n, T]
                mb_mask = loss_mask[c]  # [n, T]
                loss, stats = clipped_surrogate(
                    logp, old_logp[k] if old_logp is not None else logp.detach(), advantages[c], mb_mask,
                    config.clip_low, config.clip_high, config.kl_coef, ref_logp[k] if ref_logp is not None else None,
                    config.aggregation,
                )
                if config.aggregation == "token-mean":
                    weight = stats["tokens"] / total_tokens if total_tokens else 0.0
                else:
                    weight = stats["sequences"] / total_seqs if total_seqs else 0.0
                (loss * weight).backward()
                step_loss += float(loss.item()) * weight
                _accumulate(stats_sum, stats, stats["tokens"] / total_tokens if total_tokens else 0.0)
            grads = [p.grad for p in params if p.grad is not None]
            if config.max_grad_norm > 0:
                grad_norm = float(torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm).item())
            elif grads:
                grad_norm = float(torch.linalg.vector_norm(torch.stack([g.norm() for g in grads])).item())
            optimizer.step()
        sampler.update(rollout.prompt_index, rewards)

        good = values[valid]  # [n_valid]
        adv_groups = advantages.view(-1, G).abs().sum(dim=1)  # [B]
        log = StepLog(
            step=step,
            loss=step_loss,
            reward_mean=float(good.mean().item()) if good.numel() else math.nan,
            reward_std=float(good.std().item()) if good.numel() > 1 else 0.0,
            valid_frac=float(valid.float().mean().item()),
            zero_adv_groups=float((adv_groups == 0).float().mean().item()),
            grad_norm=grad_norm,
            seconds=time.monotonic() - started,
            stats={k: v if k in _EXTREMES else v / config.num_iterations for k, v in stats_sum.items()},
        )
        history.append(log)
        if on_step is not None:
            on_step(log, model)
    return history
