# attack: hard links to files outside the box, into the work dir, /tmp and /dev/shm:
#   the executor's sources, /etc/passwd, /usr/bin/python3, a program's own open
#   file through /proc/self/fd (linkat AT_SYMLINK_FOLLOW), the executor's own
#   binary through /proc/1/exe, and across the box's own mounts (work dir <-> /tmp
#   <-> /dev/shm). Every one must be refused (other file system: EXDEV, or no such
#   file where the target is not in the sandbox); links within one folder of the
#   program's own files are harmless (the wipe unlinks names, never targets) and
#   are made to check that.
# language: python
# expect: accepted
# expected_output: "refused 33\nown links ok"
# limits: {"time_limit_s": 2, "wall_time_limit_s": 4, "memory_limit_mb": 64}
import os

OUTSIDE = [
    "/opt/rewardbox/executor/server.py", "/opt/rewardbox/executor/harness.py", "/etc/passwd",
    "/etc/shadow", "/usr/bin/python3", "/proc/1/exe", "/proc/self/exe", "/proc/1/environ",
]
ROOTS = [".", "/tmp", "/dev/shm"]
refused = allowed = 0
for target in OUTSIDE:
    for root in ROOTS:
        try:
            os.link(target, os.path.join(root, "h-" + os.path.basename(target)))
            allowed += 1
            print("linked", target, "into", root)
        except OSError:
            refused += 1

# linkat(AT_SYMLINK_FOLLOW) of an fd opened on an outside file, via /proc/self/fd
for target in ("/opt/rewardbox/executor/server.py", "/usr/bin/python3"):
    try:
        fd = os.open(target, os.O_RDONLY)
    except OSError:
        refused += 1
        continue
    try:
        os.link(f"/proc/self/fd/{fd}", "h-fd", follow_symlinks=True)
        allowed += 1
        print("linked fd of", target)
    except OSError:
        refused += 1
    finally:
        os.close(fd)

# across the sandbox's own mounts
with open("own", "w") as f:
    f.write("mine")
with open("/tmp/own", "w") as f:
    f.write("mine")
for src, dst in (("own", "/tmp/x"), ("own", "/dev/shm/x"), ("/tmp/own", "x"), ("/tmp/own", "/dev/shm/y"),
                 ("/dev/null", "null"), ("/proc/self/status", "status"), ("/tmp", "tmpdir")):
    try:
        os.link(src, dst)
        allowed += 1
        print("linked", src, "to", dst)
    except OSError:
        refused += 1
print("refused", refused)

# within one file system: allowed, and only the names go at the wipe
os.link("own", "own2")
os.link("/tmp/own", "/tmp/own2")
os.mkdir("sub")
os.link("own", "sub/own3")
os.chmod("sub", 0o500)
print("own links ok" if os.stat("own").st_nlink == 3 and allowed == 0 else "own links odd")
