# attack: a directory chain 1500 deep in the work dir (and in /tmp): whatever wipes
#   the sandbox afterwards must not recurse once per level (Python's recursion limit
#   is 1000) nor build paths past PATH_MAX.
# language: python
# expect: accepted
# expect_gvisor: time_limit_exceeded (file system calls are much slower on gVisor's ptrace platform: a 1500-deep chain costs more than the 1 s of CPU)
# expected_output: deep
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os

for root in (".", "/tmp"):
    fd = os.open(root, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
print("deep")
