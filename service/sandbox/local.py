"""Local backend: the executor under bubblewrap, fresh namespaces per job.

For hosts without Docker (e.g. Slurm GPU nodes). Each job starts
``bwrap`` with new mount, pid, net, ipc, uts and cgroup namespaces (no
network at all), the host's /usr read-only, a private tmpfs for the work dir
and /tmp, and only CAP_SETUID/SETGID/KILL/CHOWN kept for the executor, which
drops to uid 10001 for every program. The executor's frames travel over a
socketpair given to bwrap as stdin/stdout. The toolchains are the host's.

Memory: there is no cgroup here, so the memory limit is enforced by the
executor's RSS sampling and the peak RSS of each run (still resident memory,
never address space).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service.core.errors import SandboxError
from service.core.settings import Settings
from service.languages import registry
from service.sandbox.base import REPLY_MARGIN_S, Backend, Channel, Session
from service.sandbox.metrics import SANDBOX_RUN, SANDBOX_START

log = logging.getLogger(__name__)

EXECUTOR_DIR = Path(__file__).parent / "executor"
HOST_PYTHON = "/usr/bin/python3"
# What of the host's /etc the toolchains need (dynamic linker, alternatives
# symlinks, TLS config that Node.js reads at start); nothing else of /etc.
ETC_PATHS = ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/ssl")
BOX = "/sandbox/box"


def unavailable_reason() -> str | None:
    """None if bubblewrap can create a sandbox here, else why not."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if not os.path.exists(HOST_PYTHON):
        return f"{HOST_PYTHON} is missing (the executor needs the system python3)"
    if os.geteuid() != 0:
        return "the local backend must run as root to give programs their own uid"
    probe = subprocess.run(
        [bwrap, *_namespace_args(), "--ro-bind", "/usr", "/usr", *_usr_links(), "/usr/bin/true"],
        capture_output=True,
        timeout=10,
    )
    if probe.returncode != 0:
        return f"bwrap cannot create namespaces: {probe.stderr.decode(errors='replace').strip()}"
    return None


def _namespace_args() -> list[str]:
    # Every namespace but the user one: as real root the executor can then
    # hand programs a real unprivileged uid (10001), unmapped in a user ns.
    return [
        "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--as-pid-1",
    ]  # fmt: skip


def _usr_links() -> list[str]:
    args = []
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        target = Path("/") / name
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), f"/{name}"]
        elif target.is_dir():
            args += ["--ro-bind", str(target), f"/{name}"]
    return args


def bwrap_argv(settings: Settings) -> list[str]:
    """The full bubblewrap command line for one job's executor."""
    args = ["bwrap", *_namespace_args()]
    args += ["--ro-bind", "/usr", "/usr", *_usr_links()]
    # folders bwrap creates for mount points are 0700 unless told otherwise,
    # and the program's uid must be able to walk /etc
    args += ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/opt/rewardbox"]
    extra = [p for spec in registry().values() for p in spec.host_paths]
    for path in (*ETC_PATHS, *extra):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    tmp_bytes = str(settings.tmp_size_mb * 1024 * 1024)
    args += [
        "--proc", "/proc",
        "--dev", "/dev",
        "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/tmp",
        "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/dev/shm",
        "--perms", "0755", "--size", str(settings.workdir_size_mb * 1024 * 1024), "--tmpfs", "/sandbox",
        "--ro-bind", str(EXECUTOR_DIR), "/opt/rewardbox/executor",
        "--chdir", "/",
        "--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
        "--cap-drop", "ALL",
        "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_KILL", "--cap-add", "CAP_CHOWN",
        HOST_PYTHON, "-S", "-E", "-s", "-B", "/opt/rewardbox/executor/server.py",
        "--stdio", "--box", BOX, "--scratch", "/tmp", "--scratch", "/dev/shm",
    ]  # fmt: skip
    return args


class LocalSession(Session):
    def __init__(self, settings: Settings, language: str) -> None:
        self.language = registry()[language]
        host_end, sandbox_end = socket.socketpair()
        try:
            self.process = subprocess.Popen(
                bwrap_argv(settings),
                stdin=sandbox_end.fileno(),
                stdout=sandbox_end.fileno(),
                stderr=subprocess.PIPE,
                close_fds=True,
            )
        except OSError as exc:
            host_end.close()
            raise SandboxError(f"could not start bwrap: {exc}") from exc
        finally:
            sandbox_end.close()
        self.channel = Channel(host_end)

    def call(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        try:
            return self.channel.call(request, timeout_s)
        except SandboxError:
            stderr = self._stop()
            if stderr:
                raise SandboxError(f"executor under bwrap failed: {stderr}") from None
            raise

    def _stop(self) -> str:
        self.channel.close()
        try:
            self.process.wait(timeout=REPLY_MARGIN_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        stderr = self.process.stderr.read().decode("utf-8", "replace")[-2000:]
        self.process.stderr.close()
        return stderr

    def close(self) -> None:
        self._stop()


class LocalBackend(Backend):
    name = "local"

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.max_processes = settings.local_max_processes
        self.settings = settings

    def candidate_languages(self) -> list[str]:
        return list(registry())

    @contextmanager
    def session(self, language: str, memory_limit_mb: int) -> Iterator[Session]:
        started = time.monotonic()
        session = LocalSession(self.settings, language)
        SANDBOX_START.labels("local", language).observe(time.monotonic() - started)
        try:
            yield session
        finally:
            # the whole pid namespace dies with bwrap: nothing survives the job
            session.close()
            SANDBOX_RUN.labels("local", language).observe(time.monotonic() - started)
