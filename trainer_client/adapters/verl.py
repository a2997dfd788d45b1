"""verl custom reward functions (``custom_reward_function.path`` = this file).

verl's NaiveRewardManager calls ``compute_score(data_source, solution_str,
ground_truth, extra_info)`` per sample and accepts a float or a dict with
``"score"`` (other keys are logged); its BatchRewardManager calls
``compute_score(data_sources, solution_strs, ground_truths, extra_infos)``
once per batch (``compute_score_batch`` here). ``ground_truth`` holds the test
cases: verl's / PRIME's ``{"inputs", "outputs", "fn_name"?}`` (dict or JSON
string) or any format service.datasets knows.

The service URL and key come from REWARDBOX_URL / REWARDBOX_API_KEY (or
``extra_info["rewardbox_url"]``). A sandbox_error (our infra fault) gives
``"score": None`` and ``"valid": 0``: it is not a training signal, never a 0.
verl's stock reward managers need a number in every slot; a run that prefers
a substitute must say so explicitly with REWARDBOX_VERL_SANDBOX_ERROR_SCORE
(e.g. the group mean is not known here, so 0.0 would be a choice, not a fact).
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Sequence
from typing import Any

from trainer_client.client import AsyncRewardClient, RewardClient
from trainer_client.rewards import Outcome, score_completions, score_completions_async

_CLIENTS: dict[tuple[str, str | None], RewardClient] = {}


def _client(url: str, api_key: str | None) -> RewardClient:
    """One pooled client per (url, key) for the life of the process."""
    if (url, api_key) not in _CLIENTS:
        _CLIENTS[(url, api_key)] = RewardClient(url, api_key=api_key)
    return _CLIENTS[(url, api_key)]


@atexit.register
def close_clients() -> None:
    """Close the pooled clients (also run at exit)."""
    while _CLIENTS:
        _CLIENTS.popitem()[1].close()


def _url(extra_info: Any) -> str:
    if isinstance(extra_info, dict) and extra_info.get("rewardbox_url"):
        return str(extra_info["rewardbox_url"])
    return os.environ.get("REWARDBOX_URL", "http://127.0.0.1:8000")


def _language(extra_info: Any) -> str:
    if isinstance(extra_info, dict) and extra_info.get("language"):
        return str(extra_info["language"])
    return "python"


def _as_dict(outcome: Outcome) -> dict[str, Any]:
    substitute = os.environ.get("REWARDBOX_VERL_SANDBOX_ERROR_SCORE")
    score = outcome.reward
    if score is None and substitute is not None:
        score = float(substitute)
    return {
        "score": score,
        "valid": 0 if outcome.reward is None else 1,
        "accepted": float(outcome.verdict == "accepted"),
        "no_code": float(outcome.verdict == "no_code"),
        "pass_fraction": outcome.passed / outcome.total if outcome.total else 0.0,
        "verdict": outcome.verdict,
    }


def compute_score(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> dict[str, Any]:
    """One sample -> ``{"score", "valid", "accepted", "no_code", "pass_fraction", "verdict"}``."""
    client = _client(_url(extra_info), os.environ.get("REWARDBOX_API_KEY"))
    outcome = score_completions(client, [solution_str], [ground_truth], language=_language(extra_info), fmt=_fmt(extra_info))[0]
    return _as_dict(outcome)


async def compute_score_async(
    data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, **kwargs: Any
) -> dict[str, Any]:
    """The async variant (one short-lived async client per call)."""
    async with AsyncRewardClient(_url(extra_info), api_key=os.environ.get("REWARDBOX_API_KEY")) as client:
        outcomes = await score_completions_async(
            client, [solution_str], [ground_truth], language=_language(extra_info), fmt=_fmt(extra_info)
        )
    return _as_dict(outcomes[0])


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """The whole batch in one request (for verl's BatchRewardManager)."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    client = _client(_url(infos[0] if infos else None), os.environ.get("REWARDBOX_API_KEY"))
    outcomes: list[Outcome | None] = [None] * len(solution_strs)
    # one request per (language, format) group, results put back in order
    groups: dict[tuple[str, str | None], list[int]] = {}
    for i, info in enumerate(infos):
        groups.setdefault((_language(info), _fmt(info)), []).append(i)
    for (language, fmt), indices in groups.items():
        scored = score_completions(
            client, [solution_strs[i] for i in indices], [ground_truths[i] for i in indices], language=language, fmt=fmt
        )
        for i, outcome in zip(indices, scored, strict=True):
            outcomes[i] = outcome
    return [_as_dict(o) for o in outcomes if o is not None]


def _fmt(extra_info: Any) -> str | None:
    """The ground truth's format: ``extra_info["rewardbox_format"]``, else
    detected from its keys. (``data_source`` names the dataset, e.g. "taco",
    not the ground truth's shape, which verl pipelines usually convert to
    ``{"inputs", "outputs", "fn_name"}``.)"""
    if isinstance(extra_info, dict) and extra_info.get("rewardbox_format"):
        return str(extra_info["rewardbox_format"])
    return None
