"""Symbolic and hard links planted where the executor later reads or removes,
beyond what an attack file can express (test_attacks.py runs the link_* attacks
themselves, each followed by a canary):

- the targets of the links in the link_* attacks are intact afterwards, inside
  the sandbox (same container: pool of one) and on the host, and the reset was
  clean (the container was not destroyed for something it could not remove);
- the wipe itself, run as root with no uid to protect anything, neither
  follows links nor deletes outside files, even while links are being swapped
  in under it;
- ``fetch_files`` of /v1/run and /run_code never follows a link the program
  planted, at any component of the path: the response carries none of the
  target's content, says why per file, and is never a 5xx or a sandbox_error;
- ``fetch_files`` racing daemons that swap a file or a directory with a link.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.api.main import create_app
from service.judge.judge import Judge
from service.models.submission import RunRequest, Submission
from service.models.verdict import Verdict
from service.queue import inprocess
from service.sandbox.base import EXECUTOR_VERSION
from service.sandbox.executor.protocol import source_version
from service.sandbox.local import EXECUTOR_DIR
from tests.conftest import REQUIRED, _unavailable, make_judge
from tests.security.test_attacks import ATTACKS, check_attack, describe, run_canary

LINK_ATTACKS = [a for a in ATTACKS if a.name.startswith("link_")]


@pytest.fixture(scope="module", params=["docker", "local"])
def link_judge(request: pytest.FixtureRequest) -> Iterator[Judge]:
    """A judge per backend; on docker a pool of one container per language, so
    every job of a test runs in the container the attack ran in."""
    judge = make_judge(request.param, pool_size=1, cache_ttl_s=0)
    yield judge
    judge.backend.close()


def _containers(judge: Judge, language: str) -> set[str]:
    backend: Any = judge.backend
    if backend.name != "docker":
        return set()
    with backend._pool_lock:
        return {s.name for s in backend._live if s.spec.name == language}


def _job(language: str, code: str, stdin: str = "") -> Submission:
    return Submission.model_validate(
        {"language": language, "code": code, "tests": [{"type": "stdio", "input": stdin, "expected_output": ""}],
         "limits": {"time_limit_s": 2, "wall_time_limit_s": 5}}
    )


# -- the targets survive ---------------------------------------------------------------

# What the link_* attacks point at, as the sandbox sees it: a hash per file and
# per folder listing, "absent" where the sandbox has no such path.
INVENTORY = r"""
import hashlib, json, os, sys
out = {}
for path in sys.stdin.read().split():
    try:
        if os.path.isdir(path):
            out[path] = "dir " + hashlib.sha256("/".join(sorted(os.listdir(path))).encode()).hexdigest()
        else:
            with open(path, "rb") as f:
                out[path] = hashlib.sha256(f.read()).hexdigest()
    except FileNotFoundError:
        out[path] = "absent"
    except OSError as exc:
        out[path] = f"<{exc.strerror}>"
print(json.dumps(out, sort_keys=True))
"""
INSIDE_TARGETS = [
    "/opt/rewardbox/executor", "/opt/rewardbox", "/opt", "/etc", "/etc/passwd", "/etc/shadow", "/usr/bin/python3",
    "/usr/bin/gcc", "/usr/bin", "/", "/sandbox",
    *(f"/opt/rewardbox/executor/{n}" for n in sorted(os.listdir(EXECUTOR_DIR)) if n.endswith((".py", ".js"))),
]


def _inventory(judge: Judge, language: str) -> dict[str, Any]:
    """INVENTORY run as a job of ``language`` (so on docker in the container
    that language's attack ran in): python, or a C or bash program that execs
    the image's python3 on it."""
    script = f"import base64; exec(base64.b64decode('{base64.b64encode(INVENTORY.encode()).decode()}'))"
    code = {
        "python": INVENTORY,
        "c": "#include <unistd.h>\nint main(void) {\n"
        f'    execl("/usr/bin/python3", "python3", "-c", "{script}", (char *)0);\n    return 1;\n}}\n',
        "bash": f'exec /usr/bin/python3 -c "{script}"\n',
    }[language]
    result = judge.score(_job(language, code, " ".join(INSIDE_TARGETS)))
    assert result.status == "completed" and result.tests, describe(result)
    seen: dict[str, Any] = json.loads(result.tests[0].stdout)
    return seen


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _host_state(paths: list[Path]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for path in paths:
        if path.is_dir():
            state[str(path)] = sorted(os.listdir(path))
        elif path.exists():
            state[str(path)] = _sha(path)
        else:
            state[str(path)] = "absent"
    return state


@pytest.mark.parametrize("attack", LINK_ATTACKS, ids=[a.name for a in LINK_ATTACKS])
def test_link_targets_survive(link_judge: Judge, attack: Any, tmp_path: Path) -> None:
    """After the attack every link target is intact inside the sandbox and on
    the host, the executor's sources included, and the reset was clean."""
    backend = link_judge.backend.name
    # host paths the python attack also links to (given on its stdin): on the
    # local backend they exist only outside the sandbox
    canary_dir = tmp_path / "outside"
    (canary_dir / "sub").mkdir(parents=True)
    (canary_dir / "keep.txt").write_text("keep me")
    (canary_dir / "sub" / "keep2.txt").write_text("keep me too")
    host_paths = [canary_dir, canary_dir / "keep.txt", canary_dir / "sub", canary_dir / "sub" / "keep2.txt",
                  EXECUTOR_DIR, Path("/etc/passwd"), Path("/etc/shadow"), Path("/usr/bin/python3")]
    host_paths += sorted(EXECUTOR_DIR.glob("*.py"))
    host_before = _host_state(host_paths)
    inside_before = _inventory(link_judge, attack.language)
    if backend == "docker":
        # the image's executor is this host's: the hashes inside are the host's
        for name, digest in inside_before.items():
            if name.startswith("/opt/rewardbox/executor/"):
                assert digest == _sha(EXECUTOR_DIR / Path(name).name), name
    containers = _containers(link_judge, attack.language)

    # (only link_symlinks_out_of_box.py reads its stdin; the others ignore it)
    stdin = "\n".join(str(p) for p in (canary_dir, canary_dir / "keep.txt", canary_dir / "sub", EXECUTOR_DIR))
    hostile = dataclasses.replace(attack, stdin=stdin)
    for round_ in range(attack.repeat):
        result = link_judge.score(hostile.submission())
        check_attack(link_judge, hostile, result)
        if backend == "docker":
            assert _containers(link_judge, attack.language) == containers, (
                f"{attack.name} round {round_ + 1}: the reset was not clean, the container was replaced"
            )
        run_canary(link_judge, attack.language, attack.name)

    assert _inventory(link_judge, attack.language) == inside_before
    assert _host_state(host_paths) == host_before
    assert source_version() == EXECUTOR_VERSION


# -- the wipe as root, links swapped under it ------------------------------------------

WIPE_AS_ROOT = r"""
import ctypes, json, os, sys
sys.path.insert(0, "/opt/rewardbox/executor")
from protocol import source_version
from server import _wipe

libc = ctypes.CDLL(None, use_errno=True)
OUT, BOX = "/fs/outside", "/fs/box"   # one file system: hard links between them work

def tree(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            with open(path) as f:
                out[path] = (f.read(), os.stat(path).st_ino)
        out[dirpath] = sorted(dirnames + filenames)
    return out

def new_file(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    os.write(fd, text.encode())
    os.close(fd)

os.makedirs(OUT + "/d/e")
os.makedirs(BOX)
for path in (OUT + "/f", OUT + "/d/g", OUT + "/d/e/h"):
    new_file(path, "keep " + path)
before = tree(OUT)

os.chdir(BOX)
for i, target in enumerate((OUT, OUT + "/f", OUT + "/d", OUT + "/d/e/h", "../outside", "/", "/fs")):
    os.symlink(target, f"l{i}")
os.makedirs("a/b/c")
os.symlink(OUT + "/d", "a/b/c/d")
os.symlink("../../../outside", "a/b/up")
os.link(OUT + "/f", "a/hard")
os.link(OUT + "/d/e/h", "a/b/c/hard")
os.chmod("a/b/c", 0)
os.chdir("/")
failed = _wipe(BOX)
first = {"failed": failed, "left": os.listdir(BOX), "intact": tree(OUT) == before}

# a process swapping its own directories and files with links to OUT (never
# writing through a name that could be a link) while the wipe runs, over and
# over (a wipe ends only once nothing adds entries: the swapper stops by itself)
pid = os.fork()
if pid == 0:
    os.chdir(BOX)
    for n in range(3000):
        try:
            os.mkdir(f"r{n}")
            os.mkdir(f"r{n}/y")
            new_file(f"r{n}/y/z", "mine")
            os.symlink(OUT + "/d", f"s{n}")
            libc.renameat2(-100, f"r{n}".encode(), -100, f"s{n}".encode(), 2)
            new_file(f"t{n}", "mine")
            os.symlink(OUT + "/f", f"u{n}")
            os.replace(f"u{n}", f"t{n}")
            os.link(OUT + "/d/g", f"h{n}")
        except OSError:
            pass
    os._exit(0)
rounds = 0
while True:
    _wipe(BOX)
    rounds += 1
    if os.waitpid(pid, os.WNOHANG)[0] == pid:
        break
failed = _wipe(BOX)
print(json.dumps({"version": source_version(), "first": first, "rounds": rounds,
                  "raced": {"failed": failed, "left": os.listdir(BOX), "intact": tree(OUT) == before}}))
"""


def test_wipe_as_root_follows_no_link() -> None:
    """The executor's wipe, run as root (no uid left to protect outside files)
    in a throwaway container on the sandbox image, over links to files and
    folders outside, symlinked directories, a mode-000 directory, and a
    process swapping directories and files with links while it runs."""
    reason = _unavailable("docker")
    if reason is not None:
        if "docker" in REQUIRED:
            pytest.fail(reason)
        pytest.skip(reason)
    proc = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--read-only", "--user", "0:0", "--cap-drop", "ALL",
         "--cap-add", "CHOWN", "--cap-add", "FOWNER", "--cap-add", "DAC_OVERRIDE",
         "--tmpfs", "/fs:size=16m", "--pids-limit", "64", "--memory", "512m",
         "--label", "io.rewardbox.test=links", "rewardbox/sandbox-python:latest", "python3", "-S", "-c", WIPE_AS_ROOT],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["version"] == EXECUTOR_VERSION, "rebuild the images (make images)"
    assert report["first"] == {"failed": [], "left": [], "intact": True}, report
    assert report["rounds"] > 10, report
    assert report["raced"] == {"failed": [], "left": [], "intact": True}, report


# -- fetch_files through /v1/run and /run_code ------------------------------------------

PLANT_FOR_FETCH = r"""
import os
with open("ok.txt", "w") as f:
    f.write("fine")
os.link("ok.txt", "hard")
os.symlink("ok.txt", "ok_link")
for name, target in (("shadow", "/etc/shadow"), ("passwd", "/etc/passwd"), ("environ", "/proc/1/environ"),
                     ("self_environ", "/proc/self/environ"), ("server.py", "/opt/rewardbox/executor/server.py"),
                     ("exe", "/opt/rewardbox/executor"), ("etc", "/etc"), ("pself", "/proc/self"),
                     ("p1", "/proc/1"), ("root", "/"), ("tmp", "/tmp"), ("HOST", "__HOST__")):
    os.symlink(target, name)
os.makedirs("real/deeper")
os.symlink("/etc", "real/inner")
os.symlink("/opt/rewardbox/executor", "real/deeper/exe")
with open("/tmp/secret.txt", "w") as f:
    f.write("from tmp")
os.mkdir("adir")
os.mkfifo("fifo")
print("planted")
"""
LINKS = {
    "shadow": "shadow", "passwd": "passwd", "environ": "environ", "self_environ": "self_environ",
    "server.py": "server.py", "ok_link": "ok_link", "exe/server.py": "exe", "etc/passwd": "etc",
    "etc/shadow": "etc", "pself/environ": "pself", "pself/status": "pself", "pself/mem": "pself",
    "p1/environ": "p1", "root/etc/passwd": "root", "tmp/secret.txt": "tmp", "real/inner/passwd": "real/inner",
    "real/deeper/exe/server.py": "real/deeper/exe", "HOST": "HOST",
}
OTHERS = {"adir": "a directory", "fifo": "a special file", "missing.txt": "does not exist",
          "real/missing": "does not exist", "ok.txt/x": "not a directory"}
FETCH = ["ok.txt", "hard", *LINKS, *OTHERS]


def _plant_code(host_file: Path) -> str:
    return PLANT_FOR_FETCH.replace("__HOST__", str(host_file))


def _secrets(host_file: Path) -> list[bytes]:
    """Content that must appear nowhere in a response, raw or base64."""
    found = [host_file.read_bytes(), b"root:x:0:0", b"from tmp", (EXECUTOR_DIR / "server.py").read_bytes()[:40]]
    return found + [base64.b64encode(s)[:24] for s in found]


def _check_fetch(files: dict[str, str], errors: dict[str, str], text: str, host_file: Path) -> None:
    assert files == {"ok.txt": base64.b64encode(b"fine").decode(), "hard": base64.b64encode(b"fine").decode()}
    assert set(errors) == set(FETCH) - set(files), errors
    for path, link in LINKS.items():
        assert f"{link} is a symbolic link; links are not followed" in errors[path], (path, errors[path])
    for path, why in OTHERS.items():
        assert why in errors[path], (path, errors[path])
    for secret in _secrets(host_file):
        assert secret.decode(errors="replace") not in text, secret


@pytest.fixture(scope="module")
def client(link_judge: Judge) -> Iterator[TestClient]:
    """The gateway in standalone mode on the module's backend (whose language
    self-tests already ran); closing it leaves the backend to its fixture."""
    settings = link_judge.settings
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(inprocess, "create_backend", lambda _settings: link_judge.backend)
        queue = inprocess.InProcessQueue(settings)
    patch_close = queue.pool.shutdown
    queue.close = lambda: patch_close(wait=False, cancel_futures=True)  # type: ignore[method-assign]
    with TestClient(create_app(settings, queue=queue)) as test_client:
        yield test_client


def test_v1_run_fetch_follows_no_link(client: TestClient, link_judge: Judge, tmp_path: Path) -> None:
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("host secret")
    containers = _containers(link_judge, "python")
    response = client.post("/v1/run", json={"language": "python", "code": _plant_code(host_file),
                                            "fetch_files": FETCH})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "completed" and body["verdict"] == "accepted", body
    assert body["stdout"] == "planted\n"
    _check_fetch(body["files"], body["file_errors"], response.text, host_file)
    assert host_file.read_text() == "host secret"
    assert _containers(link_judge, "python") == containers, "the reset was not clean"
    run_canary(link_judge, "python", "fetch through links (/v1/run)")


def test_run_code_fetch_follows_no_link(client: TestClient, link_judge: Judge, tmp_path: Path) -> None:
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("host secret")
    response = client.post("/run_code", json={"language": "python", "code": _plant_code(host_file),
                                              "fetch_files": FETCH, "run_timeout": 5})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "Success", body
    assert body["run_result"]["stdout"] == "planted\n"
    _check_fetch(body["files"], body["file_errors"], response.text, host_file)
    run_canary(link_judge, "python", "fetch through links (/run_code)")


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "a/../../etc/passwd", "./x", "a//b", ""])
def test_fetch_paths_outside_are_422(client: TestClient, path: str) -> None:
    for route, extra in (("/v1/run", {}), ("/run_code", {"run_timeout": 5})):
        response = client.post(route, json={"language": "python", "code": "print(1)", "fetch_files": [path], **extra})
        assert response.status_code == 422, (route, path, response.text)
        assert "fetch_files" in response.text, response.text


RACE = r"""
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)

def swap(outside_file, outside_dir, name):
    # "f" is a file or a link to outside_file; "d" a directory holding `name`
    # ("mine") or a link to outside_dir, which holds a file of that name too
    os.mkdir("d")
    with open(f"d/{name}", "w") as f:
        f.write("mine")
    os.symlink(outside_dir, "dl")
    while True:
        with open("f.tmp", "w") as f:
            f.write("mine")
        os.replace("f.tmp", "f")
        os.symlink(outside_file, "l.tmp")
        os.replace("l.tmp", "f")
        libc.renameat2(-100, b"d", -100, b"dl", 2)

for sub, outside_file, outside_dir, name in (("a", "/etc/passwd", "/opt/rewardbox/executor", "server.py"),
                                             ("b", "/opt/rewardbox/executor/server.py", "/etc", "passwd")):
    os.mkdir(sub)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.chdir(sub)
            try:
                swap(outside_file, outside_dir, name)
            finally:
                os._exit(0)
        os._exit(0)
    os.wait()
time.sleep(0.1)
print("racing")
"""
RACE_FETCH = ["a/f", "a/d/server.py", "b/f", "b/d/passwd"]


def test_fetch_races_links_swapped_in(link_judge: Judge) -> None:
    """Daemons swap a file and a directory with links to outside ones while the
    job ends and its files are fetched: each fetched file is the program's own
    ("mine") or refused with a reason, never the outside file; repeated."""
    containers = _containers(link_judge, "python")
    for round_ in range(8):
        result = link_judge.run(RunRequest(language="python", code=RACE, fetch_files=RACE_FETCH,
                                           limits={"time_limit_s": 2, "wall_time_limit_s": 4}))
        assert result.status == "completed" and result.verdict == Verdict.accepted, result
        assert result.stdout == "racing\n"
        for path, data in result.files.items():
            assert base64.b64decode(data) == b"mine", (round_, path, base64.b64decode(data)[:80])
        for path, why in result.file_errors.items():
            assert any(w in why for w in ("links are not followed", "does not exist")), (path, why)
        assert set(result.files) | set(result.file_errors) == set(RACE_FETCH)
        assert _containers(link_judge, "python") == containers, f"round {round_ + 1}: the reset was not clean"
        run_canary(link_judge, "python", f"fetch race (round {round_ + 1})")
