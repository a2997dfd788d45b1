"""Soak test (a script, not a CI test): prints figures, exits 1 on a violation.

Starts Redis-mode rewardbox on 127.0.0.1 (``rewardbox serve`` + ``--workers``
``rewardbox worker`` processes, cache off) and sends ``--jobs`` mixed
submissions through POST /v1/score/batch in batches of ``--batch``: ~90 %
benign (right and wrong answers in python, c and cpp, with known verdicts)
and ~10 % hostile (fork bombs, memory bombs, floods, sleepers, daemons,
``kill -9 -1``). Checks:

- no job lost: every item comes back with a verdict;
- no wrong verdict on a benign item;
- no sandbox_error;
- afterwards no leftover sandbox process on the host and no container beyond
  the pools;
- resident memory of the gateway and the workers stays flat (reported: RSS at
  the first and last quarter).

    .venv/bin/python bench/soak.py [--jobs 2000] [--batch 100] [--workers 2] [--redis-url redis://127.0.0.1:6379/14]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.integration.stack import free_port, rewardbox, stack_env, wait_ready  # noqa: E402

SUM_TESTS = [{"input": "1 2\n", "expected_output": "3\n"}, {"input": "40 2\n", "expected_output": "42\n"}]
BENIGN = [
    ({"language": "python", "code": "a, b = map(int, input().split())\nprint(a + b)"}, "accepted"),
    ({"language": "python", "code": "a, b = map(int, input().split())\nprint(a - b)"}, "wrong_answer"),
    ({"language": "c", "code": "#include <stdio.h>\nint main(void){long a,b;scanf(\"%ld %ld\",&a,&b);printf(\"%ld\\n\",a+b);}"},
     "accepted"),
    ({"language": "cpp", "code": "#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a*b<<'\\n';}"},
     "wrong_answer"),
    ({"language": "python", "code": "import sys\nsys.exit(1)"}, "runtime_error"),
]
HOSTILE = [
    {"language": "python", "code": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"},
    {"language": "c",
     "code": "#include <stdlib.h>\n#include <string.h>\nint main(void){for(;;){char*p=malloc(1<<20);memset(p,1,1<<20);}}"},
    {"language": "python", "code": "while True: print('x' * 65536)"},
    {"language": "python", "code": "import time\ntime.sleep(60)"},
    {"language": "python",
     "code": "import os, subprocess\nsubprocess.Popen(['sleep', '600'], start_new_session=True)\nos.kill(-1, 9)"},
    {"language": "c", "code": "#include <unistd.h>\nint main(void){for(;;){if(fork()>0)_exit(0);usleep(200);}}"},
]
LIMITS = {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 128, "output_limit_bytes": 1 << 20}


def rss_kb(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0])
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss_kb(pid: int) -> int:
    """RSS of a process plus its children (a CLI process and what it forked)."""
    total = rss_kb(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            total += rss_kb(int(child))
    return total


def leftover_sandbox_processes() -> list[str]:
    """Host processes running as a sandbox uid (10001/10002)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid in (10001, 10002):
                    found.append(entry)
            except OSError:
                continue
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hostile", type=float, default=0.1)
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    import redis

    redis.Redis.from_url(args.redis_url).flushdb()
    env = stack_env(REWARDBOX_REDIS_URL=args.redis_url, REWARDBOX_CACHE_TTL_S="0")
    logs = Path(os.environ.get("TMPDIR", "/tmp")) / f"rewardbox-soak-{os.getpid()}"
    logs.mkdir(parents=True, exist_ok=True)
    workers = [rewardbox(["worker"], env, logs / f"worker{i}.log") for i in range(args.workers)]
    port = free_port()
    gateway = rewardbox(["serve", "--port", str(port)], env, logs / "gateway.log")
    rng = random.Random(args.seed)
    counts = {"sent": 0, "answered": 0, "benign_wrong": 0, "sandbox_error": 0, "hostile": 0}
    samples: list[tuple[int, int]] = []
    failures: list[str] = []
    started = time.monotonic()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=900) as client:
            wait_ready(client, proc=gateway)
            while counts["sent"] < args.jobs:
                size = min(args.batch, args.jobs - counts["sent"])
                items, expected = [], []
                for _ in range(size):
                    if rng.random() < args.hostile:
                        items.append({**rng.choice(HOSTILE), "tests": [{"expected_output": ""}], "limits": LIMITS})
                        expected.append(None)
                    else:
                        body, verdict = rng.choice(BENIGN)
                        items.append({**body, "tests": SUM_TESTS, "limits": LIMITS})
                        expected.append(verdict)
                counts["sent"] += size
                results = client.post("/v1/score/batch", json={"submissions": items}).json()["results"]
                for want, got in zip(expected, results, strict=True):
                    if got.get("verdict"):
                        counts["answered"] += 1
                    if got.get("status") == "sandbox_error":
                        counts["sandbox_error"] += 1
                        failures.append(f"sandbox_error: {got.get('error')}")
                    if want is None:
                        counts["hostile"] += 1
                    elif got.get("verdict") != want:
                        counts["benign_wrong"] += 1
                        failures.append(f"benign item: wanted {want}, got {got.get('verdict')}")
                samples.append((tree_rss_kb(gateway.pid), sum(tree_rss_kb(w.pid) for w in workers)))
                print(f"{counts['sent']:6d}/{args.jobs} sent, {counts['answered']} answered, "
                      f"{time.monotonic() - started:6.1f} s", flush=True)
    finally:
        gateway.kill(signal.SIGTERM)
        for worker in workers:
            worker.kill(signal.SIGTERM)
    elapsed = time.monotonic() - started
    time.sleep(2)
    left_processes = leftover_sandbox_processes()
    left_containers = subprocess.run(
        ["docker", "ps", "-aq", "--filter", "label=io.rewardbox.sandbox"], capture_output=True, text=True
    ).stdout.split()
    quarter = max(1, len(samples) // 4)
    first = [sum(x) / len(x) for x in zip(*samples[:quarter], strict=True)]
    last = [sum(x) / len(x) for x in zip(*samples[-quarter:], strict=True)]
    print(f"jobs {counts['sent']} ({counts['hostile']} hostile) in {elapsed:.1f} s ({counts['sent'] / elapsed:.1f} jobs/s)")
    print(f"lost {counts['sent'] - counts['answered']}, wrong benign verdicts {counts['benign_wrong']}, "
          f"sandbox_errors {counts['sandbox_error']}")
    print(f"leftover sandbox processes {len(left_processes)}, leftover containers {len(left_containers)}")
    print(f"RSS gateway {first[0] / 1024:.0f} -> {last[0] / 1024:.0f} MiB, workers {first[1] / 1024:.0f} -> "
          f"{last[1] / 1024:.0f} MiB (mean of first and last quarter of the batches)")
    for line in failures[:10]:
        print("  ", line)
    bad = counts["sent"] != counts["answered"] or counts["benign_wrong"] or counts["sandbox_error"]
    return 1 if bad or left_processes or left_containers else 0


if __name__ == "__main__":
    raise SystemExit(main())
