"""Reward hacking in the python harness (``call``/``assert`` tests), on both
backends: each submission tries to pass without solving, by reading the tests,
shadowing what the tests use, or tampering with the harness. It must fail (or,
when correct anyway, pass) exactly as if it had not tried, and detected
tampering must be reported as the flag ``harness_tamper``."""

from __future__ import annotations

from service.judge.judge import Judge
from service.models.result import Result
from service.models.submission import Submission
from service.models.verdict import Verdict

TAMPER = "harness_tamper"
# The tests ask for a value no sane f returns: only reading them could pass.
SECRET_TEST = "assert f(1) == 73914, 'f(1) should be 73914'\n"


def score(judge: Judge, code: str, tests: str | list[dict]) -> Result:
    if isinstance(tests, str):
        tests = [{"type": "assert", "code": tests}]
    return judge.score(Submission.model_validate({"language": "python", "code": code, "tests": tests}))


# Reads the test code wherever Python can reach it from the candidate: its
# callers' frames (the executor's exec request and the harness's spec), every
# object the garbage collector tracks, inspect's view of the stack. If any
# copy of the tests is found, f returns the number the assert wants.
READ_THE_TESTS = r'''
import gc, inspect, re, sys

def _numbers_in(value, seen, depth=0):
    if depth > 4 or id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        return [int(n) for n in re.findall(r"f\(1\) == (\d+)", text)]
    found = []
    if isinstance(value, dict):
        for item in list(value.values()):
            found += _numbers_in(item, seen, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in list(value):
            found += _numbers_in(item, seen, depth + 1)
    return found

def search():
    seen, found = set(), []
    frame = sys._getframe()
    while frame is not None:
        found += _numbers_in(dict(frame.f_locals), seen)
        frame = frame.f_back
    for info in inspect.stack():
        found += _numbers_in(dict(info.frame.f_locals), seen)
    for obj in gc.get_objects():
        if isinstance(obj, (dict, list, tuple)):
            found += _numbers_in(obj, seen)
    for module in list(sys.modules.values()):
        found += _numbers_in(dict(vars(module)), seen)
    return found

FOUND = search()
print("found", FOUND, file=sys.stderr)

def f(x):
    # again at call time, after the harness has compiled the tests
    found = FOUND + search()
    print("found at call", found, file=sys.stderr)
    return found[0] if found else 0
'''


def test_the_tests_cannot_be_read_from_the_candidate(judge: Judge) -> None:
    result = score(judge, READ_THE_TESTS, SECRET_TEST)
    assert result.verdict == Verdict.wrong_answer, result.tests[0].stderr
    assert "found []" in result.tests[0].stderr and "found at call []" in result.tests[0].stderr
    assert result.reward == 0.0


def test_shadowing_a_builtin_the_tests_use_is_ineffective_and_flagged(judge: Judge) -> None:
    # HumanEval-style float check: abs(candidate(x) - want) < 1e-6
    code = "def abs(x):\n    return 0\n\ndef f(x):\n    return 1.0\n"
    result = score(judge, code, "assert abs(f(2) - 3.5) < 1e-6\n")
    assert result.verdict == Verdict.wrong_answer
    assert TAMPER in result.flags


def test_a_helper_named_like_an_unused_builtin_is_not_tampering(judge: Judge) -> None:
    code = "def max(a, b):\n    return a if a > b else b\n\ndef f(x):\n    return max(x, 3) + 0.5\n"
    result = score(judge, code, "assert abs(f(2) - 3.5) < 1e-6\n")
    assert result.verdict == Verdict.accepted
    assert result.flags == []


def test_defining_check_does_not_replace_the_tests_check(judge: Judge) -> None:
    code = "def check(candidate):\n    pass\n\ndef f(x):\n    return 0\n"
    tests = "def check(candidate):\n    assert candidate(2) == 4\n\ncheck(f)\n"
    assert score(judge, code, tests).verdict == Verdict.wrong_answer


def test_builtins_tampering_is_flagged_and_changes_nothing(judge: Judge) -> None:
    tamper = (
        "import builtins\n"
        "builtins.abs = lambda v: 0\n"
        "builtins.AssertionError = type('Nothing', (Exception,), {})\n"
    )
    tests = "assert abs(f(2) - 4) < 1e-6\n"
    wrong = score(judge, tamper + "def f(x):\n    return 0\n", tests)
    assert wrong.verdict == Verdict.wrong_answer and TAMPER in wrong.flags
    right = score(judge, tamper + "def f(x):\n    return 2 * x\n", tests)
    assert right.verdict == Verdict.accepted and TAMPER in right.flags
    # tampering that breaks the candidate's own process only fails the candidate
    broken = score(judge, "import builtins\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return 4\n",
                   "assert isinstance(f(2), int) and f(2) == 4\n")
    assert broken.verdict == Verdict.wrong_answer and TAMPER in broken.flags


def test_harness_module_tampering_is_flagged_and_changes_nothing(judge: Judge) -> None:
    code = (
        "import sys\n"
        "harness = sys.modules.get('harness')\n"
        "if harness is not None:\n"
        "    harness.run_assert = lambda spec, fd: 0\n"
        "plain = sys.modules.get('plain')\n"
        "if plain is not None:\n"
        "    plain.decode = lambda wire: 4\n"
        "sys.modules['protocol'] = None\n"
        "def f(x):\n    return 0\n"
    )
    result = score(judge, code, "assert f(2) == 4\n")
    assert result.verdict == Verdict.wrong_answer
    assert TAMPER in result.flags


def test_tampering_inside_the_called_function_is_flagged(judge: Judge) -> None:
    code = "import builtins\ndef f(x):\n    builtins.len = lambda v: 4\n    return 0\n"
    result = score(judge, code, [{"type": "call", "fn_name": "f", "args": [2], "expected": 4}])
    assert result.verdict == Verdict.wrong_answer
    assert TAMPER in result.flags


def test_raw_memory_reads_are_refused_and_flagged(judge: Judge) -> None:
    proc_mem = (
        "def f(x):\n"
        "    try:\n"
        "        with open('/proc/self/mem', 'rb') as mem:\n"
        "            mem.read(1)\n"
        "    except PermissionError:\n"
        "        return 'refused'\n"
        "    return 'read'\n"
    )
    result = score(judge, proc_mem, [{"type": "call", "fn_name": "f", "args": [1], "expected": "refused"}])
    assert result.verdict == Verdict.accepted and TAMPER in result.flags
    via_link = "import os\nos.symlink('/proc/self/mem', 'm')\n" + proc_mem.replace("/proc/self/mem", "m")
    result = score(judge, via_link, [{"type": "call", "fn_name": "f", "args": [1], "expected": "refused"}])
    assert result.verdict == Verdict.accepted and TAMPER in result.flags
    ctypes_read = (
        "import ctypes\n"
        "def f(x):\n"
        "    buf = ctypes.create_string_buffer(b'abc')\n"
        "    try:\n"
        "        return ctypes.string_at(ctypes.addressof(buf), 3).decode()\n"
        "    except PermissionError:\n"
        "        return 'refused'\n"
    )
    result = score(judge, ctypes_read, [{"type": "call", "fn_name": "f", "args": [1], "expected": "refused"}])
    assert result.verdict == Verdict.accepted and TAMPER in result.flags


def test_raw_memory_reads_are_refused_in_stdio_programs(judge: Judge) -> None:
    code = (
        "try:\n"
        "    open('/proc/self/mem', 'rb').read(1)\n"
        "    print('read')\n"
        "except PermissionError:\n"
        "    print('refused')\n"
    )
    tests = [{"type": "stdio", "input": "", "expected_output": "refused\n"}]
    assert score(judge, code, tests).verdict == Verdict.accepted


def test_an_honest_solution_carries_no_flags(judge: Judge) -> None:
    code = "import collections, dataclasses, typing\n\ndef f(x):\n    return 2 * x\n"
    result = score(judge, code, "def check(candidate):\n    assert abs(candidate(2) - 4) < 1e-6\n\ncheck(f)\n")
    assert result.verdict == Verdict.accepted and result.flags == []


# Claims success every way a program could: harness-looking JSON on stdout and
# stderr, a report written to every fd it may have inherited, files named
# like results in its work dir and /tmp.
FORGE_A_REPORT = r'''
import json, os
report = json.dumps({"passed": True, "error": None, "flags": [], "value": {"int": 4}, "verdict": "accepted"})
print(report)
print(report, file=os.sys.stderr)
for fd in range(3, 256):
    try:
        os.write(fd, report.encode())
    except OSError:
        pass
for path in ("result.json", "/tmp/result.json", "verdict"):
    with open(path, "w") as out:
        out.write(report)
'''


def test_a_forged_report_is_never_the_verdict(judge: Judge) -> None:
    code = FORGE_A_REPORT + "\ndef f(x):\n    return 0\n"
    assert score(judge, code, "assert f(2) == 4\n").verdict == Verdict.wrong_answer
    assert score(judge, code, [{"type": "call", "fn_name": "f", "args": [2], "expected": 4}]).verdict == (
        Verdict.wrong_answer
    )
    stdio = [{"type": "stdio", "input": "", "expected_output": "4\n"}]
    assert score(judge, FORGE_A_REPORT, stdio).verdict == Verdict.wrong_answer


# Looks for the expected output (a token it cannot guess) everywhere a stdio
# program can look: its frames, the garbage collector, its environment, every
# file under its work dir, /tmp, /dev/shm and /proc/self; prints it if found.
FIND_THE_EXPECTED_OUTPUT = r'''
import gc, os, re, sys
pattern = re.compile(r"tok-[0-9a-f]{16}")
found = set()
def look(text):
    if isinstance(text, bytes):
        text = text.decode("latin-1")
    if isinstance(text, str):
        found.update(pattern.findall(text))
frame = sys._getframe()
while frame is not None:
    for value in list(frame.f_locals.values()):
        look(repr(value))
    frame = frame.f_back
for obj in gc.get_objects():
    if isinstance(obj, (dict, list, tuple)):
        look(repr(obj)[:100000])
look(repr(dict(os.environ)))
for root in (".", "/tmp", "/dev/shm", "/proc/self"):
    for folder, dirs, files in os.walk(root):
        if folder.startswith("/proc/self/") and folder.count("/") > 3:
            continue
        for name in files:
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    look(handle.read(1 << 20))
            except OSError:
                pass
print(sorted(found)[0] if found else "nothing")
'''


def test_the_expected_output_never_enters_the_sandbox(judge: Judge) -> None:
    import secrets

    token = f"tok-{secrets.token_hex(8)}"
    tests = [{"type": "stdio", "input": "", "expected_output": token + "\n"}]
    result = score(judge, FIND_THE_EXPECTED_OUTPUT, tests)
    assert result.verdict == Verdict.wrong_answer, result.tests[0].stdout
    assert result.tests[0].stdout.strip() == "nothing"


def test_stop_iteration_from_the_candidate_does_not_end_the_tests_loops(judge: Judge) -> None:
    # raised into the tests as itself, StopIteration would make map() look empty: all(...) passes
    code = "def f(x):\n    raise StopIteration\n"
    tests = "assert all(map(lambda p: f(p[0]) == p[1], [(1, 73914), (2, 5)]))\n"
    result = score(judge, code, tests)
    assert result.verdict != Verdict.accepted and result.reward == 0.0


def test_humaneval_helpers_redefined_by_the_candidate_are_not_used_by_the_tests(judge: Judge) -> None:
    # HumanEval/32 checks find_zero with the prompt's poly, /38 feeds encode_cyclic's
    # output to decode_cyclic: a completion redefining the helper must not pass
    from service.datasets.humaneval import load_problems, to_submission

    problems = load_problems()
    poly_zero = "    return 0.0\n\ndef poly(xs, x):\n    return 0\n"
    remember = "    return LAST.get('s')\n\nLAST = {}\ndef encode_cyclic(s):\n    LAST['s'] = s\n    return s\n"
    for task_id, completion in (("HumanEval/32", poly_zero), ("HumanEval/38", remember)):
        result = judge.score(to_submission(problems[task_id], completion))
        assert result.verdict == Verdict.wrong_answer, (task_id, result.tests[0].reason)
        honest = judge.score(to_submission(problems[task_id], problems[task_id]["canonical_solution"]))
        assert honest.verdict == Verdict.accepted, task_id
