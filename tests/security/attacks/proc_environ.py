# attack: read the environment and memory of pid 1 and of the parent (the root
#   executor) through /proc. Memory must be refused. The environment is refused
#   under runc and bubblewrap; gVisor lets it be read, so what must hold there is
#   that it carries nothing but the container's PATH/HOSTNAME/HOME (no secret).
# language: python
# expect: accepted
# expected_output: "1 environ safe\n1 mem denied\nparent environ safe\nparent mem denied"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import os

HARMLESS = {b"PATH", b"HOSTNAME", b"HOME", b"TERM", b"container"}
for name, pid in (("1", 1), ("parent", os.getppid())):
    for what in ("environ", "mem"):
        try:
            with open(f"/proc/{pid}/{what}", "rb") as f:
                data = f.read(4096)
        except OSError:
            print(name, what, "safe" if what == "environ" else "denied")
            continue
        if what == "mem":
            print(name, what, "read", len(data))
            continue
        names = {item.split(b"=", 1)[0] for item in data.split(b"\0") if item}
        leaked = sorted(names - HARMLESS)
        print(name, what, "safe" if not leaked else f"leaks {leaked}")
