"""Standalone mode: no Redis; a thread pool judges in this process.

Same interface and results as the Redis queue. Items and job records live in
memory for ``result_ttl_s``; the cache is an in-memory dict with a TTL.
"""

from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from service.core.settings import Settings
from service.judge.judge import Judge
from service.queue.base import ItemState, JobQueue, QueueFull, sandbox_error_result
from service.sandbox import create_backend
from service.worker.tasks import process_with_retries

MAX_CACHE_ENTRIES = 100_000


class InProcessQueue(JobQueue):
    mode = "standalone"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.backend = create_backend(settings)
        self.judge = Judge(self.backend, settings)
        threads = settings.standalone_threads or settings.pool_size
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="judge")
        self._lock = threading.Lock()
        self._items: dict[str, tuple[float, Future[dict[str, Any]]]] = {}
        self._started: set[str] = set()
        self._jobs: dict[str, tuple[float, dict[str, Any]]] = {}
        self._cache: dict[str, tuple[float, dict[str, Any]]] = {}
        self._pending = 0
        self._rates: dict[str, tuple[int, int]] = {}

    def _run(self, item_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._started.add(item_id)
            self._pending -= 1
        try:
            result = process_with_retries(payload, self.judge, self.settings.job_retries)
        except Exception as exc:  # noqa: BLE001 - process boundary: a bug of ours, never a program verdict
            result = sandbox_error_result(payload["kind"], f"internal error: {type(exc).__name__}")
        if result["status"] == "completed" and payload.get("cache_key") and self.settings.cache_ttl_s:
            with self._lock:
                if len(self._cache) >= MAX_CACHE_ENTRIES:
                    self._cache.pop(next(iter(self._cache)))
                self._cache[payload["cache_key"]] = (time.monotonic() + self.settings.cache_ttl_s, result)
        return result

    def _expire(self) -> None:
        now = time.monotonic()
        horizon = now - self.settings.result_ttl_s
        for store in (self._items, self._jobs):
            for key in [k for k, (t, _) in store.items() if t < horizon]:
                del store[key]
        for key in [k for k, (t, _) in self._cache.items() if t < now]:
            del self._cache[key]

    def submit(self, payloads: list[dict[str, Any]]) -> list[str]:
        with self._lock:
            self._expire()
            if self._pending + len(payloads) > self.settings.max_queue_depth:
                raise QueueFull(self._pending, self.settings.max_queue_depth)
            self._pending += len(payloads)
            ids = [uuid.uuid4().hex for _ in payloads]
            now = time.monotonic()
            for item_id, payload in zip(ids, payloads, strict=True):
                self._items[item_id] = (now, self.pool.submit(self._run, item_id, payload))
        return ids

    def wait(self, ids: list[str], timeout_s: float) -> list[dict[str, Any] | None]:
        deadline = time.monotonic() + timeout_s
        results: list[dict[str, Any] | None] = []
        for item_id in ids:
            entry = self._items.get(item_id)
            if entry is None:
                results.append(None)
                continue
            try:
                results.append(entry[1].result(timeout=max(0.0, deadline - time.monotonic())))
            except FutureTimeout:
                results.append(None)
        return results

    def state(self, item_id: str) -> ItemState | None:
        entry = self._items.get(item_id)
        if entry is None:
            return None
        future = entry[1]
        if future.done():
            return ItemState("completed", future.result())
        return ItemState("running" if item_id in self._started else "queued")

    def depth(self) -> int:
        return self._pending

    def languages(self) -> dict[str, str]:
        return self.backend.offered_languages()

    def readiness(self) -> tuple[bool, str]:
        offered = self.languages()
        if not offered:
            return False, f"no language passed its self-test on the {self.backend.name} backend"
        return True, f"standalone, {self.backend.name} backend, languages: {', '.join(sorted(offered))}"

    def cache_get(self, key: str) -> dict[str, Any] | None:
        entry = self._cache.get(key)
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def rate_hit(self, client: str, limit: int, window_s: int = 60) -> int | None:
        now = time.time()
        window = int(now // window_s)
        with self._lock:
            start, count = self._rates.get(client, (window, 0))
            if start != window:
                start, count = window, 0
            count += 1
            self._rates[client] = (start, count)
            if len(self._rates) > MAX_CACHE_ENTRIES:
                self._rates = {k: v for k, v in self._rates.items() if v[0] == window}
        return None if count <= limit else max(1, int((window + 1) * window_s - now))

    def save_job(self, job_id: str, record: dict[str, Any]) -> None:
        with self._lock:
            self._jobs[job_id] = (time.monotonic(), record)

    def load_job(self, job_id: str) -> dict[str, Any] | None:
        entry = self._jobs.get(job_id)
        return entry[1] if entry else None

    def refresh_metrics(self) -> None:
        pool_sizes = getattr(self.backend, "pool_sizes", None)  # the docker backend sets its gauge
        if pool_sizes is not None:
            pool_sizes()

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.backend.close()
