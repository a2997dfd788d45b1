"""Fixtures with real parts: a real Docker engine with the sandbox images,
real bubblewrap, gVisor's runsc registered with the engine. Set
REWARDBOX_REQUIRE_BACKENDS=docker,local,gvisor (CI does) to turn a missing
backend into a failure instead of a skip."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from service.core.settings import Settings
from service.judge.judge import Judge
from service.sandbox import docker_backend, local

REQUIRED = {b for b in os.environ.get("REWARDBOX_REQUIRE_BACKENDS", "").split(",") if b}


GVISOR_RUNTIME = "runsc"


def _unavailable(name: str) -> str | None:
    if name == "gvisor":
        reason = _unavailable("docker")
        if reason is None:
            import docker

            client = docker.from_env()
            try:
                if GVISOR_RUNTIME not in (client.info().get("Runtimes") or {}):
                    reason = "the Docker engine has no runsc runtime (.ci/run registers it in /etc/docker/daemon.json)"
            finally:
                client.close()
        return reason
    if name == "docker":
        reason = docker_backend.engine_unavailable_reason()
        if reason is None:
            import docker

            client = docker.from_env()
            try:
                client.images.get("rewardbox/sandbox-python:latest")
            except docker.errors.ImageNotFound:
                reason = "sandbox images not built (make images)"
            finally:
                client.close()
        return reason
    return local.unavailable_reason()


def require_backend(name: str) -> None:
    """Skip the test if backend ``name`` is unavailable; fail it instead when
    REWARDBOX_REQUIRE_BACKENDS names it."""
    reason = _unavailable(name)
    if reason is not None:
        if name in REQUIRED:
            pytest.fail(f"{name} backend required but unavailable: {reason}")
        pytest.skip(f"{name} backend unavailable: {reason}")


def make_judge(name: str, **overrides: object) -> Judge:
    require_backend(name)
    if name == "gvisor":
        name, overrides = "docker", {"docker_runtime": GVISOR_RUNTIME, **overrides}
    settings = Settings(backend=name, **overrides)  # type: ignore[arg-type]
    backend = docker_backend.DockerBackend(settings) if name == "docker" else local.LocalBackend(settings)
    return Judge(backend, settings)


@pytest.fixture(scope="session", params=["docker", "local"])
def judge(request: pytest.FixtureRequest) -> Iterator[Judge]:
    """A judge on each sandbox backend (the same tests run on both)."""
    j = make_judge(request.param)
    yield j
    j.backend.close()


@pytest.fixture(scope="session")
def docker_judge() -> Iterator[Judge]:
    j = make_judge("docker", pool_size=1)
    yield j
    j.backend.close()


@pytest.fixture(scope="session")
def gvisor_judge() -> Iterator[Judge]:
    """The docker backend with gVisor (runsc) as the container runtime."""
    j = make_judge("gvisor")
    yield j
    j.backend.close()
