# attack: a forked child takes 400 MiB (limit 64) and holds it; the main process
#   never waits for it and exits 0, so neither its RSS nor wait4's peak shows it.
# language: python
# expect: memory_limit_exceeded
# expected_output: done
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os
import time

if os.fork() == 0:
    hoard = b"x" * (400 << 20)
    time.sleep(30)
    os._exit(0)
time.sleep(1.5)
print("done", flush=True)
os._exit(0)
