"""RewardClient and AsyncRewardClient: the service as a reward source.

The two mirror each other (as httpx's Client and AsyncClient do):

    with RewardClient("http://127.0.0.1:8000", api_key=...) as client:
        results = client.score_batch(submissions)      # same order as given
        rewards = [reward_of(r) for r in results]      # None for sandbox_error

``score_batch`` splits large batches into requests of ``batch_size``, keeps at
most ``max_concurrency`` in flight and returns results in the input order.
Retries (with backoff, or the server's Retry-After) happen only where they
are safe: connection failures, time-outs, 429 and 503. A 4xx is never retried.
Scoring has no side effects, so retrying a request that may have reached the
server is safe.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from trainer_client.exceptions import Overloaded, RequestTimeout, TransportError, error_for

DEFAULT_URL = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class Timeout:
    """connect_s: to open a connection; request_s: for the whole answer of one
    request (a synchronous batch waits for all of its results)."""

    connect_s: float = 5.0
    request_s: float = 900.0

    def to_httpx(self) -> httpx.Timeout:
        return httpx.Timeout(self.request_s, connect=self.connect_s)


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts per request (1 = no retry) and the exponential backoff bounds, seconds."""

    max_attempts: int = 5
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 30.0


def reward_of(result: Mapping[str, Any]) -> float | None:
    """The scalar reward of a result; None when it is not a judgement of the
    program (sandbox_error, invalid, pending): an infra fault is no signal."""
    if result.get("status") != "completed":
        return None
    reward = result.get("reward")
    return float(reward) if reward is not None else None


def _as_json(submission: Any) -> Any:
    dump = getattr(submission, "model_dump", None)
    return dump(mode="json") if callable(dump) else submission


def _headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _raise_for(response: httpx.Response) -> Any:
    if response.status_code < 400:
        return response.json()
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = response.text[:500]
    retry_after = response.headers.get("Retry-After")
    raise error_for(response.status_code, detail, float(retry_after) if retry_after and retry_after.isdigit() else None)


def _wait(policy: RetryPolicy) -> Any:
    backoff = wait_exponential_jitter(multiplier=policy.backoff_initial_s, max=policy.backoff_max_s)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, Overloaded) and exc.retry_after_s:
            return min(exc.retry_after_s, policy.backoff_max_s)
        return float(backoff(state))

    return wait


def _retry_kwargs(policy: RetryPolicy) -> dict[str, Any]:
    return {
        "stop": stop_after_attempt(policy.max_attempts),
        "retry": retry_if_exception_type((TransportError, Overloaded)),
        "wait": _wait(policy),
        "reraise": True,
    }


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


class RewardClient:
    """Blocking client. Thread-safe; reuse one per process."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: Timeout = Timeout(),  # noqa: B008 - frozen dataclass
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 - frozen dataclass
        batch_size: int = 256,
        max_concurrency: int = 4,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retry = retry
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self._http = httpx.Client(
            base_url=base_url, headers=_headers(api_key), timeout=timeout.to_httpx(), transport=transport
        )

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        for attempt in Retrying(**_retry_kwargs(self.retry)):
            with attempt:
                try:
                    response = self._http.request(method, path, json=body)
                except httpx.TimeoutException as exc:
                    raise RequestTimeout(str(exc)) from exc
                except httpx.TransportError as exc:
                    raise TransportError(str(exc)) from exc
                return _raise_for(response)
        raise AssertionError("unreachable")  # pragma: no cover

    def score(self, submission: Any) -> dict[str, Any]:
        """One submission (dict or Submission) -> its result dict."""
        result: dict[str, Any] = self._request("POST", "/v1/score", _as_json(submission))
        return result

    def score_batch(self, submissions: Sequence[Any]) -> list[dict[str, Any]]:
        """Many submissions -> results in the same order (items may be
        ``{"status": "invalid", ...}`` or ``sandbox_error``; see reward_of)."""
        chunks = _chunks([_as_json(s) for s in submissions], self.batch_size)

        def send(chunk: Sequence[Any]) -> list[dict[str, Any]]:
            answer: list[dict[str, Any]] = self._request("POST", "/v1/score/batch", {"submissions": list(chunk)})["results"]
            return answer

        with ThreadPoolExecutor(max(1, min(self.max_concurrency, len(chunks)))) as pool:
            parts = list(pool.map(send, chunks))
        return [result for part in parts for result in part]

    def run(self, language: str, code: str, stdin: str = "", limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run a program once, no tests: stdout, stderr, exit code, time, memory, verdict."""
        body = {"language": language, "code": code, "stdin": stdin, "limits": dict(limits or {})}
        result: dict[str, Any] = self._request("POST", "/v1/run", body)
        return result

    def languages(self) -> list[dict[str, Any]]:
        """Offered languages with versions and default limits."""
        answer: list[dict[str, Any]] = self._request("GET", "/v1/languages")
        return answer

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RewardClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncRewardClient:
    """The asyncio mirror of RewardClient (same methods, awaitable)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: Timeout = Timeout(),  # noqa: B008 - frozen dataclass
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 - frozen dataclass
        batch_size: int = 256,
        max_concurrency: int = 4,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retry = retry
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=_headers(api_key), timeout=timeout.to_httpx(), transport=transport
        )

    async def _request(self, method: str, path: str, body: Any = None) -> Any:
        async for attempt in AsyncRetrying(**_retry_kwargs(self.retry)):
            with attempt:
                try:
                    response = await self._http.request(method, path, json=body)
                except httpx.TimeoutException as exc:
                    raise RequestTimeout(str(exc)) from exc
                except httpx.TransportError as exc:
                    raise TransportError(str(exc)) from exc
                return _raise_for(response)
        raise AssertionError("unreachable")  # pragma: no cover

    async def score(self, submission: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self._request("POST", "/v1/score", _as_json(submission))
        return result

    async def score_batch(self, submissions: Sequence[Any]) -> list[dict[str, Any]]:
        chunks = _chunks([_as_json(s) for s in submissions], self.batch_size)
        gate = asyncio.Semaphore(max(1, self.max_concurrency))

        async def send(chunk: Sequence[Any]) -> list[dict[str, Any]]:
            async with gate:
                answer = await self._request("POST", "/v1/score/batch", {"submissions": list(chunk)})
                results: list[dict[str, Any]] = answer["results"]
                return results

        parts = await asyncio.gather(*(send(chunk) for chunk in chunks))
        return [result for part in parts for result in part]

    async def run(self, language: str, code: str, stdin: str = "", limits: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body = {"language": language, "code": code, "stdin": stdin, "limits": dict(limits or {})}
        result: dict[str, Any] = await self._request("POST", "/v1/run", body)
        return result

    async def languages(self) -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = await self._request("GET", "/v1/languages")
        return answer

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncRewardClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
