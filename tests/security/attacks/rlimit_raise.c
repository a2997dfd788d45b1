// attack: setrlimit(RLIMIT_CPU) and prlimit on the parent (the executor): raising the
//   own hard limit and changing another process's limits must both fail.
// language: c
// expect: accepted
// expected_output: "raise denied\nprlimit parent denied"
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
int main(void) {
    struct rlimit r;
    getrlimit(RLIMIT_CPU, &r);
    struct rlimit up = {RLIM_INFINITY, RLIM_INFINITY};
    printf("raise %s\n", setrlimit(RLIMIT_CPU, &up) == 0 ? "allowed" : "denied");
    struct rlimit low = {1, 1};
    printf("prlimit parent %s\n", prlimit(getppid(), RLIMIT_CPU, &low, NULL) == 0 ? "allowed" : "denied");
    return 0;
}
