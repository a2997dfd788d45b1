"""Request/response shapes of the HTTP API beyond Submission and Result."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

SUBMISSION_EXAMPLE = {
    "language": "python",
    "code": "a, b = map(int, input().split())\nprint(a + b)\n",
    "tests": [{"type": "stdio", "input": "1 2\n", "expected_output": "3\n"}],
}


class BatchRequest(BaseModel):
    """Many submissions; each is validated on its own, so one bad item never
    fails the others (it comes back as ``{"status": "invalid", "error": ...}``)."""

    submissions: list[dict[str, Any]] = Field(
        ..., min_length=1, description="Submission objects, as for POST /v1/score.", examples=[[SUBMISSION_EXAMPLE]]
    )


class BatchResponse(BaseModel):
    results: list[dict[str, Any]] = Field(
        ...,
        description='One per submission, same order: a Result, {"status": "invalid", "error": {"field", "reason"}}, '
        'or {"status": "pending", "id"} if it was not finished within the wait (poll GET /v1/jobs/{id}).',
    )


class JobCreated(BaseModel):
    id: str = Field(..., description="Poll GET /v1/jobs/{id}.", examples=["3f2a9c0e5b7d4e1fa0c2b9d8e7f6a5b4"])


class JobState(BaseModel):
    id: str
    status: Literal["queued", "running", "completed", "failed"]
    done: int = Field(..., description="Items finished.")
    total: int = Field(..., description="Items in the job.")
    result: dict[str, Any] | None = Field(None, description="For a single submission, once completed.")
    results: list[dict[str, Any]] | None = Field(None, description="For a batch, once completed.")


class LanguageInfo(BaseModel):
    name: str = Field(..., examples=["python"])
    version: str = Field(..., examples=["Python 3.11.2"])
    compiled: bool
    default_limits: dict[str, float] = Field(..., examples=[{"time_limit_s": 2.0, "memory_limit_mb": 256}])


class Readiness(BaseModel):
    ready: bool
    detail: str
