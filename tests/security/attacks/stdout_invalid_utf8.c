// attack: bytes that are not UTF-8 (and NULs) on stdout: the judge must not crash on
//   them; the output is simply not the expected one.
// language: c
// expect: wrong_answer
// expected_output: hello
// flags: ["invalid_utf8_output"]
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
#include <unistd.h>
int main(void) {
    static const char out[] = "\xff\xfe\xc3\x28hel\0lo\x80\n";
    (void)!write(1, out, sizeof out - 1);
    return 0;
}
