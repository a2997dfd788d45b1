"""LiveCodeBench (Jain et al. 2024, ``livecodebench/code_generation_lite``) -> submissions.

Rows: ``question_title``, ``question_content``, ``platform`` (leetcode,
atcoder, codeforces), ``question_id``, ``contest_id``, ``contest_date``,
``starter_code``, ``difficulty``, ``public_test_cases``,
``private_test_cases`` and ``metadata`` (JSON string, ``{"func_name": ...}``
for LeetCode problems, ``{}`` otherwise). A test-case field is a JSON string
of a list of ``{"input": str, "output": str, "testtype": "stdin" |
"functional"}``.

In the official release ``private_test_cases`` is
``base64(zlib(pickle.dumps(json_string)))`` and LiveCodeBench decodes it with
``pickle.loads``. We never unpickle: after base64 and zlib the bytes are
either JSON (used directly) or a pickle, which is only *disassembled*
(``pickletools.genops`` reads opcodes and runs nothing) and accepted when it
is exactly one string (protocol/frame/memo opcodes around one unicode
opcode); any other pickle is refused with a ValueError. Callers holding
already-decoded lists may pass them directly.

Tests, as ``lcb_runner/evaluation/testing_util.py`` runs them:
- ``stdin``: stdin -> stdout.
- ``functional``: ``input`` is one JSON value per line, one per positional
  argument, ``output`` one JSON value; the call is ``Solution().func_name``
  (or a module-level ``func_name``), and python code gets the import
  preamble LiveCodeBench also prepends (``apps.PYTHON_PREAMBLE``).
"""

from __future__ import annotations

import base64
import binascii
import json
import pickletools
import zlib
from collections.abc import Mapping
from typing import Any

from service.datasets.apps import (
    PYTHON_PREAMBLE,
    TestCase,
    check_call_language,
    field_error,
    first_n,
    load_json,
    merge_limits,
    normalize_language,
    require,
    with_preamble,
)
from service.models.submission import CallTest, Comparator, LimitsRequest, StdioTest, Submission

MAX_DECODED_BYTES = 1 << 30  # a bound against zlib bombs, far above any real test set

_PICKLE_STRINGS = {"UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"}
_PICKLE_FRAMING = {"PROTO", "FRAME", "MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT", "STOP"}


def _string_in_pickle(data: bytes, field: str) -> str:
    """The one string a ``pickle.dumps(str)`` holds, read by disassembly only."""
    try:
        ops = [(opcode.name, arg) for opcode, arg, _ in pickletools.genops(data)]
    except ValueError as exc:
        raise field_error(field, f"not a readable pickle ({exc})") from None
    text: str | None = None
    for name, arg in ops:
        if name in _PICKLE_STRINGS and text is None and isinstance(arg, str):
            text = arg
        elif name not in _PICKLE_FRAMING:
            raise field_error(field, f"the pickle holds something other than one string ({name}); it is not unpickled")
    if text is None:
        raise field_error(field, "the pickle holds no string")
    return text


def decode_test_cases(value: Any, field: str) -> list[Any]:
    """A test-case field -> its list: a list as is; a JSON string; or the
    official ``base64(zlib(pickle(json)))`` form (see the module doc)."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise field_error(field, f"expected a JSON string or a list, got {type(value).__name__}")
    text = value.strip()
    if not text:
        return []
    if text[0] in "[{":
        decoded = load_json(text, field)
    else:
        try:
            raw = base64.b64decode(text, validate=True)
            inflater = zlib.decompressobj()
            data = inflater.decompress(raw, MAX_DECODED_BYTES)
        except (binascii.Error, ValueError, zlib.error) as exc:
            raise field_error(field, f"neither JSON nor base64+zlib ({exc})") from None
        if inflater.unconsumed_tail:
            raise field_error(field, f"decompresses to more than {MAX_DECODED_BYTES} bytes")
        if data.lstrip()[:1] in (b"[", b"{"):
            decoded = load_json(data, field)
        else:
            decoded = load_json(_string_in_pickle(data, field), field)
    if not isinstance(decoded, list):
        raise field_error(field, f"expected a list of test cases, got {type(decoded).__name__}")
    return decoded


def functional_args(text: Any, field: str) -> list[Any]:
    """``"[1, 2]\\n3"`` -> ``[[1, 2], 3]``: one JSON value per line."""
    if not isinstance(text, str):
        raise field_error(field, f"expected newline-separated JSON values, got {type(text).__name__}")
    try:
        return [json.loads(line) for line in text.rstrip("\n").split("\n")] if text.strip() else []
    except ValueError as exc:
        raise field_error(field, f"a line is not JSON ({exc})") from None


def _test(case: Any, field: str, func_name: str | None, language: str) -> TestCase:
    if not isinstance(case, Mapping):
        raise field_error(field, f"expected {{input, output, testtype}}, got {type(case).__name__}")
    kind = case.get("testtype", "stdin")
    given, wanted = case.get("input"), case.get("output")
    if not isinstance(given, str) or not isinstance(wanted, str):
        raise field_error(field, "input and output must be strings")
    if kind == "stdin":
        return StdioTest(input=given, expected_output=wanted)
    if kind == "functional":
        if not func_name:
            raise field_error("metadata.func_name", "missing, and the row has functional tests")
        check_call_language(language, f"{field}.testtype")
        expected = load_json(wanted, f"{field}.output")
        return CallTest(fn_name=func_name, args=functional_args(given, f"{field}.input"), expected=expected)
    raise field_error(f"{field}.testtype", f"expected 'stdin' or 'functional', got {kind!r}")


def to_submission(
    row: Mapping[str, Any],
    code: str,
    language: str | None = None,
    *,
    include_public: bool = True,
    include_private: bool = True,
    max_tests: int | None = None,
    limits: LimitsRequest | None = None,
    comparator: Comparator | None = None,
    preamble: str | None = PYTHON_PREAMBLE,
) -> Submission:
    """A LiveCodeBench row plus a model's code -> a Submission.

    ``row``: ``public_test_cases`` (required) and ``private_test_cases``
    (JSON strings, lists, or the compressed official form) and ``metadata``
    (JSON string or dict; ``func_name`` for functional tests). Public tests
    come first; ``max_tests`` keeps the first N of them all. ``language``:
    default python (functional tests need python). LiveCodeBench has no
    per-problem limits: ``limits`` (or the server defaults) apply.
    ``preamble``: imports prepended to python code with functional tests.
    """
    lang = normalize_language(language)
    require(row, "public_test_cases")
    metadata = row.get("metadata") or {}
    metadata = load_json(metadata, "metadata") if isinstance(metadata, str) and metadata.strip() else metadata
    if not isinstance(metadata, Mapping):
        raise field_error("metadata", f"expected a JSON object, got {type(metadata).__name__}")
    func_name = metadata.get("func_name")
    cases: list[tuple[str, Any]] = []
    for field, wanted in (("public_test_cases", include_public), ("private_test_cases", include_private)):
        if wanted and row.get(field) is not None:
            cases += [(f"{field}[{k}]", case) for k, case in enumerate(decode_test_cases(row[field], field))]
    if not cases:
        raise field_error("public_test_cases", "no test cases (with private_test_cases when included)")
    tests = [_test(case, where, func_name, lang) for where, case in first_n(cases, max_tests)]
    extra: dict[str, Any] = {} if comparator is None else {"comparator": comparator}
    return Submission(
        language=lang,
        code=with_preamble(code, tests, lang, preamble),
        tests=tests,
        limits=merge_limits(LimitsRequest(), limits),
        **extra,
    )
