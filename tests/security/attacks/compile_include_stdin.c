// attack: #include "/dev/stdin": the compiler's stdin must not be the host's nor a
//   pipe that never ends; it is the executor's (root's) pipe, which the compiler
//   (uid 10001) may not open: a prompt compile_error, not a hang.
// language: c
// expect: compile_error
// reason_contains: /dev/stdin: Permission denied
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 5}
#include "/dev/stdin"
#include <stdio.h>
int main(void) { printf("ok\n"); return 0; }
