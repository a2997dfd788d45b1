# attack: fork bomb whose children call setsid() to leave the run's process group,
#   so killing the group does not reach them; they must still die with the job.
#   The memory limit counts the resident sets of all its processes (copy-on-write
#   pages count in each), so the forked interpreters pass 64 MiB long before the
#   wall clock runs out.
# language: python
# expect: memory_limit_exceeded
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os

while True:
    try:
        if os.fork() == 0:
            try:
                os.setsid()
            except OSError:
                pass
    except OSError:
        pass
