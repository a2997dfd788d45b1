# attack: a background child, then SIGSTOP to the whole process group (kill -STOP 0):
#   the shell, its child and anything else in the group stop.
# language: bash
# expect: time_limit_exceeded
# reason_contains: wall
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
sleep 300 &
kill -STOP 0
echo resumed
