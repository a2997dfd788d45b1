"""GET /healthz (alive), /readyz (can judge), /metrics (Prometheus)."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from service.api import metrics
from service.api.deps import QueueDep
from service.models.api import Readiness
from service.queue.base import QueueUnavailable

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is alive."""
    return {"status": "ok"}


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def readyz(queue: QueueDep) -> JSONResponse:
    """Redis reachable (Redis mode) and at least one sandbox/worker ready."""
    ready, detail = await run_in_threadpool(queue.readiness)
    return JSONResponse(Readiness(ready=ready, detail=detail).model_dump(), status_code=200 if ready else 503)


@router.get("/metrics")
async def prometheus(queue: QueueDep) -> Response:
    """Prometheus text format."""
    try:
        metrics.QUEUE_DEPTH.set(await run_in_threadpool(queue.depth))
    except QueueUnavailable:
        pass
    await run_in_threadpool(queue.refresh_metrics)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
