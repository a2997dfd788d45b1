"""gVisor (``REWARDBOX_DOCKER_RUNTIME=runsc``): the docker backend's hardened
runtime option. Programs run on gVisor's user-space kernel; every conformance
case must reach the same verdict as under runc, and the hostile programs of
the attack corpus the same user-caused verdicts, with nothing left behind."""

from __future__ import annotations

import os

import docker
import pytest

from service.judge.judge import Judge
from service.models.submission import Submission
from tests.integration.test_conformance import CASES
from tests.security.test_attacks import ATTACKS, Attack, check_attack, run_canary

# gVisor reports its own kernel, not the host's
PRINT_KERNEL = "import platform\nprint(platform.release())\n"


def test_programs_run_on_gvisors_kernel(gvisor_judge: Judge) -> None:
    result = gvisor_judge.score(Submission.model_validate({
        "language": "python", "code": PRINT_KERNEL, "tests": [{"type": "stdio", "input": "", "expected_output": ""}],
    }))
    kernel = result.tests[0].stdout.strip()
    assert kernel and kernel != os.uname().release, "the program saw the host's kernel: not gVisor"
    client = docker.from_env()
    try:
        from service.sandbox.docker_backend import LABEL, OWNER

        ours = client.containers.list(filters={"label": f"{LABEL}.owner={OWNER}"})
        runtimes = {c.attrs["HostConfig"]["Runtime"] for c in ours}
    finally:
        client.close()
    assert "runsc" in runtimes


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_conformance_case_on_gvisor(gvisor_judge: Judge, case: dict) -> None:
    submission = Submission.model_validate(case["submission"])
    assert submission.language in gvisor_judge.backend.offered_languages(), (
        f"{submission.language} failed its self-test under gVisor"
    )
    result = gvisor_judge.score(submission)
    assert result.verdict.value == case["expect"], (case["why"], [(t.verdict, t.reason) for t in result.tests])
    assert result.status == "completed"


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_on_gvisor(gvisor_judge: Judge, attack: Attack) -> None:
    """The attack's verdict under gVisor (``expect_gvisor``, else the docker
    one); the next job in its language sees nothing left and is accepted."""
    result = gvisor_judge.score(attack.submission())
    check_attack(gvisor_judge, attack, result, backend="gvisor")
    run_canary(gvisor_judge, attack.language, attack.name)


def test_every_language_is_offered_under_gvisor(gvisor_judge: Judge) -> None:
    offered = gvisor_judge.backend.offered_languages()
    assert set(offered) == set(gvisor_judge.backend.candidate_languages())
