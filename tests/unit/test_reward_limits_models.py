from __future__ import annotations

import pytest
from pydantic import ValidationError

from service.core.errors import SubmissionError
from service.core.settings import Settings
from service.judge.limits import resolve_limits
from service.judge.reward import compute_reward
from service.languages import registry
from service.models.submission import LimitsRequest, RewardSpec, Submission
from service.models.verdict import Verdict

A, W, T = Verdict.accepted, Verdict.wrong_answer, Verdict.time_limit_exceeded


def test_all_pass() -> None:
    assert compute_reward(RewardSpec(), True, [A, A], 2)[0] == 1.0
    assert compute_reward(RewardSpec(), True, [A, W], 2)[0] == 0.0
    assert compute_reward(RewardSpec(), False, [], 2)[0] == 0.0


def test_fraction_counts_skipped_as_failed() -> None:
    reward, breakdown = compute_reward(RewardSpec(mode="fraction"), True, [A, W, Verdict.skipped, A], 4)
    assert reward == 0.5 and breakdown.passed_fraction == 0.5


def test_weighted_classic_shaping() -> None:
    spec = RewardSpec(mode="weighted", compile_weight=0.2, tests_weight=0.8, timeout_penalty=0.1)
    assert compute_reward(spec, True, [A, A], 2)[0] == pytest.approx(1.0)
    reward, breakdown = compute_reward(spec, True, [A, T], 2)
    assert reward == pytest.approx(0.1)
    assert breakdown.components == {"compile": 0.2, "tests": 0.0} and breakdown.penalties == {"timeout": 0.1}
    assert compute_reward(spec, False, [], 2)[0] == 0.0


def test_limits_layers_and_maxima() -> None:
    settings = Settings(time_limit_s=2, max_time_limit_s=10)
    python = registry()["python"]
    limits = resolve_limits(settings, python, LimitsRequest(time_limit_s=1))
    assert limits.time_limit_s == 1 and limits.wall_time_limit_s >= 1
    assert resolve_limits(settings, python, LimitsRequest()).time_limit_s == 2
    with pytest.raises(SubmissionError) as info:
        resolve_limits(settings, python, LimitsRequest(memory_limit_mb=10**6))
    assert info.value.field == "limits.memory_limit_mb"
    with pytest.raises(SubmissionError):
        resolve_limits(settings, python, LimitsRequest(time_limit_s=3, wall_time_limit_s=1))


def test_settings_fail_fast() -> None:
    with pytest.raises(ValidationError, match="time_limit_s"):
        Settings(time_limit_s=100, max_time_limit_s=10)


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"tests": []}, "tests"),
        ({"files": {"../escape.py": "x"}}, "files"),
        ({"files": {"/etc/passwd": "x"}}, "files"),
        ({"tests": [{"type": "stdio"}]}, "expected_output"),
        ({"comparator": "fuzzy"}, "comparator"),
        ({"limits": {"time_limit_s": -1}}, "time_limit_s"),
    ],
)
def test_bad_submissions_name_the_field(patch: dict, field: str) -> None:
    body = {"language": "python", "code": "print(1)", "tests": [{"type": "stdio", "expected_output": "1"}], **patch}
    with pytest.raises(ValidationError) as info:
        Submission.model_validate(body)
    assert field in str(info.value)


def test_code_never_in_repr() -> None:
    secret = "print('TOP-SECRET-CODE')"
    submission = Submission(language="python", code=secret, tests=[{"type": "stdio", "expected_output": ""}])
    assert "TOP-SECRET" not in repr(submission)


def test_languages_found_by_glob() -> None:
    specs = registry()
    assert {"python", "c", "cpp"} <= set(specs)
    assert specs["cpp"].compile is not None and "-std=gnu++17" in specs["cpp"].compile
    assert specs["python"].harness and not specs["c"].harness
