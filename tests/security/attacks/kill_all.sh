# attack: kill -9 -1 from a shell, then the same for SIGSTOP.
# language: bash
# expect: accepted
# expected_output: survived
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
kill -9 -1 2>/dev/null
kill -STOP -1 2>/dev/null
echo survived
