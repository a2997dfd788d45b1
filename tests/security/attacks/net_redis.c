// attack: connect to Redis on the loopback address (127.0.0.1:6379) and send PING.
// language: c
// expect: accepted
// expected_output: failed
// limits: {"time_limit_s": 1, "wall_time_limit_s": 3, "memory_limit_mb": 64}
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(6379);
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
        (void)!write(s, "PING\r\n", 6);
        printf("connected\n");
    } else {
        printf("failed\n");
    }
    return 0;
}
