// attack: #include "/dev/random": the compiler reads an endless file (and grows its
//   memory); the compile time limit must stop it: a compile_error.
// language: c
// expect: compile_error
// reason_contains: compiler stopped
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 2}
#include "/dev/random"
int main(void) { return 0; }
