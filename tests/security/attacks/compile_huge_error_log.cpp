// attack: a small source whose macros expand to 100000 errors: the compiler's log is
//   capped (truncated) and the verdict is a compile_error.
// language: cpp
// expect: compile_error
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 10}
#define E0 undeclared_name_number_one; undeclared_name_number_two;
#define E1 E0 E0 E0 E0 E0 E0 E0 E0 E0 E0
#define E2 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1
#define E3 E2 E2 E2 E2 E2 E2 E2 E2 E2 E2
#define E4 E3 E3 E3 E3 E3 E3 E3 E3 E3 E3
#define E5 E4 E4 E4 E4 E4 E4 E4 E4 E4 E4
int main() { E5 return 0; }
