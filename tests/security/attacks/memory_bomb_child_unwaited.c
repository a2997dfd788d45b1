// attack: as memory_bomb_child_unwaited.py, in C: a forked child takes 400 MiB
//   (limit 64) and sleeps; the main process exits 0 without waiting for it.
// language: c
// expect: memory_limit_exceeded
// expected_output: done
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {
    if (fork() == 0) {
        size_t n = 400u << 20;
        volatile char *p = malloc(n);  /* volatile: -O2 must not elide it */
        for (size_t i = 0; p && i < n; i += 4096) p[i] = 1;
        sleep(30);
        _exit(0);
    }
    sleep(1);
    sleep(1);
    printf("done\n");
    fflush(stdout);
    _exit(0);
}
