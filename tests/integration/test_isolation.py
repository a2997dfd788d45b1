"""What one job leaves behind cannot reach the next one in the same pooled
container, and the sandbox has no network."""

from __future__ import annotations

from service.judge.judge import Judge
from service.models.submission import Submission
from service.models.verdict import Verdict

PLANT = r"""
import os, subprocess
open('/tmp/secret', 'w').write('job one')
open('left_in_box', 'w').write('job one')
open('/dev/shm/shm_secret', 'w').write('job one')
subprocess.Popen(['sleep', '300'], start_new_session=True)   # a daemon
if os.fork() == 0:                                           # a double fork
    os.setsid()
    if os.fork() == 0:
        import time; time.sleep(300)
    os._exit(0)
print('planted')
"""

LOOK = r"""
import os
seen = sorted(os.listdir('/tmp')) + sorted(os.listdir('.')) + sorted(os.listdir('/dev/shm'))
mine = os.getpid()
procs = []
for pid in os.listdir('/proc'):
    if pid.isdigit() and int(pid) != mine:
        try:
            uid = [l for l in open(f'/proc/{pid}/status') if l.startswith('Uid:')][0].split()[1]
        except OSError:
            continue
        if uid == str(os.getuid()):
            procs.append(open(f'/proc/{pid}/cmdline').read().replace('\0', ' '))
print(seen, procs)
"""


def _one(judge: Judge, code: str, expected: str) -> Submission:
    return Submission.model_validate(
        {"language": "python", "code": code, "tests": [{"type": "stdio", "input": "", "expected_output": expected}]}
    )


def test_next_job_sees_no_files_or_processes(docker_judge: Judge) -> None:
    # pool_size=1: both jobs run in the same warm container
    planted = docker_judge.score(_one(docker_judge, PLANT, "planted"))
    assert planted.verdict == Verdict.accepted
    looked = docker_judge.score(_one(docker_judge, LOOK, "['main.py'] []"))
    assert looked.verdict == Verdict.accepted, looked.tests[0].stdout


def test_no_network(judge: Judge) -> None:
    code = r"""
import socket
for host, port in (("127.0.0.1", 6379), ("10.255.255.1", 80), ("::1", 8000)):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect((host, port))
        print("connected", host)
    except OSError:
        pass
print("isolated")
"""
    result = judge.score(_one(judge, code, "isolated"))
    assert result.verdict == Verdict.accepted, result.tests[0].stdout + result.tests[0].stderr


def test_runs_as_unprivileged_uid_with_read_only_system(judge: Judge) -> None:
    code = r"""
import os
print(os.getuid() != 0, os.getgid() != 0)
try:
    open('/usr/bin/pwned', 'w')
    print('wrote /usr')
except OSError:
    print('read-only')
print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])
"""
    result = judge.score(_one(judge, code, "True True\nread-only\n0000000000000000"))
    assert result.verdict == Verdict.accepted, result.tests[0].stdout + result.tests[0].stderr
