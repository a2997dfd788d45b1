# attack: write to stdout forever; the output cap must stop it.
# language: python
# expect: output_limit_exceeded
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64, "output_limit_bytes": 1048576}
import sys

chunk = "x" * 65536
while True:
    sys.stdout.write(chunk)
