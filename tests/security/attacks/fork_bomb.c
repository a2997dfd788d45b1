// attack: classic fork bomb: every process forks forever and ignores failures,
//   so the pids limit (docker) / RLIMIT_NPROC (local) is hit and all of them spin.
// language: c
// expect: time_limit_exceeded
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
#include <unistd.h>
int main(void) {
    for (;;) fork();
}
