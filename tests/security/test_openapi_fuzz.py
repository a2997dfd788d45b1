"""Schemathesis fuzzes every operation of the real gateway's OpenAPI schema
(examples, coverage, fuzzing and stateful phases): no request may get a 5xx."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import REQUIRED, _unavailable
from tests.integration.stack import free_port, rewardbox, stack_env, wait_ready

MAX_EXAMPLES = 30
SEED = 20261129


def test_no_server_errors(tmp_path: Path) -> None:
    reason = _unavailable("docker")
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    binary = shutil.which("schemathesis", path=str(Path(sys.executable).parent))
    assert binary, "schemathesis is not installed (pip install -e '.[dev]')"
    port = free_port()
    gateway = rewardbox(["serve", "--port", str(port)], stack_env(REWARDBOX_CACHE_TTL_S="0"), tmp_path / "gw.log")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            wait_ready(client, proc=gateway)
        proc = subprocess.run(
            [binary, "run", f"http://127.0.0.1:{port}/openapi.json", "--checks", "not_a_server_error",
             "--max-examples", str(MAX_EXAMPLES), "--workers", "2", "--request-timeout", "60", "--seed", str(SEED)],
            capture_output=True, text=True, timeout=900,
        )
        assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
        assert "passed" in proc.stdout
    finally:
        gateway.kill(signal.SIGTERM)
    assert "Traceback" not in gateway.tail()
