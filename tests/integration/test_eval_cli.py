"""`rewardbox eval` on a non-HumanEval dataset with pass@k and a report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REQUIRED, _unavailable

ROWS = [
    {"task_id": 1, "text": "Add two numbers.", "code": "def add(a, b):\n    return a + b\n",
     "test_list": ["assert add(1, 2) == 3", "assert add(-1, 1) == 0"], "test_setup_code": ""},
    {"task_id": 2, "text": "Square a number.", "code": "def sq(x):\n    return x * x\n",
     "test_list": ["assert sq(3) == 9"], "test_setup_code": ""},
]


def test_mbpp_eval_with_pass_at_k_and_report(tmp_path: Path) -> None:
    reason = _unavailable("docker")
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    data = tmp_path / "mbpp.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    samples = tmp_path / "samples.jsonl"
    lines = [
        {"task_id": "1", "completion": "```python\ndef add(a, b):\n    return a + b\n```"},
        {"task_id": "1", "completion": "def add(a, b):\n    return a - b\n"},
        {"task_id": "2", "completion": "def sq(x):\n    return x ** 3\n"},
        {"task_id": "2", "completion": "no code at all"},
    ]
    samples.write_text("".join(json.dumps(s) + "\n" for s in lines))
    report = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli", "eval", "mbpp", "--data", str(data), "--solutions", str(samples),
         "-k", "1,2", "--backend", "docker", "--report", str(report)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["problems"] == 2 and summary["samples"] == 4 and summary["accepted"] == 1
    assert summary["pass@1"] == pytest.approx(0.25) and summary["pass@2"] == pytest.approx(0.5)
    full = json.loads(report.with_suffix(".json").read_text())
    assert [t["c"] for t in full["tasks"]] == [1, 0]
    assert "# rewardbox eval: mbpp" in report.with_suffix(".md").read_text()
    canonical = subprocess.run(
        [sys.executable, "-m", "service.cli", "eval", "mbpp", "--data", str(data), "--backend", "docker"],
        capture_output=True, text=True, timeout=300,
    )
    assert json.loads(canonical.stdout.strip().splitlines()[-1])["accepted"] == 2, canonical.stderr[-2000:]
