// attack: malloc and memset 8 MiB blocks forever.
// language: c
// expect: memory_limit_exceeded
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
#include <stdlib.h>
#include <string.h>
int main(void) {
    for (;;) {
        char *p = malloc(8 << 20);
        if (p) memset(p, 1, 8 << 20);
    }
}
