"""Redis mode: RQ queue, results awaited by blocking on Redis.

Keys (besides RQ's own):
    rewardbox:cache:<sha256>      result JSON, TTL cache_ttl_s
    rewardbox:job:<id>            async job record (kind, item ids), TTL result_ttl_s
    rewardbox:languages           hash {language: version}, refreshed by workers
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import redis
from redis import Redis
from rq import Queue, Retry, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.results import Result as RQResult
from rq.serializers import JSONSerializer

from service.core.settings import Settings, get_settings
from service.queue.base import ItemState, JobQueue, QueueFull, QueueUnavailable, sandbox_error_result

log = logging.getLogger(__name__)

TASK = "service.worker.tasks.process_task"
PREFIX = "rewardbox"
LANGUAGES_KEY = f"{PREFIX}:languages"
MAINTENANCE_INTERVAL_S = 2.0
# Submissions per RQ job: a batch is cut into chunks so RQ's per-job cost is
# paid per chunk, with about CHUNKS_PER_WORKER chunks per worker to spread it.
MAX_CHUNK = 16
CHUNKS_PER_WORKER = 4
CACHE_LANGUAGES_S = 2.0
# A job's own deadline in RQ: generous, the sandbox enforces the real limits.
JOB_TIMEOUT_FLOOR_S = 60


def store_cached(connection: Redis, key: str, result: dict[str, Any]) -> None:
    ttl = get_settings().cache_ttl_s
    if ttl:
        connection.set(f"{PREFIX}:cache:{key}", json.dumps(result), ex=ttl)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _redis_down(exc: Exception) -> QueueUnavailable:
    return QueueUnavailable(f"Redis is unreachable ({type(exc).__name__}); retry when it is back")


class RedisQueue(JobQueue):
    mode = "redis"

    def __init__(self, settings: Settings) -> None:
        assert settings.redis_url
        self.settings = settings
        self.redis = Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=5)
        # XREAD BLOCK needs a connection without a read timeout shorter than the wait
        self.blocking = Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=None)
        self.queue = Queue(settings.queue_name, connection=self.redis, serializer=JSONSerializer)
        self._languages: dict[str, str] = {}
        self._languages_at = -CACHE_LANGUAGES_S
        self._workers = 1
        self._workers_at = -CACHE_LANGUAGES_S
        self._stop = threading.Event()
        self._maintenance = threading.Thread(target=self._maintain, name="rq-maintenance", daemon=True)
        self._maintenance.start()

    # -- maintenance: abandoned jobs (dead workers) are retried or failed ----
    def _maintain(self) -> None:
        registry = StartedJobRegistry(queue=self.queue)
        while not self._stop.wait(MAINTENANCE_INTERVAL_S):
            try:
                registry.cleanup()
            except redis.RedisError as exc:
                log.debug("maintenance skipped: %s", exc)

    def _job_timeout(self, payload: dict[str, Any]) -> int:
        body = payload["body"]
        limits = body.get("limits") or {}
        wall = limits.get("wall_time_limit_s") or self.settings.max_wall_time_limit_s
        tests = max(1, len(body.get("tests", [])))
        compile_s = limits.get("compile_time_limit_s") or self.settings.max_compile_time_limit_s
        return int(max(JOB_TIMEOUT_FLOOR_S, tests * (wall + 1) + compile_s + 30))

    def _chunk_size(self, count: int) -> int:
        now = time.monotonic()
        if now - self._workers_at > CACHE_LANGUAGES_S:
            self._workers = max(1, Worker.count(connection=self.redis, queue=self.queue))
            self._workers_at = now
        return max(1, min(MAX_CHUNK, count // (self._workers * CHUNKS_PER_WORKER)))

    def submit(self, payloads: list[dict[str, Any]]) -> list[str]:
        """Item ids are ``<rq job id>:<index in its chunk>``."""
        try:
            depth = self.queue.count
            if depth + len(payloads) > self.settings.max_queue_depth:
                raise QueueFull(depth, self.settings.max_queue_depth)
            size = self._chunk_size(len(payloads))
            chunks = [payloads[i : i + size] for i in range(0, len(payloads), size)]
            retry = Retry(max=self.settings.job_retries) if self.settings.job_retries else None
            data = [
                Queue.prepare_data(
                    TASK,
                    args=(chunk,),
                    timeout=sum(self._job_timeout(p) for p in chunk),
                    result_ttl=self.settings.result_ttl_s,
                    failure_ttl=self.settings.result_ttl_s,
                    ttl=self.settings.result_ttl_s,
                    retry=retry,
                )
                for chunk in chunks
            ]
            with self.redis.pipeline() as pipe:
                jobs = self.queue.enqueue_many(data, pipeline=pipe)
                pipe.execute()
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc
        return [f"{job.id}:{index}" for job, chunk in zip(jobs, chunks, strict=True) for index in range(len(chunk))]

    def _results_of(self, job: Job, rq_result: RQResult) -> list[dict[str, Any]]:
        chunk = job.args[0] if job.args else []
        value = rq_result.return_value
        if rq_result.type == RQResult.Type.SUCCESSFUL and isinstance(value, list) and len(value) == len(chunk):
            return value
        reason = (rq_result.exc_string or "job failed").strip().splitlines()[-1][:500]
        return [sandbox_error_result(p["kind"], f"job {job.id} failed after retries: {reason}") for p in chunk]

    def wait(self, ids: list[str], timeout_s: float) -> list[dict[str, Any] | None]:
        deadline = time.monotonic() + timeout_s
        chunks: dict[str, list[dict[str, Any]] | None] = {}
        try:
            for rq_id in dict.fromkeys(item_id.rsplit(":", 1)[0] for item_id in ids):
                try:
                    job = Job.fetch(rq_id, connection=self.blocking, serializer=JSONSerializer)
                except NoSuchJobError:
                    chunks[rq_id] = None
                    continue
                remaining = deadline - time.monotonic()
                # XREAD BLOCK on the job's result stream: no polling
                rq_result = RQResult.fetch_latest(job, serializer=JSONSerializer, timeout=max(1, int(remaining + 0.999)))
                chunks[rq_id] = self._results_of(job, rq_result) if rq_result else None
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc
        answers: list[dict[str, Any] | None] = []
        for item_id in ids:
            rq_id, _, index = item_id.rpartition(":")
            results = chunks.get(rq_id)
            answers.append(results[int(index)] if results is not None else None)
        return answers

    def state(self, item_id: str) -> ItemState | None:
        rq_id, _, index = item_id.rpartition(":")
        if not rq_id or not index.isdigit():
            return None
        try:
            try:
                job = Job.fetch(rq_id, connection=self.redis, serializer=JSONSerializer)
            except NoSuchJobError:
                return None
            if not job.args or int(index) >= len(job.args[0]):
                return None
            status = job.get_status(refresh=False)
            if status in (JobStatus.FINISHED, JobStatus.FAILED):
                rq_result = RQResult.fetch_latest(job, serializer=JSONSerializer)
                if rq_result is None:
                    kind = job.args[0][int(index)]["kind"]
                    return ItemState("failed", sandbox_error_result(kind, "result expired or missing"))
                result = self._results_of(job, rq_result)[int(index)]
                return ItemState("failed" if status == JobStatus.FAILED else "completed", result)
            if status == JobStatus.STARTED:
                return ItemState("running")
            return ItemState("queued")
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc

    def depth(self) -> int:
        try:
            return self.queue.count
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc

    def languages(self) -> dict[str, str]:
        now = time.monotonic()
        if now - self._languages_at > CACHE_LANGUAGES_S:
            try:
                raw = self.redis.hgetall(LANGUAGES_KEY)
            except redis.RedisError as exc:
                raise _redis_down(exc) from exc
            self._languages = {_text(k): _text(v) for k, v in raw.items()}
            self._languages_at = now
        return dict(self._languages)

    def readiness(self) -> tuple[bool, str]:
        try:
            self.redis.ping()
            workers = Worker.count(connection=self.redis, queue=self.queue)
        except redis.RedisError as exc:
            return False, f"Redis is unreachable ({type(exc).__name__})"
        if workers == 0:
            return False, "Redis is up but no worker is registered"
        languages = self.languages()
        if not languages:
            return False, "no worker has announced a language"
        return True, f"redis, {workers} worker(s), languages: {', '.join(sorted(languages))}"

    def cache_get(self, key: str) -> dict[str, Any] | None:
        try:
            raw = self.redis.get(f"{PREFIX}:cache:{key}")
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc
        return json.loads(raw) if raw else None

    def rate_hit(self, client: str, limit: int, window_s: int = 60) -> int | None:
        """Fixed window shared by every gateway on this Redis."""
        now = time.time()
        window = int(now // window_s)
        key = f"{PREFIX}:rate:{client}:{window}"
        try:
            with self.redis.pipeline() as pipe:
                pipe.incr(key)
                pipe.expire(key, window_s * 2)
                count = int(pipe.execute()[0])
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc
        return None if count <= limit else max(1, int((window + 1) * window_s - now))

    def save_job(self, job_id: str, record: dict[str, Any]) -> None:
        try:
            self.redis.set(f"{PREFIX}:job:{job_id}", json.dumps(record), ex=self.settings.result_ttl_s)
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc

    def load_job(self, job_id: str) -> dict[str, Any] | None:
        try:
            raw = self.redis.get(f"{PREFIX}:job:{job_id}")
        except redis.RedisError as exc:
            raise _redis_down(exc) from exc
        return json.loads(raw) if raw else None

    def close(self) -> None:
        self._stop.set()
        self.redis.close()
        self.blocking.close()
