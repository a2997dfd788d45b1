# attack: fill the work dir with many 16 KiB files until creating or writing one fails.
# language: python
# expect: accepted
# expect_gvisor: time_limit_exceeded (file system calls are much slower on gVisor's ptrace platform: the fill does not end within the wall limit)
# expected_output: full
# limits: {"time_limit_s": 2, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os

block = b"y" * 16384
os.mkdir("many")
try:
    for i in range(1_000_000):
        fd = os.open(f"many/{i}", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.write(fd, block)
        finally:
            os.close(fd)
    print("not full after a million files")
except OSError:
    print("full")
