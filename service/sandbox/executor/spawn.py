"""Run one process under limits and record what it did (stdlib only).

``run`` forks. The child starts a new session (its own process group, no
controlling tty), wires stdin/stdout/stderr to pipes, sets hard rlimits
(hard = soft), drops to the unprivileged uid, and then either ``execve``s the
program or, for the python harness, calls a function in-process (the fork of a
warm interpreter: no interpreter start-up per test). The parent meanwhile

- feeds stdin without blocking and closes it (EOF) when done,
- drains stdout and stderr as they arrive (a program printing megabytes is
  never stalled on a full pipe, nor judged only after it exits),
- stops the run on the wall-clock deadline, on the output cap, or when the
  resident set of the main process passes the memory limit,
- on exit of the main process kills the rest of its process group (a
  background child holding stdout must not keep the test running), and
- collects exit code, signal, cpu time, wall time and peak RSS from wait4.

Everything the program can influence is reported as data; the verdict is
decided on the host.
"""

from __future__ import annotations

import math
import os
import resource
import select
import signal
import time
from collections.abc import Callable
from typing import Any

READ_CHUNK = 1 << 16
MEMORY_SAMPLE_INTERVAL_S = 0.01
# After the main process exits, how long leftover holders of stdout/stderr
# (already killed with the group) get to let the pipes reach EOF.
DRAIN_GRACE_S = 0.2
# Without pidfd_open (gVisor), how often the supervisor checks for the exit, seconds.
EXIT_POLL_INTERVAL_S = 0.002
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


class SpawnError(Exception):
    """The child could not be set up (our fault, reported as sandbox_error)."""


def _oom_kill_count() -> int | None:
    """The memory cgroup's OOM-kill counter, if this sandbox has one."""
    for path, key in (
        ("/sys/fs/cgroup/memory.events", "oom_kill"),
        ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),
    ):
        try:
            with open(path) as handle:
                for line in handle:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except OSError:
            continue
    return None


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


# How a run's memory is measured. "rss": the resident memory of every process
# of the sandbox uid (/proc/<pid>/statm) and the run's ru_maxrss. "sandbox":
# for gVisor, whose per-process RSS counts a mapping resident once one page
# of it is touched (a bare JVM shows 150-210 MiB): the growth since just
# before the fork of the sandbox's anonymous memory less its tmpfs and shared
# memory (/proc/meminfo AnonPages - Shmem; gVisor counts tmpfs files as
# anonymous). Set by the executor's --memory-source.
MEMORY_SOURCES = ("rss", "sandbox")
memory_source = "rss"


def _sandbox_memory_kb() -> int:
    """AnonPages - Shmem of the whole sandbox, KiB (/proc/meminfo)."""
    fields: dict[bytes, int] = {}
    try:
        with open("/proc/meminfo", "rb") as handle:
            for line in handle:
                if line.startswith((b"AnonPages:", b"Shmem:")):
                    name, value = line.split()[:2]
                    fields[name] = int(value)
    except (OSError, IndexError, ValueError):
        return 0
    return fields.get(b"AnonPages:", 0) - fields.get(b"Shmem:", 0)


def _uid_rss_kb(uid: int | None, pid: int) -> int:
    """Resident memory of every process of ``uid`` in this pid namespace (a
    child the program never waits for still counts), or of ``pid`` alone."""
    if uid is None:
        return _rss_kb(pid)
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid != uid:
                    continue
            except OSError:
                continue
            total += _rss_kb(int(entry))
    return total


def _set_limits(limits: dict[str, Any]) -> None:
    def hard(res: int, value: int) -> None:
        resource.setrlimit(res, (value, value))

    hard(resource.RLIMIT_CPU, int(math.ceil(limits["cpu_time_s"])) + 1)
    hard(resource.RLIMIT_CORE, 0)
    hard(resource.RLIMIT_FSIZE, int(limits["file_size_bytes"]))
    hard(resource.RLIMIT_NOFILE, 256)
    stack = int(limits.get("stack_bytes") or 0)
    if stack:
        hard(resource.RLIMIT_STACK, stack)
    nproc = limits.get("max_processes")
    if nproc:
        hard(resource.RLIMIT_NPROC, int(nproc))


def _child(
    fds: tuple[int, int, int],
    keep_fds: list[int],
    err_w: int,
    limits: dict[str, Any],
    uid: int | None,
    cwd: str,
    argv: list[str] | None,
    env: dict[str, str],
    target: Callable[[], int] | None,
) -> None:
    """Runs in the forked child; never returns."""
    try:
        os.setsid()
        for target_fd, fd in enumerate(fds):
            os.dup2(fd, target_fd)
        keep = {0, 1, 2, err_w, *keep_fds}
        for name in os.listdir("/proc/self/fd"):
            n = int(name)
            if n not in keep:
                try:
                    os.close(n)
                except OSError:
                    pass
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        try:
            # when memory runs out, the program goes first, never the executor
            with open("/proc/self/oom_score_adj", "w") as handle:
                handle.write("1000")
        except OSError:
            pass
        _set_limits(limits)
        if uid is not None and os.getuid() == 0:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        os.chdir(cwd)
        os.umask(0o022)
        if target is not None:
            # the warm interpreter's environment is the executor's: replace it
            # with the allow-listed one, as execve would
            os.environ.clear()
            os.environ.update(env)
            os.close(err_w)
            if hasattr(signal, "SIGPIPE"):
                # A python program sees EPIPE as BrokenPipeError, as under python3.
                signal.signal(signal.SIGPIPE, signal.SIG_IGN)
            os._exit(target())
        assert argv is not None
        os.execve(argv[0], argv, env)
    except BaseException as exc:  # noqa: BLE001 - process boundary: report, then die
        try:
            os.write(err_w, f"{type(exc).__name__}: {exc}".encode()[:4000])
        finally:
            os._exit(127)


def run(
    *,
    argv: list[str] | None,
    stdin: bytes,
    limits: dict[str, Any],
    uid: int | None,
    cwd: str,
    env: dict[str, str],
    target: Callable[[int], int] | None = None,
) -> dict[str, Any]:
    """Run ``argv`` (or ``target(result_fd)`` in a forked child) under ``limits``.

    ``limits`` keys: cpu_time_s, wall_time_s (s), memory_kb (peak RSS above
    which the run is stopped), output_bytes (stdout cap), stderr_bytes,
    file_size_bytes, optional stack_bytes, max_processes.

    Returns a run record: exit_code, signal, cpu_time_s, wall_time_s,
    peak_memory_kb, stdout/stderr (bytes), stdout_truncated,
    stderr_truncated, limit_hit (None | "time_cpu" | "time_wall" | "output" |
    "memory"), oom_killed, result (bytes written by ``target`` to its result
    fd, else None). Raises SpawnError when the child cannot be set up.
    """
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    ctl_r, ctl_w = os.pipe2(os.O_CLOEXEC)
    res_r, res_w = os.pipe() if target is not None else (-1, -1)
    oom_before = _oom_kill_count()
    baseline_kb = _sandbox_memory_kb() if memory_source == "sandbox" else None
    start = time.monotonic()
    bound: Callable[[], int] | None = None
    if target is not None:
        bound = lambda: target(res_w)  # noqa: E731
    pid = os.fork()
    if pid == 0:
        _child(
            (in_r, out_w, err_w),
            [res_w] if res_w >= 0 else [],
            ctl_w,
            limits,
            uid,
            cwd,
            argv,
            env,
            bound,
        )
    for fd in (in_r, out_w, err_w, ctl_w, res_w):
        if fd >= 0:
            os.close(fd)
    # The control pipe closes on exec (or when the in-process target starts);
    # anything written to it is a set-up failure.
    setup_error = b""
    while True:
        chunk = os.read(ctl_r, 4096)
        if not chunk:
            break
        setup_error += chunk
    os.close(ctl_r)
    if setup_error:
        os.waitpid(pid, 0)
        for fd in (in_w, out_r, err_r, res_r):
            if fd >= 0:
                os.close(fd)
        raise SpawnError(setup_error.decode("utf-8", "replace"))
    try:
        return _supervise(pid, uid, start, stdin, limits, in_w, out_r, err_r, res_r, oom_before, baseline_kb)
    finally:
        for fd in (in_w, out_r, err_r, res_r):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _supervise(
    pid: int,
    uid: int | None,
    start: float,
    stdin: bytes,
    limits: dict[str, Any],
    in_w: int,
    out_r: int,
    err_r: int,
    res_r: int,
    oom_before: int | None,
    baseline_kb: int | None,
) -> dict[str, Any]:
    deadline = start + float(limits["wall_time_s"])
    out_cap = int(limits["output_bytes"])
    err_cap = int(limits["stderr_bytes"])
    mem_cap_kb = int(limits["memory_kb"])
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:  # ENOSYS under gVisor: poll for the exit instead
        pidfd = -1
    poller = select.poll()
    bufs: dict[int, list[bytes]] = {out_r: [], err_r: []}
    sizes = {out_r: 0, err_r: 0}
    truncated = {out_r: False, err_r: False}
    result_chunks: list[bytes] = []
    for fd in (out_r, err_r, res_r):
        if fd >= 0:
            poller.register(fd, select.POLLIN)
    if pidfd >= 0:
        poller.register(pidfd, select.POLLIN)
    open_reads = {fd for fd in (out_r, err_r, res_r) if fd >= 0}
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(in_w, False)
        poller.register(in_w, select.POLLOUT)
    else:
        os.close(in_w)
        in_w = -1
    limit_hit: str | None = None
    exited = False
    status = 0
    rusage = None
    drain_deadline = 0.0
    next_sample = start + MEMORY_SAMPLE_INTERVAL_S
    peak_sampled_kb = 0

    def kill_group() -> None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass

    while open_reads or not exited:
        now = time.monotonic()
        if not exited:
            if now >= deadline:
                limit_hit = limit_hit or "time_wall"
                kill_group()
            if now >= next_sample:
                resident = (
                    _uid_rss_kb(uid, pid) if baseline_kb is None else max(0, _sandbox_memory_kb() - baseline_kb)
                )
                peak_sampled_kb = max(peak_sampled_kb, resident)
                if resident > mem_cap_kb:
                    limit_hit = limit_hit or "memory"
                    kill_group()
                next_sample = now + MEMORY_SAMPLE_INTERVAL_S
            timeout = max(0.0, min(deadline, next_sample) - now)
            if pidfd < 0:
                waited, wait_status, wait_rusage = os.wait4(pid, os.WNOHANG)
                if waited == pid:
                    status, rusage, exited = wait_status, wait_rusage, True
                    kill_group()
                    drain_deadline = time.monotonic() + DRAIN_GRACE_S
                    continue
                timeout = min(timeout, EXIT_POLL_INTERVAL_S)
        else:
            if now >= drain_deadline:
                break
            timeout = drain_deadline - now
        for fd, event in poller.poll(timeout * 1000):
            if fd == pidfd:
                _, status, rusage = os.wait4(pid, 0)
                exited = True
                poller.unregister(pidfd)
                kill_group()
                drain_deadline = time.monotonic() + DRAIN_GRACE_S
            elif fd == in_w:
                try:
                    written = os.write(in_w, pending[: 1 << 16])
                    pending = pending[written:]
                except BlockingIOError:
                    continue
                except OSError:  # EPIPE: the program stopped reading; fine
                    pending = pending[:0]
                if not pending:
                    poller.unregister(in_w)
                    os.close(in_w)
                    in_w = -1
            else:
                chunk = os.read(fd, READ_CHUNK) if event & (select.POLLIN | select.POLLHUP) else b""
                if not chunk:
                    poller.unregister(fd)
                    open_reads.discard(fd)
                    continue
                if fd == res_r:
                    result_chunks.append(chunk)
                    continue
                cap = out_cap if fd == out_r else err_cap
                room = cap - sizes[fd]
                if len(chunk) > room:
                    bufs[fd].append(chunk[: max(room, 0)])
                    sizes[fd] = cap
                    truncated[fd] = True
                    if fd == out_r and not exited:
                        limit_hit = limit_hit or "output"
                        kill_group()
                    elif fd == err_r:
                        # stderr past its cap is dropped, not fatal
                        continue
                else:
                    bufs[fd].append(chunk)
                    sizes[fd] += len(chunk)
    if in_w >= 0:
        os.close(in_w)
    if not exited:
        kill_group()
        _, status, rusage = os.wait4(pid, 0)
    if pidfd >= 0:
        os.close(pidfd)
    wall = time.monotonic() - start
    assert rusage is not None
    cpu = rusage.ru_utime + rusage.ru_stime
    # under gVisor ru_maxrss has the same whole-mapping inflation as its RSS
    peak_kb = max(int(rusage.ru_maxrss), peak_sampled_kb) if baseline_kb is None else peak_sampled_kb
    oom_after = _oom_kill_count()
    oom_killed = oom_before is not None and oom_after is not None and oom_after > oom_before
    if limit_hit is None and cpu > float(limits["cpu_time_s"]):
        limit_hit = "time_cpu"
    if limit_hit is None and (oom_killed or peak_kb > mem_cap_kb):
        limit_hit = "memory"
    return {
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "cpu_time_s": round(cpu, 4),
        "wall_time_s": round(wall, 4),
        "peak_memory_kb": peak_kb,
        "stdout": b"".join(bufs[out_r]),
        "stderr": b"".join(bufs[err_r]),
        "stdout_truncated": truncated[out_r],
        "stderr_truncated": truncated[err_r],
        "limit_hit": limit_hit,
        "oom_killed": oom_killed,
        "result": b"".join(result_chunks) if res_r >= 0 else None,
    }
