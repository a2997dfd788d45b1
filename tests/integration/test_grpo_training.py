"""GRPO end to end against a real `rewardbox serve` (standalone, docker
backend): a categorical policy over 4 candidate Python programs for 3 tiny
stdio problems, rewards from POST /v1/score/batch, a few steps on the CPU."""

from __future__ import annotations

import math
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

torch = pytest.importorskip("torch")

from tests.conftest import REQUIRED, _unavailable  # noqa: E402
from tests.integration.stack import free_port, rewardbox, stack_env, wait_ready  # noqa: E402
from trainer_client.grpo import CategoricalPolicy, GRPOConfig, StepLog, train  # noqa: E402

READ = "a, b = map(int, input().split())\n"
CANDIDATES = [
    READ + "print(a + b)\n",
    READ + "print(a * b)\n",
    READ + "print(max(a, b))\n",
    READ + "print(a // (b - b))\n",  # ZeroDivisionError: runtime_error, reward 0
]
# the three problems' answers on "2 3" and "5 5" tell the three programs apart
PROBLEMS = {
    "Print the sum of two integers.": [("2 3\n", "5\n"), ("5 5\n", "10\n")],
    "Print the product of two integers.": [("2 3\n", "6\n"), ("5 5\n", "25\n")],
    "Print the larger of two integers.": [("2 3\n", "3\n"), ("5 5\n", "5\n")],
}
PROMPTS = list(PROBLEMS)
RIGHT = [0, 1, 2]  # candidate solving prompt i


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    reason = _unavailable("docker")
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(f"docker backend required but unavailable: {reason}")
        pytest.skip(f"docker backend unavailable: {reason}")
    port = free_port()
    log = tmp_path_factory.mktemp("grpo") / "gateway.log"
    proc = rewardbox(["serve", "--port", str(port)], stack_env(REWARDBOX_CACHE_TTL_S="3600"), log)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
    try:
        wait_ready(client, proc=proc)
        yield client
    finally:
        client.close()
        proc.kill(signal.SIGTERM)


def make_reward_fn(client: httpx.Client, calls: list[int]) -> object:
    def reward_fn(prompts: list[str], completions: list[str]) -> list[float | None]:
        submissions = [
            {"language": "python", "code": code,
             "tests": [{"type": "stdio", "input": i, "expected_output": o} for i, o in PROBLEMS[prompt]]}
            for prompt, code in zip(prompts, completions, strict=True)
        ]
        response = client.post("/v1/score/batch", json={"submissions": submissions})
        response.raise_for_status()
        results = response.json()["results"]
        assert len(results) == len(submissions)
        calls.append(len(submissions))
        rewards: list[float | None] = []
        for result in results:
            # sandbox_error is our fault, not the program's: no signal (None), never 0
            assert result["status"] in ("completed", "sandbox_error"), result
            rewards.append(None if result["status"] == "sandbox_error" or result["reward"] is None
                           else float(result["reward"]))
        return rewards

    return reward_fn


def test_grpo_against_the_gateway(gateway: httpx.Client, tmp_path: Path) -> None:
    calls: list[int] = []
    reward_fn = make_reward_fn(gateway, calls)

    # the reward of every (problem, candidate) pair, from the service itself
    pairs = [(p, c) for p in PROMPTS for c in CANDIDATES]
    table = reward_fn([p for p, _ in pairs], [c for _, c in pairs])  # type: ignore[operator]
    expected = [1.0 if c == RIGHT[i] else 0.0 for i in range(len(PROMPTS)) for c in range(len(CANDIDATES))]
    assert table == expected, table
    reward = torch.tensor(table).view(len(PROMPTS), len(CANDIDATES))  # [prompts, C]

    policy = CategoricalPolicy(len(PROMPTS), len(CANDIDATES))
    initial = {name: p.detach().clone() for name, p in policy.named_parameters() if p.requires_grad}
    assert initial

    def mean_reward() -> float:
        return float((policy.probs() * reward).sum(dim=-1).mean())  # probability-weighted, averaged over prompts

    curve = [mean_reward()]
    logs: list[StepLog] = []

    def on_step(log: StepLog, model: torch.nn.Module) -> None:
        logs.append(log)
        curve.append(mean_reward())

    config = GRPOConfig(steps=6, prompts_per_step=3, group_size=8, learning_rate=0.3, num_iterations=2,
                        kl_coef=0.01, clip_low=0.2, clip_high=0.28, device="cpu", seed=0)
    history = train(policy, CANDIDATES, PROMPTS, reward_fn, config, on_step=on_step)  # type: ignore[arg-type]

    assert len(history) == 6 and len(calls) == 1 + 6 and calls[1:] == [24] * 6
    for log in history:
        assert math.isfinite(log.loss), log
        assert log.valid_frac == 1.0
    for name, value in policy.named_parameters():
        if value.requires_grad:
            assert (value.detach() != initial[name]).all(), f"{name} did not change everywhere: {value}"
    # 0.25 with uniform probabilities; it rises from the first step to the last
    print("mean reward by step:", [round(x, 3) for x in curve], [round(h.loss, 4) for h in history])
    assert curve[0] == pytest.approx(0.25)
    assert curve[-1] > curve[1] > curve[0]
    assert curve[-1] > 0.6
    assert history[-1].reward_mean > history[0].reward_mean
