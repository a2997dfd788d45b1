"""CodeContests (Li et al. 2022, ``deepmind/code_contests``) -> submissions.

Rows: ``name``, ``description``, ``public_tests``, ``private_tests`` and
``generated_tests`` (each ``{"input": [str, ...], "output": [str, ...]}``,
parallel lists), ``time_limit`` (``{"seconds": int, "nanos": int}`` in the
parquet/JSON release, sometimes a plain number of seconds, or null),
``memory_limit_bytes`` (int, 0 when unknown), ``solutions`` /
``incorrect_solutions`` (``{"language": [int], "solution": [str]}``, language
1 = PYTHON (2), 2 = CPP, 3 = PYTHON3, 4 = JAVA), ``source``, ``difficulty``,
``cf_*``, ``input_file``/``output_file``. Every test is stdin -> stdout, in
any language: the completion is the submission's code.

``memory_limit_bytes`` is the statement's "256 megabytes" written as
256000000; a statement's megabyte is a MiB, so a whole number of decimal
megabytes becomes that many MiB (256000000 -> 256), any other value is
rounded up to MiB. Problems with several valid answers need a checker the
dataset does not ship; ``input_file``/``output_file`` problems (file I/O) are
judged on stdin/stdout like the original CodeContests harness.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from service.datasets.apps import TestCase, field_error, first_n, merge_limits, normalize_language, stdio_text
from service.models.submission import Comparator, LimitsRequest, StdioTest, Submission

TEST_SETS = ("public_tests", "private_tests", "generated_tests")
DEFAULT_TEST_SETS = ("public_tests", "private_tests")


def _test_set(row: Mapping[str, Any], name: str) -> list[StdioTest]:
    value = row.get(name)
    if value is None:
        return []
    if not isinstance(value, Mapping):
        raise field_error(name, f"expected {{'input': [...], 'output': [...]}}, got {type(value).__name__}")
    inputs, outputs = value.get("input") or [], value.get("output") or []
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise field_error(name, "input and output must be lists")
    if len(inputs) != len(outputs):
        raise field_error(name, f"{len(inputs)} inputs but {len(outputs)} outputs")
    return [
        StdioTest(input=stdio_text(i, f"{name}.input[{k}]"), expected_output=stdio_text(o, f"{name}.output[{k}]"))
        for k, (i, o) in enumerate(zip(inputs, outputs, strict=True))
    ]


def parse_time_limit(value: Any) -> float | None:
    """``{"seconds": 2, "nanos": 500000000}`` -> 2.5; a number -> seconds; null/0 -> None."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        seconds, nanos = value.get("seconds") or 0, value.get("nanos") or 0
        if not isinstance(seconds, (int, float)) or not isinstance(nanos, (int, float)):
            raise field_error("time_limit", f"seconds and nanos must be numbers, got {dict(value)!r}")
        total = float(seconds) + float(nanos) / 1e9
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        total = float(value)
    else:
        raise field_error("time_limit", f"expected {{'seconds', 'nanos'}} or a number, got {value!r}")
    return total if math.isfinite(total) and total > 0 else None


def parse_memory_limit(value: Any) -> int | None:
    """``memory_limit_bytes`` -> MiB (see the module doc); null/0 -> None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise field_error("memory_limit_bytes", f"expected a number of bytes, got {value!r}")
    if value <= 0:
        return None
    if float(value).is_integer() and int(value) % 1_000_000 == 0:
        return int(value) // 1_000_000
    return math.ceil(value / 2**20)


def to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    test_sets: Iterable[str] = DEFAULT_TEST_SETS,
    max_tests: int | None = None,
    limits: LimitsRequest | None = None,
    comparator: Comparator | None = None,
) -> Submission:
    """A CodeContests row plus a completion -> a Submission of stdio tests.

    ``language``: the completion's language (``python``, ``cpp``, ``java``,
    ... ; aliases like ``python3``/``c++`` accepted; default python).
    ``test_sets``: which of ``public_tests``, ``private_tests``,
    ``generated_tests`` (short names ``public``/``private``/``generated``
    too), in that order of the argument; default public + private.
    ``max_tests``: keep the first N tests of the concatenation. ``limits``
    overrides the row's ``time_limit``/``memory_limit_bytes`` field by field.
    """
    lang = normalize_language(language)
    if isinstance(test_sets, str):
        test_sets = [test_sets]
    names = [name if name.endswith("_tests") else f"{name}_tests" for name in test_sets]
    unknown = [name for name in names if name not in TEST_SETS]
    if unknown or not names:
        raise field_error("test_sets", f"expected some of {list(TEST_SETS)}, got {list(test_sets)!r}")
    if not any(name in row for name in names):
        raise field_error("+".join(names), "none of these test sets is in the row")
    tests: list[TestCase] = []
    for name in dict.fromkeys(names):
        tests.extend(_test_set(row, name))
    if not tests:
        raise field_error("+".join(names), "no tests in these test sets")
    parsed = LimitsRequest(
        time_limit_s=parse_time_limit(row.get("time_limit")),
        memory_limit_mb=parse_memory_limit(row.get("memory_limit_bytes")),
    )
    extra: dict[str, Any] = {} if comparator is None else {"comparator": comparator}
    return Submission(
        language=lang,
        code=code,
        tests=first_n(tests, max_tests),
        limits=merge_limits(parsed, limits),
        **extra,
    )
