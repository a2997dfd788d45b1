"""Fault injection with real parts: a sandbox container killed or removed
mid-job, a full work dir, a Docker engine restarted mid-job (a private
dockerd the test starts and stops; the host's engine is never touched).

Each test asserts the job's final state (a verdict, or `sandbox_error` with
reward null: never a program verdict caused by our fault), that infra faults
are retried a bounded number of times and program failures never, and that
the service recovers by itself: the broken sandbox is replaced, the next job
is accepted, and no container is left behind. The worker-killed and
Redis-restarted faults are in test_gateway.py.

Every sandbox here runs with a runtime dir of the test's own (the executor
socket folder each container bind-mounts), which is how the test tells its
containers from any other on the engine.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import docker
import docker.errors
import httpx
import pytest
from docker.models.containers import Container
from prometheus_client.parser import text_string_to_metric_families

from service.judge.judge import Judge
from service.models.submission import Submission
from service.sandbox.docker_backend import LABEL, USER_UID
from tests.conftest import REQUIRED, make_judge, require_backend
from tests.integration.stack import Proc, RedisServer, Stack, free_port

IMAGE = "rewardbox/sandbox-python:latest"
# runs long enough to be killed mid-job
SLOW = {"language": "python", "code": "import time; time.sleep(2); print('done')",
        "tests": [{"expected_output": "done"}], "limits": {"time_limit_s": 5, "wall_time_limit_s": 8}}
# needs its work dir: 4 MiB of a 256 MiB tmpfs
WRITER = {"language": "python",
          "code": "open('blob.bin', 'wb').write(b'x' * (4 << 20))\nprint(len(open('blob.bin', 'rb').read()))\n",
          "tests": [{"expected_output": str(4 << 20)}]}
# the program's own failure: a verdict, never retried
FAILING = {"language": "python", "code": "raise SystemExit(3)\n", "tests": [{"expected_output": ""}]}
QUICK = {"language": "python", "code": "print(int(input()) * 2)\n", "tests": [{"input": "21\n", "expected_output": "42\n"}]}
RETRIES = "rewardbox_sandbox_fault_retries_total"
SANDBOX_JOBS = "rewardbox_sandbox_job_seconds_count"


@pytest.fixture(scope="module", autouse=True)
def _docker_required() -> None:
    require_backend("docker")


# -- observing sandboxes through the engine -----------------------------------
def sandboxes(client: docker.DockerClient, runtime: Path, language: str = "python") -> dict[str, Container]:
    """Every sandbox container (any state) whose executor socket folder is in ``runtime``."""
    found = {}
    listed = client.containers.list(all=True, filters={"label": f"{LABEL}.language={language}"}, ignore_removed=True)
    for container in listed:
        if any(m.get("Source", "").startswith(f"{runtime}/") for m in container.attrs.get("Mounts", [])):
            found[container.name] = container
    return found


def wait_for(what: str, check: Callable[[], Any], timeout_s: float = 30) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def job_container(client: docker.DockerClient, runtime: Path) -> Container:
    """The sandbox that is running a program now (a process of the sandbox uid in it)."""

    def running() -> Container | None:
        for container in sandboxes(client, runtime).values():
            try:
                processes = container.top(ps_args="-eo uid,pid")["Processes"] or []
            except docker.errors.APIError:
                continue  # not running
            if any(int(row[0]) == USER_UID for row in processes):
                return container
        return None

    return wait_for("a program running in a sandbox", running)


def settled(client: docker.DockerClient, runtime: Path, gone: str, size: int = 1) -> dict[str, Container]:
    """Wait until ``gone`` is removed from the engine and the pool is back to
    ``size`` running containers, nothing else; returns them."""

    def check() -> dict[str, Container] | None:
        now = sandboxes(client, runtime)
        if gone in now or len(now) != size or any(c.status != "running" for c in now.values()):
            return None
        return now

    return wait_for(f"{gone} removed and the pool back to {size} running container(s)", check)


def fill_work_dir(container: Container, how: str) -> None:
    """Fill the idle sandbox's work dir from outside, as the sandbox uid (the
    only one besides root that may write there; root has no CAP_DAC_OVERRIDE):
    to ENOSPC, to 2 MiB short of full, or with a file deleted but held open."""
    fill = "dd if=/dev/zero of=/sandbox/box/.fill bs=1M"
    commands = {
        "full": f"{fill} 2>/dev/null; df -k /sandbox/box",
        "nearly_full": f"{fill} count=254 2>/dev/null; df -k /sandbox/box",
        "hidden": f"{fill} count=254 2>/dev/null; exec 3</sandbox/box/.fill; rm /sandbox/box/.fill; exec sleep 300",
    }
    user = f"{USER_UID}:{USER_UID}"
    if how == "hidden":
        container.exec_run(["sh", "-c", commands[how]], user=user, detach=True)
        check = 'test -z "$(ls -A /sandbox/box)" && df -k /sandbox/box | tail -n 1'
        wait_for("the hidden fill", lambda: b" 100% " in container.exec_run(["sh", "-c", check], user=user).output)
        return
    output = container.exec_run(["sh", "-c", commands[how]], user=user).output.decode()
    free_kb = int(output.split()[-3])
    assert free_kb == (0 if how == "full" else 2048), output


# -- observing the service ----------------------------------------------------
def metric(url: str, name: str) -> float:
    """Sum of a Prometheus sample over its labels (python sandboxes only)."""
    text = httpx.get(url, timeout=10).text
    total = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.get("language", "python") == "python":
                total += sample.value
    return total


def wait_done(client: httpx.Client, job_id: str, timeout_s: float = 90) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        state = client.get(f"/v1/jobs/{job_id}").json()
        if state["status"] in ("completed", "failed"):
            return state
        assert time.monotonic() < deadline, f"job stuck in {state['status']}"
        time.sleep(0.1)


# -- the library Judge (docker backend, no queue: no retry) -------------------
@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Judge, Path]]:
    runtime = tmp_path_factory.mktemp("rt")
    judge = make_judge("docker", pool_size=1, runtime_dir=runtime)
    assert "python" in judge.backend.offered_languages()
    yield judge, runtime
    judge.backend.close()
    with closing(docker.from_env()) as client:
        assert not sandboxes(client, runtime), "containers left behind"


def score_in_thread(judge: Judge, body: dict[str, Any]) -> Callable[[], Any]:
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.update(result=judge.score(Submission.model_validate(body))))
    thread.start()

    def result() -> Any:
        thread.join(60)
        assert not thread.is_alive(), "the judge never returned"
        return box["result"]

    return result


@pytest.mark.parametrize("how", ["kill", "remove"])
def test_container_killed_mid_job_library(lib: tuple[Judge, Path], how: str) -> None:
    judge, runtime = lib
    with closing(docker.from_env()) as client:
        result = score_in_thread(judge, SLOW)
        victim = job_container(client, runtime)
        if how == "kill":
            victim.kill()
        else:
            victim.remove(force=True)
        outcome = result()
        # the Judge scores once (queues retry): an infra fault is ours
        assert outcome.status == "sandbox_error" and outcome.reward is None, outcome
        assert "executor" in (outcome.error or "")
        settled(client, runtime, gone=victim.name)
        assert judge.score(Submission.model_validate(QUICK)).verdict == "accepted"


@pytest.mark.parametrize("how", ["full", "nearly_full", "hidden"])
def test_full_work_dir_library(lib: tuple[Judge, Path], how: str) -> None:
    judge, runtime = lib
    with closing(docker.from_env()) as client:
        (pooled,) = settled(client, runtime, gone="").values()
        fill_work_dir(pooled, how)
        outcome = judge.score(Submission.model_validate(WRITER))
        # never the program's runtime_error: the sandbox refuses the job
        assert outcome.status == "sandbox_error" and outcome.reward is None, outcome
        assert "not clean before the job" in (outcome.error or "")
        settled(client, runtime, gone=pooled.name)
        assert judge.score(Submission.model_validate(WRITER)).verdict == "accepted"


# -- the real stack: standalone gateway, and gateway + Redis + worker ---------
class Service:
    """A stack, the runtime dir of its sandboxes and where its sandbox metrics are."""

    def __init__(self, stack: Stack, runtime: Path, metrics_url: str) -> None:
        self.stack = stack
        self.runtime = runtime
        self.metrics_url = metrics_url
        self.client = stack.client

    def submit(self, body: dict[str, Any]) -> str:
        created = self.client.post("/v1/jobs", json=body)
        assert created.status_code == 202, created.text
        return str(created.json()["id"])

    def counters(self) -> tuple[float, float]:
        return metric(self.metrics_url, RETRIES), metric(self.metrics_url, SANDBOX_JOBS)


def _service(tmp: Path, runtime: Path, redis: bool, **env: str) -> Service:
    settings = {"REWARDBOX_RUNTIME_DIR": str(runtime), **env}
    if not redis:
        stack = Stack(tmp, None, **settings)
        return Service(stack, runtime, f"{stack.client.base_url}/metrics")
    port = free_port()
    stack = Stack(tmp, RedisServer(tmp), REWARDBOX_WORKER_METRICS_PORT=str(port), **settings)
    return Service(stack, runtime, f"http://127.0.0.1:{port}/metrics")


@pytest.fixture(scope="module", params=["standalone", "redis"])
def service(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp(request.param)
    runtime = tmp_path_factory.mktemp("rt")
    svc = _service(tmp, runtime, redis=request.param == "redis")
    yield svc
    svc.stack.close()
    with closing(docker.from_env()) as client:
        assert not sandboxes(client, runtime), "containers left behind by the stopped service"


def test_container_killed_mid_job_is_retried(service: Service) -> None:
    with closing(docker.from_env()) as client:
        retries, runs = service.counters()
        job_id = service.submit(SLOW)
        victim = job_container(client, service.runtime)
        victim.kill()
        state = wait_done(service.client, job_id)
        # retried once on the replacement sandbox: the program's own verdict
        assert state["status"] == "completed" and state["result"]["verdict"] == "accepted", state
        assert service.counters() == (retries + 1, runs + 2)
        settled(client, service.runtime, gone=victim.name)
        quick = service.client.post("/v1/score", json=QUICK).json()
        assert quick["verdict"] == "accepted", quick


def test_program_failure_is_never_retried(service: Service) -> None:
    retries, runs = service.counters()
    result = service.client.post("/v1/score", json=FAILING).json()
    assert result["verdict"] == "runtime_error" and result["reward"] == 0.0, result
    assert service.counters() == (retries, runs + 1)


def test_full_work_dir_is_retried_on_a_fresh_sandbox(service: Service) -> None:
    with closing(docker.from_env()) as client:
        (pooled,) = settled(client, service.runtime, gone="").values()
        fill_work_dir(pooled, "nearly_full")
        retries, runs = service.counters()
        result = service.client.post("/v1/score", json=WRITER).json()
        # not the runtime_error our disk would have caused: refused, retried, accepted
        assert result["verdict"] == "accepted", result
        assert service.counters() == (retries + 1, runs + 2)
        settled(client, service.runtime, gone=pooled.name)


def test_chunk_retry_reruns_only_the_faulted_items(service: Service) -> None:
    """A batch travels in chunks (Redis mode: 8 items, one worker -> chunks of
    2, the first [SLOW, FAILING]); when SLOW's container is killed, the retry
    runs SLOW again, not FAILING, whose verdict stands."""
    items = [SLOW, FAILING, *({**QUICK, "code": QUICK["code"] + f"# {i}\n"} for i in range(6))]
    with closing(docker.from_env()) as client:
        retries, runs = service.counters()
        job_id = service.submit({"submissions": items})
        victim = job_container(client, service.runtime)
        victim.kill()
        state = wait_done(service.client, job_id)
        verdicts = [r["verdict"] for r in state["results"]]
        assert verdicts == ["accepted", "runtime_error", *["accepted"] * 6], state
        assert service.counters() == (retries + 1, runs + len(items) + 1)
        settled(client, service.runtime, gone=victim.name)


# -- the Docker engine restarted mid-job ---------------------------------------
class PrivateDockerd:
    """A dockerd of the test's own: its own data root, exec root (so its own
    containerd), pid file and socket, no bridge, no iptables, the host's
    /etc/docker/daemon.json ignored. Started and stopped by its pid."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.url = f"unix://{root}/docker.sock"
        (root / "daemon.json").write_text("{}\n")
        self.argv = [
            "dockerd", "--data-root", f"{root}/data", "--exec-root", f"{root}/exec", "--pidfile", f"{root}/docker.pid",
            "-H", self.url, "--config-file", f"{root}/daemon.json", "--bridge=none", "--iptables=false",
            "--ip6tables=false",
        ]  # fmt: skip
        self.proc: Proc | None = None

    def client(self) -> docker.DockerClient:
        return docker.DockerClient(base_url=self.url, timeout=30)

    def start(self) -> None:
        self.proc = Proc(self.argv, dict(os.environ), self.root / "dockerd.log")
        deadline = time.monotonic() + 60
        while not self.answers():
            if self.proc.popen.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("private dockerd did not start: " + self.proc.tail())
            time.sleep(0.1)

    def answers(self) -> bool:
        """GET /_ping answered 200 (a plain socket: the socket file may exist
        before, or after, anything listens on it)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(2)
                sock.connect(str(self.root / "docker.sock"))
                sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: engine\r\n\r\n")
                return sock.recv(64).split(b"\r\n")[0].split()[1:2] == [b"200"]
        except OSError:
            return False

    def stop(self) -> None:
        """SIGTERM to dockerd alone: it stops its containers and its containerd."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        if proc.popen.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        proc.kill()  # the whole group, only if still there; closes the log

    def leftovers(self) -> list[int]:
        """Processes still using this engine's folders (containerd, shims)."""
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                try:
                    cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                except OSError:
                    continue
                if str(self.root).encode() in cmdline:
                    pids.append(int(entry))
        return pids

    def mounts(self) -> list[str]:
        with open("/proc/self/mountinfo") as handle:
            points = [line.split()[4] for line in handle]
        return [p for p in points if p == str(self.root) or p.startswith(f"{self.root}/")]


@pytest.fixture
def private_engine() -> Iterator[PrivateDockerd]:
    reason = "dockerd is not installed" if shutil.which("dockerd") is None else None
    if os.geteuid() != 0:
        reason = "a private dockerd needs root"
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    root = Path(tempfile.mkdtemp(prefix="rbxd-", dir="/tmp"))  # short: unix socket paths
    engine = PrivateDockerd(root)
    try:
        engine.start()
        save = subprocess.Popen(["docker", "save", IMAGE], stdout=subprocess.PIPE)
        assert save.stdout is not None
        load = subprocess.run(["docker", "-H", engine.url, "load"], stdin=save.stdout, capture_output=True, timeout=300)
        save.stdout.close()
        assert save.wait(timeout=60) == 0 and load.returncode == 0, load.stderr.decode()
        yield engine
    finally:
        engine.stop()
        for pid in engine.leftovers():  # started by this engine, none should be left
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for point in sorted(engine.mounts(), key=len, reverse=True):
            subprocess.run(["umount", "-l", point], check=False)
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.slow
def test_engine_restart_mid_job(private_engine: PrivateDockerd, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Both modes on the private engine at once: each has a job in flight
    when the engine is stopped (SIGTERM; it stops its containers) and started
    again. The job fails on its dead container, the service waits for the
    engine to answer, retries once on a new container: the program's own
    verdict, and the stopped containers are removed."""
    env = {"DOCKER_HOST": private_engine.url}
    services: list[Service] = []
    try:
        for mode in ("standalone", "redis"):
            services.append(_service(tmp_path_factory.mktemp(f"engine-{mode}"), tmp_path_factory.mktemp("rt"),
                                     redis=mode == "redis", **env))
        jobs = [svc.submit(SLOW) for svc in services]
        with closing(private_engine.client()) as client:
            victims = [job_container(client, svc.runtime).name for svc in services]
        private_engine.stop()
        assert not private_engine.leftovers(), "dockerd left processes behind"
        private_engine.start()
        for svc, job_id in zip(services, jobs, strict=True):
            state = wait_done(svc.client, job_id, timeout_s=60)
            assert state["status"] == "completed" and state["result"]["verdict"] == "accepted", state
            assert svc.counters()[0] == 1  # one retry, once the engine answered
        # the same gateways and workers take new jobs: nothing was restarted
        for svc in services:
            quick = svc.client.post("/v1/score", json=QUICK).json()
            assert quick["verdict"] == "accepted", quick
        with closing(private_engine.client()) as client:
            for svc, victim in zip(services, victims, strict=True):
                settled(client, svc.runtime, gone=victim)
            # nothing but the two pools: the stopped containers were removed
            assert len(client.containers.list(all=True)) == len(services)
    finally:
        for svc in services:
            svc.stack.close()
    with closing(private_engine.client()) as client:
        assert client.containers.list(all=True) == [], "containers left behind in the private engine"
