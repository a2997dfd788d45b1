// attack: write(2) to stdout forever, ignoring errors; the output cap must stop it.
// language: c
// expect: output_limit_exceeded
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64, "output_limit_bytes": 1048576}
#include <string.h>
#include <unistd.h>
int main(void) {
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    for (;;) (void)!write(1, buf, sizeof buf);
}
