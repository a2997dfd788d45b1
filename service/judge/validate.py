"""Validation that pydantic cannot do alone: offered languages, server bounds,
limits. Pure (no sandbox needed), so the gateway can refuse bad input before
anything is queued."""

from __future__ import annotations

from collections.abc import Collection

from service.core.errors import SubmissionError
from service.core.settings import Settings
from service.judge.limits import Limits, resolve_limits
from service.languages import LanguageSpec, registry
from service.models.submission import AssertTest, CallTest, LimitsRequest


def check_language(language: str, offered: Collection[str]) -> LanguageSpec:
    spec = registry().get(language)
    if spec is None or language not in offered:
        raise SubmissionError("language", f"unknown or unavailable language {language!r}; offered: {sorted(offered)}")
    return spec


def check_code(settings: Settings, spec: LanguageSpec, code: str, files: dict[str, str]) -> None:
    size = len(code.encode()) + sum(len(text.encode()) for text in files.values())
    if size > settings.max_code_bytes:
        raise SubmissionError("code", f"{size} bytes of code and files exceed the maximum {settings.max_code_bytes}")
    source = spec.source_file_for(code)
    if source in files:
        raise SubmissionError(f"files.{source}", "collides with the main source file")


def validate_submission(
    submission: object, offered: Collection[str], settings: Settings
) -> tuple[LanguageSpec, Limits]:
    """Raises SubmissionError naming the field; returns the language spec and
    the resolved limits. ``submission``: a Submission (or a RunRequest, which
    has no tests)."""
    spec = check_language(submission.language, offered)  # type: ignore[attr-defined]
    check_code(settings, spec, submission.code, submission.files)  # type: ignore[attr-defined]
    tests = getattr(submission, "tests", [])
    if len(tests) > settings.max_tests:
        raise SubmissionError("tests", f"{len(tests)} tests exceed the maximum {settings.max_tests}")
    for index, test in enumerate(tests):
        if isinstance(test, (CallTest, AssertTest)) and not spec.harness:
            raise SubmissionError(
                f"tests.{index}.type", f"{test.type} tests need a language with a harness (python), not {spec.name}"
            )
    limits: LimitsRequest = submission.limits  # type: ignore[attr-defined]
    return spec, resolve_limits(settings, spec, limits)
