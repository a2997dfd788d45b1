"""Gateway benchmark over HTTP: prints figures, asserts nothing.

Starts its own processes on 127.0.0.1 with the result cache off:
- standalone: ``rewardbox serve`` (in-process queue);
- redis: ``rewardbox serve`` + ``--workers`` ``rewardbox worker`` processes on
  ``--redis-url`` (a running Redis; the benchmark flushes that database).
For each: p50/p99 latency of a trivial python POST /v1/score (sequential), and
HumanEval canonical through POST /v1/score/batch (wall time, problems/s).

    .venv/bin/python bench/bench_gateway.py [--modes standalone,redis] [--trivial 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.datasets import humaneval  # noqa: E402

TRIVIAL = {"language": "python", "code": "print(int(input()) * 2)", "tests": [{"input": "21", "expected_output": "42"}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, start_new_session=True
    )


def wait_ready(client: httpx.Client, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if client.get("/readyz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit("gateway never became ready")


def measure(mode: str, client: httpx.Client, trivial_n: int) -> None:
    for _ in range(10):
        client.post("/v1/score", json=TRIVIAL)
    latencies = []
    for _ in range(trivial_n):
        t0 = time.perf_counter()
        response = client.post("/v1/score", json=TRIVIAL)
        latencies.append((time.perf_counter() - t0) * 1000)
        assert response.json()["verdict"] == "accepted", response.text
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * (len(ordered) - 1) + 0.5))]
    p50 = statistics.median(latencies)
    print(f"{mode:10} trivial POST /v1/score: p50 {p50:.1f} ms, p99 {p99:.1f} ms ({trivial_n} sequential)")
    problems = humaneval.load_problems()
    subs = [
        humaneval.to_submission(p, p["canonical_solution"]).model_dump(mode="json")
        for p in problems.values()
    ]
    t0 = time.perf_counter()
    response = client.post("/v1/score/batch", json={"submissions": subs}, timeout=600)
    elapsed = time.perf_counter() - t0
    results = response.json()["results"]
    accepted = sum(r.get("verdict") == "accepted" for r in results)
    print(f"{mode:10} HumanEval canonical via /v1/score/batch: {accepted}/{len(subs)} accepted, {elapsed:.2f} s, "
          f"{len(subs) / elapsed:.1f} problems/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default="standalone,redis")
    parser.add_argument("--trivial", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="worker processes in redis mode")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/15")
    args = parser.parse_args()
    base_env = {**os.environ, "REWARDBOX_CACHE_TTL_S": "0"}
    for mode in args.modes.split(","):
        port = free_port()
        env = dict(base_env)
        procs = []
        if mode == "redis":
            import redis

            redis.Redis.from_url(args.redis_url).flushdb()
            env["REWARDBOX_REDIS_URL"] = args.redis_url
            env["REWARDBOX_POOL_SIZE"] = "1"
            procs += [start(["worker"], env) for _ in range(args.workers)]
        else:
            env.pop("REWARDBOX_REDIS_URL", None)
        procs.append(start(["serve", "--port", str(port)], env))
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                wait_ready(client)
                measure(mode, client, args.trivial)
        finally:
            for proc in procs:
                os.killpg(proc.pid, signal.SIGTERM)
            for proc in procs:
                proc.wait(timeout=30)


if __name__ == "__main__":
    main()
