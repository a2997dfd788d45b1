from __future__ import annotations

import pytest

from service.judge.comparators import compare
from service.models.submission import FloatComparator


@pytest.mark.parametrize(
    ("output", "expected", "same"),
    [
        ("1 2 \n3\n", "1 2\n3\n", True),  # trailing space per line
        ("1\r\n4\r\n", "1\n4\n", True),  # CRLF
        ("1\n4\n\n\n", "1\n4", True),  # trailing blank lines
        ("1  2\n", "1 2\n", False),  # whitespace inside a line matters
        ("1\n", "1\n2\n", False),  # never a prefix
        ("1\n2\n", "1\n", False),
        ("", "", True),
    ],
)
def test_lines(output: str, expected: str, same: bool) -> None:
    assert compare("lines", output, expected) is same


def test_exact_and_tokens() -> None:
    assert compare("exact", "1\n", "1\n") and not compare("exact", "1 \n", "1\n")
    assert compare("tokens", "1\n  2\t3", "1 2 3\n") and not compare("tokens", "1 2", "1 2 3")


@pytest.mark.parametrize(
    ("output", "expected", "same"),
    [
        ("3.1416", "3.141592653590", False),  # 5.8e-6 > 1e-6
        ("3.141593", "3.141592653590", True),
        ("nan", "nan", False),  # NaN never equal
        ("10", "10.0000001", True),
        ("10", "11", False),  # integer tokens exact
        ("inf", "inf", True),
        ("1e9", "1000000001", True),  # rel 1e-9 within rel_tol
        ("abc", "abc", True),
        ("1 2", "1", False),
    ],
)
def test_float(output: str, expected: str, same: bool) -> None:
    assert compare(FloatComparator(abs_tol=1e-6, rel_tol=1e-6), output, expected) is same
