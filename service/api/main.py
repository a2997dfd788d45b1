"""The FastAPI app: ``create_app(settings)`` builds it; ``rewardbox serve`` runs it.

With ``REWARDBOX_REDIS_URL`` the queue is RQ on Redis and ``rewardbox worker``
processes judge (this process never imports the Docker SDK); without it the
app judges in-process (standalone mode). Same API, same results.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from service.api import errors
from service.api.deps import require_api_key
from service.api.middleware import BodyLimit, Metrics
from service.api.routes import health, jobs, languages, remote_rm, run, sandboxfusion, score
from service.core.settings import Settings, get_settings
from service.queue.base import JobQueue

log = logging.getLogger(__name__)

DESCRIPTION = """
Code-execution rewards for RL post-training: each submission runs against its
tests in an isolated sandbox and comes back with per-test verdicts, resource
use and a reward with its breakdown. A fault of ours is `sandbox_error` with
reward `null`, never 0. Bad input is a 4xx naming the field and the reason.
"""


def build_queue(settings: Settings) -> JobQueue:
    if settings.redis_url:
        from service.queue.redis_queue import RedisQueue

        return RedisQueue(settings)
    from service.queue.inprocess import InProcessQueue

    return InProcessQueue(settings)


def create_app(settings: Settings | None = None, queue: JobQueue | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.queue = queue or build_queue(settings)
        log.info("rewardbox gateway: %s mode", app.state.queue.mode)
        try:
            yield
        finally:
            app.state.queue.close()

    app = FastAPI(title="rewardbox", version="0.1.0", description=DESCRIPTION, lifespan=lifespan)
    app.state.settings = settings
    errors.install(app)
    auth = [Depends(require_api_key)]
    for router in (score.router, jobs.router, run.router, languages.router, sandboxfusion.router, remote_rm.router):
        app.include_router(router, dependencies=auth)
    app.include_router(health.router)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(Metrics)
    return app
