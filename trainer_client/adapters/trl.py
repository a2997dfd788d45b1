"""TRL (GRPOTrainer / RLOOTrainer) reward functions.

TRL calls each entry of ``reward_funcs`` as
``fn(prompts=..., completions=..., completion_ids=..., **dataset_columns)``
and reads ``fn.__name__`` for its logs; completions are strings (standard
format) or lists of messages (conversational format). A None reward means
"not applicable" (TRL skips it in the weighted sum). Newer TRL versions pass
``log_metric(name, value)`` and ``log_extra(column, values)``; when present,
per-component rates and each verdict are logged through them.

    from trainer_client.adapters.trl import rewardbox_reward
    reward_fn = rewardbox_reward("http://127.0.0.1:8000", tests_column="verification_info")
    GRPOTrainer(model=..., reward_funcs=[reward_fn], ...)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trainer_client.client import AsyncRewardClient, RewardClient
from trainer_client.extraction import Policy, completion_text
from trainer_client.rewards import Outcome, score_completions, score_completions_async, summary


def _log(outcomes: list[Outcome], kwargs: dict[str, Any], prefix: str) -> None:
    log_metric = kwargs.get("log_metric")
    if callable(log_metric):
        for name, value in summary(outcomes).items():
            log_metric(f"{prefix}/{name}", value)
    log_extra = kwargs.get("log_extra")
    if callable(log_extra):
        log_extra(f"{prefix}_verdict", [o.verdict for o in outcomes])


def rewardbox_reward(
    url: str = "http://127.0.0.1:8000",
    *,
    api_key: str | None = None,
    tests_column: str = "verification_info",
    language: str | None = None,
    language_column: str | None = None,
    dataset_format: str | None = None,
    policy: Policy = "language_then_last",
    no_code_reward: float = 0.0,
    name: str = "rewardbox",
    client: RewardClient | None = None,
) -> Callable[..., list[float | None]]:
    """A TRL reward function. ``tests_column``: the dataset column holding each
    row's test cases (any format service.datasets knows; auto-detected unless
    ``dataset_format``); language from ``language`` or ``language_column``
    (default python)."""
    owned = client or RewardClient(url, api_key=api_key)

    def reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] = (), **kwargs: Any) -> list[float | None]:
        rows = kwargs.get(tests_column)
        if rows is None:
            raise KeyError(f"the dataset has no column {tests_column!r} (set tests_column=)")
        texts = [completion_text(c) for c in completions]
        languages = kwargs.get(language_column) if language_column else None
        lang = language or (languages[0] if languages else "python")
        outcomes = score_completions(
            owned, texts, rows, language=lang, fmt=dataset_format, policy=policy, no_code_reward=no_code_reward
        )
        _log(outcomes, kwargs, name)
        return [o.reward for o in outcomes]

    reward.__name__ = name
    reward.close = owned.close  # type: ignore[attr-defined]  # release the connection pool when done
    return reward


def rewardbox_reward_async(
    url: str = "http://127.0.0.1:8000",
    *,
    api_key: str | None = None,
    tests_column: str = "verification_info",
    language: str = "python",
    dataset_format: str | None = None,
    policy: Policy = "language_then_last",
    no_code_reward: float = 0.0,
    name: str = "rewardbox",
    client: AsyncRewardClient | None = None,
) -> Callable[..., Any]:
    """The async variant (TRL awaits coroutine reward functions concurrently)."""
    owned = client or AsyncRewardClient(url, api_key=api_key)

    async def reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] = (), **kwargs: Any) -> list[float | None]:
        rows = kwargs.get(tests_column)
        if rows is None:
            raise KeyError(f"the dataset has no column {tests_column!r} (set tests_column=)")
        texts = [completion_text(c) for c in completions]
        outcomes = await score_completions_async(
            owned, texts, rows, language=language, fmt=dataset_format, policy=policy, no_code_reward=no_code_reward
        )
        _log(outcomes, kwargs, name)
        return [o.reward for o in outcomes]

    reward.__name__ = name
    reward.aclose = owned.aclose  # type: ignore[attr-defined]  # release the connection pool when done
    return reward
