"""``rewardbox worker``: an RQ worker that judges in its own process.

No fork per job (RQ's SimpleWorker): the sandbox pools stay warm across jobs.
While a job runs, a heartbeat thread renews the job's lease every
``worker_lease_s / 3``; if this process dies, the lease lapses within
``worker_lease_s`` and the gateway's maintenance retries the job (or fails it
as ``sandbox_error`` once retries are spent), so no job is lost or stuck.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from redis import Redis
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus

from service.core.settings import Settings
from service.judge.judge import Judge
from service.queue.redis_queue import LANGUAGES_KEY
from service.sandbox import create_backend
from service.worker import tasks

log = logging.getLogger(__name__)

ANNOUNCE_INTERVAL_S = 3


class LeasedWorker(SimpleWorker):
    """SimpleWorker whose running job is leased for ``lease_s`` and renewed,
    and which registers itself again if Redis lost its key (a restart)."""

    lease_s = 6

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        if pipeline is None and not self.connection.exists(self.key):
            log.warning("worker %s: registration lost (Redis restarted?), registering again", self.name)
            self.register_birth()
        super().heartbeat(timeout, pipeline=pipeline)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        return self.lease_s

    def execute_job(self, job: Job, queue: Queue) -> None:
        execution = self.prepare_execution(job)
        stop = threading.Event()
        beat = threading.Thread(target=self._renew, args=(job, execution, stop), daemon=True)
        beat.start()
        try:
            self.perform_job(job, queue, execution)
        finally:
            stop.set()
            beat.join()
        self.set_state(WorkerStatus.IDLE)

    def _renew(self, job: Job, execution: Any, stop: threading.Event) -> None:
        while not stop.wait(self.lease_s / 3):
            try:
                with self.connection.pipeline() as pipe:
                    execution.heartbeat(job.started_job_registry, self.lease_s, pipe)
                    pipe.execute()
            except Exception as exc:  # noqa: BLE001 - a missed beat only shortens the lease
                log.warning("lease renewal failed: %s", exc)


def _announce(redis_conn: Redis, languages: dict[str, str], stop: threading.Event) -> None:
    """Keep this worker's languages in the shared hash while it lives."""
    while True:
        try:
            with redis_conn.pipeline() as pipe:
                if languages:
                    pipe.hset(LANGUAGES_KEY, mapping=dict(languages))  # type: ignore[arg-type]
                pipe.expire(LANGUAGES_KEY, ANNOUNCE_INTERVAL_S * 5)
                pipe.execute()
        except Exception as exc:  # noqa: BLE001 - retried on the next beat
            log.warning("could not announce languages: %s", exc)
        if stop.wait(ANNOUNCE_INTERVAL_S):
            return


def run_worker(settings: Settings, burst: bool = False) -> None:
    """Start the sandbox backend, announce its languages, take jobs."""
    if not settings.redis_url:
        raise SystemExit("rewardbox worker needs REWARDBOX_REDIS_URL (standalone mode needs no worker)")
    backend = create_backend(settings)
    tasks.JUDGE = Judge(backend, settings)
    languages = backend.offered_languages()
    if not languages:
        raise SystemExit(f"no language passed its self-test on the {backend.name} backend; see the log above")
    warm = getattr(backend, "warm", None)
    if warm is not None:
        for language in languages:
            warm(language)
    if settings.worker_metrics_port:
        from prometheus_client import start_http_server

        start_http_server(settings.worker_metrics_port)
    # RQ blocks on its dequeue for minutes: its connection needs no read
    # timeout (redis-py's default would cut every idle wait short, and RQ then
    # backs off for up to a minute). The announcer has a client of its own.
    redis_conn = Redis.from_url(settings.redis_url, socket_timeout=None, socket_connect_timeout=5, health_check_interval=30)
    announcer = Redis.from_url(settings.redis_url, socket_timeout=5, socket_connect_timeout=5)
    stop = threading.Event()
    threading.Thread(target=_announce, args=(announcer, languages, stop), daemon=True).start()
    queue = Queue(settings.queue_name, connection=redis_conn, serializer=JSONSerializer)
    LeasedWorker.lease_s = settings.worker_lease_s
    worker = LeasedWorker([queue], connection=redis_conn, serializer=JSONSerializer, maintenance_interval=30)
    log.info("worker %s: %s backend, languages %s", worker.name, backend.name, sorted(languages))
    try:
        worker.work(burst=burst, logging_level="WARNING")
    finally:
        stop.set()
        backend.close()
