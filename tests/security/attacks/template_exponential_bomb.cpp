// attack: every instantiation needs two new distinct ones, 40 levels deep (2^40 in
//   all, far below the depth limit): the compiler would run for ever; the compile
//   time limit stops it: a compile_error.
// language: cpp
// expect: compile_error
// reason_contains: compiler stopped
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64, "compile_time_limit_s": 3}
template <class A, class B> struct P {};
template <class T, int N> struct Fan {
    static const int v = Fan<P<T, int>, N - 1>::v + Fan<P<int, T>, N - 1>::v;
};
template <class T> struct Fan<T, 0> { static const int v = 1; };
int main() { return Fan<int, 40>::v; }
