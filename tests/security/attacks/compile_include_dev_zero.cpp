// attack: #include "/dev/zero" in C++: an endless stream of NUL bytes for the
//   preprocessor; stopped by the compile time (or memory) limit: a compile_error.
// language: cpp
// expect: compile_error
// reason_contains: compiler stopped
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 2}
#include "/dev/zero"
int main() { return 0; }
