# attack: write one file in the work dir until the disk is full; the write must fail
#   (ENOSPC/EFBIG) and the program reports it; nothing else may break.
# language: python
# expect: accepted
# expected_output: full
# limits: {"time_limit_s": 2, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import signal

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
block = b"x" * (1 << 20)
try:
    with open("big", "wb", buffering=0) as f:
        for _ in range(4096):
            f.write(block)
    print("not full after 4 GiB")
except OSError:
    print("full")
