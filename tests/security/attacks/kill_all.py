# attack: kill(-1, SIGKILL): every process the program may signal. It must reach
#   neither the executor nor PID 1 (Linux spares the caller itself); the job still
#   gets its verdict and the next job runs.
# language: python
# expect: accepted
# expected_output: survived
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os
import signal

try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
print("survived")
