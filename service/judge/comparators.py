"""Comparators: is the program's stdout the expected output?

The whole output is always compared, never a prefix. ``lines`` (default)
normalises CRLF/CR to LF, ignores trailing whitespace on each line and
trailing blank lines, but never whitespace inside a line. ``tokens`` splits on
any whitespace. ``float`` compares tokens, numeric ones within abs/rel
tolerance (|a-b| <= abs_tol or |a-b| <= rel_tol*|b|, as in testlib's
``doubleCompare``); integer tokens must match exactly and NaN equals nothing.
"""

from __future__ import annotations

import math
import re

from service.models.submission import Comparator, FloatComparator

_INTEGER = re.compile(r"[+-]?\d+\Z")


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _float_equal(got: str, want: str, abs_tol: float, rel_tol: float) -> bool:
    if _INTEGER.match(want) and _INTEGER.match(got):
        return int(got) == int(want)
    try:
        g, w = float(got), float(want)
    except ValueError:
        return got == want  # words compare as words
    if math.isnan(g) or math.isnan(w):
        return False
    if math.isinf(g) or math.isinf(w):
        return g == w
    diff = abs(g - w)
    return diff <= abs_tol or diff <= rel_tol * abs(w)


def compare(comparator: Comparator, output: str, expected: str) -> bool:
    """True if ``output`` matches ``expected`` under ``comparator``."""
    if comparator == "exact":
        return output == expected
    if comparator == "lines":
        return _lines(output) == _lines(expected)
    got, want = output.split(), expected.split()
    if comparator == "tokens":
        return got == want
    assert isinstance(comparator, FloatComparator)
    return len(got) == len(want) and all(
        _float_equal(g, w, comparator.abs_tol, comparator.rel_tol) for g, w in zip(got, want, strict=True)
    )
