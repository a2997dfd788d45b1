# attack: look for the Docker socket and the executors' socket folder
#   (/run/rewardbox): the Docker socket must be absent, the socket folder not
#   listable, and the executor's socket not connectable.
# language: python
# expect: accepted
# expected_output: "docker.sock absent\n/run/rewardbox hidden\nexecutor.sock refused"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import os
import socket

paths = ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock")
print("docker.sock", "present" if any(os.path.exists(p) for p in paths) else "absent")
try:
    print("/run/rewardbox listed", os.listdir("/run/rewardbox"))
except OSError:
    print("/run/rewardbox hidden")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("/run/rewardbox/executor.sock")
    print("executor.sock connected")
except OSError:
    print("executor.sock refused")
