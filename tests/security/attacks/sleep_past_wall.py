# attack: sleep (no CPU used) far past the wall-clock limit.
# language: python
# expect: time_limit_exceeded
# reason_contains: wall
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import time

time.sleep(600)
