# attack: allocate and touch memory forever (bytes filled with data, so resident).
# language: python
# expect: memory_limit_exceeded
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
hoard = []
while True:
    hoard.append(b"x" * (8 << 20))
