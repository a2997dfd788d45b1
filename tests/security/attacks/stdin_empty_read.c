// attack: blocking read(2) on an empty stdin; it must see EOF at once.
// language: c
// expect: accepted
// expected_output: eof
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
#include <stdio.h>
#include <unistd.h>
int main(void) {
    char buf[64];
    while (read(0, buf, sizeof buf) > 0) {}
    printf("eof\n");
    return 0;
}
