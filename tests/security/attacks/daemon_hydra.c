// attack: a daemon that keeps changing pid (fork, parent exits, every ~0.2 ms) in its
//   own session: a kill sweep that lists pids, then reads and kills them, can find
//   none alive in one pass while the newest child lives on. Racy: repeated 12 times.
// language: c
// expect: accepted
// expected_output: spawned
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
// repeat: 12
#include <stdio.h>
#include <unistd.h>
int main(void) {
    if (fork() == 0) {
        setsid();
        close(0); close(1); close(2);
        for (;;) {
            pid_t p = fork();
            if (p > 0) _exit(0);
            if (p < 0) usleep(1000);
            usleep(200);
        }
    }
    printf("spawned\n");
    return 0;
}
