"""Per-language benchmark (library API): prints figures, asserts nothing.

For each offered language on each backend: the compile time of a trivial
program (median of --runs submissions) and the per-test run overhead (median
wall time of one test of that trivial program, from the run records).

    .venv/bin/python bench/bench_languages.py [--backends docker,local] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.core.settings import Settings  # noqa: E402
from service.judge.judge import Judge  # noqa: E402
from service.models.submission import Submission  # noqa: E402
from service.models.verdict import Verdict  # noqa: E402
from service.sandbox import docker_backend, local  # noqa: E402
from tests.integration.test_languages import PROGRAMS, SUM  # noqa: E402

TESTS_PER_SUBMISSION = 5


def bench(backend_name: str, runs: int) -> None:
    settings = Settings(backend=backend_name, pool_size=1)
    backend = docker_backend.DockerBackend(settings) if backend_name == "docker" else local.LocalBackend(settings)
    judge = Judge(backend, settings)
    offered = backend.offered_languages()
    print(f"{backend_name}: language, compile time (median of {runs}), per-test wall time (median), per-test peak RSS")
    for language in sorted(offered):
        submission = Submission.model_validate(
            {"language": language, "code": PROGRAMS[language][SUM],
             "tests": [{"input": "20 22\n", "expected_output": "42\n"}] * TESTS_PER_SUBMISSION}
        )
        judge.score(submission)  # warm the pool
        compiles, walls, peaks = [], [], []
        for _ in range(runs):
            result = judge.score(submission)
            assert result.verdict == Verdict.accepted, (language, result.verdict, result.compile)
            if result.compile and result.compile.status == "ok":
                compiles.append(result.compile.time_s)
            walls += [t.wall_time_s or 0.0 for t in result.tests]
            peaks += [t.peak_memory_kb or 0 for t in result.tests]
        compile_text = f"{statistics.median(compiles) * 1000:7.0f} ms" if compiles else "      - "
        print(f"  {language:11} compile {compile_text}   run {statistics.median(walls) * 1000:6.1f} ms"
              f"   peak {statistics.median(peaks) / 1024:6.1f} MiB")
    backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backends", default="docker,local")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for name in args.backends.split(","):
        reason = docker_backend.engine_unavailable_reason() if name == "docker" else local.unavailable_reason()
        if reason:
            print(f"{name} skipped: {reason}")
            continue
        bench(name, args.runs)


if __name__ == "__main__":
    main()
