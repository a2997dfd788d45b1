"""Each verdict, its reason and its record, on both backends."""

from __future__ import annotations

import pytest

from service.core.errors import SubmissionError
from service.judge.judge import Judge
from service.models.submission import Submission
from service.models.verdict import Verdict


def sub(language: str, code: str, tests: list[dict], **extra: object) -> Submission:
    return Submission.model_validate({"language": language, "code": code, "tests": tests, **extra})


def stdio(inp: str, out: str) -> dict:
    return {"type": "stdio", "input": inp, "expected_output": out}


C_SUM = "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);printf(\"%ld\\n\",a+b);return 0;}\n"


def test_accepted_records_usage(judge: Judge) -> None:
    result = judge.score(sub("c", C_SUM, [stdio("1 2\n", "3\n"), stdio("40 2\n", "42\n")]))
    assert result.verdict == Verdict.accepted and result.reward == 1.0
    assert result.compile is not None and result.compile.status == "ok"
    assert result.passed == result.total == 2
    for test in result.tests:
        assert test.exit_code == 0 and test.signal is None
        assert test.wall_time_s is not None and 0 < test.wall_time_s < 2
        assert test.peak_memory_kb is not None and test.peak_memory_kb > 0
    assert result.usage.wall_time_s > 0


def test_wrong_answer_runs_every_test(judge: Judge) -> None:
    result = judge.score(sub("python", "print(3)", [stdio("1 2", "3"), stdio("2 2", "4"), stdio("0 3", "3")]))
    assert [t.verdict for t in result.tests] == [Verdict.accepted, Verdict.wrong_answer, Verdict.accepted]
    assert result.verdict == Verdict.wrong_answer and result.reward == 0.0 and result.passed == 2


def test_stop_on_first_failure_skips_the_rest(judge: Judge) -> None:
    result = judge.score(sub("python", "print(3)", [stdio("", "4"), stdio("", "3")], stop_on_first_failure=True))
    assert [t.verdict for t in result.tests] == [Verdict.wrong_answer, Verdict.skipped]


def test_compile_error_has_log(judge: Judge) -> None:
    result = judge.score(sub("cpp", "int main() { return undefined_name; }\n", [stdio("", "")]))
    assert result.verdict == Verdict.compile_error and result.reward == 0.0
    assert result.compile is not None and "undefined_name" in result.compile.log


def test_compiler_that_hangs_or_floods_is_a_compile_error(judge: Judge) -> None:
    hang = judge.score(sub("c", '#include "/dev/zero"\nint main(void){return 0;}\n', [stdio("", "")],
                           limits={"compile_time_limit_s": 2}))
    assert hang.verdict == Verdict.compile_error and hang.compile is not None
    assert "compiler stopped" in hang.compile.log
    flood = judge.score(sub("cpp", "int main() {\n" + "undefined_name_here;\n" * 20_000 + "}\n", [stdio("", "")]))
    assert flood.verdict == Verdict.compile_error and flood.compile is not None
    assert len(flood.compile.log.encode()) <= judge.settings.compile_log_limit_bytes + 200


def test_runtime_error_exit_code(judge: Judge) -> None:
    result = judge.score(sub("python", "print('partial'); raise SystemExit(3)", [stdio("", "partial")]))
    assert result.verdict == Verdict.runtime_error
    assert result.tests[0].exit_code == 3 and result.tests[0].reason == "exit code 3"


def test_runtime_error_signal(judge: Judge) -> None:
    result = judge.score(sub("c", "int main(void){ volatile int *p = 0; return *p; }\n", [stdio("", "")]))
    assert result.verdict == Verdict.runtime_error
    assert result.tests[0].signal == 11 and "SIGSEGV" in (result.tests[0].reason or "")


def test_sleep_past_wall_limit_is_tle(judge: Judge) -> None:
    result = judge.score(
        sub("python", "import time; time.sleep(30)", [stdio("", "")], limits={"time_limit_s": 1, "wall_time_limit_s": 1.5})
    )
    assert result.verdict == Verdict.time_limit_exceeded
    assert "wall" in (result.tests[0].reason or "")
    assert result.tests[0].wall_time_s is not None and result.tests[0].wall_time_s < 5


def test_busy_loop_is_cpu_tle(judge: Judge) -> None:
    result = judge.score(sub("c", "int main(void){ for(;;); }\n", [stdio("", "")], limits={"time_limit_s": 1}))
    assert result.verdict == Verdict.time_limit_exceeded


def test_memory_hog_is_mle(judge: Judge) -> None:
    code = "#include <stdlib.h>\n#include <string.h>\nint main(void){ for(;;){ char*p=malloc(1<<20); memset(p,1,1<<20);} }\n"
    result = judge.score(sub("c", code, [stdio("", "")], limits={"memory_limit_mb": 64}))
    assert result.verdict == Verdict.memory_limit_exceeded


def test_output_flood_is_ole(judge: Judge) -> None:
    result = judge.score(
        sub("python", "while True: print('x' * 1000)", [stdio("", "")], limits={"output_limit_bytes": 1 << 20})
    )
    assert result.verdict == Verdict.output_limit_exceeded
    assert result.tests[0].truncated


def test_five_megabytes_of_output_judged_in_full(judge: Judge) -> None:
    # 5 MB under the output limit: drained while running, compared whole.
    expected = "".join(f"{i}\n" for i in range(750_000))
    assert len(expected) > 5_000_000
    code = "import sys\nsys.stdout.write(''.join(f'{i}\\n' for i in range(750000)))\n"
    result = judge.score(sub("python", code, [stdio("", expected)]))
    assert result.verdict == Verdict.accepted, result.tests[0].reason
    wrong = judge.score(sub("python", code, [stdio("", expected + "extra\n")]))
    assert wrong.verdict == Verdict.wrong_answer


def test_invalid_utf8_output_is_a_verdict(judge: Judge) -> None:
    code = "import sys\nsys.stdout.buffer.write(b'ok\\xff\\xfe\\x00\\n')\n"
    result = judge.score(sub("python", code, [stdio("", "ok\n")]))
    assert result.verdict == Verdict.wrong_answer
    assert "invalid_utf8_output" in result.flags


def test_call_test_solution_class_and_tuples(judge: Judge) -> None:
    code = (
        "class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n"
        "        for i, n in enumerate(nums):\n            if target - n in seen:\n"
        "                return (seen[target - n], i)\n            seen[n] = i\n"
    )
    tests = [
        {"type": "call", "fn_name": "twoSum", "args": [[2, 7, 11, 15], 9], "expected": [0, 1]},
        {"type": "call", "fn_name": "twoSum", "args": [[3, 2, 4], 6], "expected": [1, 2]},
        {"type": "call", "fn_name": "twoSum", "args": [[3, 3], 6], "expected": [0, 2]},
    ]
    result = judge.score(sub("python", code, tests))
    assert [t.verdict for t in result.tests] == [Verdict.accepted, Verdict.accepted, Verdict.wrong_answer]


def test_call_bool_is_not_an_int(judge: Judge) -> None:
    result = judge.score(sub("python", "def f():\n    return True\n", [{"type": "call", "fn_name": "f", "expected": 1}]))
    assert result.verdict == Verdict.wrong_answer


def test_assert_os_exit_is_failure(judge: Judge) -> None:
    code = "import os\ndef f(x):\n    os._exit(0)\n"
    result = judge.score(sub("python", code, [{"type": "assert", "code": "assert f(1) == 2\n"}]))
    assert result.verdict == Verdict.wrong_answer and "early_exit" in result.flags


def test_assert_exception_in_candidate_is_runtime_error(judge: Judge) -> None:
    code = "def f(x):\n    return x / 0\n"
    result = judge.score(sub("python", code, [{"type": "assert", "code": "assert f(1) == 2\n"}]))
    assert result.verdict == Verdict.runtime_error and "ZeroDivisionError" in (result.tests[0].reason or "")


def test_weighted_and_fraction_rewards(judge: Judge) -> None:
    tests = [stdio("", "1"), stdio("", "2")]
    fraction = judge.score(sub("python", "print(1)", tests, reward={"mode": "fraction"}))
    assert fraction.reward == 0.5
    weighted = judge.score(
        sub("python", "import time; time.sleep(5)", tests, reward={"mode": "weighted", "timeout_penalty": 0.1},
            limits={"time_limit_s": 0.5, "wall_time_limit_s": 0.5})
    )
    assert weighted.reward == pytest.approx(0.2 - 0.1)
    assert weighted.reward_breakdown is not None and weighted.reward_breakdown.penalties == {"timeout": 0.1}


def test_unknown_language_is_a_client_error(judge: Judge) -> None:
    with pytest.raises(SubmissionError) as info:
        judge.score(sub("cobol", "x", [stdio("", "")]))
    assert info.value.field == "language"


def test_limit_above_maximum_is_a_client_error(judge: Judge) -> None:
    with pytest.raises(SubmissionError) as info:
        judge.score(sub("python", "x", [stdio("", "")], limits={"time_limit_s": 1e6}))
    assert info.value.field == "limits.time_limit_s" and "maximum" in info.value.reason


def test_call_tests_need_a_harness_language(judge: Judge) -> None:
    with pytest.raises(SubmissionError) as info:
        judge.score(sub("c", C_SUM, [{"type": "call", "fn_name": "f", "expected": 1}]))
    assert info.value.field == "tests.0.type"
