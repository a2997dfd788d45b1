# attack: read the environment and memory of pid 1 and of the parent (the root
#   executor) through /proc; both must be refused.
# language: python
# expect: accepted
# expected_output: "1 environ denied\n1 mem denied\nparent environ denied\nparent mem denied"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os

for name, pid in (("1", 1), ("parent", os.getppid())):
    for what in ("environ", "mem"):
        try:
            with open(f"/proc/{pid}/{what}", "rb") as f:
                data = f.read(4096)
            print(name, what, "read", len(data))
        except OSError:
            print(name, what, "denied")
