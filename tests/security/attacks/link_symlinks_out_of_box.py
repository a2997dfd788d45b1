# attack: plant symbolic links where the between-jobs wipe walks: in the work dir,
#   /tmp and /dev/shm, links to files and folders outside the box (the executor's
#   own sources, /etc/passwd, /etc, /usr, /, /proc/1/root, /proc/self/cwd, the
#   socket folder, host paths that exist only outside a local sandbox, and any
#   paths given on stdin), the program's own main.py replaced by a link to
#   server.py, links at the names the next job writes (main.c, main, main.sh, ...),
#   symlinked directories nested in real ones (one left mode 000), relative links
#   climbing out (../../..), loops and a link to itself. A wipe that followed a
#   link would delete outside files; the canary proves the box is empty and the
#   executor still writes a fresh main.py, test_links.py checks every target.
# language: python
# expect: accepted
# expected_output: planted
# limits: {"time_limit_s": 2, "wall_time_limit_s": 4, "memory_limit_mb": 64}
import os
import sys

TARGETS = [
    "/opt/rewardbox/executor/server.py", "/opt/rewardbox/executor/spawn.py", "/opt/rewardbox/executor",
    "/opt/rewardbox", "/opt", "/etc/passwd", "/etc/shadow", "/etc", "/usr/bin/python3", "/usr/bin", "/usr",
    "/", "/proc/1/root", "/proc/1/cwd", "/proc/self/cwd", "/proc/1/environ", "/sandbox", "/sandbox/box",
    "/run/rewardbox", "/run/rewardbox/executor.sock", "/var/run/docker.sock", "/root", "/home", "/work",
    "/var/lib/docker", "/tmp", "/dev/shm", "/dev/null",
]
TARGETS += [line.strip() for line in sys.stdin if line.strip()]
for i, target in enumerate(TARGETS):
    for root in (".", "/tmp", "/dev/shm"):
        os.symlink(target, os.path.join(root, f"l{i}"))

# the program's own source, and the names the next job's files get
os.unlink("main.py")
os.symlink("/opt/rewardbox/executor/server.py", "main.py")
for name in ("main.c", "main.cpp", "main", "main.sh", "Main.java", "main.go", "main.rs", "main.js"):
    os.symlink("/opt/rewardbox/executor/server.py", name)
    os.symlink("/etc/passwd", os.path.join("/tmp", name))

# symlinked directories inside real ones, relative links that climb out
os.makedirs("a/b/c")
os.symlink("/opt/rewardbox/executor", "a/b/c/exe")
os.symlink("/etc", "a/b/etc")
os.symlink("../../..", "a/b/c/up")
os.symlink("../../../../../../..", "a/b/c/top")
os.symlink("/", "a/root")
os.makedirs("/tmp/x/y")
os.symlink("/opt/rewardbox/executor", "/tmp/x/y/exe")
os.symlink("/sandbox/box", "/tmp/x/box")
os.symlink("/tmp", "z")
os.chmod("a/b/c", 0)
os.chmod("/tmp/x/y", 0o500)

# loops, a link to itself, a dangling link, a target as long as a path may be
os.symlink("loop2", "loop1")
os.symlink("loop1", "loop2")
os.symlink("self", "self")
os.symlink("/nonexistent/" + "n" * 200, "dangling")
os.symlink("/" + "/".join(["d" * 200] * 19), "long")

assert os.readlink("main.py") == "/opt/rewardbox/executor/server.py"
print("planted")
