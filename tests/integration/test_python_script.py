"""Python stdio programs run in a fork of the warm executor; they must behave
as under ``python3 main.py``. Each case runs on both backends."""

from __future__ import annotations

import pytest

from service.judge.judge import Judge
from service.models.submission import Submission
from service.models.verdict import Verdict

CASES = [
    # (code, stdin, expected stdout, expected verdict, expected exit code)
    ("print(__name__, __file__)\nimport sys; print(sys.argv)", "", "__main__ main.py\n['main.py']\n", "accepted", 0),
    ("print('a'); exit()", "", "a\n", "accepted", 0),
    ("print('a'); quit(0)", "", "a\n", "accepted", 0),
    ("import sys; print('x'); sys.exit('bye')", "", "x\n", "runtime_error", 1),
    ("import sys; sys.exit(3)", "", "", "runtime_error", 3),
    ("print('before'); 1/0", "", "before\n", "runtime_error", 1),
    ("import atexit; atexit.register(lambda: print('at exit'))\nprint('main')", "", "main\nat exit\n", "accepted", 0),
    ("import threading, time\ndef w():\n    time.sleep(0.2); print('thread')\nthreading.Thread(target=w).start()\nprint('main')",
     "", "main\nthread\n", "accepted", 0),
    ("import sys\ndata = sys.stdin.buffer.read().decode()\nprint(len(data.split()))", "1 2 3\n4\n", "4\n", "accepted", 0),
    ("s = input()\nprint(s[::-1])", "héllo ✓\n", "✓ olléh\n", "accepted", 0),
    ("import sys\nsys.setrecursionlimit(100000)\ndef f(n): return 0 if n == 0 else 1 + f(n - 1)\nprint(f(20000))",
     "", "20000\n", "accepted", 0),
    ("import plain\nprint(plain.VALUE)", "", "", "runtime_error", 1),  # no executor module leaks into the program
]


@pytest.mark.parametrize(("code", "stdin", "stdout", "verdict", "exit_code"), CASES)
def test_behaves_like_python3(judge: Judge, code: str, stdin: str, stdout: str, verdict: str, exit_code: int) -> None:
    submission = Submission.model_validate(
        {"language": "python", "code": code, "tests": [{"input": stdin, "expected_output": stdout}], "comparator": "exact"}
    )
    result = judge.score(submission)
    test = result.tests[0]
    assert test.stdout == stdout, test.stderr
    assert test.exit_code == exit_code, test.stderr
    assert result.verdict == Verdict(verdict), (test.reason, test.stderr)


def test_uncaught_exception_prints_traceback(judge: Judge) -> None:
    result = judge.score(
        Submission.model_validate({"language": "python", "code": "def f():\n    raise ValueError('boom')\nf()\n",
                                   "tests": [{"expected_output": ""}]})
    )
    stderr = result.tests[0].stderr
    assert "Traceback (most recent call last)" in stderr and "ValueError: boom" in stderr and 'main.py", line 2' in stderr


def test_own_module_named_like_an_executor_module(judge: Judge) -> None:
    # with extra files the program runs under a real python3
    result = judge.score(
        Submission.model_validate({"language": "python", "code": "import plain\nprint(plain.VALUE)\n",
                                   "files": {"plain.py": "VALUE = 42\n"}, "tests": [{"expected_output": "42"}]})
    )
    assert result.verdict == Verdict.accepted, result.tests[0].stderr
