// attack: spin forever on the CPU.
// language: c
// expect: time_limit_exceeded
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
int main(void) {
    volatile unsigned long n = 0;
    for (;;) n++;
}
