# attack: look for any network interface other than loopback to reach out through.
# language: python
# expect: accepted
# expected_output: ['lo']
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import socket

print(sorted(name for _, name in socket.if_nameindex()))
