"""The attack corpus: hostile programs as data (``attacks/<attack>.<ext>``), each
with its expected, user-caused verdict in a header comment, run on both
backends. After every attack a canary job in the same language (so on docker in
the same language pool) must see nothing left behind and be accepted.

Header keys (comment lines at the top of each file, in the file's language):

    attack:          how it works (continuation lines are indented)
    language:        the submission's language
    expect:          the verdict (never sandbox_error)
    expect_docker:   / expect_local / expect_gvisor: a backend's own verdict where
                     it differs, then why (gvisor defaults to the docker one)
    stdin:           / expected_output: text, or a JSON string when it starts with "
    limits:          a JSON object (LimitsRequest)
    flags:           a JSON list of result flags that must be present
    reason_contains: a text the test's reason or the compile log must contain
    xfail / xfail_docker / xfail_local: a known weakness (strict xfail, with why)
    repeat:          run attack + canary this many times (for racy attacks)
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.judge.judge import Judge
from service.models.result import Result
from service.models.submission import Submission
from service.models.verdict import Verdict

ATTACK_DIR = Path(__file__).parent / "attacks"
COMMENT = {".py": "#", ".sh": "#", ".c": "//", ".cpp": "//", ".go": "//", ".rs": "//", ".js": "//", ".java": "//"}
KEYS = {
    "attack", "language", "expect", "expect_docker", "expect_local", "expect_gvisor", "stdin", "expected_output", "limits",
    "flags", "reason_contains", "xfail", "xfail_docker", "xfail_local", "repeat",
}
USER_VERDICTS = {
    Verdict.accepted, Verdict.wrong_answer, Verdict.time_limit_exceeded, Verdict.memory_limit_exceeded,
    Verdict.output_limit_exceeded, Verdict.runtime_error, Verdict.compile_error,
}


@dataclass
class Attack:
    path: Path
    name: str
    language: str
    code: str
    expect: dict[str, Verdict]
    stdin: str = ""
    expected_output: str = ""
    limits: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    reason_contains: str | None = None
    xfail: dict[str, str] = field(default_factory=dict)
    repeat: int = 1

    def submission(self) -> Submission:
        return Submission.model_validate(
            {
                "language": self.language,
                "code": self.code,
                "tests": [{"type": "stdio", "input": self.stdin, "expected_output": self.expected_output}],
                "limits": self.limits,
            }
        )


def _text(value: str) -> str:
    return json.loads(value) if value.startswith('"') else value


def parse_attack(path: Path) -> Attack:
    prefix = COMMENT[path.suffix]
    code = path.read_text(encoding="utf-8")
    header: dict[str, str] = {}
    last = None
    for line in code.splitlines():
        if not line.startswith(prefix):
            break
        body = line[len(prefix):]
        match = re.match(r"^ ?([a-z_]+):\s?(.*)$", body)
        if match and match.group(1) in KEYS and not body.startswith("  "):
            last = match.group(1)
            header[last] = match.group(2).strip()
        elif last is not None:
            header[last] += " " + body.strip()
    missing = {"attack", "language", "expect"} - set(header)
    assert not missing, f"{path.name}: header lacks {sorted(missing)}"
    def verdict(key: str, default: str) -> Verdict:
        return Verdict(header.get(key, default).split()[0])  # text after the verdict says why

    expect = {backend: verdict(f"expect_{backend}", header["expect"]) for backend in ("docker", "local")}
    expect["gvisor"] = verdict("expect_gvisor", expect["docker"].value)
    for backend, verdict in expect.items():
        assert verdict in USER_VERDICTS, f"{path.name}: {verdict} on {backend} is not a user-caused verdict"
    xfail = {b: header[k] for b in ("docker", "local") for k in ("xfail", f"xfail_{b}") if k in header}
    return Attack(
        path=path,
        name=path.name,
        language=header["language"],
        code=code,
        expect=expect,
        stdin=_text(header.get("stdin", "")),
        expected_output=_text(header.get("expected_output", "")),
        limits=json.loads(header.get("limits", "{}")),
        flags=json.loads(header.get("flags", "[]")),
        reason_contains=header.get("reason_contains"),
        xfail=xfail,
        repeat=int(header.get("repeat", "1")),
    )


ATTACKS = [parse_attack(p) for p in sorted(ATTACK_DIR.iterdir()) if p.suffix in COMMENT]

# -- canaries: what the next job in the same language sees -------------------------

CANARY_PY = r"""
import os
def ls(d):
    try:
        return ",".join(sorted(os.listdir(d)))
    except OSError as exc:
        return f"<{exc.strerror}>"
procs = []
for pid in sorted(os.listdir("/proc")):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            status = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status") if ":" in l)
        except OSError:
            continue
        if status["Uid"].split()[0] == str(os.getuid()):
            procs.append(f"{pid}:{status['Name'].strip()}:{status['State'].split()[0]}")
print(f"tmp={ls('/tmp')} box={ls('.')} shm={ls('/dev/shm')} procs={','.join(procs)}")
"""

CANARY_C = r"""
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char names[512][256];
static int cmp(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }
static void ls(const char *label, const char *dir) {
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    if (d) {
        while ((e = readdir(d)) != NULL && n < 512) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                strncpy(names[n], e->d_name, 255);
                names[n++][255] = 0;
            }
        }
        closedir(d);
    } else {
        printf("%s=<unreadable> ", label);
        return;
    }
    qsort(names, n, sizeof names[0], cmp);
    printf("%s=", label);
    for (int i = 0; i < n; i++) printf("%s%s", i ? "," : "", names[i]);
    printf(" ");
}
int main(void) {
    ls("tmp", "/tmp");
    ls("box", ".");
    ls("shm", "/dev/shm");
    printf("procs=");
    DIR *d = opendir("/proc");
    struct dirent *e;
    int first = 1;
    while (d && (e = readdir(d)) != NULL) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        char path[64], line[256], name[64] = "?", state[8] = "?";
        snprintf(path, sizeof path, "/proc/%d/status", pid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int uid = -1;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "Name:", 5)) sscanf(line + 5, "%63s", name);
            if (!strncmp(line, "State:", 6)) sscanf(line + 6, "%7s", state);
            if (!strncmp(line, "Uid:", 4)) uid = atoi(line + 4);
        }
        fclose(f);
        if (uid == (int)getuid()) {
            printf("%s%d:%s:%s", first ? "" : ",", pid, name, state);
            first = 0;
        }
    }
    printf("\n");
    return 0;
}
"""

CANARY_SH = r"""
shopt -s nullglob dotglob
cd /tmp; tmp=(*); cd /dev/shm; shm=(*); cd "$HOME"; box=(*)
procs=()
for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
    uid=
    while read -r key value rest; do
        [[ $key == Uid: ]] && uid=$value
    done < "$p/status" 2>/dev/null
    [[ $uid == "$UID" ]] && procs+=("$pid")
done
IFS=,
echo "tmp=${tmp[*]} box=${box[*]} shm=${shm[*]} procs=${procs[*]}"
"""

CANARIES = {
    "python": (CANARY_PY, "tmp= box=main.py shm= procs="),
    "c": (CANARY_C, "tmp= box=main,main.c shm= procs="),
    "cpp": (CANARY_C, "tmp= box=main,main.cpp shm= procs="),
    "bash": (CANARY_SH, "tmp= box=main.sh shm= procs="),
}


def canary_submission(language: str) -> tuple[Submission, str]:
    code, expected = CANARIES[language]
    sub = Submission.model_validate(
        {
            "language": language,
            "code": code,
            "tests": [{"type": "stdio", "input": "", "expected_output": expected}],
            "limits": {"time_limit_s": 2, "wall_time_limit_s": 5},
        }
    )
    return sub, expected


# -- checks ----------------------------------------------------------------------------


def describe(result: Result) -> str:
    parts = [f"status={result.status} verdict={result.verdict} error={result.error!r}"]
    if result.compile is not None and result.compile.log:
        parts.append(f"compile log: {result.compile.log[:300]!r}...{result.compile.log[-200:]!r}")
    for test in result.tests:
        parts.append(
            f"test: verdict={test.verdict} reason={test.reason!r} exit={test.exit_code} signal={test.signal} "
            f"cpu={test.cpu_time_s} wall={test.wall_time_s} peak_kb={test.peak_memory_kb} "
            f"stdout={test.stdout[:300]!r} stderr={test.stderr[-500:]!r}"
        )
    parts.append(f"flags={result.flags}")
    return "\n".join(parts)


def check_attack(judge: Judge, attack: Attack, result: Result, backend: str | None = None) -> None:
    backend = backend or judge.backend.name
    why = describe(result)
    assert result.verdict != Verdict.sandbox_error, f"{attack.name} on {backend}: sandbox_error\n{why}"
    assert result.status == "completed", f"{attack.name} on {backend}\n{why}"
    assert result.verdict == attack.expect[backend], f"{attack.name} on {backend}\n{why}"
    if attack.reason_contains:
        said = " ".join(t.reason or "" for t in result.tests) + (result.compile.log if result.compile else "")
        assert attack.reason_contains in said, f"{attack.name} on {backend}: reason\n{why}"
    assert set(attack.flags) <= set(result.flags), f"{attack.name} on {backend}: flags\n{why}"
    if result.compile is not None:
        assert len(result.compile.log.encode()) <= judge.settings.compile_log_limit_bytes + 200, why


def run_canary(judge: Judge, language: str, after: str) -> None:
    sub, expected = canary_submission(language)
    result = judge.score(sub)
    assert result.status == "completed" and result.verdict == Verdict.accepted, (
        f"canary ({language}, {judge.backend.name}) after {after}: expected {expected!r}\n{describe(result)}"
    )


def local_sandboxes_gone(timeout_s: float = 5.0) -> list[str]:
    """bwrap processes this test process started and that are still alive."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            state, ppid = stat[stat.rindex(")") + 2 :].split()[:2]
            if int(ppid) == os.getpid() and comm == "bwrap" and state != "Z":
                alive.append(f"{entry}:{comm}")
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def xfail_for(request: pytest.FixtureRequest, attack: Attack, backend: str) -> None:
    if backend in attack.xfail:
        request.applymarker(pytest.mark.xfail(strict=True, reason=attack.xfail[backend]))


# -- containers: none left beyond the pools ---------------------------------------------

_DOCKER_BACKENDS: list[Any] = []


def _our_containers() -> set[str]:
    import docker

    from service.sandbox.docker_backend import LABEL, OWNER

    client = docker.from_env()
    try:
        return {
            c.name
            for c in client.containers.list(all=True, filters={"label": f"{LABEL}.owner={OWNER}"})
            if c.name.startswith("rewardbox-")
        }
    finally:
        client.close()


@pytest.fixture(scope="module", autouse=True)
def no_container_left_behind() -> Iterator[None]:
    from service.sandbox import docker_backend

    docker_up = docker_backend.engine_unavailable_reason() is None
    before = _our_containers() if docker_up else set()
    yield
    if not docker_up:
        return
    # replacements of destroyed sandboxes start in the background: let them settle
    deadline = time.monotonic() + 60
    while True:
        live: set[str] = set()
        over: list[str] = []
        for backend in _DOCKER_BACKENDS:
            with backend._pool_lock:
                sandboxes = list(backend._live)
                sizes = dict(backend._sizes)
            live |= {s.name for s in sandboxes}
            per_language: dict[str, int] = {}
            for s in sandboxes:
                per_language[s.spec.name] = per_language.get(s.spec.name, 0) + 1
            over += [
                f"{lang}: {n} live > pool {backend.settings.pool_size}"
                for lang, n in per_language.items()
                if n > backend.settings.pool_size
            ]
            over += [f"{lang}: pool size {n}" for lang, n in sizes.items() if n > backend.settings.pool_size]
        left = _our_containers() - before - live
        if (not left and not over) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert not left, f"sandbox containers left behind beyond the pools: {sorted(left)}"
    assert not over, f"pools above their size: {over}"


def _remember(judge: Judge) -> None:
    if judge.backend.name == "docker" and judge.backend not in _DOCKER_BACKENDS:
        _DOCKER_BACKENDS.append(judge.backend)


# -- the tests -------------------------------------------------------------------------


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack(judge: Judge, attack: Attack, request: pytest.FixtureRequest) -> None:
    """The attack gets its user-caused verdict; the next job in its language sees
    nothing of it and is accepted; on local its sandbox is gone."""
    _remember(judge)
    backend = judge.backend.name
    xfail_for(request, attack, backend)
    for round_ in range(attack.repeat):
        result = judge.score(attack.submission())
        check_attack(judge, attack, result)
        run_canary(judge, attack.language, f"{attack.name} (round {round_ + 1})")
        if backend == "local":
            alive = local_sandboxes_gone()
            assert not alive, f"bwrap sandboxes still running after {attack.name}: {alive}"


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_attack_then_canary_in_the_same_container(
    docker_judge: Judge, attack: Attack, request: pytest.FixtureRequest
) -> None:
    """Pool of one container per language: the canary runs where the attack ran
    (or in its replacement, if the reset found something left and destroyed it)."""
    _remember(docker_judge)
    xfail_for(request, attack, "docker")
    for round_ in range(attack.repeat):
        result = docker_judge.score(attack.submission())
        check_attack(docker_judge, attack, result)
        run_canary(docker_judge, attack.language, f"{attack.name} (round {round_ + 1})")


def test_corpus_is_well_formed() -> None:
    names = {a.name for a in ATTACKS}
    assert len(ATTACKS) >= 30
    for needed in (
        "fork_bomb.c", "thread_bomb.c", "memory_bomb.py", "infinite_loop.c", "sleep_past_wall.py",
        "stdin_read_to_eof.py", "read_own_pipe.py", "sigstop_self.py", "sigstop_group.sh",
        "disk_fill_bigfile_workdir.py", "disk_fill_many_files_tmp.py", "stdout_flood.py", "stderr_flood.py",
        "stdout_invalid_utf8.c", "net_egress_outside.py", "net_gateway_port.py", "net_redis.c",
        "env_allowlist.py", "proc_environ.py", "host_sockets.py", "kill_all.py", "kill_parent.py",
        "daemon_double_fork.py", "ptrace_attach.c", "rlimit_raise.py", "setuid_escalation.py",
        "compile_include_dev_random.c", "template_recursion_bomb.cpp", "compile_huge_error_log.cpp",
        "link_symlinks_out_of_box.py", "link_symlinked_dirs.sh", "link_hardlinks.py", "link_race_swap.py",
        "link_next_job_names.c",
    ):
        assert needed in names
    for attack in ATTACKS:
        assert attack.language in CANARIES, f"{attack.name}: no canary for {attack.language}"
