"""The trainer client against httpx.MockTransport (allowed for the client's
unit tests by the testing policy): retries, errors, order, timeouts."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

import trainer_client
from trainer_client import (
    AsyncRewardClient,
    AuthenticationError,
    InvalidSubmission,
    Overloaded,
    RetryPolicy,
    RewardClient,
    TransportError,
    reward_of,
)

FAST = RetryPolicy(max_attempts=3, backoff_initial_s=0.01, backoff_max_s=0.05)
SUB = {"language": "python", "code": "print(1)", "tests": [{"expected_output": "1"}]}


def result(i: int, status: str = "completed") -> dict:
    return {"status": status, "verdict": "accepted" if status == "completed" else "sandbox_error",
            "reward": 1.0 if status == "completed" else None, "index": i}


def test_public_names_are_pinned() -> None:
    assert trainer_client.__all__ == sorted(trainer_client.__all__)
    assert set(trainer_client.__all__) == {
        "AsyncRewardClient", "AuthenticationError", "ClientError", "HTTPStatusError", "InvalidSubmission", "Overloaded",
        "PayloadTooLarge", "RequestTimeout", "RetryPolicy", "RewardClient", "RewardboxClientError", "ServerError",
        "Timeout", "TransportError", "extract_code", "reward_of",
    }


def test_retries_503_honouring_retry_after_then_succeeds() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) < 3:
            return httpx.Response(503, json={"detail": "Redis down"}, headers={"Retry-After": "0"})
        return httpx.Response(200, json=result(0))

    with RewardClient(retry=FAST, transport=httpx.MockTransport(handler)) as client:
        assert client.score(SUB)["verdict"] == "accepted"
    assert len(calls) == 3


def test_gives_up_after_max_attempts_on_429() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(429, json={"detail": "queue is full"}, headers={"Retry-After": "0"})

    with RewardClient(retry=FAST, transport=httpx.MockTransport(handler)) as client, pytest.raises(Overloaded):
        client.score(SUB)
    assert len(calls) == FAST.max_attempts


def test_never_retries_a_4xx() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(422, json={"detail": [{"field": "language", "reason": "unknown"}]})

    with RewardClient(retry=FAST, transport=httpx.MockTransport(handler)) as client, pytest.raises(InvalidSubmission) as info:
        client.score(SUB)
    assert info.value.details == [{"field": "language", "reason": "unknown"}]
    assert len(calls) == 1


def test_401_is_authentication_error_and_key_is_sent() -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("Authorization"))
        return httpx.Response(401, json={"detail": "missing or wrong API key"})

    with (
        RewardClient(api_key="k" * 20, retry=FAST, transport=httpx.MockTransport(handler)) as client,
        pytest.raises(AuthenticationError),
    ):
        client.languages()
    assert seen == ["Bearer " + "k" * 20]


def test_connection_errors_are_retried_then_raised() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ConnectError("refused", request=request)

    with RewardClient(retry=FAST, transport=httpx.MockTransport(handler)) as client, pytest.raises(TransportError):
        client.score(SUB)
    assert len(calls) == FAST.max_attempts


def _echo_batch(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    return httpx.Response(200, json={"results": [result(s["index"]) for s in body["submissions"]]})


def test_score_batch_splits_and_keeps_order() -> None:
    submissions = [{**SUB, "index": i} for i in range(23)]
    with RewardClient(batch_size=4, max_concurrency=3, transport=httpx.MockTransport(_echo_batch)) as client:
        results = client.score_batch(submissions)
    assert [r["index"] for r in results] == list(range(23))


def test_async_client_mirrors_the_sync_one() -> None:
    async def main() -> list[dict]:
        async with AsyncRewardClient(batch_size=5, max_concurrency=2, transport=httpx.MockTransport(_echo_batch)) as client:
            return await client.score_batch([{**SUB, "index": i} for i in range(12)])

    assert [r["index"] for r in asyncio.run(main())] == list(range(12))
    assert set(dir(RewardClient)) - set(dir(AsyncRewardClient)) <= {"close", "__enter__", "__exit__"}


def test_sandbox_error_is_none_never_zero() -> None:
    assert reward_of(result(0, "sandbox_error")) is None
    assert reward_of({"status": "invalid", "error": {}}) is None
    assert reward_of({"status": "completed", "reward": 0.0}) == 0.0
