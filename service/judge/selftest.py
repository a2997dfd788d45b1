"""Language self-test: the spec's echo program must compile, run and echo
stdin back exactly before the language is offered (as DMOJ's executors do)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.core.errors import SandboxError
from service.core.settings import get_settings
from service.judge.limits import resolve_limits
from service.languages import LanguageSpec
from service.models.submission import LimitsRequest, StdioTest, Submission
from service.models.verdict import Verdict

if TYPE_CHECKING:
    from service.sandbox.base import Backend

ECHO_INPUT = "rewardbox self-test\nline 2 ünïcödé\n"


def run_selftest(backend: Backend, spec: LanguageSpec) -> tuple[bool, str]:
    """Returns (passed, version or failure detail)."""
    from service.judge.judge import Judge

    settings = get_settings()
    judge = Judge(backend, settings)
    submission = Submission(
        language=spec.name,
        code=spec.selftest,
        tests=[StdioTest(input=ECHO_INPUT, expected_output=ECHO_INPUT)],
        comparator="exact",
    )
    limits = resolve_limits(settings, spec, LimitsRequest())
    try:
        with backend.session(spec.name, judge._sandbox_memory_mb(spec, limits)) as session:  # noqa: SLF001
            result = judge._run(session, spec, limits, submission)  # noqa: SLF001 - bypasses the offered check
            version = _version(judge, session, spec, limits)
    except SandboxError as exc:
        return False, str(exc)
    if result.verdict != Verdict.accepted:
        detail = result.compile.log if result.compile and result.compile.log else ""
        return False, f"echo program gave {result.verdict.value}: {detail or (result.tests[0].reason if result.tests else '')}"
    return True, version


def _version(judge: object, session: object, spec: LanguageSpec, limits: object) -> str:
    from service.judge.judge import Judge
    from service.sandbox.base import Session

    assert isinstance(judge, Judge) and isinstance(session, Session)
    record = judge._exec(  # noqa: SLF001
        session,
        {"argv": list(spec.version), "env": spec.env, "stdin": "", "limits": judge._run_limits(limits)},  # type: ignore[arg-type]  # noqa: SLF001
        10.0,
    )
    text = (record["stdout"] or record["stderr"]).strip().splitlines()
    return text[0] if text else "unknown"
