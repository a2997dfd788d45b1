"""POST /v1/jobs (queue, answer at once) and GET /v1/jobs/{id} (poll)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.concurrency import run_in_threadpool

from service.api import scoring
from service.api.deps import QueueDep, SettingsDep
from service.models.api import SUBMISSION_EXAMPLE, JobCreated, JobState
from service.queue.base import JobQueue

router = APIRouter(prefix="/v1", tags=["jobs"])


def _create(queue: JobQueue, settings: Any, body: dict[str, Any]) -> str:
    batch = "submissions" in body
    raw = body["submissions"] if batch else [body]
    if not isinstance(raw, list) or not raw:
        raise HTTPException(status_code=422, detail=[{"field": "submissions", "reason": "must be a non-empty list"}])
    if len(raw) > settings.max_batch_size:
        raise HTTPException(
            status_code=413, detail=[{"field": "submissions", "reason": f"more than max_batch_size={settings.max_batch_size}"}]
        )
    items = scoring.prepare(queue, settings, "score", [scoring.parse("score", r) for r in raw])
    if not batch and items[0].error is not None:
        raise HTTPException(status_code=422, detail=[items[0].error])
    scoring.enqueue(queue, items)
    job_id = uuid.uuid4().hex
    record = {
        "kind": "batch" if batch else "single",
        "items": [{"id": i.id, "result": i.result, "error": i.error} for i in items],
    }
    queue.save_job(job_id, record)
    return job_id


def _state(queue: JobQueue, job_id: str) -> JobState:
    record = queue.load_job(job_id)
    if record is None:
        # an item id (e.g. "pending" in a batch answer) is a job of its own
        single = queue.state(job_id)
        if single is None:
            raise HTTPException(status_code=404, detail=f"unknown job {job_id}")
        record = {"kind": "single", "items": [{"id": job_id, "result": None, "error": None}]}
    answers: list[dict[str, Any]] = []
    statuses = []
    for entry in record["items"]:
        if entry["error"] is not None:
            answers.append({"status": "invalid", "error": entry["error"]})
            statuses.append("completed")
        elif entry["result"] is not None:
            answers.append(entry["result"])
            statuses.append("completed")
        else:
            state = queue.state(entry["id"])
            if state is None:
                answers.append({"status": "pending", "id": entry["id"]})
                statuses.append("failed")
            else:
                answers.append(state.result if state.result is not None else {"status": "pending", "id": entry["id"]})
                statuses.append(state.status)
    done = sum(s in ("completed", "failed") for s in statuses)
    if "running" in statuses:
        status = "running"
    elif "queued" in statuses:
        status = "queued" if done == 0 else "running"
    elif record["kind"] == "single" and statuses[0] == "failed":
        status = "failed"
    else:
        status = "completed"
    finished = status in ("completed", "failed")
    single = record["kind"] == "single"
    return JobState(
        id=job_id,
        status=status,  # type: ignore[arg-type]
        done=done,
        total=len(statuses),
        result=answers[0] if single and finished else None,
        results=answers if not single and finished else None,
    )


@router.post("/jobs", response_model=JobCreated, status_code=202)
async def create_job(
    queue: QueueDep,
    settings: SettingsDep,
    body: Annotated[dict[str, Any], Body(description='A Submission, or {"submissions": [...]}', examples=[SUBMISSION_EXAMPLE])],
) -> JobCreated:
    """Queue a submission or a batch and return its id at once."""
    return JobCreated(id=await run_in_threadpool(_create, queue, settings, body))


@router.get("/jobs/{job_id}", response_model=JobState)
async def get_job(queue: QueueDep, job_id: str) -> JobState:
    """queued | running | completed (with the result) | failed; 404 if unknown or expired."""
    return await run_in_threadpool(_state, queue, job_id)
