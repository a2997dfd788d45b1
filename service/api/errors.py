"""Domain errors -> HTTP, in one place. Bodies: ``{"detail": [{"field", "reason"}]}``
for 4xx about input, ``{"detail": "..."}`` otherwise; submitted code is never echoed."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from service.core.errors import SubmissionError
from service.queue.base import QueueFull, QueueUnavailable

RETRY_AFTER_UNAVAILABLE_S = 5


def _field(loc: tuple[object, ...]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] == "body":
        parts = parts[1:]
    return ".".join(parts) or "body"


async def _validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    detail = [{"field": _field(tuple(err.get("loc", ()))), "reason": err.get("msg", "invalid")} for err in exc.errors()]
    return JSONResponse({"detail": detail}, status_code=422)


async def _model(_: Request, exc: Exception) -> JSONResponse:
    """A model built inside a handler (e.g. from a compatibility shape) refused its input."""
    assert isinstance(exc, ValidationError)
    detail = [{"field": _field(tuple(err.get("loc", ()))), "reason": err.get("msg", "invalid")} for err in exc.errors()]
    return JSONResponse({"detail": detail}, status_code=422)


async def _submission(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, SubmissionError)
    return JSONResponse({"detail": [{"field": exc.field, "reason": exc.reason}]}, status_code=422)


async def _full(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, QueueFull)
    return JSONResponse({"detail": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after_s)})


async def _unavailable(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(
        {"detail": f"service unavailable: {exc}"},
        status_code=503,
        headers={"Retry-After": str(RETRY_AFTER_UNAVAILABLE_S)},
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(ValidationError, _model)
    app.add_exception_handler(SubmissionError, _submission)
    app.add_exception_handler(QueueFull, _full)
    app.add_exception_handler(QueueUnavailable, _unavailable)
