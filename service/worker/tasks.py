"""Job entry points, enqueued by dotted path (the gateway never imports this).

``process(payload, judge)`` is the one place a payload becomes a result; the
RQ task and the standalone queue both call it. A fault of ours is retried
(``job_retries`` times: by RQ in Redis mode, the task raising; in the judging
thread in standalone mode) and ends as a ``sandbox_error`` result (reward
null) when they are spent; a program's failure is a verdict and is never
retried. Before a retry the backend is given a bounded time to recover (a
Docker engine that is restarting), so that a short outage does not spend the
retries at once. In a chunk only the items that met a fault run again.
"""

from __future__ import annotations

import logging
from typing import Any

from service.core.errors import SubmissionError
from service.judge.judge import Judge
from service.models.result import Result, RunResult
from service.models.submission import RunRequest, Submission
from service.queue.base import sandbox_error_result
from service.sandbox.metrics import FAULT_RETRIES

log = logging.getLogger(__name__)

# Longest wait for the backend to recover before a retry, s.
RECOVERY_WAIT_S = 30.0
# Results of a chunk's items that need no retry, kept in the RQ job's meta.
DONE_META = "rewardbox_done"

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


def before_retry(judge: Judge, what: str, error: str | None, retries_left: int) -> None:
    """An infra fault is about to be retried: count it, and give the backend
    a bounded time to recover first."""
    FAULT_RETRIES.inc()
    log.warning("%s: sandbox_error, retrying (%d left): %s", what, retries_left, error)
    if not judge.backend.wait_ready(RECOVERY_WAIT_S):
        log.warning("%s: the %s backend is still not ready after %.0f s; retrying anyway", what, judge.backend.name,
                    RECOVERY_WAIT_S)


def process_with_retries(payload: dict[str, Any], judge: Judge, retries: int) -> dict[str, Any]:
    """``process``, again while it ends in a fault of ours, at most ``retries``
    more times (standalone mode; RQ retries jobs in Redis mode)."""
    result = process(payload, judge)
    for attempt in range(retries):
        if result["status"] != "sandbox_error":
            break
        before_retry(judge, f"{payload['kind']} item", result.get("error"), retries - attempt)
        result = process(payload, judge)
    return result


def process_task(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """RQ entry point (``service.worker.tasks.process_task``): a chunk of
    payloads, judged in order; returns their results in the same order."""
    from rq import get_current_job

    if JUDGE is None:
        raise RetryableSandboxError("worker has no judge (not started through `rewardbox worker`)")
    job = get_current_job()
    # a retry runs only the items that met a fault: the others' results stand
    done: dict[str, dict[str, Any]] = (job.meta.get(DONE_META) or {}) if job is not None else {}
    results = [done.get(str(i)) or process(payload, JUDGE) for i, payload in enumerate(payloads)]
    failed = [r for r in results if r["status"] == "sandbox_error"]
    if failed and job is not None and (job.retries_left or 0) > 0:
        job.meta[DONE_META] = {str(i): r for i, r in enumerate(results) if r["status"] != "sandbox_error"}
        job.save_meta()
        before_retry(JUDGE, f"job {job.id} ({len(failed)} of {len(results)} items)", failed[0].get("error"),
                     job.retries_left or 0)
        raise RetryableSandboxError(failed[0].get("error") or "sandbox_error")
    if job is not None:
        from service.queue.redis_queue import store_cached

        for payload, result in zip(payloads, results, strict=True):
            if result["status"] == "completed" and payload.get("cache_key"):
                store_cached(job.connection, payload["cache_key"], result)
    return results
