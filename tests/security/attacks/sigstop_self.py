# attack: SIGSTOP itself: the process never exits and uses no CPU.
# language: python
# expect: time_limit_exceeded
# reason_contains: wall
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os
import signal

print("stopping", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
print("resumed")
