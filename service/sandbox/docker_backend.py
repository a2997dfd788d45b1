"""Docker backend: warm pools of hardened containers, one executor in each.

Container hardening (all set here, none optional): no network, every
capability dropped but SETUID/SETGID/KILL (the executor drops to the sandbox
uid and kills its process groups), no-new-privileges, read-only root, tmpfs
work dir / /tmp with size caps, pids, memory (+swap = memory: no swap) and
CPU limits, docker-init as PID 1 to reap orphans. The executor listens on a
unix socket in a host folder (0700, root) bind-mounted into the container; the
sandbox uid cannot reach it.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests.exceptions
from docker.models.containers import Container

from service.core.errors import BackendUnavailable, SandboxError
from service.core.settings import Settings
from service.languages import LanguageSpec, registry
from service.sandbox.base import EXECUTOR_VERSION, REPLY_MARGIN_S, Backend, Channel, Session
from service.sandbox.metrics import POOL_SIZE, SANDBOX_RUN, SANDBOX_START

log = logging.getLogger(__name__)

LABEL = "io.rewardbox.sandbox"
SOCKET_IN_CONTAINER = "/run/rewardbox"
EXECUTOR_IN_CONTAINER = "/opt/rewardbox/executor/server.py"
BOX = "/sandbox/box"
USER_UID = 10001
START_TIMEOUT_S = 30.0
SHM_SIZE_MB = 16
# Host pids limit under gVisor, as a multiple of container_pids_limit (see DockerBackend).
GVISOR_PIDS_FACTOR = 64
# Which process owns a container: a later process on the same host removes
# the containers of owners that died without cleaning up (e.g. SIGKILL).
def _start_ticks(pid: int) -> str | None:
    """A process's start time (clock ticks since boot): pid plus this is unique."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


OWNER = f"{socket.gethostname()}:{os.getpid()}:{_start_ticks(os.getpid())}"
# When this process itself runs in a container (compose, Kubernetes with the
# host's engine), its container is the owner the engine can vouch for.
OWNER_CONTAINER = socket.gethostname() if os.path.exists("/.dockerenv") else ""
ACQUIRE_TIMEOUT_S = 120.0
# What a call to the engine raises when it fails: an API error, or, with the
# engine down or restarting, the transport's own error (requests does not wrap
# it in a DockerException).
ENGINE_ERRORS = (docker.errors.DockerException, requests.exceptions.RequestException)


def engine_unavailable_reason() -> str | None:
    """None if a Docker engine answers, else why not."""
    try:
        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
    except Exception as exc:  # noqa: BLE001 - any failure means "not available"
        return f"the Docker engine does not answer ({type(exc).__name__}: {exc})"
    return None


class Sandbox:
    """One warm container and the connection to its executor."""

    def __init__(self, backend: DockerBackend, spec: LanguageSpec, memory_limit_mb: int) -> None:
        self.backend = backend
        self.spec = spec
        self.name = f"rewardbox-{spec.name}-{secrets.token_hex(4)}"
        self.sock_dir = backend.settings.runtime_dir / self.name
        self.memory_limit_mb = memory_limit_mb
        self.container: Container | None = None
        self.created = False  # the engine may hold a container of this name
        self.channel: Channel | None = None

    def _container_memory(self, memory_limit_mb: int) -> str:
        # tmpfs pages (work dir, /tmp, /dev/shm) are charged to the container's
        # memory cgroup: a program filling them must not push the executor out
        settings = self.backend.settings
        tmpfs_mb = settings.workdir_size_mb + settings.tmp_size_mb + SHM_SIZE_MB
        return f"{memory_limit_mb + tmpfs_mb + settings.container_memory_overhead_mb}m"

    def start(self) -> None:
        settings = self.backend.settings
        self.sock_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.sock_dir, 0o700)
        memory = self._container_memory(self.memory_limit_mb)
        started = time.monotonic()
        self.created = True
        self.container = self.backend.client.containers.run(
            image=f"{settings.image_prefix}{self.spec.name}:latest",
            command=[
                "python3", "-S", "-E", "-s", "-B", EXECUTOR_IN_CONTAINER,
                "--socket", f"{SOCKET_IN_CONTAINER}/executor.sock",
                "--box", BOX, "--scratch", "/tmp", "--scratch", "/dev/shm", "--preload",
                "--memory-source", "sandbox" if settings.docker_runtime == "runsc" else "rss",
            ],
            name=self.name,
            detach=True,
            init=True,
            network_mode="none",
            cap_drop=["ALL"],
            cap_add=["SETUID", "SETGID", "KILL"],
            security_opt=["no-new-privileges"],
            read_only=True,
            user="0:0",
            tmpfs={
                BOX: f"rw,exec,nosuid,nodev,size={settings.workdir_size_mb}m,uid={USER_UID},gid={USER_UID},mode=0700",
                "/tmp": f"rw,nosuid,nodev,size={settings.tmp_size_mb}m,mode=1777",
            },
            shm_size=f"{SHM_SIZE_MB}m",
            pids_limit=self.backend.host_pids_limit,
            mem_limit=memory,
            memswap_limit=memory,
            nano_cpus=int(settings.container_cpus * 1e9),
            volumes={str(self.sock_dir): {"bind": SOCKET_IN_CONTAINER, "mode": "rw"}},
            labels={
                LABEL: "1",
                f"{LABEL}.language": self.spec.name,
                f"{LABEL}.owner": OWNER,
                f"{LABEL}.owner-container": OWNER_CONTAINER,
            },
            runtime=settings.docker_runtime,
            environment={},
            stdin_open=False,
        )
        sock_path = self.sock_dir / "executor.sock"
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if sock_path.exists():
                try:
                    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    sock.connect(str(sock_path))
                    self.channel = Channel(sock)
                    break
                except OSError:
                    sock.close()
            if time.monotonic() > deadline:
                logs = self.container.logs(tail=20).decode("utf-8", "replace")
                self.destroy()
                hint = ""
                if settings.docker_runtime == "runsc":
                    hint = " (runsc needs --host-uds=create in its runtimeArgs for the executor's socket)"
                raise SandboxError(f"executor in {self.name} did not start{hint}: {logs}")
            self.container.reload()
            if self.container.status == "exited":
                logs = self.container.logs(tail=20).decode("utf-8", "replace")
                self.destroy()
                raise SandboxError(f"container {self.name} exited at start: {logs}")
            time.sleep(0.02)
        hello = self.channel.call({"op": "hello"}, timeout_s=START_TIMEOUT_S)
        if hello.get("version") != EXECUTOR_VERSION:
            self.destroy()
            raise SandboxError(
                f"image {settings.image_prefix}{self.spec.name} carries executor {hello.get('version')}, "
                f"this host has {EXECUTOR_VERSION}: rebuild the images (make images)"
            )
        SANDBOX_START.labels("docker", self.spec.name).observe(time.monotonic() - started)

    def set_memory(self, memory_limit_mb: int) -> None:
        if memory_limit_mb == self.memory_limit_mb or self.container is None:
            return
        if self.backend.fixed_memory:
            return  # sized for the largest limit at start; the executor enforces the job's
        memory = self._container_memory(memory_limit_mb)
        # lower swap first when shrinking, memory first when growing
        self.container.update(mem_limit=memory, memswap_limit=memory)
        self.memory_limit_mb = memory_limit_mb

    def alive(self) -> bool:
        """False once the executor's end of the channel is closed: the
        container was killed or stopped (engine restart) while it waited."""
        return self.channel is not None and self.channel.idle_and_open()

    def destroy(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.created:
            # by name: also a container whose start failed half-way
            if not self.backend.remove_container(self.name):
                self.backend.remember_unremoved(self.name)
            self.created = False
            self.container = None
        shutil.rmtree(self.sock_dir, ignore_errors=True)


class DockerSession(Session):
    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self.language = sandbox.spec

    def call(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        assert self.sandbox.channel is not None
        return self.sandbox.channel.call(request, timeout_s)


class DockerBackend(Backend):
    name = "docker"

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings
        self.client = docker.from_env(timeout=60)
        self._pools: dict[str, queue.LifoQueue[Sandbox]] = {}
        self._sizes: dict[str, int] = {}
        self._pool_lock = threading.Lock()
        self._live: set[Sandbox] = set()  # every started sandbox, pooled or lent
        # containers whose removal failed (engine down or restarting): removed
        # once the engine answers again, so that none is left behind
        self._unremoved: set[str] = set()
        self._closed = False
        # Runtimes other than runc (gVisor's runsc) cannot change a running
        # container's limits: their containers start with the memory of the
        # largest job; the executor's per-uid RSS sampling enforces each job's
        # own limit, the container limit is only the backstop.
        self.fixed_memory = settings.docker_runtime not in (None, "", "runc")
        # Under gVisor the host's pids cgroup counts the sentry's threads and,
        # on the ptrace platform, about two host threads per task: at the runc
        # limit a fork bomb exhausts it and the sentry panics (the whole
        # sandbox dies). There programs are held to container_pids_limit by
        # RLIMIT_NPROC, which gVisor enforces itself, under a host limit with
        # room for the sentry.
        self.host_pids_limit = settings.container_pids_limit
        if settings.docker_runtime == "runsc":
            self.max_processes = settings.container_pids_limit
            self.host_pids_limit = settings.container_pids_limit * GVISOR_PIDS_FACTOR
        if settings.docker_runtime:
            known = sorted((self.client.info().get("Runtimes") or {}).keys())
            if settings.docker_runtime not in known:
                self.client.close()
                raise BackendUnavailable(
                    f"REWARDBOX_DOCKER_RUNTIME={settings.docker_runtime}, but the Docker engine knows only "
                    f"{known}: register it in /etc/docker/daemon.json (README, 'gVisor')"
                )
        # a short time-out for liveness probes (an engine that is going down
        # may accept a connection and never answer)
        self.probe = docker.from_env(timeout=5, version=self.client.api.api_version)
        # containers must not outlive the process that started them
        atexit.register(self.close)
        remove_orphans(self.client, settings.runtime_dir)

    def candidate_languages(self) -> list[str]:
        names = []
        for name in registry():
            try:
                self.client.images.get(f"{self.settings.image_prefix}{name}:latest")
            except docker.errors.ImageNotFound:
                log.warning("language %s not offered: image %s%s is not built", name, self.settings.image_prefix, name)
                continue
            names.append(name)
        return names

    def _pool(self, language: str) -> queue.LifoQueue[Sandbox]:
        with self._pool_lock:
            if language not in self._pools:
                self._pools[language] = queue.LifoQueue()
                self._sizes[language] = 0
            return self._pools[language]

    def warm(self, language: str) -> None:
        """Start the language's pool now instead of on first use."""
        pool = self._pool(language)
        threads = []
        while True:
            with self._pool_lock:
                if self._sizes[language] >= self.settings.pool_size:
                    break
                self._sizes[language] += 1
            thread = threading.Thread(target=self._add, args=(language, pool), daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()

    def _start(self, language: str) -> Sandbox:
        """Start a sandbox and track it until it is destroyed; raises SandboxError."""
        memory_limit_mb = self.settings.memory_limit_mb
        if self.fixed_memory:
            memory_limit_mb = max(self.settings.max_memory_limit_mb, self.settings.compile_memory_limit_mb)
        sandbox = Sandbox(self, registry()[language], memory_limit_mb)
        self._remove_unremoved()
        try:
            sandbox.start()
        except ENGINE_ERRORS as exc:
            sandbox.destroy()
            raise SandboxError(f"could not start a {language} sandbox: {exc}") from exc
        with self._pool_lock:
            if self._closed:  # closed while it was starting
                closed = True
            else:
                closed = False
                self._live.add(sandbox)
        if closed:
            sandbox.destroy()
            raise SandboxError("backend is closed")
        return sandbox

    def _destroy(self, sandbox: Sandbox) -> None:
        with self._pool_lock:
            self._live.discard(sandbox)
        sandbox.destroy()

    def _add(self, language: str, pool: queue.LifoQueue[Sandbox]) -> None:
        try:
            sandbox = self._start(language)
        except Exception as exc:  # noqa: BLE001 - thread boundary: the pool's count must stay right
            log.error("%s", exc)
            with self._pool_lock:
                self._sizes[language] -= 1
            return
        pool.put(sandbox)

    def _acquire(self, language: str) -> Sandbox:
        if self._closed:
            raise SandboxError("backend is closed")
        if self.settings.fresh_container_per_job:
            return self._start(language)
        pool = self._pool(language)
        deadline = time.monotonic() + ACQUIRE_TIMEOUT_S
        while True:
            try:
                sandbox = pool.get_nowait()
            except queue.Empty:
                with self._pool_lock:
                    grow = self._sizes[language] < self.settings.pool_size
                    if grow:
                        self._sizes[language] += 1
                if grow:
                    try:
                        return self._start(language)
                    except BaseException:
                        with self._pool_lock:
                            self._sizes[language] -= 1
                        raise
                if time.monotonic() > deadline:
                    raise SandboxError(f"no {language} sandbox free within {ACQUIRE_TIMEOUT_S} s") from None
                # short waits: a replacement that fails to start frees its slot
                # for this caller to grow into
                try:
                    sandbox = pool.get(timeout=0.25)
                except queue.Empty:
                    continue
            if sandbox.alive():
                return sandbox
            log.warning("%s died while pooled (killed, or the engine restarted): replacing it", sandbox.name)
            self._release(sandbox, healthy=False)

    def _release(self, sandbox: Sandbox, healthy: bool) -> None:
        language = sandbox.spec.name
        if healthy and not self._closed and not self.settings.fresh_container_per_job:
            self._pool(language).put(sandbox)
            return
        self._destroy(sandbox)
        if self.settings.fresh_container_per_job:
            return
        with self._pool_lock:
            self._sizes[language] -= 1
        if not self._closed:
            # replace it in the background so the pool stays warm
            with self._pool_lock:
                self._sizes[language] += 1
            threading.Thread(target=self._add, args=(language, self._pool(language)), daemon=True).start()

    @contextmanager
    def session(self, language: str, memory_limit_mb: int) -> Iterator[Session]:
        sandbox = self._acquire(language)
        healthy = False
        started = time.monotonic()
        try:
            sandbox.set_memory(memory_limit_mb)
            yield DockerSession(sandbox)
            assert sandbox.channel is not None
            try:
                report = sandbox.channel.call({"op": "reset"}, timeout_s=REPLY_MARGIN_S)
            except SandboxError as exc:
                # the job's result stands; only this container is done for
                report = {"clean": False, "anomalies": [str(exc)]}
            healthy = bool(report.get("clean"))
            if not healthy:
                log.warning("destroying %s: reset found %s", sandbox.name, report.get("anomalies"))
        except ENGINE_ERRORS as exc:
            raise SandboxError(f"docker: {exc}") from exc
        finally:
            SANDBOX_RUN.labels("docker", language).observe(time.monotonic() - started)
            self._release(sandbox, healthy)

    def remove_container(self, name: str) -> bool:
        """Remove a container by name; True if it is gone."""
        try:
            self.client.api.remove_container(name, force=True)
        except docker.errors.NotFound:
            return True
        except ENGINE_ERRORS as exc:
            if isinstance(exc, docker.errors.APIError) and exc.status_code == 409 and "already in progress" in str(exc):
                return True  # the engine is removing it already
            log.warning("could not remove %s: %s", name, exc)
            return False
        return True

    def remember_unremoved(self, name: str) -> None:
        with self._pool_lock:
            self._unremoved.add(name)

    def _remove_unremoved(self) -> None:
        with self._pool_lock:
            names = list(self._unremoved)
        for name in names:
            if self.remove_container(name):
                log.info("removed %s, left over from an engine fault", name)
                with self._pool_lock:
                    self._unremoved.discard(name)

    def wait_ready(self, timeout_s: float) -> bool:
        """Wait until the engine answers again (it may be restarting), at
        most ``timeout_s``; then remove what could not be removed meanwhile."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.probe.ping()
                break
            except ENGINE_ERRORS:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.5)
        self._remove_unremoved()
        return True

    def pool_sizes(self) -> dict[str, int]:
        with self._pool_lock:
            sizes = dict(self._sizes)
        for language, size in sizes.items():
            POOL_SIZE.labels(language).set(size)
        return sizes

    def close(self) -> None:
        """Destroy every sandbox this backend started, pooled or lent."""
        with self._pool_lock:
            if self._closed:
                return
            self._closed = True
            live = list(self._live)
            self._live.clear()
        for sandbox in live:
            sandbox.destroy()
        self._remove_unremoved()
        self.client.close()
        self.probe.close()


def remove_stale_containers(client: docker.DockerClient | None = None) -> int:
    """Remove every rewardbox sandbox container (e.g. left by a killed worker)."""
    client = client or docker.from_env()
    removed = 0
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        container.remove(force=True)
        removed += 1
    return removed


def _container_running(client: docker.DockerClient, name: str) -> bool:
    try:
        return client.containers.get(name).status == "running"
    except docker.errors.NotFound:
        return False
    except docker.errors.DockerException:
        return True  # when unsure, leave it


def remove_orphans(client: docker.DockerClient, runtime_dir: Path) -> int:
    """Remove sandbox containers whose owning process on this host is gone."""
    host = socket.gethostname()
    removed = 0
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        owner = container.labels.get(f"{LABEL}.owner", "")
        owner_container = container.labels.get(f"{LABEL}.owner-container", "")
        if owner_container and owner_container != OWNER_CONTAINER:
            if _container_running(client, owner_container):
                continue
        else:
            owner_host, _, rest = owner.partition(":")
            pid, _, ticks = rest.partition(":")
            alive = pid.isdigit() and _start_ticks(int(pid)) == ticks
            if owner_host != host or alive:
                continue
        log.warning("removing %s, left by %s which is gone", container.name, owner_container or owner)
        try:
            container.remove(force=True)
            removed += 1
        except docker.errors.DockerException as exc:
            log.warning("could not remove %s: %s", container.name, exc)
        shutil.rmtree(runtime_dir / container.name, ignore_errors=True)
    return removed
