# attack: connect to the gateway's port on the loopback address (127.0.0.1:8000).
# language: python
# expect: accepted
# expected_output: failed
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import socket

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(1)
try:
    s.connect(("127.0.0.1", 8000))
    print("connected")
except OSError:
    print("failed")
