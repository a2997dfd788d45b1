"""The gateway's work between HTTP and the queue: validate, cache, dedupe,
enqueue, wait. Blocking; handlers call it from a thread pool.

An item is either queued (an id), answered at once (a cache hit), or refused
(a SubmissionError naming the field): refusals never reach the queue, and a
batch is queued all at once or not at all.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from service.api import metrics
from service.core.errors import SubmissionError
from service.core.settings import Settings
from service.judge.validate import validate_submission
from service.models.submission import RunRequest, Submission
from service.queue.base import JobQueue, cache_key

log = logging.getLogger(__name__)


@dataclass
class Item:
    """One submission's way through the gateway."""

    kind: str
    id: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    payload: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def invalid(field_path: str, reason: str) -> dict[str, str]:
    return {"field": field_path, "reason": reason}


def parse(kind: str, raw: Any) -> BaseModel | dict[str, str]:
    """Validate one raw item; a refusal is ``{"field", "reason"}``."""
    model = RunRequest if kind == "run" else Submission
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        return invalid(".".join(str(p) for p in first["loc"]) or "body", first["msg"])


def prepare(queue: JobQueue, settings: Settings, kind: str, models: list[BaseModel | dict[str, str]]) -> list[Item]:
    """Validate against the offered languages and bounds, answer cache hits."""
    offered = queue.languages()
    items = []
    for model in models:
        item = Item(kind=kind)
        items.append(item)
        if isinstance(model, dict):
            item.error = model
            continue
        try:
            validate_submission(model, offered, settings)
        except SubmissionError as exc:
            item.error = invalid(exc.field, exc.reason)
            continue
        body = model.model_dump(mode="json")
        key = cache_key(kind, body, offered[body["language"]]) if settings.cache_ttl_s else None
        item.payload = {"kind": kind, "body": body, "cache_key": key}
        if key is not None:
            hit = queue.cache_get(key)
            metrics.CACHE.labels("hit" if hit else "miss").inc()
            if hit is not None:
                item.result = {**hit, "cached": True} if kind == "score" else hit
    return items


def enqueue(queue: JobQueue, items: list[Item]) -> None:
    """Queue every item that needs running, identical ones once."""
    todo = [item for item in items if item.payload is not None and item.result is None]
    unique: dict[str, Item] = {}
    payloads: list[dict[str, Any]] = []
    owners: list[list[Item]] = []
    for item in todo:
        assert item.payload is not None
        key = item.payload.get("cache_key")
        if key is not None and key in unique:
            owners[payloads.index(unique[key].payload)].append(item)  # type: ignore[arg-type]
            continue
        if key is not None:
            unique[key] = item
        payloads.append(item.payload)
        owners.append([item])
    if not payloads:
        return
    ids = queue.submit(payloads)
    for item_id, group in zip(ids, owners, strict=True):
        for item in group:
            item.id = item_id


def wait(queue: JobQueue, items: list[Item], timeout_s: float) -> None:
    """Fill in the results of queued items (blocking on the queue)."""
    pending = [item for item in items if item.id is not None and item.result is None]
    if not pending:
        return
    ids = list(dict.fromkeys(item.id for item in pending if item.id))
    results = dict(zip(ids, queue.wait(ids, timeout_s), strict=True))
    for item in pending:
        item.result = results.get(item.id or "")
        if item.result is not None:
            metrics.count_result(item.result)


def item_json(item: Item) -> dict[str, Any]:
    """The wire form of one item in a batch or job answer."""
    if item.error is not None:
        return {"status": "invalid", "error": item.error}
    if item.result is not None:
        return item.result
    return {"status": "pending", "id": item.id}


def sync_timeout_s(settings: Settings, items: list[Item]) -> float:
    """How long a synchronous request waits: the slowest item's own limits
    (tests x wall time + compile) plus a margin, capped by the setting."""
    longest = 0.0
    for item in items:
        if item.payload is None:
            continue
        body = item.payload["body"]
        limits = body.get("limits") or {}
        wall = limits.get("wall_time_limit_s") or settings.wall_time_limit_s
        tests = max(1, len(body.get("tests", [])))
        compile_s = limits.get("compile_time_limit_s") or settings.compile_time_limit_s
        longest = max(longest, tests * (wall + 0.5) + compile_s)
    return min(settings.sync_timeout_s, longest + 30.0)
