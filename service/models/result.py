"""Result: what comes back for a submission (the wire contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from service.models.verdict import Verdict


class CompileResult(BaseModel):
    status: Literal["ok", "error", "skipped"] = Field(..., description='"skipped" for interpreted languages.')
    log: str = Field("", description="Compiler output (capped).")
    time_s: float = Field(0.0, description="Wall time of the compile step, seconds.")


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    verdict: Verdict
    reason: str | None = Field(None, description='Why, e.g. "cpu time", "wall time", "signal 11", "exit code 1".')
    cpu_time_s: float | None = None
    wall_time_s: float | None = None
    peak_memory_kb: int | None = None
    exit_code: int | None = None
    signal: int | None = None
    stdout: str = Field("", description="Captured stdout (capped for the report).")
    stderr: str = Field("", description="Captured stderr (capped for the report).")
    truncated: bool = Field(False, description="stdout or stderr in this report is shorter than what was produced.")


class Usage(BaseModel):
    cpu_time_s: float = 0.0
    wall_time_s: float = 0.0
    peak_memory_kb: int = 0


class RewardBreakdown(BaseModel):
    mode: str
    compiled: bool
    passed_fraction: float
    all_passed: bool
    penalties: dict[str, float] = Field(default_factory=dict)
    components: dict[str, float] = Field(default_factory=dict, description="Each term of the reward.")


class Result(BaseModel):
    status: Literal["completed", "sandbox_error"]
    verdict: Verdict
    reward: float | None = Field(..., description="null for sandbox_error: an infra fault is not a training signal.")
    reward_breakdown: RewardBreakdown | None = None
    passed: int = 0
    total: int = 0
    compile: CompileResult | None = None
    tests: list[TestResult] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    flags: list[str] = Field(default_factory=list, description="Detected behaviours, e.g. early_exit, non_plain_return.")
    error: str | None = Field(None, description="For sandbox_error: what failed on our side.")
    cached: bool = False


class RunResult(BaseModel):
    """Outcome of ``POST /v1/run``: the program's own record, no judging.
    ``verdict`` is accepted for a clean exit, else why it stopped."""

    status: Literal["completed", "sandbox_error"]
    verdict: Verdict
    reason: str | None = None
    compile: CompileResult | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    exit_code: int | None = None
    signal: int | None = None
    cpu_time_s: float | None = None
    wall_time_s: float | None = None
    peak_memory_kb: int | None = None
    error: str | None = None
