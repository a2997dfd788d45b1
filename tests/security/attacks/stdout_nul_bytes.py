# attack: NUL bytes (valid UTF-8) on stdout travel through the executor's frames
#   intact: the exact output with NULs is accepted.
# language: python
# expect: accepted
# expected_output: "a\u0000b\u0000\u0000c\n"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import sys

sys.stdout.write("a\0b\0\0c\n")
