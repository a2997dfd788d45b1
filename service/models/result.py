"""Result: what comes back for a submission (the wire contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from service.models.verdict import Verdict


class CompileResult(BaseModel):
    status: Literal["ok", "error", "skipped"] = Field(
        ..., description='"skipped" for interpreted languages.', examples=["ok"]
    )
    log: str = Field("", description="Compiler output (capped at compile_log_limit_bytes).", examples=[""])
    time_s: float = Field(0.0, description="Wall time of the compile step, seconds.", examples=[0.43])


class TestResult(BaseModel):
    __test__ = False  # not a pytest class

    verdict: Verdict = Field(..., examples=["accepted"])
    reason: str | None = Field(
        None, description='Why, e.g. "cpu time 2.01 s", "wall time 5.0 s", "killed by SIGSEGV", "exit code 1".',
        examples=["exit code 1"],
    )
    cpu_time_s: float | None = Field(None, description="User + system CPU time of the run, seconds.", examples=[0.012])
    wall_time_s: float | None = Field(None, description="Wall-clock time of the run, seconds.", examples=[0.014])
    peak_memory_kb: int | None = Field(None, description="Peak resident memory (max RSS), KiB.", examples=[9520])
    exit_code: int | None = Field(None, description="Exit status, or null if killed by a signal.", examples=[0])
    signal: int | None = Field(None, description="Signal that ended the process, if any.", examples=[None])
    stdout: str = Field("", description="Captured stdout (capped at report_output_bytes).", examples=["3\n"])
    stderr: str = Field("", description="Captured stderr (capped at report_output_bytes).", examples=[""])
    truncated: bool = Field(False, description="stdout or stderr here is shorter than what was produced.")


class Usage(BaseModel):
    cpu_time_s: float = Field(0.0, description="Sum over the tests that ran, seconds.", examples=[0.05])
    wall_time_s: float = Field(0.0, description="Sum over the tests that ran, seconds.", examples=[0.06])
    peak_memory_kb: int = Field(0, description="Largest peak over the tests, KiB.", examples=[9520])


class RewardBreakdown(BaseModel):
    mode: str = Field(..., description="all_pass | fraction | weighted", examples=["all_pass"])
    compiled: bool = Field(..., examples=[True])
    passed_fraction: float = Field(..., description="Tests accepted / tests in the submission.", examples=[1.0])
    all_passed: bool = Field(..., examples=[True])
    penalties: dict[str, float] = Field(default_factory=dict, description="Subtracted terms (weighted mode).",
                                        examples=[{"timeout": 0.1}])
    components: dict[str, float] = Field(default_factory=dict, description="Each added term of the reward.",
                                         examples=[{"compile": 0.2, "tests": 0.8}])


class Result(BaseModel):
    status: Literal["completed", "sandbox_error"] = Field(
        ..., description="sandbox_error: our fault (infra), never the program's.", examples=["completed"]
    )
    verdict: Verdict = Field(..., description="The first failing test's verdict, else accepted.", examples=["accepted"])
    reward: float | None = Field(..., description="null for sandbox_error: an infra fault is not a training signal.",
                                 examples=[1.0])
    reward_breakdown: RewardBreakdown | None = None
    passed: int = Field(0, description="Tests accepted.", examples=[2])
    total: int = Field(0, description="Tests in the submission.", examples=[2])
    compile: CompileResult | None = None
    tests: list[TestResult] = Field(default_factory=list, description="One record per test, in order.")
    usage: Usage = Field(default_factory=Usage)
    flags: list[str] = Field(default_factory=list, description="Detected behaviours, e.g. early_exit, non_plain_return.",
                             examples=[["early_exit"]])
    error: str | None = Field(None, description="For sandbox_error: what failed on our side.", examples=[None])
    cached: bool = Field(False, description="Answered from the result cache.", examples=[False])


class RunResult(BaseModel):
    """Outcome of ``POST /v1/run``: the program's own record, no judging.
    ``verdict`` is accepted for a clean exit, else why it stopped."""

    status: Literal["completed", "sandbox_error"] = Field(..., examples=["completed"])
    verdict: Verdict = Field(..., examples=["accepted"])
    reason: str | None = Field(None, examples=[None])
    compile: CompileResult | None = None
    stdout: str = Field("", examples=["cba\n"])
    stderr: str = Field("", examples=[""])
    truncated: bool = False
    exit_code: int | None = Field(None, examples=[0])
    signal: int | None = Field(None, examples=[None])
    cpu_time_s: float | None = Field(None, description="seconds", examples=[0.011])
    wall_time_s: float | None = Field(None, description="seconds", examples=[0.012])
    peak_memory_kb: int | None = Field(None, description="KiB", examples=[9400])
    files: dict[str, str] = Field(default_factory=dict, description="fetch_files that existed: {path: base64}.")
    file_errors: dict[str, str] = Field(
        default_factory=dict,
        description="fetch_files not returned and why: missing, a symbolic link (never followed, at any component "
        "of the path), not a regular file, unreadable.",
        examples=[{"out.txt": "out.txt is a symbolic link; links are not followed"}],
    )
    error: str | None = Field(None, description="For sandbox_error: what failed on our side.")
