"""Real processes for gateway tests: a private redis-server, `rewardbox serve`
and `rewardbox worker`, all on 127.0.0.1, each ended by its own pid."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Proc:
    """A child process in its own session, ended with its whole group."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.handle = log.open("ab")
        self.popen = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=self.handle, stderr=subprocess.STDOUT,
                                      start_new_session=True)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()
        self.handle.close()

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


class RedisServer:
    def __init__(self, workdir: Path) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed")
        self.port = free_port()
        self.workdir = workdir
        self.proc: Proc | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
                "--dir", str(self.workdir)]
        self.proc = Proc(argv, dict(os.environ), self.workdir / "redis.log")
        import redis

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=self.port).ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start: " + self.proc.tail())

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill(signal.SIGTERM)
            self.proc = None


def rewardbox(args: list[str], env: dict[str, str], log: Path) -> Proc:
    return Proc([sys.executable, "-m", "service.cli", *args], env, log)


def wait_ready(client: httpx.Client, timeout_s: float = 120, proc: Proc | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        try:
            response = client.get("/readyz")
            if response.status_code == 200:
                return
            last = response.text
        except httpx.TransportError as exc:
            last = str(exc)
        time.sleep(0.2)
    raise AssertionError(f"not ready: {last}\n{proc.tail() if proc else ''}")


def stack_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REWARDBOX_")}
    env.update({"REWARDBOX_POOL_SIZE": "1", **extra})
    return env


class Stack:
    """A gateway (and, with Redis, workers) as real processes."""

    def __init__(self, tmp: Path, redis_server: RedisServer | None, **settings: str) -> None:
        self.tmp = tmp
        self.redis = redis_server
        extra = {"REWARDBOX_CACHE_TTL_S": "0", "REWARDBOX_WORKER_LEASE_S": "3", **settings}
        if redis_server is not None:
            extra["REWARDBOX_REDIS_URL"] = redis_server.url
        self.env = stack_env(**extra)
        self.port = free_port()
        self.workers: list[Proc] = []
        if redis_server is not None:
            self.add_worker()
        self.gateway = rewardbox(["serve", "--port", str(self.port)], self.env, tmp / "gateway.log")
        self.client = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=120)
        wait_ready(self.client, proc=self.gateway)

    def add_worker(self) -> Proc:
        worker = rewardbox(["worker"], self.env, self.tmp / f"worker{len(self.workers)}.log")
        self.workers.append(worker)
        return worker

    def close(self) -> None:
        self.client.close()
        self.gateway.kill(signal.SIGTERM)
        for worker in self.workers:
            worker.kill(signal.SIGTERM)
        if self.redis is not None:
            self.redis.stop()
