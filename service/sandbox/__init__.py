"""Sandboxes: where untrusted code runs.

Theory of operation
-------------------
Processes, and who talks to whom::

    worker (host, trusted)                    sandbox (untrusted zone)
    ──────────────────────                    ─────────────────────────────────
    judge.Judge ── Session.call(frame) ──►    executor (server.py, uid 0 of the
       ▲            unix socket (docker)       sandbox, caps: SETUID SETGID KILL)
       │            or socketpair (local)        │ fork, setsid, rlimits,
       │                                         │ setuid(10001)
       │                                         ▼
       │                                      program / python harness (uid 10001)
       │                                         │ fork (harness only)
       │                                         ▼
       │                                      candidate process (uid 10001)
       └── verdicts, reward: computed here, from run records only

- The *docker* backend keeps a warm pool of containers per language, each with
  one long-lived executor; a job borrows a container, runs, and the executor's
  ``reset`` kills every process of the sandbox uids and wipes the work dir,
  /tmp and /dev/shm. A container whose reset reports anything left over, or
  whose executor stops answering, is destroyed and replaced, never reused.
- The *local* backend starts the same executor under bubblewrap for each job
  (fresh mount, pid, net, ipc, uts and cgroup namespaces; no network).

Threat model
------------
The submission is hostile and is rewarded for passing. It may try to escape
(no network, no capabilities, no_new_privs, read-only root, unprivileged uid,
pids/memory/cpu limits), to lie (the verdict is decided here from run records
and plain data; expected outputs never enter the sandbox), to starve the host
(limits on every resource, wall-clock deadlines on every wait), or to leave
something behind for the next job (reset, verified). A failure of ours is a
``SandboxError`` and the job's result is ``sandbox_error`` with reward null.
"""

from __future__ import annotations

from service.core.errors import BackendUnavailable
from service.core.settings import Settings
from service.sandbox.base import Backend, Session

__all__ = ["Backend", "Session", "create_backend"]


def create_backend(settings: Settings) -> Backend:
    """Build the backend the settings ask for; ``auto`` prefers docker.

    Raises BackendUnavailable when nothing can isolate code here.
    """
    from service.sandbox import local

    if settings.backend in ("docker", "auto"):
        from service.sandbox import docker_backend

        reason = docker_backend.engine_unavailable_reason()
        if reason is None:
            return docker_backend.DockerBackend(settings)
        if settings.backend == "docker":
            raise BackendUnavailable(f"docker backend requested but {reason}")
        local_reason = local.unavailable_reason()
        if local_reason is not None:
            raise BackendUnavailable(
                f"no sandbox backend can isolate code here: docker: {reason}; local: {local_reason}"
            )
        return local.LocalBackend(settings)
    local_reason = local.unavailable_reason()
    if local_reason is not None:
        raise BackendUnavailable(f"local backend requested but {local_reason}")
    return local.LocalBackend(settings)
