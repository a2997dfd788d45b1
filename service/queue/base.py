"""The queue interface the gateway talks to, with two implementations:

- ``redis_queue.RedisQueue``: RQ on Redis; jobs are enqueued by dotted path
  (``service.worker.tasks.process_task``) and run by ``rewardbox worker``
  processes; results are awaited by blocking on Redis (XREAD BLOCK).
- ``inprocess.InProcessQueue``: standalone mode, a thread pool judging in
  this process; same interface, same results.

A *payload* is ``{"kind": "score" | "run", "body": <validated request JSON>,
"cache_key": str | None}``; a *result* is the JSON of a Result or RunResult.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from service.core.errors import RewardboxError
from service.sandbox.executor.protocol import source_version

ItemStatus = Literal["queued", "running", "completed", "failed"]


class QueueFull(RewardboxError):
    """Too much work is waiting; retry after ``retry_after_s``."""

    def __init__(self, depth: int, limit: int, retry_after_s: int = 1) -> None:
        super().__init__(f"queue is full ({depth} waiting, limit {limit}); retry later")
        self.retry_after_s = retry_after_s


class QueueUnavailable(RewardboxError):
    """The queue's store (Redis) cannot be reached."""


@dataclass
class ItemState:
    status: ItemStatus
    result: dict[str, Any] | None = None


def cache_key(kind: str, body: dict[str, Any], language_version: str) -> str:
    """Hash of everything that determines a result: the request (canonical
    JSON), the executor's version and the toolchain's version."""
    blob = json.dumps([kind, body, source_version(), language_version], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def sandbox_error_result(kind: str, message: str) -> dict[str, Any]:
    """The JSON of a sandbox_error Result/RunResult (reward null)."""
    from service.models.result import Result, RunResult
    from service.models.verdict import Verdict

    if kind == "run":
        return RunResult(status="sandbox_error", verdict=Verdict.sandbox_error, error=message).model_dump(mode="json")
    return Result(status="sandbox_error", verdict=Verdict.sandbox_error, reward=None, error=message).model_dump(mode="json")


class JobQueue(ABC):
    """What the gateway needs from a queue. Methods block; the gateway calls
    them from a thread pool."""

    mode: str

    @abstractmethod
    def submit(self, payloads: list[dict[str, Any]]) -> list[str]:
        """Queue all payloads or none; returns one id each. Raises QueueFull,
        QueueUnavailable."""

    @abstractmethod
    def wait(self, ids: list[str], timeout_s: float) -> list[dict[str, Any] | None]:
        """Block until every id has a result or ``timeout_s`` passes; None for
        the ones still unfinished. Raises QueueUnavailable."""

    @abstractmethod
    def state(self, item_id: str) -> ItemState | None:
        """None for an unknown (or expired) id."""

    @abstractmethod
    def depth(self) -> int:
        """Submissions waiting to start."""

    @abstractmethod
    def languages(self) -> dict[str, str]:
        """{language: version} offered by the sandboxes behind this queue."""

    @abstractmethod
    def readiness(self) -> tuple[bool, str]:
        """(ready, why) for /readyz."""

    @abstractmethod
    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def save_job(self, job_id: str, record: dict[str, Any]) -> None:
        """Store an async job record (its kind and item ids) for the result TTL."""

    @abstractmethod
    def load_job(self, job_id: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def rate_hit(self, client: str, limit: int, window_s: int = 60) -> int | None:
        """Count one request of ``client`` in the current fixed window; None
        if it is within ``limit``, else the seconds until the window ends."""

    def refresh_metrics(self) -> None:
        """Bring the sandbox gauges (pool sizes) up to date, where the sandboxes
        run in this process (standalone); workers export their own."""

    def close(self) -> None:
        """Release what the queue holds."""
