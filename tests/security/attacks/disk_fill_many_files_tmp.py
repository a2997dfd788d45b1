# attack: fill /tmp (and /dev/shm) with many 16 KiB files until that fails.
# language: python
# expect: accepted
# expect_gvisor: time_limit_exceeded (file system calls are much slower on gVisor's ptrace platform: the fill does not end within the wall limit)
# expected_output: full full
# limits: {"time_limit_s": 2, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os

block = b"y" * 16384
said = []
for root in ("/tmp", "/dev/shm"):
    try:
        for i in range(1_000_000):
            fd = os.open(f"{root}/f{i}", os.O_WRONLY | os.O_CREAT, 0o644)
            try:
                os.write(fd, block)
            finally:
                os.close(fd)
        said.append("not-full")
    except OSError:
        said.append("full")
print(*said)
