"""rewardbox trainer client: rewardbox as a reward source for RL trainers.

    from trainer_client import RewardClient, reward_of
    with RewardClient("http://127.0.0.1:8000") as client:
        rewards = [reward_of(r) for r in client.score_batch(submissions)]

Adapters for TRL and verl live in ``trainer_client.adapters``; the reference
GRPO loop in ``trainer_client.grpo`` (needs torch).
"""

from trainer_client.client import AsyncRewardClient, RetryPolicy, RewardClient, Timeout, reward_of
from trainer_client.exceptions import (
    AuthenticationError,
    ClientError,
    HTTPStatusError,
    InvalidSubmission,
    Overloaded,
    PayloadTooLarge,
    RequestTimeout,
    RewardboxClientError,
    ServerError,
    TransportError,
)
from trainer_client.extraction import extract_code

__all__ = [
    "AsyncRewardClient",
    "AuthenticationError",
    "ClientError",
    "HTTPStatusError",
    "InvalidSubmission",
    "Overloaded",
    "PayloadTooLarge",
    "RequestTimeout",
    "RetryPolicy",
    "RewardClient",
    "RewardboxClientError",
    "ServerError",
    "Timeout",
    "TransportError",
    "extract_code",
    "reward_of",
]
