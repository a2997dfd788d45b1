"""POST /v1/score and /v1/score/batch: judge and wait for the result."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from service.api import scoring
from service.api.deps import QueueDep, SettingsDep
from service.models.api import SUBMISSION_EXAMPLE, BatchRequest, BatchResponse
from service.models.result import Result
from service.models.submission import Submission

router = APIRouter(prefix="/v1", tags=["score"])


def _score_many(queue: QueueDep, settings: SettingsDep, raw: list[object]) -> list[scoring.Item]:
    items = scoring.prepare(queue, settings, "score", [scoring.parse("score", r) for r in raw])
    scoring.enqueue(queue, items)
    scoring.wait(queue, items, scoring.sync_timeout_s(settings, items))
    return items


@router.post("/score", response_model=Result, response_model_exclude_none=False)
async def score(
    queue: QueueDep, settings: SettingsDep, submission: Annotated[Submission, Body(examples=[SUBMISSION_EXAMPLE])]
) -> JSONResponse:
    """Judge one submission and return its result (waits for it)."""
    items = await run_in_threadpool(_score_many, queue, settings, [submission.model_dump(mode="json")])
    item = items[0]
    if item.error is not None:
        raise HTTPException(status_code=422, detail=[item.error])
    if item.result is None:
        raise HTTPException(status_code=504, detail=f"no result in time; poll GET /v1/jobs/{item.id}")
    return JSONResponse(item.result)  # already a validated Result: skip re-validation


@router.post("/score/batch", response_model=BatchResponse)
async def score_batch(queue: QueueDep, settings: SettingsDep, batch: BatchRequest) -> BatchResponse:
    """Judge many submissions; results in the same order, each with its own status."""
    if len(batch.submissions) > settings.max_batch_size:
        raise HTTPException(
            status_code=413,
            detail=[{"field": "submissions", "reason": f"more than max_batch_size={settings.max_batch_size}"}],
        )
    items = await run_in_threadpool(_score_many, queue, settings, list(batch.submissions))
    return BatchResponse(results=[scoring.item_json(item) for item in items])
