"""APPS (Hendrycks et al. 2021) and TACO (BAAI 2023) -> submissions, plus the
helpers the other converters share (the APPS ``input_output`` shape is the
lingua franca of code RL data: verl/PRIME, deepcoder, open-r1 all descend
from it).

Rows (``codeparrot/apps`` and ``BAAI/TACO`` on the Hugging Face hub):
``question``, ``solutions`` (JSON list), ``starter_code``, ``input_output``
and, in TACO only, ``time_limit`` (``"2 seconds"``, ``"1.0 seconds"``,
``"None"``) and ``memory_limit`` (``"256 megabytes"``, ``"None"``).
``input_output`` is a JSON string (or an already-decoded dict)::

    {"inputs": [...], "outputs": [...], "fn_name": "optional"}

- Without ``fn_name`` each input/output is stdin/stdout text; a few rows hold
  a list of lines instead, which is joined with ``"\\n"`` (as APPS's
  ``testing_util.run_test`` does) and ended with a newline.
- With ``fn_name`` each input is the positional argument list and the output
  is usually wrapped in one more list: ``[[2, 3]]`` means the return value
  ``[2, 3]`` and ``[5]`` means ``5``. APPS's harness accepts either
  ``ret == out`` or ``ret == out[0]``; a call test holds one expected value,
  so one level is unwrapped whenever the output is a one-element list (a
  function that really returns ``[5]`` for an output ``[5]`` then fails:
  the ambiguity is the dataset's). The function is ``fn_name`` at module
  level or ``Solution().fn_name`` (LeetCode style, ``starter_code`` holds
  the ``class Solution`` stub): the harness tries both, so ``starter_code``
  is only documentation here.

``max_tests`` keeps the first N tests (deterministic: the same row always
gives the same tests). The call/stdio decision is made per test from the row's
``fn_name`` after the cut, so sub-sampling never turns call tests into stdio
tests (the rllm#128 pitfall, where the sub-sampled dict lost ``fn_name``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from service.models.submission import AssertTest, CallTest, Comparator, LimitsRequest, StdioTest, Submission

TestCase = StdioTest | CallTest | AssertTest

# LeetCode-style solutions annotate with ``List[int]`` and use ``Counter``,
# ``heapq`` ... without importing them; APPS, TACO and LiveCodeBench prepend
# imports before running call-based code, and so do we (python call tests only).
# No star imports but typing's: ``from math import *`` would shadow ``pow``.
PYTHON_PREAMBLE = (
    "from typing import *\n"
    "import bisect, collections, functools, heapq, itertools, math, random, re, string, sys\n"
    "from bisect import bisect_left, bisect_right, insort\n"
    "from collections import Counter, OrderedDict, defaultdict, deque\n"
    "from functools import cache, cmp_to_key, lru_cache, reduce\n"
    "from heapq import heapify, heappop, heappush, heappushpop, heapreplace, nlargest, nsmallest\n"
    "from itertools import accumulate, chain, combinations, count, groupby, permutations, product\n"
    "from math import ceil, comb, factorial, floor, gcd, inf, isqrt, log, log2, sqrt\n"
)

_LANGUAGE_ALIASES = {
    "py": "python", "python3": "python", "py3": "python", "pypy": "python", "pypy3": "python",
    "c++": "cpp", "cpp11": "cpp", "cpp14": "cpp", "cpp17": "cpp", "cpp20": "cpp", "cxx": "cpp", "g++": "cpp",
    "js": "javascript", "node": "javascript", "nodejs": "javascript", "ts": "typescript",
    "golang": "go", "rs": "rust", "sh": "bash", "java8": "java", "java11": "java", "java17": "java",
}  # fmt: skip


def field_error(field: str, reason: str) -> ValueError:
    """The error every converter raises for a bad row: ``"<field>: <reason>"``."""
    return ValueError(f"{field}: {reason}")


def require(row: Mapping[str, Any], field: str) -> Any:
    """``row[field]``; a ValueError naming the field when it is missing or null."""
    if not isinstance(row, Mapping):
        raise field_error("row", f"expected a dict, got {type(row).__name__}")
    value = row.get(field)
    if value is None:
        raise field_error(field, "missing from the row")
    return value


def load_json(value: Any, field: str) -> Any:
    """A JSON string is decoded; anything else (dict, list) is returned as is."""
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        if not value.strip():
            raise field_error(field, "empty string (this row has no tests)")
        try:
            return json.loads(value)
        except ValueError as exc:
            raise field_error(field, f"not valid JSON ({exc})") from None
    return value


def normalize_language(language: str | None, default: str = "python") -> str:
    """``None`` -> ``default``; common aliases (``python3``, ``c++``, ``js`` ...)
    -> the service's language names; anything else is lower-cased."""
    if language is None:
        return default
    if not isinstance(language, str) or not language.strip():
        raise field_error("language", f"expected a language name, got {language!r}")
    name = language.strip().lower()
    return _LANGUAGE_ALIASES.get(name, name)


def first_n(items: Sequence[Any], max_tests: int | None) -> list[Any]:
    """The first ``max_tests`` items (all when None): a deterministic subsample."""
    if max_tests is None:
        return list(items)
    if isinstance(max_tests, bool) or not isinstance(max_tests, int) or max_tests < 1:
        raise field_error("max_tests", f"expected a positive integer or None, got {max_tests!r}")
    return list(items[:max_tests])


def stdio_text(value: Any, field: str) -> str:
    """Test text: a string as is; a list of lines joined with newlines (and ended with one)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value) + "\n" if value else ""
    raise field_error(field, f"expected a string or a list of lines, got {type(value).__name__}")


def call_args(value: Any, field: str) -> list[Any]:
    """The positional argument list of a call test (a JSON string of one is decoded)."""
    if isinstance(value, str):
        value = load_json(value, field)
    if not isinstance(value, list):
        raise field_error(field, f"expected the list of positional arguments, got {type(value).__name__}")
    return value


def unwrap_output(value: Any) -> Any:
    """APPS/TACO call outputs: a one-element list is unwrapped once (``[5]`` -> 5,
    ``[[2, 3]]`` -> ``[2, 3]``); anything else is the return value itself."""
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


def check_call_language(language: str, field: str) -> None:
    """Call tests run in the python harness only."""
    if language != "python":
        raise field_error(field, f"function-call tests need language 'python', not {language!r}")


def io_tests(spec: Any, field: str, language: str, max_tests: int | None = None) -> list[TestCase]:
    """``{"inputs": [...], "outputs": [...], "fn_name"?}`` (APPS/TACO
    ``input_output``, verl/PRIME ``ground_truth``) -> stdio tests, or call
    tests when ``fn_name`` is set (outputs unwrapped once, see the module doc)."""
    if not isinstance(spec, Mapping):
        raise field_error(field, f"expected an object with inputs and outputs, got {type(spec).__name__}")
    inputs, outputs = spec.get("inputs"), spec.get("outputs")
    for name, values in (("inputs", inputs), ("outputs", outputs)):
        if not isinstance(values, list):
            raise field_error(f"{field}.{name}", "missing or not a list")
    assert isinstance(inputs, list) and isinstance(outputs, list)
    if len(inputs) != len(outputs):
        raise field_error(field, f"{len(inputs)} inputs but {len(outputs)} outputs")
    if not inputs:
        raise field_error(f"{field}.inputs", "empty (this row has no tests)")
    fn_name = spec.get("fn_name")
    if fn_name is not None and not isinstance(fn_name, str):
        raise field_error(f"{field}.fn_name", f"expected a string, got {type(fn_name).__name__}")
    pairs = first_n(list(zip(inputs, outputs, strict=True)), max_tests)
    tests: list[TestCase] = []
    if fn_name:
        check_call_language(language, f"{field}.fn_name")
        for index, (given, wanted) in enumerate(pairs):
            args = call_args(given, f"{field}.inputs[{index}]")
            tests.append(CallTest(fn_name=fn_name, args=args, expected=unwrap_output(wanted)))
    else:
        for index, (given, wanted) in enumerate(pairs):
            tests.append(
                StdioTest(
                    input=stdio_text(given, f"{field}.inputs[{index}]"),
                    expected_output=stdio_text(wanted, f"{field}.outputs[{index}]"),
                )
            )
    return tests


def with_preamble(code: str, tests: Sequence[TestCase], language: str, preamble: str | None) -> str:
    """Prepends ``preamble`` to python code judged by call tests; ``from
    __future__`` lines of the code move above it (they must come first), and
    a preamble name equal to a tested ``fn_name`` is removed again (the
    harness looks up a global first, then ``Solution().fn_name``)."""
    if not preamble or language != "python" or not any(isinstance(t, CallTest) for t in tests):
        return code
    future = re.compile(r"^from\s+__future__\s+import\s+[^\n(\\]*$", re.MULTILINE)
    if re.search(r"^from\s+__future__\s+import\s*[(\\]", code, re.MULTILINE):
        return code  # a multi-line future import: leave the code alone
    hoisted = future.findall(code)
    body = future.sub("", code) if hoisted else code
    # a preamble name equal to a tested fn_name would shadow Solution().fn_name in the harness's lookup
    names = sorted({t.fn_name for t in tests if isinstance(t, CallTest) and t.fn_name.isidentifier()})
    unshadow = "".join(f"globals().pop({name!r}, None)\n" for name in names)
    return "".join(line + "\n" for line in hoisted) + preamble + unshadow + body


_NONE_WORDS = {"", "none", "null", "nan", "-", "n/a", "unknown"}
_TIME_UNITS = {
    "ms": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
}
_MEMORY_UNITS = {
    "b": 1 / 2**20, "byte": 1 / 2**20, "bytes": 1 / 2**20,
    "k": 1 / 1024, "kb": 1 / 1024, "kib": 1 / 1024, "kilobyte": 1 / 1024, "kilobytes": 1 / 1024,
    "m": 1.0, "mb": 1.0, "mib": 1.0, "megabyte": 1.0, "megabytes": 1.0,
    "g": 1024.0, "gb": 1024.0, "gib": 1024.0, "gigabyte": 1024.0, "gigabytes": 1024.0,
}  # fmt: skip
_QUANTITY = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z/]*)\s*$")


def _quantity(value: Any, field: str, units: Mapping[str, float], default_unit: str) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number, unit = float(value), default_unit
    elif isinstance(value, str):
        if value.strip().lower() in _NONE_WORDS:
            return None
        match = _QUANTITY.match(value.lower())
        if match is None or (match.group(2) or default_unit) not in units:
            raise field_error(field, f"cannot read {value!r} (expected e.g. '2 seconds' or '256 megabytes')")
        number, unit = float(match.group(1)), match.group(2) or default_unit
    else:
        raise field_error(field, f"expected a number or a string, got {type(value).__name__}")
    if not math.isfinite(number) or number <= 0:
        return None
    return number * units[unit]


def parse_time_limit(value: Any, field: str = "time_limit") -> float | None:
    """TACO's ``"2 seconds"`` / ``"1.0 second"`` / ``"500 ms"`` / a number of
    seconds -> seconds; ``None``, ``"None"``, ``""`` and 0 -> None (no limit given)."""
    return _quantity(value, field, _TIME_UNITS, "s")


def parse_memory_limit(value: Any, field: str = "memory_limit") -> int | None:
    """TACO's ``"256 megabytes"`` / ``"64 MB"`` / ``"1 gigabyte"`` / a number
    of MiB -> MiB (rounded up); ``None``, ``"None"``, ``""`` and 0 -> None."""
    megabytes = _quantity(value, field, _MEMORY_UNITS, "mb")
    return None if megabytes is None else max(1, math.ceil(megabytes - 1e-9))


def merge_limits(parsed: LimitsRequest, given: LimitsRequest | None) -> LimitsRequest:
    """The row's limits, with every field the caller set in ``given`` taking precedence."""
    if given is None:
        return parsed
    return LimitsRequest(**{**parsed.model_dump(exclude_none=True), **given.model_dump(exclude_none=True)})


def to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    max_tests: int | None = None,
    limits: LimitsRequest | None = None,
    comparator: Comparator | None = None,
    preamble: str | None = PYTHON_PREAMBLE,
) -> Submission:
    """An APPS or TACO row plus a model's code -> a Submission.

    ``row``: needs ``input_output`` (JSON string or dict, see the module doc);
    TACO's ``time_limit``/``memory_limit`` strings become limits when present
    (``limits`` overrides them field by field). ``language``: the code's
    language (default python; call tests need python). ``max_tests``: keep the
    first N tests. ``comparator``: for stdio tests (the service default,
    ``lines``, when None). ``preamble``: imports prepended to python code
    judged by call tests (None to send the code untouched).
    """
    lang = normalize_language(language)
    spec = load_json(require(row, "input_output"), "input_output")
    tests = io_tests(spec, "input_output", lang, max_tests)
    parsed = LimitsRequest(
        time_limit_s=parse_time_limit(row.get("time_limit"), "time_limit"),
        memory_limit_mb=parse_memory_limit(row.get("memory_limit"), "memory_limit"),
    )
    extra: dict[str, Any] = {} if comparator is None else {"comparator": comparator}
    return Submission(
        language=lang,
        code=with_preamble(code, tests, lang, preamble),
        tests=tests,
        limits=merge_limits(parsed, limits),
        **extra,
    )


taco_to_submission = to_submission
"""TACO rows are APPS rows plus ``time_limit``/``memory_limit``: the same converter."""
