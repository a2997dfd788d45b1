"""The executor: a long-lived process inside the sandbox (stdlib only).

Started once per warm container (docker backend) or once per job inside
bubblewrap (local backend), as uid 0 of the sandbox with only CAP_SETUID,
CAP_SETGID, CAP_KILL (and CAP_CHOWN under bubblewrap). It never runs
submitted code in its own process: every program runs in a forked child that
has dropped to ``USER_UID`` (checkers to ``CHECKER_UID``), see spawn.py.

Requests are frames (protocol.py), answered in order, one job at a time:

    hello                         -> version, python, uids
    prepare {files}               -> write the job's files into the work dir
                                     (refused unless it and the scratch
                                     folders are empty, their space free)
    exec {argv|harness, ...}      -> one run record (spawn.run)
    fetch {paths}                 -> files the program wrote (base64), and
                                     why each other path is not returned
    reset                         -> kill every process of the sandbox uids,
                                     wipe work dir, /tmp, /dev/shm, and say
                                     whether anything survived

Usage: python3 -S -E -s server.py (--socket PATH | --stdio) [--box DIR]
"""

from __future__ import annotations

import argparse
import base64
import errno
import gc
import json
import os
import socket
import stat
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402
import plain  # noqa: E402
import spawn  # noqa: E402
from protocol import ProtocolError, read_frame, safe_relpath, source_version, write_frame  # noqa: E402

# Modules a candidate is likely to import, loaded once here so that a forked
# harness child finds them warm (fork of a warm interpreter instead of a new
# python3 per test). Only the standard library, never submitted code.
PRELOAD = (
    "typing", "collections", "itertools", "functools", "math", "heapq", "bisect",
    "re", "string", "random", "fractions", "decimal", "statistics", "copy",
    "operator", "dataclasses", "hashlib", "datetime",
)
USER_UID = 10001
CHECKER_UID = 10002
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
# Space a sandbox file system may have in use before a job: an empty tmpfs
# has none. More, and the job would not get the space it is promised.
IN_USE_SLACK_BYTES = 1 << 20
# How long reset waits for init to reap the processes it killed, seconds.
ZOMBIE_REAP_WAIT_S = 0.5


def resolve_argv0(argv0: str, env: dict[str, str], cwd: str) -> str:
    if "/" in argv0:
        return argv0 if argv0.startswith("/") else os.path.join(cwd, argv0)
    for folder in env.get("PATH", DEFAULT_PATH).split(":"):
        candidate = os.path.join(folder, argv0)
        if os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(f"{argv0} not found on PATH")


def _wipe(root: str) -> list[str]:
    """Remove everything under ``root`` without following links, iteratively
    (a tree thousands of levels deep must not exhaust the stack), working on
    directory fds so that no path grows past PATH_MAX. Returns what could not
    be removed."""
    failed: list[str] = []
    try:
        top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return failed
    # stack of (parent fd, name of this dir in parent, this dir's fd)
    stack: list[tuple[int, str, int]] = [(-1, root, top)]
    while stack:
        parent, name, fd = stack[-1]
        descended = False
        try:
            entries = list(os.scandir(fd))
        except OSError:
            entries = []
            failed.append(name)
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    try:
                        os.chmod(entry.name, 0o700, dir_fd=fd, follow_symlinks=False)
                    except (OSError, NotImplementedError, ValueError):
                        pass  # ValueError: it is a link now (glibc's EOPNOTSUPP)
                    child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                    stack.append((fd, entry.name, child))
                    descended = True
                    break
                os.unlink(entry.name, dir_fd=fd)
            except OSError:
                failed.append(entry.name)
        if descended:
            continue
        stack.pop()
        os.close(fd)
        if parent >= 0:
            try:
                os.rmdir(name, dir_fd=parent)
            except OSError:
                failed.append(name)
                # leave it; the parent's listing would find it again forever
                break
    for _, _, fd in stack:
        os.close(fd)
    return failed


class FetchRefused(Exception):
    """A fetched path that is not returned, and why (said to the user)."""


def _why_not(exc: OSError, dir_fd: int, name: str, where: str) -> str:
    """Why opening ``name`` (O_NOFOLLOW) failed, in words for the user."""
    link = f"{where} is a symbolic link; links are not followed"
    if exc.errno == errno.ELOOP:
        return link
    if exc.errno == errno.ENOENT:
        return f"{where} does not exist"
    if exc.errno == errno.ENOTDIR:
        # O_NOFOLLOW|O_DIRECTORY on a link is ENOTDIR too: look (racy, words only)
        try:
            mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            mode = 0
        if stat.S_ISLNK(mode):
            return link
        if stat.S_ISDIR(mode):
            return f"{where} changed while it was read (a symbolic link swapped in?); links are not followed"
        return f"{where} is not a directory"
    return f"{where}: {exc.strerror}"


def _read_inside(root: str, path: str, max_bytes: int) -> bytes:
    """At most ``max_bytes`` of the regular file ``path`` (validated relative)
    under ``root``, opened one component at a time with O_NOFOLLOW: a symbolic
    link anywhere on the way, a file on another file system (a mount, a /proc
    reached some other way), or anything but a regular file is refused with
    FetchRefused, as is a read error."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise FetchRefused(f"the work dir cannot be read: {exc.strerror}") from None
    try:
        root_dev = os.fstat(fd).st_dev
        parts = path.split("/")
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                child = os.open(part, flags, dir_fd=fd)
            except OSError as exc:
                raise FetchRefused(_why_not(exc, fd, part, "/".join(parts[: i + 1]))) from None
            os.close(fd)
            fd = child
        info = os.fstat(fd)
        if info.st_dev != root_dev:
            raise FetchRefused(f"{path} is not on the work dir's file system")
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a special file"
            raise FetchRefused(f"{path} is {kind}, not a regular file")
        chunks: list[bytes] = []
        left = max_bytes
        while left > 0:
            try:
                chunk = os.read(fd, min(left, 1 << 20))
            except OSError as exc:
                raise FetchRefused(f"{path} cannot be read: {exc.strerror}") from None
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _bytes_in_use(folder: str) -> int:
    """Space in use on the file system that holds ``folder``, if that is a
    mount of its own (the sandbox's tmpfs); 0 on the root file system (the
    executor started by hand), whose space is not the sandbox's."""
    path = os.path.realpath(folder)
    mount = path
    while not os.path.ismount(mount):
        mount = os.path.dirname(mount)
    if mount == "/":
        return 0
    fs = os.statvfs(path)
    return (fs.f_blocks - fs.f_bfree) * fs.f_frsize


def _live_processes(uids: tuple[int, ...], zombies: bool = False) -> list[int]:
    """Pids of this pid namespace's processes owned by ``uids`` (zombies only
    if ``zombies``)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                status = handle.read()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        zombie = fields.get("State", "").strip().startswith("Z")
        if int(fields.get("Uid", "-1 0").split()[0]) in uids and (zombies or not zombie):
            found.append(int(entry))
    return found


@contextmanager
def _identity(uid: int) -> Iterator[None]:
    """Act on files as ``uid`` (effective ids only; the saved uid stays 0 so
    the executor can return, and no process of ``uid`` may signal it)."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(uid)
    os.seteuid(uid)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


class Executor:
    def __init__(self, box: str, scratch: list[str]) -> None:
        self.box = box
        # Only folders private to this sandbox: reset wipes them.
        self.scratch = scratch
        self.version = source_version()
        self.oom_supported = spawn._oom_kill_count() is not None
        # uids whose processes may exist: reset sweeps only these
        self.uids_used: set[int] = {USER_UID}

    # -- ops ---------------------------------------------------------------
    def op_hello(self, _: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "version": self.version,
            "python": sys.version.split()[0],
            "uid": os.getuid(),
            "user_uid": USER_UID,
            "oom_counter": self.oom_supported,
        }

    def op_prepare(self, request: dict[str, Any]) -> dict[str, Any]:
        files: dict[str, str] = request["files"]
        for path in files:
            safe_relpath(path)
        if not os.path.isdir(self.box):
            os.makedirs(self.box, mode=0o700)
            if os.getuid() == 0:
                os.chown(self.box, USER_UID, USER_UID)
        # Nothing ran here since the reset: whatever fills the work dir now is
        # ours (a full disk), and must not become the program's failure.
        dirty = self._not_clean()
        if dirty:
            return {"ok": False, "error": "sandbox not clean before the job: " + "; ".join(dirty)}

        # Written with the sandbox uid's file-system identity: the files
        # belong to it, and no process of it runs between jobs.
        with _identity(USER_UID):
            for path, text in files.items():
                full = os.path.join(self.box, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
        return {"ok": True}

    def op_exec(self, request: dict[str, Any]) -> dict[str, Any]:
        role = request.get("role", "user")
        uid = CHECKER_UID if role == "checker" else USER_UID
        self.uids_used.add(uid)
        cwd = "/" if role == "checker" else self.box
        env = {
            "PATH": DEFAULT_PATH,
            "HOME": cwd,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": "/tmp",
            "PYTHONIOENCODING": "utf-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.update(request.get("env") or {})
        stdin = request.get("stdin", "").encode("utf-8", "surrogateescape")
        limits = request["limits"]
        mode = request.get("harness")
        argv = None
        target = None
        if mode:
            spec = request["spec"]
            entry = harness.MODES[mode]
            target = lambda fd: entry(spec, fd)  # noqa: E731
        else:
            argv = list(request["argv"])
            argv[0] = resolve_argv0(argv[0], env, cwd)
        try:
            record = spawn.run(argv=argv, stdin=stdin, limits=limits, uid=uid, cwd=cwd, env=env, target=target)
        except spawn.SpawnError as exc:
            return {"ok": False, "error": f"spawn failed: {exc}"}
        record["ok"] = True
        record["invalid_utf8"] = False
        for key in ("stdout", "stderr"):
            raw: bytes = record[key]
            try:
                record[key] = raw.decode("utf-8")
            except UnicodeDecodeError:
                record[key] = raw.decode("utf-8", "replace")
                record["invalid_utf8"] = True
        result = record.pop("result")
        if result is not None:
            try:
                record["result"] = json.loads(result) if result else None
            except ValueError:
                record["result"] = None
        return record

    def op_fetch(self, request: dict[str, Any]) -> dict[str, Any]:
        """Read back files the program left in the work dir (base64), each at
        most ``max_bytes``; never follows a link the program planted, at any
        component of the path. What is not returned is in ``errors`` with why."""
        max_bytes = int(request.get("max_bytes", 1 << 20))
        found: dict[str, str] = {}
        errors: dict[str, str] = {}
        with _identity(USER_UID):
            for path in request["paths"]:
                safe_relpath(path)
                try:
                    found[path] = base64.b64encode(_read_inside(self.box, path, max_bytes)).decode()
                except FetchRefused as exc:
                    errors[path] = str(exc)
        return {"ok": True, "files": found, "missing": list(errors), "errors": errors}

    def op_reset(self, _: dict[str, Any]) -> dict[str, Any]:
        """Kill every process of the sandbox uids, wipe the work dir and the
        scratch folders, and report whatever survived (the host then destroys
        the sandbox). No fork: kills use CAP_KILL, wipes the uid's identity."""
        anomalies: list[str] = []
        uids = (USER_UID, CHECKER_UID)
        quiet = 0
        for _ in range(500):
            # kill(-1) under the uid's identity reaches every process of it in
            # one atomic sweep (a pid-hopping fork loop cannot slip between a
            # listing and a kill); done until two listings in a row are empty.
            for uid in uids:
                with _identity(uid):
                    try:
                        os.kill(-1, 9)
                    except OSError:
                        pass
            if _live_processes(uids):
                quiet = 0
                time.sleep(0.001)
                continue
            quiet += 1
            if quiet >= 2:
                break
        else:
            anomalies += [f"process {pid} survived the reset" for pid in _live_processes(uids)]
        # The killed are zombies until init (docker-init) reaps them; the next
        # job must not see them in /proc, so wait for that (a zombie nobody
        # reaps makes the sandbox unclean, and it is replaced).
        deadline = time.monotonic() + ZOMBIE_REAP_WAIT_S
        while (zombies := _live_processes(uids, zombies=True)) and time.monotonic() < deadline:
            time.sleep(0.001)
        anomalies += [f"process {pid} not reaped after the reset" for pid in zombies]
        for uid in sorted(self.uids_used):
            with _identity(uid):
                failed = _wipe(self.box)
                for folder in self.scratch:
                    failed += _wipe(folder)
            anomalies += [f"could not remove {p}" for p in failed]
        self.uids_used = {USER_UID}
        anomalies += self._not_clean()
        return {"ok": True, "clean": not anomalies, "anomalies": anomalies[:20]}

    def _not_clean(self) -> list[str]:
        """What the work dir and scratch folders hold that a job must not
        find: any entry, or space in use on their file systems."""
        found = []
        # the work dir is 0700, the sandbox uid's: root without
        # CAP_DAC_OVERRIDE cannot list it
        with _identity(USER_UID):
            for folder in (self.box, *self.scratch):
                try:
                    left = os.listdir(folder)
                    used = _bytes_in_use(folder)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    found.append(f"{folder}: {exc.strerror}")
                    continue
                if left:
                    found.append(f"{folder} not empty: {sorted(left)[:5]}")
                if used > IN_USE_SLACK_BYTES:
                    found.append(f"{folder}: {used} bytes in use")
        return found

    # -- loop --------------------------------------------------------------
    def serve(self, reader: BinaryIO, writer: BinaryIO) -> None:
        while True:
            try:
                request = read_frame(reader)
            except ProtocolError:
                return
            handler = getattr(self, "op_" + str(request.get("op")), None)
            if handler is None:
                reply = {"ok": False, "error": f"unknown op {request.get('op')!r}"}
            else:
                try:
                    reply = handler(request)
                except Exception as exc:  # noqa: BLE001 - process boundary: report the fault, keep serving
                    reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            write_frame(writer, reply)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket")
    parser.add_argument("--stdio", action="store_true")
    parser.add_argument("--box", default="/sandbox/box")
    parser.add_argument("--preload", action="store_true", help="import PRELOAD now (warm pools)")
    parser.add_argument("--scratch", action="append", default=[], help="sandbox-private folder to wipe on reset")
    parser.add_argument("--memory-source", choices=spawn.MEMORY_SOURCES, default="rss",
                        help="how a run's memory is measured (spawn.py): sandbox under gVisor")
    args = parser.parse_args()
    spawn.memory_source = args.memory_source
    if args.preload:
        for name in PRELOAD:
            __import__(name)
    # Everything alive now is long-lived: keep it out of the collector so a
    # forked child does not copy-on-write the whole heap when gc runs.
    gc.collect()
    gc.freeze()
    executor = Executor(args.box, args.scratch)
    if args.stdio:
        reader = os.fdopen(os.dup(0), "rb")
        writer = os.fdopen(os.dup(1), "wb")
        # fds 0/1 are the host's pipes; children must not inherit them
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        executor.serve(reader, writer)
        return
    assert args.socket
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(args.socket)
    server.listen(4)
    while True:
        conn, _ = server.accept()
        with conn, conn.makefile("rb") as reader, conn.makefile("wb") as writer:
            executor.serve(reader, writer)


# plain is imported for the harness children (warm in the fork)
_ = plain

if __name__ == "__main__":
    main()
