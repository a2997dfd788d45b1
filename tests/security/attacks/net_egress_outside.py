# attack: open a TCP connection to an outside address (192.0.2.1, TEST-NET-1, never
#   routable, 1 s timeout) and send it a UDP datagram; both must fail.
# language: python
# expect: accepted
# expected_output: "tcp failed\nudp failed"
# limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
import socket

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(1)
try:
    s.connect(("192.0.2.1", 80))
    print("tcp connected")
except OSError:
    print("tcp failed")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("192.0.2.1", 53))
    print("udp sent")
except OSError:
    print("udp failed")
