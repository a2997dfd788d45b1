"""Core benchmark (library API, no HTTP): prints figures, asserts nothing.

For each available backend:
- HumanEval canonical solutions (164 problems): wall time and problems/s,
  scored with a thread pool of --workers (default: the pool size);
- latency p50/p99 of a trivial python submission scored one at a time.

    .venv/bin/python bench/bench_core.py [--backends docker,local] [--workers N] [--trivial N] [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.core.settings import Settings  # noqa: E402
from service.datasets import humaneval  # noqa: E402
from service.judge.judge import Judge  # noqa: E402
from service.models.submission import Submission  # noqa: E402
from service.models.verdict import Verdict  # noqa: E402
from service.sandbox import docker_backend, local  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def bench(backend_name: str, workers: int, trivial_n: int, pool_size: int, rounds: int) -> None:
    settings = Settings(backend=backend_name, pool_size=pool_size)
    backend = docker_backend.DockerBackend(settings) if backend_name == "docker" else local.LocalBackend(settings)
    judge = Judge(backend, settings)
    backend.offered_languages()
    if isinstance(backend, docker_backend.DockerBackend):
        backend.warm("python")
    problems = humaneval.load_problems()
    subs = [humaneval.to_submission(p, p["canonical_solution"]) for p in problems.values()]
    judge.score(subs[0])  # warm-up
    rates = []
    for _ in range(rounds):
        started = time.perf_counter()
        with ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(judge.score, subs))
        elapsed = time.perf_counter() - started
        accepted = sum(r.verdict == Verdict.accepted for r in results)
        assert accepted == len(subs), f"only {accepted}/{len(subs)} accepted"
        rates.append(len(subs) / elapsed)
    print(
        f"{backend_name:6} humaneval canonical: 164/164 accepted, median {statistics.median(rates):.1f} problems/s "
        f"({len(subs) / statistics.median(rates):.2f} s; min {min(rates):.1f}, max {max(rates):.1f} "
        f"over {rounds} rounds; workers={workers}, pool={pool_size})"
    )
    trivial = Submission.model_validate(
        {"language": "python", "code": "print(int(input()) * 2)", "tests": [{"input": "21", "expected_output": "42"}]}
    )
    latencies = []
    for _ in range(trivial_n):
        t0 = time.perf_counter()
        result = judge.score(trivial)
        latencies.append((time.perf_counter() - t0) * 1000)
        assert result.verdict == Verdict.accepted, result
    print(
        f"{backend_name:6} trivial python submission: p50 {statistics.median(latencies):.1f} ms, "
        f"p99 {percentile(latencies, 99):.1f} ms over {trivial_n} sequential runs"
    )
    backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="docker,local")
    parser.add_argument("--workers", type=int, default=0, help="default: the pool size")
    parser.add_argument("--pool-size", type=int, default=2)
    parser.add_argument("--trivial", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5, help="HumanEval passes per backend")
    args = parser.parse_args()
    for name in args.backends.split(","):
        reason = docker_backend.engine_unavailable_reason() if name == "docker" else local.unavailable_reason()
        if reason:
            print(f"{name:6} skipped: {reason}")
            continue
        bench(name, args.workers or args.pool_size, args.trivial, args.pool_size, args.rounds)


if __name__ == "__main__":
    main()
