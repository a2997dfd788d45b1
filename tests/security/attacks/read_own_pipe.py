# attack: block forever reading a pipe the program made itself (it holds the
#   write end): no CPU is used, only the wall-clock limit can end it.
# language: python
# expect: time_limit_exceeded
# reason_contains: wall
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os

r, w = os.pipe()
os.read(r, 1)
