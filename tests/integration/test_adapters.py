"""Each framework adapter called exactly the way its framework calls it,
against the real gateway (Redis + a worker): a right, a wrong, a no-code and
a sandbox-error completion. The sandbox error is a real one: the worker is
killed mid-job with retries off, so the job ends as ``sandbox_error``."""

from __future__ import annotations

import asyncio
import json
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import REQUIRED, _unavailable
from tests.integration.stack import RedisServer, Stack
from trainer_client.adapters import trl as trl_adapter
from trainer_client.adapters import verl as verl_adapter

RIGHT = "Here is my solution:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
WRONG = "```python\na, b = map(int, input().split())\nprint(a - b)\n```"
NO_CODE = "I think the answer is to add the numbers."
SLOW = "```python\nimport time\ntime.sleep(4)\nprint(3)\n```"  # its worker is killed while it sleeps

OPEN_R1 = {"language": "python", "test_cases": [
    {"input": "1 2\n", "output": "3\n", "type": "stdin_stdout"},
    {"input": "10 5\n", "output": "15\n", "type": "stdin_stdout"},
]}
VERL_TRUTH = json.dumps({"inputs": ["1 2\n", "10 5\n"], "outputs": ["3\n", "15\n"]})


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    reason = _unavailable("docker")
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    tmp = tmp_path_factory.mktemp("adapters")
    s = Stack(tmp, RedisServer(tmp), REWARDBOX_JOB_RETRIES="0", REWARDBOX_WORKER_LEASE_S="2")
    yield s
    s.close()


def url(stack: Stack) -> str:
    return f"http://127.0.0.1:{stack.port}"


def with_worker_killed(stack: Stack, call: Callable[[], Any]) -> Any:
    """Run ``call`` while the worker that takes its (slow) job is SIGKILLed
    mid-job and replaced."""
    import redis
    from rq import Worker

    assert stack.redis is not None
    connection = redis.Redis.from_url(stack.redis.url)

    def killer() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = [w.pid for w in Worker.all(connection=connection) if w.get_state() == "busy"]
            victims = [p for p in stack.workers if p.pid in busy]
            if victims:
                time.sleep(0.5)  # well inside the 4 s job
                stack.workers.remove(victims[0])
                victims[0].kill(signal.SIGKILL)
                stack.add_worker()
                return
            time.sleep(0.05)
        raise AssertionError("no worker ever took the job")

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        return call()
    finally:
        thread.join()
        connection.close()


def test_trl_reward_function(stack: Stack) -> None:
    reward_fn = trl_adapter.rewardbox_reward(url(stack), tests_column="verification_info")
    assert reward_fn.__name__ == "rewardbox"
    metrics: dict[str, float] = {}
    extra: dict[str, list] = {}
    # conversational completions, as GRPOTrainer passes them, with the dataset column as a kwarg
    completions = [[{"role": "assistant", "content": c}] for c in (SLOW, RIGHT, WRONG, NO_CODE)]
    prompts = [[{"role": "user", "content": "Add two numbers."}]] * 4
    rewards = with_worker_killed(stack, lambda: reward_fn(
        prompts=prompts, completions=completions, completion_ids=[[1, 2, 3]] * 4,
        verification_info=[OPEN_R1] * 4, trainer_state=None,
        log_metric=lambda name, value: metrics.__setitem__(name, value),
        log_extra=lambda column, values: extra.__setitem__(column, values),
    ))
    reward_fn.close()  # type: ignore[attr-defined]
    assert rewards == [None, 1.0, 0.0, 0.0]
    assert extra["rewardbox_verdict"] == ["sandbox_error", "accepted", "wrong_answer", "no_code"]
    assert metrics["rewardbox/no_code_rate"] == 0.25 and metrics["rewardbox/sandbox_error_rate"] == 0.25


def test_trl_async_reward_function_standard_format(stack: Stack) -> None:
    reward_fn = trl_adapter.rewardbox_reward_async(url(stack), tests_column="verification_info")
    async def call() -> list[float | None]:
        try:
            return await reward_fn(prompts=["Add."] * 3, completions=[RIGHT, WRONG, NO_CODE],
                                   verification_info=[json.dumps(OPEN_R1)] * 3)
        finally:
            await reward_fn.aclose()  # type: ignore[attr-defined]

    assert asyncio.run(call()) == [1.0, 0.0, 0.0]


@pytest.fixture(autouse=True)
def _close_verl_clients() -> Iterator[None]:
    yield
    verl_adapter.close_clients()


def test_verl_compute_score(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REWARDBOX_URL", url(stack))
    # verl's NaiveRewardManager: compute_score(data_source, solution_str, ground_truth, extra_info)
    right = verl_adapter.compute_score("codecontests_verl", RIGHT, VERL_TRUTH, {"index": 0})
    wrong = verl_adapter.compute_score("codecontests_verl", WRONG, VERL_TRUTH, {"index": 1})
    no_code = verl_adapter.compute_score("codecontests_verl", NO_CODE, VERL_TRUTH, {"index": 2})
    assert (right["score"], wrong["score"], no_code["score"]) == (1.0, 0.0, 0.0)
    assert right["verdict"] == "accepted" and wrong["pass_fraction"] == 0.0 and no_code["no_code"] == 1.0
    scored = asyncio.run(verl_adapter.compute_score_async("verl", RIGHT, VERL_TRUTH, None))
    assert scored["score"] == 1.0 and scored["valid"] == 1


def test_verl_batch_with_a_sandbox_error(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REWARDBOX_URL", url(stack))
    solutions = [SLOW, RIGHT, WRONG, NO_CODE]
    results = with_worker_killed(stack, lambda: verl_adapter.compute_score_batch(
        data_sources=["verl"] * 4, solution_strs=solutions, ground_truths=[VERL_TRUTH] * 4, extra_infos=[{}] * 4,
    ))
    assert [r["score"] for r in results] == [None, 1.0, 0.0, 0.0]
    assert [r["valid"] for r in results] == [0, 1, 1, 1]


def test_sandboxfusion_run_code_as_verl_sends_it(stack: Stack) -> None:
    # verl's sandbox_fusion utils post exactly these fields
    body = {"code": "import sys\nprint(sys.stdin.read().upper())", "stdin": "abc", "language": "python",
            "compile_timeout": 10, "run_timeout": 10, "memory_limit_MB": 256, "files": {}, "fetch_files": []}
    answer = httpx.post(f"{url(stack)}/run_code", json=body, timeout=60).json()
    assert answer["status"] == "Success"
    assert answer["run_result"]["status"] == "Finished" and answer["run_result"]["return_code"] == 0
    assert answer["run_result"]["stdout"] == "ABC\n" and answer["compile_result"] is None
    slow = httpx.post(f"{url(stack)}/run_code", json={**body, "code": "while True: pass", "run_timeout": 1}, timeout=60).json()
    assert slow["status"] == "Failed" and slow["run_result"]["status"] == "TimeLimitExceeded"
    cpp = {**body, "language": "cpp", "code": "int main() { return undefined; }"}
    failed = httpx.post(f"{url(stack)}/run_code", json=cpp, timeout=60).json()
    assert failed["status"] == "Failed" and failed["compile_result"]["status"] == "Error"


def test_openrlhf_endpoint(stack: Stack) -> None:
    prompt = "<|user|>Add two numbers.<|assistant|>"
    answers = [SLOW, RIGHT, WRONG, NO_CODE]
    # OpenRLHF's remote RM request: {"query", "prompts", "labels"}
    body = {"query": [prompt + a for a in answers], "prompts": [prompt] * 4, "labels": [json.dumps(OPEN_R1)] * 4}
    answer = with_worker_killed(stack, lambda: httpx.post(f"{url(stack)}/openrlhf", json=body, timeout=120).json())
    assert answer["rewards"] == [None, 1.0, 0.0, 0.0] and answer["scores"] == answer["rewards"]
    assert answer["extra_logs"]["rewardbox/no_code_rate"] == 0.25
    assert answer["extra_logs"]["rewardbox/sandbox_error_rate"] == 0.25


def test_slime_endpoint(stack: Stack) -> None:
    def ask(response: str) -> dict:
        # slime's remote RM posts one sample: {"prompt", "response", "label"}
        body = {"prompt": "Add two numbers.", "response": response, "label": OPEN_R1}
        return httpx.post(f"{url(stack)}/slime", json=body, timeout=120).json()

    assert ask(RIGHT)["score"] == 1.0 and ask(RIGHT)["passed"] == 2
    assert ask(WRONG)["score"] == 0.0 and ask(WRONG)["verdict"] == "wrong_answer"
    assert ask(NO_CODE) == {"score": 0.0, "verdict": "no_code", "passed": 0, "total": 0, "status": "no_code"}
    broken = with_worker_killed(stack, lambda: ask(SLOW))
    assert broken["score"] is None and broken["verdict"] == "sandbox_error"


def test_openrlhf_reward_func_file(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch  # noqa: F401 - imported now so that the worker dies mid-job, not mid-import

    from trainer_client.adapters import openrlhf

    monkeypatch.setenv("REWARDBOX_URL", url(stack))
    # OpenRLHF loading this file as --remote_rm_url: reward_func(queries, prompts, labels)
    queries = ["Q:" + a for a in (SLOW, RIGHT, WRONG, NO_CODE)]
    out = with_worker_killed(stack, lambda: openrlhf.reward_func(queries, ["Q:"] * 4, [json.dumps(OPEN_R1)] * 4))
    rewards = out["rewards"].tolist()
    assert math.isnan(rewards[0]) and rewards[1:] == [1.0, 0.0, 0.0]  # NaN: not applicable, never 0
    assert out["extra_logs"]["rewardbox/sandbox_error_rate"].item() == 0.25
