// attack: create sleeping threads until pthread_create fails; a sandbox without a
//   pids/threads cap would let it create 20000 and print "uncapped".
// language: c
// expect: accepted
// expected_output: capped
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 128}
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *sleeper(void *arg) { (void)arg; for (;;) pause(); return NULL; }
int main(void) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < 20000; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, sleeper, NULL) != 0) {
            printf("capped\n");
            fflush(stdout);
            _exit(0);
        }
    }
    printf("uncapped\n");
    fflush(stdout);
    _exit(0);
}
