# attack: SIGKILL / SIGSTOP the parent (the executor) and PID 1; both must be refused.
# language: python
# expect: accepted
# expected_output: "denied denied\ndenied denied"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os
import signal

for pid in (os.getppid(), 1):
    said = []
    for sig in (signal.SIGKILL, signal.SIGSTOP):
        try:
            os.kill(pid, sig)
            said.append("sent")
        except OSError:
            said.append("denied")
    print(*said)
