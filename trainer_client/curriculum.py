"""A pass-rate curriculum: sample more of what the policy can just about solve.

For each key ``d`` (a domain, or a single problem), keep an exponential moving
average of its pass rate, and sample it with probability

    p_d  <- decay * p_d + (1 - decay) * (passed_d / scored_d)       (EMA, on each update that scores d)
    s_d   = p_d * (1 - p_d)                                          ("learnability", in [0, 1/4])
    pi_d  = floor + (1 - K * floor) * s_d / sum_e s_e                (K keys; uniform when every s_e = 0)

Every ``p_d`` starts at ``prior`` (0.5: an unseen domain counts as within
reach, so it is tried early). ``floor`` is the least probability any key
gets (``pi_d >= floor``, needs ``K * floor <= 1``): a domain solved every time,
or never, is sampled less but not starved, and its pass rate keeps being
measured, so it comes back if the policy forgets it or grows into it.

Why p(1 - p): with a 0/1 reward of pass probability p, p(1 - p) is the
reward's variance. GRPO's advantage is relative to the group, so a group that
is all right or all wrong has advantage 0 and no gradient (the probability of
that is p^G + (1-p)^G; DAPO's dynamic sampling drops such groups: Yu et al.
2025); the expected signal is largest at p = 1/2 and vanishes at 0 and 1. The
same score is the "learnability" of Tzannetos et al. 2023 ("Proximal
Curriculum for Reinforcement Learning Agents", success probability times its
complement) and of Foster & Foerster 2025 ("Learning to Reason at the Frontier
of Learnability"), which samples LLM RL problems in proportion to it. The EMA
(smoothing over noisy, small per-step samples and following a moving policy)
is in the spirit of Prioritized Level Replay (Jiang et al. 2021).

Rewards of None (rewardbox's ``sandbox_error``) are not scored: they change
no pass rate. Deterministic: the same seed and the same updates give the
same samples. Pure Python, no torch.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence


class Curriculum:
    """Sampling weights over ``keys`` (domains or problems) from their pass rates."""

    def __init__(
        self,
        keys: Sequence[Hashable],
        *,
        decay: float = 0.8,
        floor: float = 0.05,
        prior: float = 0.5,
        pass_threshold: float = 1.0,
        seed: int = 0,
    ) -> None:
        """
        - ``decay``: EMA weight of the old pass rate per update, in [0, 1) (0 = only the last batch counts).
        - ``floor``: least sampling probability of every key, in [0, 1/K].
        - ``prior``: starting pass rate of every key, in [0, 1].
        - ``pass_threshold``: a reward >= this counts as a pass (1.0 for rewardbox's all_pass mode).
        - ``seed``: seeds ``sample``.
        """
        self.keys = list(keys)
        if not self.keys or len(set(self.keys)) != len(self.keys):
            raise ValueError("keys must be non-empty and distinct")
        if not 0.0 <= decay < 1.0:
            raise ValueError("decay must be in [0, 1)")
        if not 0.0 <= floor * len(self.keys) <= 1.0:
            raise ValueError(f"floor must be in [0, 1/{len(self.keys)}]")
        if not 0.0 <= prior <= 1.0:
            raise ValueError("prior must be in [0, 1]")
        self.decay = decay
        self.floor = floor
        self.pass_threshold = pass_threshold
        self.pass_rate: dict[Hashable, float] = {k: prior for k in self.keys}
        self.scored: dict[Hashable, int] = {k: 0 for k in self.keys}
        self.rng = random.Random(seed)

    def update(self, key: Hashable, rewards: Sequence[float | None]) -> None:
        """Fold one batch of rewards for ``key`` into its pass-rate EMA."""
        scored = [r for r in rewards if r is not None]
        if not scored:
            return
        batch_rate = sum(r >= self.pass_threshold for r in scored) / len(scored)
        self.pass_rate[key] = self.decay * self.pass_rate[key] + (1.0 - self.decay) * batch_rate
        self.scored[key] += len(scored)

    def update_many(self, keys: Sequence[Hashable], rewards: Sequence[float | None]) -> None:
        """One reward per sample, ``keys[i]`` its key: one EMA update per key seen."""
        if len(keys) != len(rewards):
            raise ValueError("keys and rewards differ in length")
        grouped: dict[Hashable, list[float | None]] = {}
        for key, reward in zip(keys, rewards, strict=True):
            grouped.setdefault(key, []).append(reward)
        for key in self.keys:  # a fixed order: updates never depend on dict order of the input
            if key in grouped:
                self.update(key, grouped[key])

    def weights(self) -> dict[Hashable, float]:
        """pi_d for every key; sums to 1, each >= floor."""
        score = {k: p * (1.0 - p) for k, p in self.pass_rate.items()}
        total = sum(score.values())
        k = len(self.keys)
        if total <= 0.0:
            return {key: 1.0 / k for key in self.keys}
        spread = 1.0 - k * self.floor
        return {key: self.floor + spread * score[key] / total for key in self.keys}

    def sample(self, n: int) -> list[Hashable]:
        """n keys drawn with replacement from ``weights()``."""
        w = self.weights()
        return self.rng.choices(self.keys, weights=[w[k] for k in self.keys], k=n)


class CurriculumSampler:
    """A ``PromptSampler`` for ``trainer_client.grpo.train``: a domain from the
    curriculum, then a prompt of that domain uniformly; the rewards of each
    step update the domains' pass rates."""

    def __init__(self, prompt_domains: Sequence[Hashable], curriculum: Curriculum | None = None, seed: int = 0) -> None:
        self.prompt_domains = list(prompt_domains)
        self.by_domain: dict[Hashable, list[int]] = {}
        for i, d in enumerate(self.prompt_domains):
            self.by_domain.setdefault(d, []).append(i)
        self.curriculum = curriculum or Curriculum(list(self.by_domain), seed=seed)
        missing = set(self.by_domain) - set(self.curriculum.keys)
        if missing:
            raise ValueError(f"domains not in the curriculum: {sorted(map(str, missing))}")
        self.rng = random.Random(seed)

    def sample(self, n: int) -> list[int]:
        # a curriculum key without prompts is never chosen
        keys = [k for k in self.curriculum.keys if k in self.by_domain]
        w = self.curriculum.weights()
        domains = self.rng.choices(keys, weights=[w[k] for k in keys], k=n)
        return [self.rng.choice(self.by_domain[d]) for d in domains]

    def update(self, prompt_index: Sequence[int], rewards: Sequence[float | None]) -> None:
        self.curriculum.update_many([self.prompt_domains[i] for i in prompt_index], rewards)
