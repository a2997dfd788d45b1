"""Dataset rows -> Submissions -> real sandboxes, on both backends: a right
and a wrong solution for an MBPP row, an APPS call-based row, a
LeetCode-style TACO row and a LiveCodeBench functional row (``List[int]``
resolves through the preamble)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from service.datasets import apps, livecodebench, mbpp
from service.judge.judge import Judge
from service.models.submission import Submission
from service.models.verdict import Verdict

MBPP_ROW = {
    "task_id": 11,
    "text": "Write a python function to remove first and last occurrence of a given character from the string.",
    "code": "",
    "test_list": [
        'assert remove_Occ("hello","l") == "heo"',
        'assert remove_Occ("abcda","a") == "bcd"',
        'assert remove_Occ("PHP","P") == "H"',
    ],
    "test_setup_code": "",
    "challenge_test_list": [],
}
MBPP_RIGHT = "def remove_Occ(s, ch):\n    i = s.find(ch)\n    if i >= 0:\n        s = s[:i] + s[i + 1:]\n    j = s.rfind(ch)\n    if j >= 0:\n        s = s[:j] + s[j + 1:]\n    return s\n"  # noqa: E501
MBPP_WRONG = "def remove_Occ(s, ch):\n    return s.strip(ch)\n"  # "hello" fails; "abcda" and "PHP" pass

APPS_ROW = {
    "problem_id": 2500,
    "starter_code": "def sum_pairs(ints, s):\n\t",
    "input_output": json.dumps(
        {
            "fn_name": "sum_pairs",
            "inputs": [[[1, 4, 8, 7, 3, 15], 8], [[10, 5, 2, 3, 7, 5], 10], [[20, -13, 40], -7]],
            "outputs": [[[1, 7]], [[3, 7]], [None]],
        }
    ),
}
APPS_RIGHT = (
    "def sum_pairs(ints, s):\n"
    "    seen = set()\n"
    "    for x in ints:\n"
    "        if s - x in seen:\n"
    "            return [s - x, x]\n"
    "        seen.add(x)\n"
    "    return None\n"
)
APPS_WRONG = (  # the first pair by left index, not by completion index
    "def sum_pairs(ints, s):\n"
    "    for i, a in enumerate(ints):\n"
    "        for b in ints[i + 1:]:\n"
    "            if a + b == s:\n"
    "                return [a, b]\n"
    "    return None\n"
)

TACO_ROW = {
    "starter_code": "class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        ",
    "input_output": json.dumps({"fn_name": "maxProfit", "inputs": [[[7, 1, 5, 3, 6, 4]], [[7, 6, 4, 3, 1]]], "outputs": [5, 0]}),
    "time_limit": None,
    "memory_limit": None,
}
TACO_RIGHT = (
    "class Solution:\n"
    "    def maxProfit(self, prices: List[int]) -> int:\n"
    "        best, low = 0, float('inf')\n"
    "        for p in prices:\n"
    "            low = min(low, p)\n"
    "            best = max(best, p - low)\n"
    "        return best\n"
)
LCB_ROW = {
    "platform": "leetcode",
    "starter_code": "class Solution:\n    def maximizeSum(self, nums: List[int], k: int) -> int:\n        ",
    "public_test_cases": json.dumps(
        [
            {"input": "[1, 2, 3, 4, 5]\n3", "output": "18", "testtype": "functional"},
            {"input": "[5, 5, 5]\n2", "output": "11", "testtype": "functional"},
        ]
    ),
    "private_test_cases": "[]",
    "metadata": json.dumps({"func_name": "maximizeSum"}),
}
LCB_RIGHT = (
    "class Solution:\n"
    "    def maximizeSum(self, nums: List[int], k: int) -> int:\n"
    "        return max(nums) * k + k * (k - 1) // 2\n"
)
LCB_WRONG = "class Solution:\n    def maximizeSum(self, nums: List[int], k: int) -> int:\n        return max(nums) * k\n"
TACO_WRONG = "class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        return max(prices) - min(prices)\n"


@pytest.mark.parametrize(
    ("right", "wrong", "make"),
    [
        (MBPP_RIGHT, MBPP_WRONG, lambda code: mbpp.to_submission(MBPP_ROW, code)),
        (APPS_RIGHT, APPS_WRONG, lambda code: apps.to_submission(APPS_ROW, code)),
        (TACO_RIGHT, TACO_WRONG, lambda code: apps.taco_to_submission(TACO_ROW, code)),
        (LCB_RIGHT, LCB_WRONG, lambda code: livecodebench.to_submission(LCB_ROW, code)),
    ],
    ids=["mbpp", "apps-call", "taco-leetcode", "livecodebench-functional"],
)
def test_right_accepted_wrong_rejected(judge: Judge, right: str, wrong: str, make: Callable[[str], Submission]) -> None:
    accepted = judge.score(make(right))
    assert accepted.verdict == Verdict.accepted, accepted.tests
    assert accepted.reward == 1.0
    rejected = judge.score(make(wrong))
    assert rejected.verdict == Verdict.wrong_answer, rejected.tests
    assert rejected.reward == 0.0


def test_mbpp_split_asserts_fraction(judge: Judge) -> None:
    sub = mbpp.to_submission(MBPP_ROW, MBPP_WRONG, split_asserts=True)
    sub.reward.mode = "fraction"
    result = judge.score(sub)
    assert [t.verdict for t in result.tests] == [Verdict.wrong_answer, Verdict.accepted, Verdict.accepted]
    assert result.reward == pytest.approx(2 / 3)
