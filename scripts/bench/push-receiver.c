/*
 * push-receiver: a lean webhook receiver for the push benchmark (scripts/bench/push-throughput.py).
 *
 * One thread, epoll, HTTP/1.1 keep-alive: every request is answered "204 No Content" and the
 * value of its Hearth-Push-Id header is appended, one per line, to the file given with --ids.
 * Optional --nice N lowers its own priority (a receiver on the same 2 cores as the server takes
 * CPU from it: the benchmark says how it ran). It exits after --seconds (a bound) or on SIGTERM,
 * flushing the ids. Loopback only: it binds 127.0.0.1.
 *
 *   cc -O2 -o /tmp/push-receiver scripts/bench/push-receiver.c
 *   /tmp/push-receiver --port 0 --ids /tmp/ids.txt --seconds 600   # prints "port N" on stdout
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 4096
#define BUF_SIZE 65536

struct conn {
    int fd;
    size_t len;
    char buf[BUF_SIZE];
};

static volatile sig_atomic_t stop_requested = 0;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static struct conn *conns[MAX_CONNS + 16];
static unsigned long requests = 0;

/* Handles every complete request in the buffer; returns -1 to close the connection. */
static int serve(struct conn *c, FILE *ids) {
    size_t start = 0;
    for (;;) {
        char *head = c->buf + start;
        size_t avail = c->len - start;
        char *end = memmem(head, avail, "\r\n\r\n", 4);
        if (!end) break;
        size_t head_len = (size_t)(end - head) + 4;
        long content_length = 0;
        char *id = NULL;
        size_t id_len = 0;
        char *line = memchr(head, '\n', head_len);
        while (line && line < end) {
            line++;
            char *next = memchr(line, '\n', (size_t)(end + 2 - line));
            size_t line_len = next ? (size_t)(next - line) : 0;
            if (line_len > 15 && strncasecmp(line, "content-length:", 15) == 0) {
                content_length = strtol(line + 15, NULL, 10);
            } else if (line_len > 15 && strncasecmp(line, "hearth-push-id:", 15) == 0) {
                id = line + 15;
                while (*id == ' ') id++;
                id_len = (size_t)(line + line_len - id);
                while (id_len > 0 && (id[id_len - 1] == '\r' || id[id_len - 1] == ' ')) id_len--;
            }
            line = next;
        }
        if (content_length < 0 || content_length > BUF_SIZE / 2) return -1;
        if (avail < head_len + (size_t)content_length) break;
        if (id && ids) {
            fwrite(id, 1, id_len, ids);
            fputc('\n', ids);
        }
        requests++;
        static const char reply[] = "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n";
        if (write(c->fd, reply, sizeof(reply) - 1) < 0) return -1;
        start += head_len + (size_t)content_length;
    }
    if (start > 0) {
        memmove(c->buf, c->buf + start, c->len - start);
        c->len -= start;
    }
    if (c->len == BUF_SIZE) return -1;
    return 0;
}

int main(int argc, char **argv) {
    int port = 0, seconds = 600, niceness = 0;
    const char *ids_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ids")) ids_path = argv[i + 1];
        else if (!strcmp(argv[i], "--nice")) niceness = atoi(argv[i + 1]);
        else { fprintf(stderr, "unknown option %s\n", argv[i]); return 64; }
    }
    if (niceness) setpriority(PRIO_PROCESS, 0, niceness);
    FILE *ids = ids_path ? fopen(ids_path, "w") : NULL;
    if (ids_path && !ids) { perror("ids"); return 1; }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) || listen(listener, 1024)) { perror("listen"); return 1; }
    socklen_t addr_len = sizeof addr;
    getsockname(listener, (struct sockaddr *)&addr, &addr_len);
    printf("port %d\n", ntohs(addr.sin_port));
    fflush(stdout);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    time_t deadline = time(NULL) + seconds;
    struct epoll_event events[256];
    while (!stop_requested && time(NULL) < deadline) {
        int n = epoll_wait(ep, events, 256, 200);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int client;
                while ((client = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (client >= MAX_CONNS) { close(client); continue; }
                    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct conn *c = calloc(1, sizeof *c);
                    c->fd = client;
                    conns[client] = c;
                    struct epoll_event cev = {.events = EPOLLIN, .data.fd = client};
                    epoll_ctl(ep, EPOLL_CTL_ADD, client, &cev);
                }
                continue;
            }
            struct conn *c = conns[fd];
            if (!c) continue;
            ssize_t got = read(fd, c->buf + c->len, BUF_SIZE - c->len);
            if (got > 0) c->len += (size_t)got;
            if (got == 0 || (got < 0 && errno != EAGAIN) || (got > 0 && serve(c, ids) < 0)) {
                epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
                close(fd);
                free(c);
                conns[fd] = NULL;
            }
        }
    }
    if (ids) fclose(ids);
    fprintf(stderr, "push-receiver: %lu requests\n", requests);
    return 0;
}
