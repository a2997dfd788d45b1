"""The backend interface and the host side of the executor channel."""

from __future__ import annotations

import logging
import select
import socket
import threading
from abc import ABC, abstractmethod
from typing import Any

from service.core.errors import SandboxError
from service.languages import LanguageSpec, registry
from service.sandbox.executor.protocol import (
    HEADER,
    MAX_FRAME_BYTES,
    ProtocolError,
    decode_body,
    encode_frame,
    source_version,
)

log = logging.getLogger(__name__)

# How long the host waits for an executor reply beyond the run's own deadline.
REPLY_MARGIN_S = 10.0
EXECUTOR_VERSION = source_version()


class Channel:
    """Frames over a connected stream socket, each reply bounded in time."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def _recv_exact(self, size: int) -> bytes:
        buf = bytearray()
        while len(buf) < size:
            chunk = self.sock.recv(min(size - len(buf), 1 << 20))
            if not chunk:
                raise ProtocolError("executor closed the connection")
            buf += chunk
        return bytes(buf)

    def call(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send one request, return its reply; raises SandboxError on any
        transport fault or time-out (the sandbox is then not reusable)."""
        try:
            self.sock.settimeout(timeout_s)
            self.sock.sendall(encode_frame(request))
            (size,) = HEADER.unpack(self._recv_exact(HEADER.size))
            if size > MAX_FRAME_BYTES:
                raise ProtocolError(f"reply of {size} bytes")
            return decode_body(self._recv_exact(size))
        except (OSError, ProtocolError) as exc:
            raise SandboxError(f"executor channel failed during {request.get('op')}: {exc}") from exc

    def idle_and_open(self) -> bool:
        """Between requests the executor sends nothing: a readable socket
        then means its end is closed (the executor or its container died)."""
        try:
            poller = select.poll()  # no FD_SETSIZE limit, unlike select()
            poller.register(self.sock, select.POLLIN)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class Session(ABC):
    """One job's exclusive use of one sandbox."""

    language: LanguageSpec

    @abstractmethod
    def call(self, request: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """One executor op (see executor/server.py); raises SandboxError."""


class Backend(ABC):
    """Hands out sandbox sessions per language."""

    name: str
    # RLIMIT_NPROC for programs, or None where the sandbox's pids limit holds them
    max_processes: int | None = None

    def __init__(self) -> None:
        self._offered: dict[str, str] | None = None
        self._lock = threading.Lock()

    @abstractmethod
    def session(self, language: str, memory_limit_mb: int) -> Any:
        """Context manager yielding a Session; on exit the sandbox is reset
        (or destroyed if anything is left over). Raises SandboxError."""

    @abstractmethod
    def candidate_languages(self) -> list[str]:
        """Languages this backend could offer (before self-tests)."""

    def wait_ready(self, timeout_s: float) -> bool:
        """Block (at most ``timeout_s``) until the backend can start
        sandboxes again after a fault, before a job is retried; False if it
        still cannot. Backends without a daemon are always ready."""
        return True

    def close(self) -> None:
        """Release every sandbox this backend holds."""

    def offered_languages(self) -> dict[str, str]:
        """{language: version} of the languages whose self-test passed."""
        with self._lock:
            if self._offered is None:
                self._offered = self._run_selftests()
            return dict(self._offered)

    def _run_selftests(self) -> dict[str, str]:
        from service.judge.selftest import run_selftest

        offered = {}
        for name in self.candidate_languages():
            ok, detail = run_selftest(self, registry()[name])
            if ok:
                offered[name] = detail
            else:
                log.warning("language %s not offered: self-test failed: %s", name, detail)
        return offered
