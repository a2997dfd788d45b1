"""Dataset rows -> Submissions: hand-written rows in the shapes the real
datasets use (MBPP full/sanitized, APPS, TACO, CodeContests, LiveCodeBench
code_generation_lite, open-r1 verification_info, verl ground_truth)."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from pathlib import Path
from typing import Any

import pytest

from service.datasets import apps, codecontests, intermediate, livecodebench, mbpp, registry
from service.models.submission import AssertTest, CallTest, LimitsRequest, StdioTest, Submission


def round_trips(sub: Submission) -> Submission:
    """The submission is valid on the wire, as a client would send it."""
    back = Submission.model_validate(json.loads(json.dumps(sub.model_dump(mode="json"))))
    assert back == sub
    return sub


# ---------------------------------------------------------------- MBPP

MBPP_FULL = {
    "task_id": 11,
    "text": "Write a python function to remove first and last occurrence of a given character from the string.",
    "code": "def remove_Occ(s,ch): \r\n    for i in range(len(s)): \r\n        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    for i in range(len(s) - 1,-1,-1):  \r\n        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    return s ",  # noqa: E501
    "test_list": [
        'assert remove_Occ("hello","l") == "heo"',
        'assert remove_Occ("abcda","a") == "bcd"',
        'assert remove_Occ("PHP","P") == "H"',
    ],
    "test_setup_code": "",
    "challenge_test_list": ['assert remove_Occ("hellolloll","l") == "helollol"', 'assert remove_Occ("","l") == ""'],
}

MBPP_SANITIZED = {
    "source_file": "Benchmark Questions Verification V2.ipynb",
    "task_id": 139,
    "prompt": "Write a function to find the circumference of a circle.",
    "code": "def circle_circumference(r):\n  perimeter=2*3.1415*r\n  return perimeter",
    "test_imports": ["import math"],
    "test_list": [
        "assert math.isclose(circle_circumference(10), 62.830000000000005, rel_tol=0.001)",
        "assert math.isclose(circle_circumference(5), 31.415000000000003, rel_tol=0.001)",
    ],
}


def test_mbpp_one_assert_test_with_every_assert() -> None:
    sub = round_trips(mbpp.to_submission(MBPP_FULL, "def remove_Occ(s, ch): ..."))
    assert sub.language == "python" and sub.code == "def remove_Occ(s, ch): ..."
    assert len(sub.tests) == 1 and isinstance(sub.tests[0], AssertTest)
    assert sub.tests[0].code == "".join(line + "\n" for line in MBPP_FULL["test_list"])  # type: ignore[attr-defined]


def test_mbpp_imports_and_setup_lead_every_split_assert() -> None:
    sub = round_trips(mbpp.to_submission(MBPP_SANITIZED, "x", split_asserts=True))
    assert [t.code for t in sub.tests] == [  # type: ignore[union-attr]
        "import math\n" + MBPP_SANITIZED["test_list"][0] + "\n",  # type: ignore[index]
        "import math\n" + MBPP_SANITIZED["test_list"][1] + "\n",  # type: ignore[index]
    ]
    row = {**MBPP_FULL, "test_setup_code": "class Pair:\n    pass\n"}
    split = mbpp.to_submission(row, "x", split_asserts=True, include_challenge_tests=True)
    assert len(split.tests) == 5
    assert all(isinstance(t, AssertTest) and t.code.startswith("class Pair:\n    pass\nassert ") for t in split.tests)


def test_mbpp_bad_rows() -> None:
    with pytest.raises(ValueError, match="^test_list: missing"):
        mbpp.to_submission({"text": "t", "code": "c"}, "x")
    with pytest.raises(ValueError, match="^test_list: empty"):
        mbpp.to_submission({**MBPP_FULL, "test_list": []}, "x")
    with pytest.raises(ValueError, match="^language:"):
        mbpp.to_submission(MBPP_FULL, "x", "cpp")


# ---------------------------------------------------------------- APPS / TACO

APPS_STDIO = {
    "problem_id": 0,
    "question": "Polycarp has $n$ different binary words...",
    "solutions": json.dumps(["print(1)\n"]),
    "input_output": json.dumps(
        {
            "inputs": ["4\n4\n0001\n1000\n0011\n0111\n3\n010\n101\n0\n2\n00000\n00001\n4\n01\n001\n0001\n00001\n", "1\n1\n0\n"],
            "outputs": ["1\n3 \n-1\n0\n\n2\n1 2 \n", "0\n\n"],
        }
    ),
    "difficulty": "interview",
    "url": "https://codeforces.com/problemset/problem/1259/D",
    "starter_code": "",
}

APPS_CALL = {
    "problem_id": 2500,
    "question": "Given a list of integers and a single sum value, return the first two values ...",
    "solutions": "[]",
    "input_output": json.dumps(
        {
            "fn_name": "sum_pairs",
            "inputs": [[[1, 4, 8, 7, 3, 15], 8], [[1, -2, 3, 0, -6, 1], -6], [[20, -13, 40], -7]],
            "outputs": [[[1, 7]], [[0, -6]], [None]],
        }
    ),
    "difficulty": "introductory",
    "url": "https://www.codewars.com/kata/54d81488b981293527000c8f",
    "starter_code": "def sum_pairs(ints, s):\n\t",
}

TACO_LEETCODE = {
    "question": "Say you have an array for which the ith element is the price of a given stock on day i. ...",
    "solutions": "[]",
    "starter_code": "class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        ",
    "input_output": {"fn_name": "maxProfit", "inputs": [[[7, 1, 5, 3, 6, 4]], [[7, 6, 4, 3, 1]]], "outputs": [5, 0]},
    "difficulty": "EASY",
    "raw_tags": "[]",
    "name": None,
    "source": "leetcode",
    "tags": "[]",
    "skill_types": "[]",
    "url": "https://leetcode.com/problems/best-time-to-buy-and-sell-stock/",
    "Expected Auxiliary Space": None,
    "time_limit": None,
    "date": None,
    "picture_num": None,
    "memory_limit": None,
    "Expected Time Complexity": None,
}

TACO_STDIN = {
    **{k: v for k, v in TACO_LEETCODE.items() if k != "input_output"},
    "starter_code": "",
    "source": "codeforces",
    "input_output": json.dumps({"inputs": [["3", "1 2 3"]], "outputs": [["6"]]}),
    "time_limit": "2 seconds",
    "memory_limit": "256 megabytes",
}


def test_apps_stdio_tests() -> None:
    sub = round_trips(apps.to_submission(APPS_STDIO, "print(1)"))
    assert all(isinstance(t, StdioTest) for t in sub.tests) and len(sub.tests) == 2
    assert sub.tests[0].input.startswith("4\n4\n0001")  # type: ignore[union-attr]
    assert sub.tests[1] == StdioTest(input="1\n1\n0\n", expected_output="0\n\n")
    assert sub.code == "print(1)"  # no preamble for stdio code
    assert sub.limits == LimitsRequest()


def test_apps_call_tests_unwrap_one_level() -> None:
    sub = round_trips(apps.to_submission(APPS_CALL, "def sum_pairs(ints, s): ..."))
    assert sub.tests == [
        CallTest(fn_name="sum_pairs", args=[[1, 4, 8, 7, 3, 15], 8], expected=[1, 7]),  # [[1, 7]] -> [1, 7]
        CallTest(fn_name="sum_pairs", args=[[1, -2, 3, 0, -6, 1], -6], expected=[0, -6]),
        CallTest(fn_name="sum_pairs", args=[[20, -13, 40], -7], expected=None),  # [None] -> None
    ]
    assert sub.code.startswith(apps.PYTHON_PREAMBLE) and sub.code.endswith("def sum_pairs(ints, s): ...")
    assert "globals().pop('sum_pairs', None)\n" in sub.code


@pytest.mark.parametrize(
    ("output", "expected"),
    [([5], 5), ([[2, 3]], [2, 3]), ([[[1]]], [[1]]), (5, 5), ([1, 2], [1, 2]), ([], []), (["ab"], "ab")],
)
def test_unwrap_exactly_one_level(output: Any, expected: Any) -> None:
    assert apps.unwrap_output(output) == expected


def test_taco_leetcode_style_keeps_fn_name_and_parses_no_limits() -> None:
    sub = round_trips(apps.taco_to_submission(TACO_LEETCODE, "class Solution:\n    def maxProfit(self, prices): ..."))
    assert sub.tests == [
        CallTest(fn_name="maxProfit", args=[[7, 1, 5, 3, 6, 4]], expected=5),
        CallTest(fn_name="maxProfit", args=[[7, 6, 4, 3, 1]], expected=0),
    ]
    assert "from typing import *\n" in sub.code  # List[int] annotations resolve
    assert sub.limits == LimitsRequest()


def test_taco_stdin_lines_joined_and_limits_parsed() -> None:
    sub = round_trips(apps.to_submission(TACO_STDIN, "print(6)", "python3"))
    assert sub.tests == [StdioTest(input="3\n1 2 3\n", expected_output="6\n")]
    assert sub.limits == LimitsRequest(time_limit_s=2.0, memory_limit_mb=256)
    override = apps.to_submission(TACO_STDIN, "x", limits=LimitsRequest(memory_limit_mb=512, wall_time_limit_s=9))
    assert override.limits == LimitsRequest(time_limit_s=2.0, memory_limit_mb=512, wall_time_limit_s=9)


def test_max_tests_keeps_the_first_n_and_fn_name() -> None:
    """rllm#128: a sub-sample must stay call-based."""
    sub = apps.to_submission(APPS_CALL, "x", max_tests=2)
    assert [t.type for t in sub.tests] == ["call", "call"]
    assert [t.args for t in sub.tests] == [[[1, 4, 8, 7, 3, 15], 8], [[1, -2, 3, 0, -6, 1], -6]]  # type: ignore[union-attr]
    assert apps.to_submission(APPS_CALL, "x", max_tests=100).tests == apps.to_submission(APPS_CALL, "x").tests
    with pytest.raises(ValueError, match="^max_tests:"):
        apps.to_submission(APPS_CALL, "x", max_tests=0)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("2 seconds", 2.0),
        ("1.0 second", 1.0),
        ("0.5 seconds", 0.5),
        ("500 ms", 0.5),
        (3, 3.0),
        ("None", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_time_limit(value: Any, seconds: float | None) -> None:
    assert apps.parse_time_limit(value) == seconds


@pytest.mark.parametrize(
    ("value", "mib"),
    [
        ("256 megabytes", 256),
        ("256.0 megabytes", 256),
        ("64 MB", 64),
        ("1 gigabyte", 1024),
        ("65536 kilobytes", 64),
        ("None", None),
    ],
)
def test_parse_memory_limit(value: Any, mib: int | None) -> None:
    assert apps.parse_memory_limit(value) == mib


def test_apps_bad_rows() -> None:
    with pytest.raises(ValueError, match="^input_output: empty string"):
        apps.to_submission({**APPS_STDIO, "input_output": ""}, "x")
    with pytest.raises(ValueError, match="^input_output: not valid JSON"):
        apps.to_submission({**APPS_STDIO, "input_output": "{"}, "x")
    with pytest.raises(ValueError, match="^input_output: 2 inputs but 1 outputs"):
        apps.to_submission({"input_output": {"inputs": ["1", "2"], "outputs": ["1"]}}, "x")
    with pytest.raises(ValueError, match=r"^input_output\.inputs\[0\]: expected the list of positional arguments"):
        apps.to_submission({"input_output": {"fn_name": "f", "inputs": [5], "outputs": [5]}}, "x")
    with pytest.raises(ValueError, match=r"^input_output\.fn_name: function-call tests need language 'python'"):
        apps.to_submission(APPS_CALL, "x", "cpp")
    with pytest.raises(ValueError, match="^time_limit: cannot read 'fast'"):
        apps.to_submission({**TACO_STDIN, "time_limit": "fast"}, "x")


def test_preamble_keeps_future_imports_first() -> None:
    code = "from __future__ import annotations\nclass Solution:\n    def maxProfit(self, prices): return 0\n"
    sub = apps.to_submission(TACO_LEETCODE, code)
    assert sub.code.startswith("from __future__ import annotations\nfrom typing import *\n")
    assert sub.code.count("from __future__") == 1
    assert apps.to_submission(TACO_LEETCODE, code, preamble=None).code == code


# ---------------------------------------------------------------- CodeContests

CODECONTESTS = {
    "name": "1548_A. Web of Lies",
    "description": "There are n nobles, numbered from 1 to n. ...",
    "public_tests": {"input": ["4 3\n2 1\n1 3\n3 4\n4\n3\n1 2 3\n2 3 1\n3\n"], "output": ["2\n1\n"]},
    "private_tests": {"input": ["1 0\n1\n3\n"], "output": ["1\n"]},
    "generated_tests": {"input": ["2 1\n1 2\n1\n3\n", "3 0\n1\n3\n"], "output": ["1\n", "3\n"]},
    "source": 2,
    "difficulty": 7,
    "solutions": {"language": [2, 3], "solution": ["#include <cstdio>\n", "print(1)\n"]},
    "incorrect_solutions": {"language": [], "solution": []},
    "cf_contest_id": 1548,
    "cf_index": "A",
    "cf_points": 750.0,
    "cf_rating": 1400,
    "cf_tags": ["brute force", "graphs"],
    "is_description_translated": False,
    "untranslated_description": "",
    "time_limit": {"seconds": 2, "nanos": 0},
    "memory_limit_bytes": 256000000,
    "input_file": "",
    "output_file": "",
}


def test_codecontests_public_then_private_by_default() -> None:
    sub = round_trips(codecontests.to_submission(CODECONTESTS, "int main(){}", "c++"))
    assert sub.language == "cpp" and sub.code == "int main(){}"
    assert sub.tests == [
        StdioTest(input="4 3\n2 1\n1 3\n3 4\n4\n3\n1 2 3\n2 3 1\n3\n", expected_output="2\n1\n"),
        StdioTest(input="1 0\n1\n3\n", expected_output="1\n"),
    ]
    assert sub.limits == LimitsRequest(time_limit_s=2.0, memory_limit_mb=256)


def test_codecontests_test_sets_and_max_tests() -> None:
    every = codecontests.to_submission(CODECONTESTS, "x", test_sets=("public", "private", "generated"))
    assert [t.input for t in every.tests][-2:] == ["2 1\n1 2\n1\n3\n", "3 0\n1\n3\n"]  # type: ignore[union-attr]
    assert len(codecontests.to_submission(CODECONTESTS, "x", test_sets=["generated_tests"]).tests) == 2
    assert len(codecontests.to_submission(CODECONTESTS, "x", test_sets="generated", max_tests=1).tests) == 1
    with pytest.raises(ValueError, match="^test_sets:"):
        codecontests.to_submission(CODECONTESTS, "x", test_sets=["hidden"])
    empty = {**CODECONTESTS, "public_tests": {"input": [], "output": []}, "private_tests": {"input": [], "output": []}}
    with pytest.raises(ValueError, match=r"^public_tests\+private_tests: no tests"):
        codecontests.to_submission(empty, "x")
    with pytest.raises(ValueError, match="^private_tests: 1 inputs but 0 outputs"):
        codecontests.to_submission({**CODECONTESTS, "private_tests": {"input": ["1"], "output": []}}, "x")


@pytest.mark.parametrize(
    ("time_limit", "seconds"),
    [({"seconds": 2, "nanos": 500000000}, 2.5), ({"seconds": 0, "nanos": 0}, None), (None, None), (3, 3.0)],
)
def test_codecontests_time_limit(time_limit: Any, seconds: float | None) -> None:
    assert codecontests.parse_time_limit(time_limit) == seconds


@pytest.mark.parametrize(("limit", "mib"), [(256000000, 256), (268435456, 256), (64 * 2**20 + 1, 65), (0, None), (None, None)])
def test_codecontests_memory_limit(limit: Any, mib: int | None) -> None:
    assert codecontests.parse_memory_limit(limit) == mib


# ---------------------------------------------------------------- LiveCodeBench


def compress(cases: list[dict[str, str]], protocol: int = pickle.DEFAULT_PROTOCOL) -> str:
    """How the official release stores private_test_cases."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases), protocol=protocol))).decode()


LCB_STDIN = {
    "question_title": "A. Short Sort",
    "question_content": "There are three cards with letters a, b, c placed in a row in some order. ...",
    "platform": "codeforces",
    "question_id": "1873_A",
    "contest_id": "1873",
    "contest_date": "2023-08-21T00:00:00",
    "starter_code": "",
    "difficulty": "easy",
    "public_test_cases": json.dumps([{"input": "2\nabc\nbca\n", "output": "YES\nNO\n", "testtype": "stdin"}]),
    "private_test_cases": compress([{"input": "1\ncba\n", "output": "YES\n", "testtype": "stdin"}]),
    "metadata": "{}",
}

LCB_FUNCTIONAL = {
    "question_title": "maximum-sum-with-exactly-k-elements",
    "question_content": "You are given a 0-indexed integer array nums and an integer k. ...",
    "platform": "leetcode",
    "question_id": "2767",
    "contest_id": "biweekly-contest-104",
    "contest_date": "2023-05-13T00:00:00",
    "starter_code": "class Solution:\n    def maximizeSum(self, nums: List[int], k: int) -> int:\n        ",
    "difficulty": "easy",
    "public_test_cases": json.dumps(
        [
            {"input": "[1, 2, 3, 4, 5]\n3", "output": "18", "testtype": "functional"},
            {"input": "[5, 5, 5]\n2", "output": "11", "testtype": "functional"},
        ]
    ),
    "private_test_cases": json.dumps([{"input": '["a\\nb"]\n1', "output": "[1, 2]", "testtype": "functional"}]),
    "metadata": json.dumps({"func_name": "maximizeSum"}),
}


def test_livecodebench_stdin_with_compressed_private_tests() -> None:
    sub = round_trips(livecodebench.to_submission(LCB_STDIN, "print('YES')"))
    assert sub.tests == [
        StdioTest(input="2\nabc\nbca\n", expected_output="YES\nNO\n"),
        StdioTest(input="1\ncba\n", expected_output="YES\n"),
    ]
    assert sub.code == "print('YES')"
    public_only = livecodebench.to_submission(LCB_STDIN, "x", include_private=False)
    assert len(public_only.tests) == 1


@pytest.mark.parametrize("protocol", [0, 1, 2, 3, 4, 5])
def test_livecodebench_decodes_every_pickle_protocol_of_a_string(protocol: int) -> None:
    cases = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    assert livecodebench.decode_test_cases(compress(cases, protocol), "private_test_cases") == cases


def test_livecodebench_decodes_zlib_json_and_plain_lists() -> None:
    cases = [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]
    zipped_json = base64.b64encode(zlib.compress(json.dumps(cases).encode())).decode()
    assert livecodebench.decode_test_cases(zipped_json, "f") == cases
    assert livecodebench.decode_test_cases(cases, "f") == cases


def test_livecodebench_never_unpickles(tmp_path: Path) -> None:
    target = tmp_path / "pwned"
    # a pickle that would call open(target, "w") when loaded
    evil = f"cbuiltins\nopen\n(V{target}\nVw\ntR.".encode()
    encoded = base64.b64encode(zlib.compress(evil)).decode()
    with pytest.raises(ValueError, match="^private_test_cases: the pickle holds something other than one string"):
        livecodebench.decode_test_cases(encoded, "private_test_cases")
    assert not target.exists()
    not_a_string = base64.b64encode(zlib.compress(pickle.dumps(["a"]))).decode()
    with pytest.raises(ValueError, match="^private_test_cases: the pickle holds something other"):
        livecodebench.decode_test_cases(not_a_string, "private_test_cases")
    with pytest.raises(ValueError, match="^private_test_cases: neither JSON nor base64"):
        livecodebench.decode_test_cases("%%%not base64%%%", "private_test_cases")


def test_livecodebench_functional_tests() -> None:
    sub = round_trips(livecodebench.to_submission(LCB_FUNCTIONAL, "class Solution: ..."))
    assert sub.tests == [
        CallTest(fn_name="maximizeSum", args=[[1, 2, 3, 4, 5], 3], expected=18),
        CallTest(fn_name="maximizeSum", args=[[5, 5, 5], 2], expected=11),
        CallTest(fn_name="maximizeSum", args=[["a\nb"], 1], expected=[1, 2]),  # no unwrapping in LCB
    ]
    assert sub.code.startswith("from typing import *\n") and sub.code.endswith("class Solution: ...")


def test_livecodebench_bad_rows() -> None:
    with pytest.raises(ValueError, match=r"^metadata\.func_name: missing"):
        livecodebench.to_submission({**LCB_FUNCTIONAL, "metadata": "{}"}, "x")
    with pytest.raises(ValueError, match=r"^public_test_cases\[0\]\.input: a line is not JSON"):
        bad = json.dumps([{"input": "[1, 2\n3", "output": "1", "testtype": "functional"}])
        livecodebench.to_submission({**LCB_FUNCTIONAL, "public_test_cases": bad}, "x")
    with pytest.raises(ValueError, match=r"^public_test_cases\[0\]\.testtype: expected 'stdin' or 'functional'"):
        bad = json.dumps([{"input": "1", "output": "1", "testtype": "interactive"}])
        livecodebench.to_submission({**LCB_STDIN, "public_test_cases": bad}, "x")
    with pytest.raises(ValueError, match="^public_test_cases: missing"):
        livecodebench.to_submission({"metadata": "{}"}, "x")


# ---------------------------------------------------------------- open-r1 / verl

OPEN_R1 = {
    "source": "codeforces",
    "task_type": "verifiable_code",
    "in_source_id": "1259_D",
    "prompt": "Solve the following coding problem using the programming language python: ...",
    "gold_standard_solution": "```python\nprint(1)\n```",
    "verification_info": {
        "language": "python",
        "test_cases": [{"fn_name": None, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"}],
    },
    "metadata": {"difficulty": "interview"},
    "problem_id": "vfc_1",
}

OPEN_R1_CALL = {
    "verification_info": json.dumps(
        {
            "language": "python",
            "test_cases": [
                {"type": "function_call", "fn_name": "majorityElement", "input": [[3, 2, 3]], "output": 3},
                {"type": "function_call", "fn_name": "majorityElement", "input": [[2, 2, 1, 1, 1, 2, 2]], "output": [2]},
            ],
        }
    )
}

VERL = {
    "data_source": "codecontests",
    "prompt": [{"role": "user", "content": "..."}],
    "ability": "code",
    "reward_model": {"style": "rule", "ground_truth": json.dumps({"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"]})},
    "extra_info": {"split": "train", "index": 0},
}


def test_open_r1_stdin_stdout() -> None:
    sub = round_trips(intermediate.open_r1_to_submission(OPEN_R1, "print(3)"))
    assert sub.tests == [StdioTest(input="1 2\n", expected_output="3\n")] and sub.code == "print(3)"
    as_string = {"verification_info": json.dumps(OPEN_R1["verification_info"])}
    assert intermediate.open_r1_to_submission(as_string, "print(3)") == sub


def test_open_r1_language_comes_from_the_row_unless_given() -> None:
    cpp = {"verification_info": {**OPEN_R1["verification_info"], "language": "cpp"}}  # type: ignore[dict-item]
    assert intermediate.open_r1_to_submission(cpp, "int main(){}").language == "cpp"
    assert intermediate.open_r1_to_submission(cpp, "print(3)", "python").language == "python"


def test_open_r1_function_call_tests() -> None:
    sub = round_trips(intermediate.open_r1_to_submission(OPEN_R1_CALL, "class Solution: ..."))
    assert sub.tests == [
        CallTest(fn_name="majorityElement", args=[[3, 2, 3]], expected=3),
        CallTest(fn_name="majorityElement", args=[[2, 2, 1, 1, 1, 2, 2]], expected=[2]),  # as is by default
    ]
    unwrapped = intermediate.open_r1_to_submission(OPEN_R1_CALL, "x", unwrap_output=True)
    assert [t.expected for t in unwrapped.tests] == [3, 2]  # type: ignore[union-attr]
    top_level = {"verification_info": {"language": "python", "fn_name": "f", "test_cases": [{"input": [1], "output": 2}]}}
    assert intermediate.open_r1_to_submission(top_level, "x").tests == [CallTest(fn_name="f", args=[1], expected=2)]


def test_open_r1_bad_rows() -> None:
    with pytest.raises(ValueError, match=r"^verification_info\.test_cases: missing"):
        intermediate.open_r1_to_submission({"verification_info": {"language": "python"}}, "x")
    with pytest.raises(ValueError, match=r"^verification_info\.test_cases\[0\]\.fn_name: missing"):
        intermediate.open_r1_to_submission(
            {"verification_info": {"test_cases": [{"type": "function_call", "input": [], "output": 1}]}}, "x"
        )
    with pytest.raises(ValueError, match=r"^verification_info\.test_cases\[0\]\.output: missing"):
        intermediate.open_r1_to_submission({"verification_info": {"test_cases": [{"input": "1"}]}}, "x")


def test_verl_ground_truth_stdio_and_call() -> None:
    sub = round_trips(intermediate.verl_to_submission(VERL, "print(sum(map(int, input().split())))"))
    assert sub.tests == [StdioTest(input="1 2\n", expected_output="3\n"), StdioTest(input="5 5\n", expected_output="10\n")]
    call_truth = {"fn_name": "add", "inputs": [[1, 2], [[1], [2]]], "outputs": [[3], [[1, 2]]]}
    for row in ({"reward_model": {"ground_truth": call_truth}}, {"ground_truth": json.dumps(call_truth)}, call_truth):
        got = intermediate.verl_to_submission(row, "def add(a, b): return a + b", max_tests=1)
        assert got.tests == [CallTest(fn_name="add", args=[1, 2], expected=3)]  # fn_name kept after max_tests
    with pytest.raises(ValueError, match=r"^reward_model\.ground_truth: missing"):
        intermediate.verl_to_submission({"reward_model": {"style": "rule"}}, "x")


def test_verl_ground_truth_as_a_list_of_test_dicts() -> None:
    truth = [
        {"input": "1\n", "output": "2\n", "type": "stdin_stdout"},
        {"input": "[1]\n2", "output": "3", "testtype": "functional", "metadata": {"func_name": "f"}},
    ]
    sub = intermediate.verl_to_submission({"ground_truth": json.dumps(truth)}, "x")
    assert sub.tests == [StdioTest(input="1\n", expected_output="2\n"), CallTest(fn_name="f", args=[[1], 2], expected=3)]


# ---------------------------------------------------------------- registry

HUMANEVAL = {
    "task_id": "HumanEval/0",
    "prompt": "def add(a, b):\n",
    "canonical_solution": "    return a + b\n",
    "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
    "entry_point": "add",
}


@pytest.mark.parametrize(
    ("row", "name"),
    [
        (HUMANEVAL, "humaneval"),
        (MBPP_FULL, "mbpp"),
        (MBPP_SANITIZED, "mbpp"),
        (APPS_STDIO, "apps"),
        (TACO_LEETCODE, "taco"),
        (CODECONTESTS, "codecontests"),
        (LCB_STDIN, "livecodebench"),
        (OPEN_R1, "open-r1"),
        (VERL, "verl"),
        ({"ground_truth": "{}"}, "verl"),
        ({"inputs": [], "outputs": []}, "verl"),
    ],
)
def test_detect_format(row: dict[str, Any], name: str) -> None:
    assert registry.detect_format(row) == name


def test_detect_format_names_the_missing_keys() -> None:
    with pytest.raises(ValueError, match=r"^row: unknown format: keys \['answer', 'question'\].*mbpp needs test_list"):
        registry.detect_format({"question": "q", "answer": "a"})


def test_formats_and_to_submission() -> None:
    assert set(registry.FORMATS) == {"humaneval", "mbpp", "apps", "taco", "codecontests", "livecodebench", "open-r1", "verl"}
    he = round_trips(registry.to_submission(HUMANEVAL, "    return a + b\n"))
    assert he.code == "def add(a, b):\n    return a + b\n"
    assert he.tests == [AssertTest(code=HUMANEVAL["test"] + "\n\ncheck(add)\n")]
    assert (
        registry.to_submission(MBPP_FULL, "x", split_asserts=True).tests
        == mbpp.to_submission(MBPP_FULL, "x", split_asserts=True).tests
    )
    assert registry.to_submission(CODECONTESTS, "x", "java", format="codecontests").language == "java"
    assert registry.to_submission(TACO_STDIN, "x", format="apps").limits.time_limit_s == 2.0
    with pytest.raises(ValueError, match="^format: unknown format 'nope'"):
        registry.to_submission(MBPP_FULL, "x", format="nope")
    with pytest.raises(ValueError, match="^language: HumanEval is python"):
        registry.to_submission(HUMANEVAL, "x", "cpp")
