"""MBPP (Austin et al. 2021, google-research/mbpp) -> submissions.

Rows of the ``mbpp`` dataset on the Hugging Face hub: ``full`` has
``task_id``, ``text`` (the prompt), ``code`` (the reference), ``test_list``
(three ``assert ...`` strings), ``test_setup_code`` (usually ``""``) and
``challenge_test_list``; ``sanitized`` has ``task_id``, ``prompt``, ``code``,
``test_imports`` (import lines the asserts need, e.g. ``"import math"``) and
``test_list``. The original harness runs the code, then the setup code and
the asserts in one namespace; here the completion is the submission's code
and the tests are python ``assert`` tests whose code is
``test_imports + test_setup_code + asserts`` (the harness makes every
function the completion defines callable by its name).

Limitation: arguments cross from the test process to the candidate as plain
data, so the few rows whose ``test_setup_code`` builds objects (trees of a
``Node`` class) and passes them to the function cannot pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.datasets.apps import TestCase, field_error, normalize_language, require
from service.models.submission import AssertTest, LimitsRequest, Submission


def _strings(value: Any, field: str, *, allow_empty: bool) -> list[str]:
    if isinstance(value, str):  # a single assert/import given as a string
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise field_error(field, f"expected a list of strings, got {type(value).__name__}")
    items = [item for item in value if item.strip()]
    if not items and not allow_empty:
        raise field_error(field, "empty (this row has no tests)")
    return items


def assert_header(row: Mapping[str, Any]) -> str:
    """``test_imports`` lines then ``test_setup_code``: what every assert test starts with."""
    imports = _strings(row.get("test_imports") or [], "test_imports", allow_empty=True)
    setup = row.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise field_error("test_setup_code", f"expected a string, got {type(setup).__name__}")
    parts = [*imports, setup.strip("\n")] if setup.strip() else imports
    return "".join(part + "\n" for part in parts)


def to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    split_asserts: bool = False,
    include_challenge_tests: bool = False,
    limits: LimitsRequest | None = None,
) -> Submission:
    """An MBPP row plus a model's code -> a python Submission.

    ``row``: needs ``test_list`` (list of assert strings); ``test_imports``
    (list of import lines, sanitized variant) and ``test_setup_code`` (str,
    full variant) are used when present; ``challenge_test_list`` is appended
    when ``include_challenge_tests``. Tests: ONE assert test with the header
    and every assert (all must pass), or with ``split_asserts`` one assert
    test per assert, each with the header (for ``reward.mode = "fraction"``).
    ``language``: only python (None means python).
    """
    lang = normalize_language(language)
    if lang != "python":
        raise field_error("language", f"MBPP asserts are python; got {lang!r}")
    asserts = _strings(require(row, "test_list"), "test_list", allow_empty=False)
    if include_challenge_tests:
        asserts += _strings(row.get("challenge_test_list") or [], "challenge_test_list", allow_empty=True)
    header = assert_header(row)
    tests: list[TestCase]
    if split_asserts:
        tests = [AssertTest(code=header + line.rstrip("\n") + "\n") for line in asserts]
    else:
        tests = [AssertTest(code=header + "".join(line.rstrip("\n") + "\n" for line in asserts))]
    return Submission(language=lang, code=code, tests=tests, limits=limits or LimitsRequest())
