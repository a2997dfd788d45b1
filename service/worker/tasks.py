"""Job entry points, enqueued by dotted path (the gateway never imports this).

``process(payload, judge)`` is the one place a payload becomes a result; the
RQ task and the standalone queue both call it. A fault of ours is retried by
RQ while retries are left (the task raises), and ends as a ``sandbox_error``
result (reward null) when they are spent; a program's failure is a verdict
and is never retried.
"""

from __future__ import annotations

import logging
from typing import Any

from service.core.errors import SubmissionError
from service.judge.judge import Judge
from service.models.result import Result, RunResult
from service.models.submission import RunRequest, Submission
from service.queue.base import sandbox_error_result

log = logging.getLogger(__name__)

# Set by the worker's main before it starts taking jobs.
JUDGE: Judge | None = None


class RetryableSandboxError(Exception):
    """Raised inside an RQ job so that RQ retries it (infra fault)."""


def process(payload: dict[str, Any], judge: Judge) -> dict[str, Any]:
    """Judge one payload; returns the result JSON."""
    kind = payload["kind"]
    outcome: Result | RunResult
    try:
        if kind == "run":
            outcome = judge.run(RunRequest.model_validate(payload["body"]))
        else:
            outcome = judge.score(Submission.model_validate(payload["body"]))
    except SubmissionError as exc:
        # The gateway validated it against the languages workers announced; a
        # worker without that language is our deployment's fault, not the client's.
        return sandbox_error_result(kind, f"this worker cannot take it: {exc}")
    return outcome.model_dump(mode="json")


def process_task(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """RQ entry point (``service.worker.tasks.process_task``): a chunk of
    payloads, judged in order; returns their results in the same order."""
    from rq import get_current_job

    if JUDGE is None:
        raise RetryableSandboxError("worker has no judge (not started through `rewardbox worker`)")
    job = get_current_job()
    results = [process(payload, JUDGE) for payload in payloads]
    failed = [r for r in results if r["status"] == "sandbox_error"]
    if failed and job is not None and (job.retries_left or 0) > 0:
        log.warning("job %s: %d sandbox_error(s), retrying (%s left): %s", job.id, len(failed), job.retries_left,
                    failed[0].get("error"))
        raise RetryableSandboxError(failed[0].get("error") or "sandbox_error")
    if job is not None:
        from service.queue.redis_queue import store_cached

        for payload, result in zip(payloads, results, strict=True):
            if result["status"] == "completed" and payload.get("cache_key"):
                store_cached(job.connection, payload["cache_key"], result)
    return results
