from __future__ import annotations

import math

import pytest

from service.evaluate import markdown, pass_at_k, summarize


def test_pass_at_k_unbiased_estimator() -> None:
    # Chen et al. 2021: 1 - C(n-c, k) / C(n, k)
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(4, 2))  # 0.5
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - math.comb(7, 5) / math.comb(10, 5))  # 1 - 21/252
    assert pass_at_k(4, 3, 2) == 1.0  # n - c < k: some pair always contains a pass
    assert pass_at_k(5, 0, 3) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_summary_averages_over_tasks_with_enough_samples() -> None:
    from service.evaluate import Task

    tasks = {"a": Task("a", {}), "b": Task("b", {})}
    verdicts = {"a": ["accepted", "wrong_answer"], "b": ["wrong_answer", "wrong_answer"]}
    report = summarize("mbpp", tasks, verdicts, [1, 2, 3], 1.0, "docker")
    assert report["pass@1"] == pytest.approx(0.25) and report["pass@2"] == pytest.approx(0.5)
    assert "pass@3" not in report  # no task has 3 samples
    assert "| a | 2 | 1 | accepted x1, wrong_answer x1 |" in markdown(report)
