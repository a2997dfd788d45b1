"""Judge: one submission in, one Result out.

validate -> resolve limits -> borrow a sandbox -> write files -> compile once
-> run each test in a fresh process -> verdict per test (here, on the host,
from run records) -> reward. Any fault of ours ends the whole submission as
``sandbox_error`` with reward None; the program's faults are verdicts.
"""

from __future__ import annotations

import logging
import signal as signals
from typing import Any

from service.core.errors import SandboxError, SubmissionError
from service.core.settings import Settings
from service.judge.comparators import compare
from service.judge.limits import Limits
from service.judge.reward import compute_reward
from service.judge.validate import validate_submission
from service.languages import LanguageSpec, render_argv
from service.models.result import CompileResult, Result, RunResult, TestResult, Usage
from service.models.submission import AssertTest, CallTest, RunRequest, StdioTest, Submission
from service.models.verdict import Verdict
from service.sandbox.base import REPLY_MARGIN_S, Backend, Session
from service.sandbox.executor import plain

log = logging.getLogger(__name__)


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _cap(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", "ignore"), True


class _CompileFailed(Exception):
    """A harness found the source does not compile (python's SyntaxError)."""


class Judge:
    """Scores submissions on one backend. Thread-safe: each call borrows its
    own sandbox."""

    def __init__(self, backend: Backend, settings: Settings) -> None:
        self.backend = backend
        self.settings = settings

    # -- validation ------------------------------------------------------------
    def validate(self, submission: Submission) -> tuple[LanguageSpec, Limits]:
        """Check what pydantic cannot (languages, bounds, limits); raises
        SubmissionError naming the field."""
        return validate_submission(submission, self.backend.offered_languages(), self.settings)

    # -- scoring ---------------------------------------------------------------
    def score(self, submission: Submission) -> Result:
        """Judge ``submission``. Raises SubmissionError for bad input; every
        failure of ours becomes a ``sandbox_error`` Result."""
        spec, limits = self.validate(submission)
        try:
            with self.backend.session(spec.name, self._sandbox_memory_mb(spec, limits)) as session:
                return self._run(session, spec, limits, submission)
        except SandboxError as exc:
            log.error("sandbox_error for a %s submission: %s", spec.name, exc)
            return Result(status="sandbox_error", verdict=Verdict.sandbox_error, reward=None, error=str(exc))

    def run(self, request: RunRequest) -> RunResult:
        """Run a program once on ``request.stdin``, no tests. Raises
        SubmissionError for bad input; our faults become sandbox_error."""
        spec, limits = validate_submission(request, self.backend.offered_languages(), self.settings)
        try:
            with self.backend.session(spec.name, self._sandbox_memory_mb(spec, limits)) as session:
                source = self._prepare(session, spec, request.code, request.files)
                compiled = CompileResult(status="skipped")
                if spec.compiled:
                    compiled = self._compile(session, spec, source, limits)
                    if compiled.status == "error":
                        return RunResult(status="completed", verdict=Verdict.compile_error, compile=compiled)
                record = self._exec(
                    session,
                    {**self._program(spec, source, request.files, limits), "stdin": request.stdin,
                     "limits": self._run_limits(limits)},
                    limits.wall_time_limit_s,
                )
                fetched: dict[str, str] = {}
                file_errors: dict[str, str] = {}
                if request.fetch_files:
                    reply = session.call({"op": "fetch", "paths": request.fetch_files}, timeout_s=REPLY_MARGIN_S)
                    if not reply.get("ok"):
                        raise SandboxError(f"could not read back files: {reply.get('error')}")
                    fetched = reply["files"]
                    file_errors = reply["errors"]
        except SandboxError as exc:
            log.error("sandbox_error for a %s run: %s", spec.name, exc)
            return RunResult(status="sandbox_error", verdict=Verdict.sandbox_error, error=str(exc))
        outcome = record.get("result") or {}
        if "compile_error" in outcome:
            return RunResult(status="completed", verdict=Verdict.compile_error,
                             compile=CompileResult(status="error", log=outcome["compile_error"]))
        verdict, reason = self._limit_verdict(record, spec)
        return RunResult(
            status="completed",
            verdict=verdict or Verdict.accepted,
            reason=reason,
            compile=compiled,
            files=fetched,
            file_errors=file_errors,
            **self._record_fields(record),
        )

    @staticmethod
    def _program(spec: LanguageSpec, source: str, files: dict[str, str], limits: Limits) -> dict[str, Any]:
        """How to start the program: the spec's run argv, or the warm python
        harness when the language allows it and no extra file could shadow a
        module the warm interpreter already holds."""
        if spec.warm_script and not files:
            return {"harness": "script", "spec": {"filename": source}}
        return {"argv": render_argv(spec.run, source, limits.memory_limit_mb), "env": spec.env}

    def _prepare(self, session: Session, spec: LanguageSpec, code: str, files: dict[str, str]) -> str:
        """Write the job's files; returns the main source file's name."""
        source = spec.source_file_for(code)
        reply = session.call({"op": "prepare", "files": {source: code, **files}}, timeout_s=REPLY_MARGIN_S)
        if not reply.get("ok"):
            raise SandboxError(f"could not write the job's files: {reply.get('error')}")
        return source

    def _exec(self, session: Session, request: dict[str, Any], wall_s: float) -> dict[str, Any]:
        reply = session.call({"op": "exec", **request}, timeout_s=wall_s + REPLY_MARGIN_S)
        if not reply.get("ok"):
            raise SandboxError(reply.get("error", "executor refused the run"))
        return reply

    def _run_limits(self, limits: Limits) -> dict[str, Any]:
        return {
            "cpu_time_s": limits.time_limit_s,
            "wall_time_s": limits.wall_time_limit_s,
            "memory_kb": limits.memory_limit_mb * 1024,
            "output_bytes": limits.output_limit_bytes,
            "stderr_bytes": self.settings.stderr_limit_bytes,
            "file_size_bytes": self.settings.workdir_size_mb * 1024 * 1024,
            "stack_bytes": limits.memory_limit_mb * 1024 * 1024,
            "max_processes": self.backend.max_processes,
        }

    def _sandbox_memory_mb(self, spec: LanguageSpec, limits: Limits) -> int:
        """The sandbox must hold the compiler as well as the program."""
        if spec.compiled:
            return max(limits.memory_limit_mb, self.settings.compile_memory_limit_mb)
        return limits.memory_limit_mb

    def _compile(self, session: Session, spec: LanguageSpec, source: str, limits: Limits) -> CompileResult:
        assert spec.compile is not None
        wall = limits.compile_time_limit_s
        record = self._exec(
            session,
            {
                "argv": render_argv(spec.compile, source, self.settings.compile_memory_limit_mb),
                "env": spec.env,
                "stdin": "",
                "limits": {
                    "cpu_time_s": wall,
                    "wall_time_s": wall,
                    "memory_kb": self.settings.compile_memory_limit_mb * 1024,
                    "output_bytes": self.settings.compile_log_limit_bytes,
                    "stderr_bytes": self.settings.compile_log_limit_bytes,
                    "file_size_bytes": self.settings.workdir_size_mb * 1024 * 1024,
                    "max_processes": self.backend.max_processes,
                },
            },
            wall,
        )
        log_text = (record["stdout"] + record["stderr"])[: self.settings.compile_log_limit_bytes]
        ok = record["exit_code"] == 0 and record["limit_hit"] is None
        if record["limit_hit"] is not None:
            log_text += f"\n[rewardbox: compiler stopped: {record['limit_hit'].replace('_', ' ')} limit]"
        return CompileResult(status="ok" if ok else "error", log=log_text, time_s=record["wall_time_s"])

    def _run(self, session: Session, spec: LanguageSpec, limits: Limits, submission: Submission) -> Result:
        source = self._prepare(session, spec, submission.code, submission.files)
        total = len(submission.tests)
        compile_result = CompileResult(status="skipped")
        if spec.compiled:
            compile_result = self._compile(session, spec, source, limits)
            if compile_result.status == "error":
                reward, breakdown = compute_reward(submission.reward, False, [], total)
                return Result(
                    status="completed",
                    verdict=Verdict.compile_error,
                    reward=reward,
                    reward_breakdown=breakdown,
                    passed=0,
                    total=total,
                    compile=compile_result,
                )
        run_limits = self._run_limits(limits)
        results: list[TestResult] = []
        flags: set[str] = set()
        failed = False
        for test in submission.tests:
            if failed and submission.stop_on_first_failure:
                results.append(TestResult(verdict=Verdict.skipped, reason="stop_on_first_failure"))
                continue
            try:
                result = self._run_test(session, spec, source, limits, run_limits, submission, test, flags)
            except _CompileFailed as exc:
                reward, breakdown = compute_reward(submission.reward, False, [], total)
                return Result(
                    status="completed",
                    verdict=Verdict.compile_error,
                    reward=reward,
                    reward_breakdown=breakdown,
                    total=total,
                    compile=CompileResult(status="error", log=str(exc)),
                )
            results.append(result)
            failed = failed or result.verdict != Verdict.accepted
        verdicts = [r.verdict for r in results]
        reward, breakdown = compute_reward(submission.reward, True, verdicts, total)
        overall = next((v for v in verdicts if v not in (Verdict.accepted, Verdict.skipped)), Verdict.accepted)
        ran = [r for r in results if r.verdict != Verdict.skipped]
        usage = Usage(
            cpu_time_s=round(sum(r.cpu_time_s or 0.0 for r in ran), 4),
            wall_time_s=round(sum(r.wall_time_s or 0.0 for r in ran), 4),
            peak_memory_kb=max((r.peak_memory_kb or 0 for r in ran), default=0),
        )
        return Result(
            status="completed",
            verdict=overall,
            reward=reward,
            reward_breakdown=breakdown,
            passed=sum(v == Verdict.accepted for v in verdicts),
            total=total,
            compile=compile_result,
            tests=results,
            usage=usage,
            flags=sorted(flags),
        )

    def _run_test(
        self,
        session: Session,
        spec: LanguageSpec,
        source: str,
        limits: Limits,
        run_limits: dict[str, Any],
        submission: Submission,
        test: StdioTest | CallTest | AssertTest,
        flags: set[str],
    ) -> TestResult:
        request: dict[str, Any] = {"limits": run_limits, "stdin": ""}
        if isinstance(test, StdioTest):
            request.update(self._program(spec, source, submission.files, limits), stdin=test.input)
        elif isinstance(test, CallTest):
            try:
                args = [plain.encode(a) for a in test.args]
            except plain.NonPlainValue as exc:  # pragma: no cover - JSON is always plain
                raise SubmissionError("tests.args", str(exc)) from None
            request.update(harness="call", spec={"filename": source, "fn_name": test.fn_name, "args": args})
        else:
            request.update(harness="assert", spec={"filename": source, "test_code": test.code})
        record = self._exec(session, request, limits.wall_time_limit_s)
        outcome = record.get("result")
        if outcome and "compile_error" in outcome:
            raise _CompileFailed(outcome["compile_error"])
        verdict, reason = self._limit_verdict(record, spec)
        if outcome:
            flags.update(outcome.get("flags", []))
        if record.get("invalid_utf8"):
            flags.add("invalid_utf8_output")
        if verdict is None:
            if isinstance(test, StdioTest):
                verdict, reason = self._judge_output(session, submission, test, record, flags)
            elif outcome is None:
                verdict, reason = Verdict.runtime_error, "the harness reported nothing"
            elif isinstance(test, CallTest):
                verdict, reason = self._judge_call(test, outcome)
            else:
                verdict, reason = self._judge_assert(outcome)
        return TestResult(verdict=verdict, reason=reason, **self._record_fields(record))

    def _record_fields(self, record: dict[str, Any]) -> dict[str, Any]:
        """What a test or run result reports of a run record: its usage, exit
        status and output (capped at report_output_bytes)."""
        stdout, cut_out = _cap(record["stdout"], self.settings.report_output_bytes)
        stderr, cut_err = _cap(record["stderr"], self.settings.report_output_bytes)
        return {
            "cpu_time_s": record["cpu_time_s"],
            "wall_time_s": record["wall_time_s"],
            "peak_memory_kb": record["peak_memory_kb"],
            "exit_code": record["exit_code"],
            "signal": record["signal"],
            "stdout": stdout,
            "stderr": stderr,
            "truncated": cut_out or cut_err or record["stdout_truncated"] or record["stderr_truncated"],
        }

    @staticmethod
    def _limit_verdict(record: dict[str, Any], spec: LanguageSpec) -> tuple[Verdict | None, str | None]:
        """Verdicts decided by how the process ended, before any output is read."""
        hit = record["limit_hit"]
        failed = record["signal"] is not None or record["exit_code"] != 0
        said = record["stderr"] + record["stdout"][-4096:]
        if hit is None and failed and any(marker in said for marker in spec.mle_markers):
            # the runtime's own heap cap (sized from the limit) was reached
            return Verdict.memory_limit_exceeded, "the runtime's heap limit was reached"
        if hit == "time_cpu":
            return Verdict.time_limit_exceeded, f"cpu time {record['cpu_time_s']} s"
        if hit == "time_wall":
            return Verdict.time_limit_exceeded, f"wall time {record['wall_time_s']} s"
        if hit == "memory":
            return Verdict.memory_limit_exceeded, f"peak memory {record['peak_memory_kb']} KiB"
        if hit == "output":
            return Verdict.output_limit_exceeded, "stdout passed the output limit"
        if record["signal"] is not None:
            return Verdict.runtime_error, f"killed by {_signal_name(record['signal'])}"
        if record["exit_code"] != 0:
            return Verdict.runtime_error, f"exit code {record['exit_code']}"
        return None, None

    def _judge_output(
        self, session: Session, submission: Submission, test: StdioTest, record: dict[str, Any], flags: set[str]
    ) -> tuple[Verdict, str | None]:
        if submission.checker is None:
            if compare(submission.comparator, record["stdout"], test.expected_output):
                return Verdict.accepted, None
            return Verdict.wrong_answer, "output differs from the expected output"
        checked = self._exec(
            session,
            {
                "harness": "checker",
                "role": "checker",
                "stdin": "",
                "spec": {
                    "code": submission.checker.code,
                    "input": test.input,
                    "output": record["stdout"],
                    "reference": test.expected_output,
                },
                "limits": {
                    "cpu_time_s": 10.0,
                    "wall_time_s": 20.0,
                    "memory_kb": 1024 * 1024,
                    "output_bytes": 65536,
                    "stderr_bytes": 65536,
                    "file_size_bytes": 0,
                },
            },
            20.0,
        )
        outcome = checked.get("result") or {}
        if outcome.get("checker_failed") or checked["limit_hit"] or checked["exit_code"] != 0:
            flags.add("checker_error")
            return Verdict.wrong_answer, f"checker failed: {outcome.get('error') or checked['limit_hit']}"
        if outcome.get("passed"):
            return Verdict.accepted, None
        return Verdict.wrong_answer, "the checker rejected the output"

    @staticmethod
    def _judge_call(test: CallTest, outcome: dict[str, Any]) -> tuple[Verdict, str | None]:
        if "value" in outcome:
            try:
                value = plain.to_json(plain.decode(outcome["value"]))
            except (ValueError, TypeError):
                return Verdict.wrong_answer, "the return value is not plain data"
            if value == plain.to_json(test.expected) and _same_kinds(value, test.expected):
                return Verdict.accepted, None
            return Verdict.wrong_answer, "return value differs from the expected value"
        if outcome.get("flags"):
            return Verdict.wrong_answer, outcome.get("error")
        return Verdict.runtime_error, outcome.get("error")

    @staticmethod
    def _judge_assert(outcome: dict[str, Any]) -> tuple[Verdict, str | None]:
        if outcome.get("passed") is True:
            return Verdict.accepted, None
        error = outcome.get("error") or "the tests did not finish"
        if outcome.get("flags") or error.startswith("AssertionError"):
            return Verdict.wrong_answer, error
        return Verdict.runtime_error, error


def _same_kinds(got: Any, want: Any) -> bool:
    """``True == 1`` in Python; a judge must not accept a bool for an int."""
    if isinstance(got, bool) or isinstance(want, bool):
        return type(got) is type(want)
    if isinstance(got, list) and isinstance(want, list):
        return all(_same_kinds(g, w) for g, w in zip(got, want, strict=False))
    if isinstance(got, dict) and isinstance(want, dict):
        return all(_same_kinds(got[k], want[k]) for k in want if k in got)
    return True
