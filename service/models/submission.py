"""Submission: what a client sends to be judged (the wire contract).

Field names follow DESIGN.md; every limit carries its unit in its name.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

from service.sandbox.executor.protocol import safe_relpath


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StdioTest(_Strict):
    """Feed ``input`` on stdin; compare stdout with ``expected_output``."""

    type: Literal["stdio"] = "stdio"
    input: str = Field("", description="Text given on stdin (EOF after it).", examples=["1 2\n"])
    expected_output: str = Field(..., description="Reference stdout.", examples=["3\n"])


class CallTest(_Strict):
    """Call ``fn_name(*args)`` (a global function or ``Solution().fn_name``)
    and compare the plain-data return value with ``expected`` (tuples = lists)."""

    type: Literal["call"] = "call"
    fn_name: str = Field(..., min_length=1, max_length=200, examples=["two_sum"])
    args: list[Any] = Field(default_factory=list, description="Positional arguments (JSON).", examples=[[[2, 7, 11], 9]])
    expected: Any = Field(..., description="Expected return value (JSON).", examples=[[0, 1]])


class AssertTest(_Strict):
    """Python test code (HumanEval ``check(candidate)``, MBPP asserts); every
    function the submission defines is callable by its name. Passes when the
    code runs to its end without an exception."""

    type: Literal["assert"] = "assert"
    code: str = Field(..., min_length=1, examples=["assert add(1, 2) == 3\n"])


def _test_kind(value: Any) -> str | None:
    """A test without ``type`` is a stdio test (the common case)."""
    if isinstance(value, dict):
        return str(value.get("type", "stdio"))
    return getattr(value, "type", None)


Test = Annotated[
    Annotated[StdioTest, Tag("stdio")] | Annotated[CallTest, Tag("call")] | Annotated[AssertTest, Tag("assert")],
    Discriminator(_test_kind),
]


class FloatComparator(_Strict):
    """Token-wise comparison; numeric tokens within ``abs_tol`` or ``rel_tol``
    are equal (integer tokens must match exactly; NaN never equals)."""

    type: Literal["float"] = "float"
    abs_tol: float = Field(1e-6, ge=0, description="Absolute tolerance.")
    rel_tol: float = Field(1e-6, ge=0, description="Relative tolerance.")


Comparator = Literal["lines", "exact", "tokens"] | FloatComparator


class Checker(_Strict):
    """A Python ``check(input_text, output_text, reference_text) -> bool``
    that decides a stdio test instead of the comparator (many valid answers)."""

    language: Literal["python"] = "python"
    code: str = Field(..., min_length=1)

    @field_validator("code")
    @classmethod
    def _defines_check(cls, code: str) -> str:
        if "def check" not in code:
            raise ValueError("checker code must define check(input_text, output_text, reference_text)")
        return code


class LimitsRequest(_Strict):
    """Per-request limits; each may only lower the server's value."""

    time_limit_s: float | None = Field(None, gt=0, description="CPU time per test, seconds.", examples=[2.0])
    wall_time_limit_s: float | None = Field(None, gt=0, description="Wall-clock time per test, seconds.", examples=[4.0])
    memory_limit_mb: int | None = Field(None, gt=0, description="Peak resident memory per test, MiB.", examples=[256])
    output_limit_bytes: int | None = Field(None, gt=0, description="Stdout size per test, bytes.", examples=[16777216])
    compile_time_limit_s: float | None = Field(None, gt=0, description="Wall-clock time to compile, seconds.", examples=[30.0])


class RewardSpec(_Strict):
    """How verdicts become a scalar reward (see service/judge/reward.py)."""

    mode: Literal["all_pass", "fraction", "weighted"] = Field("all_pass")
    compile_weight: float = Field(0.2, description="weighted: reward for compiling.")
    tests_weight: float = Field(0.8, description="weighted: reward for passing every test.")
    timeout_penalty: float = Field(0.0, ge=0, description="weighted: subtracted if any test hit the time limit.")
    memory_penalty: float = Field(0.0, ge=0, description="weighted: subtracted if any test hit the memory limit.")
    output_penalty: float = Field(0.0, ge=0, description="weighted: subtracted if any test hit the output limit.")


class Submission(_Strict):
    """One program and the tests that judge it."""

    language: str = Field(..., min_length=1, max_length=32, examples=["python"])
    code: str = Field(..., description="Source of the main file.", examples=["print(sum(map(int, input().split())))\n"])
    files: dict[str, str] = Field(default_factory=dict, description="Extra files {relative path: text} beside the main file.")
    tests: list[Test] = Field(..., min_length=1, description="Tests, run in order.")
    checker: Checker | None = None
    comparator: Comparator = Field("lines", description='"lines" (default), "exact", "tokens" or a float comparator.')
    limits: LimitsRequest = Field(default_factory=LimitsRequest)
    reward: RewardSpec = Field(default_factory=RewardSpec)
    stop_on_first_failure: bool = Field(False, description="Skip the tests after the first failure.")

    @field_validator("files")
    @classmethod
    def _paths_stay_inside(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            safe_relpath(path)
        return files

    @model_validator(mode="after")
    def _checker_needs_stdio(self) -> Submission:
        if self.checker is not None and not any(isinstance(t, StdioTest) for t in self.tests):
            raise ValueError("checker applies to stdio tests, and there are none")
        return self

    def __repr_args__(self) -> Any:  # keep submitted code out of reprs and logs
        for key, value in super().__repr_args__():
            yield (key, f"<{len(value)} chars>" if key == "code" else value)


class RunRequest(_Strict):
    """Plain execution without tests (``POST /v1/run``)."""

    language: str = Field(..., min_length=1, max_length=32, examples=["python"])
    code: str = Field(..., description="Source of the main file.", examples=["print(input()[::-1])\n"])
    files: dict[str, str] = Field(default_factory=dict, description="Extra files {relative path: text}.")
    stdin: str = Field("", description="Text given on stdin (EOF after it).", examples=["abc\n"])
    limits: LimitsRequest = Field(default_factory=LimitsRequest)
    fetch_files: list[str] = Field(
        default_factory=list, max_length=64, description="Files to return after the run (relative paths, base64 in the result)."
    )

    @field_validator("files")
    @classmethod
    def _paths_stay_inside(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            safe_relpath(path)
        return files

    @field_validator("fetch_files")
    @classmethod
    def _fetch_paths_stay_inside(cls, paths: list[str]) -> list[str]:
        for path in paths:
            safe_relpath(path)
        return paths

    def __repr_args__(self) -> Any:  # keep submitted code out of reprs and logs
        for key, value in super().__repr_args__():
            yield (key, f"<{len(value)} chars>" if key == "code" else value)
