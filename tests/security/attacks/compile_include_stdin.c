// attack: #include "/dev/stdin": the compiler's stdin must be
//   empty/closed, not the host's or a pipe that never ends.
// language: c
// expect: accepted
// expected_output: ok
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 5}
#include "/dev/stdin"
#include <stdio.h>
int main(void) { printf("ok\n"); return 0; }
