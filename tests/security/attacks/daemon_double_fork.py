# attack: a classic double-fork daemon (setsid, stdio closed) left running after the
#   program exits, plus one that keeps stdout open; neither may survive the job.
# language: python
# expect: accepted
# expected_output: daemonized
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os
import time

for keep_stdout in (False, True):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if not keep_stdout:
                fd = os.open("/dev/null", os.O_RDWR)
                for n in (0, 1, 2):
                    os.dup2(fd, n)
            with open(f"/tmp/daemon-{os.getpid()}", "w") as f:
                f.write("alive")
            while True:
                time.sleep(0.05)
        os._exit(0)
    os.wait()
print("daemonized")
