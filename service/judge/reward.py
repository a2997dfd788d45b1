"""Verdicts -> scalar reward, always with its breakdown.

Modes:
- ``all_pass`` (default): 1.0 if every test is accepted, else 0.0.
- ``fraction``: share of tests accepted.
- ``weighted``: ``compile_weight * compiled + tests_weight * all_passed
  - penalties`` (penalties for time, memory and output limit breaches), the
  classic ``0.2 * compiles + 0.8 * all_tests_pass - timeout_penalty`` shaping.

A sandbox_error never reaches this module: its reward is None.
"""

from __future__ import annotations

from service.models.result import RewardBreakdown
from service.models.submission import RewardSpec
from service.models.verdict import Verdict


def compute_reward(spec: RewardSpec, compiled: bool, verdicts: list[Verdict], total: int) -> tuple[float, RewardBreakdown]:
    """``verdicts``: one per test that ran (skipped tests count as failed);
    ``total``: number of tests in the submission. Returns (reward, breakdown)."""
    passed = sum(v == Verdict.accepted for v in verdicts)
    fraction = passed / total if total else 0.0
    all_passed = compiled and total > 0 and passed == total
    penalties: dict[str, float] = {}
    components: dict[str, float] = {}
    if spec.mode == "all_pass":
        reward = 1.0 if all_passed else 0.0
        components["all_passed"] = reward
    elif spec.mode == "fraction":
        reward = fraction if compiled else 0.0
        components["passed_fraction"] = reward
    else:
        components["compile"] = spec.compile_weight * compiled
        components["tests"] = spec.tests_weight * all_passed
        for verdict, amount, key in (
            (Verdict.time_limit_exceeded, spec.timeout_penalty, "timeout"),
            (Verdict.memory_limit_exceeded, spec.memory_penalty, "memory"),
            (Verdict.output_limit_exceeded, spec.output_penalty, "output"),
        ):
            if amount and verdict in verdicts:
                penalties[key] = amount
        reward = sum(components.values()) - sum(penalties.values())
    breakdown = RewardBreakdown(
        mode=spec.mode,
        compiled=compiled,
        passed_fraction=fraction,
        all_passed=all_passed,
        penalties=penalties,
        components=components,
    )
    return reward, breakdown
