// attack: PTRACE_ATTACH to PID 1 and to the parent (the root executor), and read the
//   parent's memory with process_vm_readv; all must fail.
// language: c
// expect: accepted
// expected_output: "pid1 denied\nparent denied\nvm_readv denied"
// limits: {"time_limit_s": 1, "wall_time_limit_s": 2, "memory_limit_mb": 64}
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>
int main(void) {
    pid_t parent = getppid();
    printf("pid1 %s\n", ptrace(PTRACE_ATTACH, 1, NULL, NULL) == 0 ? "attached" : "denied");
    printf("parent %s\n", ptrace(PTRACE_ATTACH, parent, NULL, NULL) == 0 ? "attached" : "denied");
    char buf[16];
    struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
    printf("vm_readv %s\n", process_vm_readv(parent, &local, 1, &remote, 1, 0) > 0 ? "read" : "denied");
    return 0;
}
