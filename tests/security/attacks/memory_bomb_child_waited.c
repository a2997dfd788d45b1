// attack: the memory is used by a forked child, not the main process whose RSS is
//   sampled; the main process waits for the child, then exits 0.
// language: c
// expect: memory_limit_exceeded
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
    pid_t pid = fork();
    if (pid == 0) {
        size_t n = 400u << 20;
        volatile char *p = malloc(n);  /* volatile: -O2 must not elide it */
        for (size_t i = 0; p && i < n; i += 4096) p[i] = 1;
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    return 0;
}
