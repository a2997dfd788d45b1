"""Completions + test cases -> rewards: the logic every adapter shares.

``score_completions`` extracts the code of each completion (extraction.py),
turns it and its dataset row into a submission (service.datasets), scores all
of them in one batch, and returns one Outcome each:

- ``no_code``: no code in the completion -> ``no_code_reward`` (default 0.0),
  distinct from a wrong answer, never sent to the service;
- ``sandbox_error`` (or an invalid item): reward None — not applicable, never 0;
- otherwise the service's reward and its breakdown.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trainer_client.client import AsyncRewardClient, RewardClient, reward_of
from trainer_client.extraction import Policy, extract_code


@dataclass
class Outcome:
    reward: float | None
    verdict: str  # a Verdict value, or "no_code" / "invalid"
    passed: int = 0
    total: int = 0
    breakdown: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


def _row(tests: Any) -> dict[str, Any]:
    if isinstance(tests, str):
        tests = json.loads(tests)
    if not isinstance(tests, Mapping):
        raise ValueError(f"test cases must be a JSON object or a dict, got {type(tests).__name__}")
    return dict(tests)


def build_submissions(
    completions: Sequence[str], rows: Sequence[Any], language: str, fmt: str | None, policy: Policy
) -> list[dict[str, Any] | None]:
    """One submission JSON per completion, or None where it has no code."""
    from service.datasets.registry import to_submission

    built: list[dict[str, Any] | None] = []
    for text, tests in zip(completions, rows, strict=True):
        code = extract_code(text, language, policy)
        if code is None:
            built.append(None)
            continue
        built.append(to_submission(_row(tests), code, language=language, format=fmt).model_dump(mode="json"))
    return built


def _outcomes(built: list[dict[str, Any] | None], results: list[dict[str, Any]], no_code_reward: float) -> list[Outcome]:
    answers = iter(results)
    outcomes = []
    for submission in built:
        if submission is None:
            outcomes.append(Outcome(reward=no_code_reward, verdict="no_code"))
            continue
        result = next(answers)
        if result.get("status") == "invalid":
            outcomes.append(Outcome(reward=None, verdict="invalid", breakdown={"error": result.get("error")}))
            continue
        outcomes.append(
            Outcome(
                reward=reward_of(result),
                verdict=str(result.get("verdict")),
                passed=int(result.get("passed", 0)),
                total=int(result.get("total", 0)),
                breakdown=dict(result.get("reward_breakdown") or {}),
                flags=list(result.get("flags") or []),
            )
        )
    return outcomes


def score_completions(
    client: RewardClient,
    completions: Sequence[str],
    rows: Sequence[Any],
    *,
    language: str = "python",
    fmt: str | None = None,
    policy: Policy = "language_then_last",
    no_code_reward: float = 0.0,
) -> list[Outcome]:
    built = build_submissions(completions, rows, language, fmt, policy)
    results = client.score_batch([s for s in built if s is not None]) if any(built) else []
    return _outcomes(built, results, no_code_reward)


async def score_completions_async(
    client: AsyncRewardClient,
    completions: Sequence[str],
    rows: Sequence[Any],
    *,
    language: str = "python",
    fmt: str | None = None,
    policy: Policy = "language_then_last",
    no_code_reward: float = 0.0,
) -> list[Outcome]:
    built = build_submissions(completions, rows, language, fmt, policy)
    results = await client.score_batch([s for s in built if s is not None]) if any(built) else []
    return _outcomes(built, results, no_code_reward)


def summary(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """Per-component means for logging: pass rate, no_code / sandbox_error rates."""
    n = max(1, len(outcomes))
    judged = [o for o in outcomes if o.reward is not None and o.verdict != "no_code"]
    return {
        "accepted_rate": sum(o.verdict == "accepted" for o in outcomes) / n,
        "no_code_rate": sum(o.verdict == "no_code" for o in outcomes) / n,
        "sandbox_error_rate": sum(o.reward is None for o in outcomes) / n,
        "compile_error_rate": sum(o.verdict == "compile_error" for o in outcomes) / n,
        "mean_test_pass_fraction": sum(o.passed / o.total for o in judged if o.total) / max(1, len(judged)),
    }
