# attack: 16 MiB on stderr (kept: 1 MiB), then the right answer on stdout: stderr past
#   its cap is dropped, not fatal, so the run is accepted.
# language: python
# expect: accepted
# expected_output: 42
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import sys

chunk = "e" * 65536
for _ in range(256):
    sys.stderr.write(chunk)
sys.stderr.flush()
print(42)
