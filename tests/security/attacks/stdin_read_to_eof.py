# attack: block reading stdin until EOF; the judge must close stdin after the input,
#   so the read returns instead of hanging until the wall limit.
# language: python
# expect: accepted
# stdin: "some input\n"
# expected_output: eof 11
# limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
import sys

data = sys.stdin.buffer.read()
more = sys.stdin.buffer.read()
print("eof", len(data) + len(more))
