"""POST /v1/run: plain execution without tests."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from service.api import scoring
from service.api.deps import QueueDep, SettingsDep
from service.models.result import RunResult
from service.models.submission import RunRequest

router = APIRouter(prefix="/v1", tags=["run"])


def _run(queue: QueueDep, settings: SettingsDep, request: RunRequest) -> scoring.Item:
    items = scoring.prepare(queue, settings, "run", [request])
    scoring.enqueue(queue, items)
    scoring.wait(queue, items, scoring.sync_timeout_s(settings, items))
    return items[0]


@router.post("/run", response_model=RunResult)
async def run(queue: QueueDep, settings: SettingsDep, request: RunRequest) -> JSONResponse:
    """Run a program once on the given stdin: stdout, stderr, exit code, time, memory, verdict."""
    item = await run_in_threadpool(_run, queue, settings, request)
    if item.error is not None:
        raise HTTPException(status_code=422, detail=[item.error])
    if item.result is None:
        raise HTTPException(status_code=504, detail=f"no result in time; poll GET /v1/jobs/{item.id}")
    return JSONResponse(item.result)  # already a validated Result: skip re-validation
