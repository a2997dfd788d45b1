// attack: unbounded template recursion: the compiler gives up at its instantiation
//   depth limit: a compile_error, quickly.
// language: cpp
// expect: compile_error
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 10}
template <int N> struct Bomb { static const int value = Bomb<N + 1>::value + 1; };
int main() { return Bomb<0>::value; }
