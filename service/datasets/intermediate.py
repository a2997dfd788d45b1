"""The intermediate test formats trainers store in their rows -> submissions.

open-r1 (``open-r1/verifiable-coding-problems-python`` and the
PrimeIntellect ``verifiable-coding-problems`` it comes from; read by
open-r1's ``code_reward``): a ``verification_info`` column, a dict or a JSON
string::

    {"language": "python",
     "test_cases": [{"input": "1 2\\n", "output": "3\\n", "type": "stdin_stdout", "fn_name": null}]}

and the call-based form ``{"type": "function_call", "fn_name": "f", "input":
[arg, ...], "output": value}`` (a ``fn_name`` at the top of
``verification_info`` applies to every test). Call outputs are taken as the
return value itself (PrimeIntellect's verifier compares ``str(output)``);
``unwrap_output=True`` unwraps a one-element list once, APPS style, for rows
copied from TACO unchanged.

verl (``verl/utils/reward_score/prime_code``, the PRIME/Eurus-2 code data,
deepcoder/rllm rows built the same way): ``reward_model.ground_truth`` (or a
top-level ``ground_truth``), a dict or a JSON string in APPS's
``input_output`` shape ``{"inputs": [...], "outputs": [...], "fn_name"?}``,
judged with APPS semantics (see ``apps.py``: call outputs unwrapped once).
A ground truth that is a list of ``{"input", "output", "type"/"testtype",
"fn_name"?}`` dicts is read as open-r1 test cases.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.datasets.apps import (
    PYTHON_PREAMBLE,
    TestCase,
    call_args,
    check_call_language,
    field_error,
    first_n,
    io_tests,
    load_json,
    merge_limits,
    normalize_language,
    require,
    stdio_text,
    unwrap_output,
    with_preamble,
)
from service.datasets.livecodebench import functional_args
from service.models.submission import CallTest, Comparator, LimitsRequest, StdioTest, Submission

_STDIO_TYPES = {"stdin_stdout", "stdin", "stdio", None}
_CALL_TYPES = {"function_call", "functional", "call"}


def cases_to_tests(
    cases: Any,
    field: str,
    language: str,
    *,
    fn_name: str | None = None,
    unwrap: bool = False,
    max_tests: int | None = None,
) -> list[TestCase]:
    """open-r1 ``test_cases`` -> tests: type ``stdin_stdout`` (or ``stdin``)
    -> stdio; type ``function_call`` (or untyped with a ``fn_name``, its own
    or the one given) -> a call test whose ``input`` is the argument list;
    type ``functional`` with a string input (LiveCodeBench rows copied into
    this shape, name in ``fn_name`` or ``metadata.func_name``) -> one JSON
    value per line."""
    if not isinstance(cases, list):
        raise field_error(field, f"expected a list of test cases, got {type(cases).__name__}")
    if not cases:
        raise field_error(field, "empty (this row has no tests)")
    tests: list[TestCase] = []
    for index, case in enumerate(first_n(cases, max_tests)):
        where = f"{field}[{index}]"
        if not isinstance(case, Mapping):
            raise field_error(where, f"expected {{input, output, type}}, got {type(case).__name__}")
        for key in ("input", "output"):
            if key not in case:
                raise field_error(f"{where}.{key}", "missing")
        kind = case.get("type", case.get("testtype"))
        metadata = case.get("metadata")
        name = case.get("fn_name") or (metadata.get("func_name") if isinstance(metadata, Mapping) else None) or fn_name
        if kind in _CALL_TYPES or (kind is None and name):
            if not name or not isinstance(name, str):
                raise field_error(f"{where}.fn_name", "missing for a function-call test")
            check_call_language(language, f"{where}.type")
            if kind == "functional" and isinstance(case["input"], str):  # LiveCodeBench style, copied into a list
                args = functional_args(case["input"], f"{where}.input")
                expected = load_json(case["output"], f"{where}.output") if isinstance(case["output"], str) else case["output"]
            else:
                args = call_args(case["input"], f"{where}.input")
                expected = unwrap_output(case["output"]) if unwrap else case["output"]
            tests.append(CallTest(fn_name=name, args=args, expected=expected))
        elif kind in _STDIO_TYPES:
            tests.append(
                StdioTest(
                    input=stdio_text(case["input"], f"{where}.input"),
                    expected_output=stdio_text(case["output"], f"{where}.output"),
                )
            )
        else:
            raise field_error(f"{where}.type", f"expected 'stdin_stdout' or 'function_call', got {kind!r}")
    return tests


def _submission(
    code: str,
    language: str,
    tests: list[TestCase],
    limits: LimitsRequest | None,
    comparator: Comparator | None,
    preamble: str | None,
) -> Submission:
    extra: dict[str, Any] = {} if comparator is None else {"comparator": comparator}
    return Submission(
        language=language,
        code=with_preamble(code, tests, language, preamble),
        tests=tests,
        limits=merge_limits(LimitsRequest(), limits),
        **extra,
    )


def open_r1_to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    unwrap_output: bool = False,
    max_tests: int | None = None,
    limits: LimitsRequest | None = None,
    comparator: Comparator | None = None,
    preamble: str | None = PYTHON_PREAMBLE,
) -> Submission:
    """A row with open-r1's ``verification_info`` (or that dict itself) plus
    code -> a Submission.

    ``language``: None means ``verification_info["language"]`` (python when
    absent); a given language wins. ``max_tests``: the first N test cases.
    ``unwrap_output``: unwrap one-element call outputs once (APPS style).
    ``preamble``: imports prepended to python code with call tests.
    """
    info = row.get("verification_info") if "verification_info" in row else row
    info = load_json(info if info is not None else require(row, "verification_info"), "verification_info")
    if not isinstance(info, Mapping):
        raise field_error("verification_info", f"expected an object, got {type(info).__name__}")
    row_language = info.get("language")
    lang = normalize_language(language if language is not None else row_language)
    cases = load_json(info.get("test_cases"), "verification_info.test_cases")
    if cases is None:
        raise field_error("verification_info.test_cases", "missing")
    fn_name = info.get("fn_name") or None
    tests = cases_to_tests(
        cases, "verification_info.test_cases", lang, fn_name=fn_name, unwrap=unwrap_output, max_tests=max_tests
    )
    return _submission(code, lang, tests, limits, comparator, preamble)


def verl_to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    max_tests: int | None = None,
    limits: LimitsRequest | None = None,
    comparator: Comparator | None = None,
    preamble: str | None = PYTHON_PREAMBLE,
) -> Submission:
    """A verl row (``reward_model.ground_truth``), a row with a top-level
    ``ground_truth``, or the ground truth object itself, plus code -> a
    Submission (APPS semantics, see the module doc).

    ``language``: default python. ``max_tests``: the first N tests.
    ``preamble``: imports prepended to python code with call tests.
    """
    lang = normalize_language(language)
    if "reward_model" in row:
        reward_model = row["reward_model"]
        if not isinstance(reward_model, Mapping) or reward_model.get("ground_truth") is None:
            raise field_error("reward_model.ground_truth", "missing")
        truth, field = reward_model["ground_truth"], "reward_model.ground_truth"
    elif "ground_truth" in row:
        truth, field = require(row, "ground_truth"), "ground_truth"
    elif "inputs" in row and "outputs" in row:
        truth, field = row, "ground_truth"
    else:
        raise field_error("reward_model.ground_truth", "missing (also no ground_truth, no inputs/outputs)")
    spec = load_json(truth, field)
    if isinstance(spec, list):
        tests = cases_to_tests(spec, field, lang, unwrap=True, max_tests=max_tests)
    else:
        tests = io_tests(spec, field, lang, max_tests)
    return _submission(code, lang, tests, limits, comparator, preamble)
