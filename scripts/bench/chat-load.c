/* chat-load: chat messages as a signed-in member sends them, one request in flight per sender.
 *
 * Each sender is one thread with one blocking connection to a Hearth server on this machine:
 *   rest  HTTP/1.1 keep-alive  POST /messages/<chat>.json?auth=<ID token>  (answer 200 {"name": ...})
 *   ws    Firebase RTDB protocol v5: GET /.ws?v=5&ns=NS, an `auth` request with the ID token, then
 *         {"t":"d","d":{"r":N,"a":"p","b":{"p":"/messages/<chat>/<push id>","d":{...}}}}
 *         answered {"t":"d","d":{"r":N,"b":{"s":"ok",...}}}
 * The message is what the shipped rules accept from a member:
 *   {"sender": <uid>, "kind": "text", "text": ..., "sentAt": {".sv": "timestamp"}}
 *
 * It sends for --warmup + --duration seconds and counts the answers that arrive in the
 * --duration window. Prints one JSON line on stdout: messages/s, latency p50/p99/max, errors
 * (any answer that is not a success, and any broken connection; the first error's text goes to
 * stderr), and with --server-pid the server's CPU seconds in the window from /proc/PID/stat.
 * Every loop is bounded by the deadline; a hard alarm ends the process with exit 3.
 *
 * Build: cc -O2 -Wall -Wextra -o chat-load chat-load.c -lpthread
 * Usage: chat-load --mode rest|ws --senders FILE [--host 127.0.0.1] [--port 9000] [--ns NAME]
 *                  [--duration 5] [--warmup 2] [--server-pid PID] [--text TEXT]
 * FILE: one sender a line, "CHAT_ID UID ID_TOKEN", separated by spaces.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SENDERS 256
#define MAX_RECONNECTS 50

static struct {
    int ws;
    char host[64];
    int port;
    char ns[64];
    double duration, warmup;
    int server_pid;
    char text[512];
} cfg = {0, "127.0.0.1", 9000, "", 5, 2, 0, "Hello from the chat benchmark"};

static uint64_t warm_end_ns, end_ns;
static atomic_int first_error_printed;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t) {
    uint64_t n = now_ns();
    if (t <= n) return;
    struct timespec ts = {(time_t)((t - n) / 1000000000ull), (long)((t - n) % 1000000000ull)};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
}

static void die(const char *msg) {
    fprintf(stderr, "chat-load: %s\n", msg);
    exit(2);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "chat-load: hard deadline passed\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    _exit(3);
}

/* ------------------------------------------------------------------ one sender */

typedef struct {
    char chat[128], uid[160];
    char *token;
    int fd;
    char *rb; /* read buffer: rb[0..rlen) unread */
    size_t rlen, rcap;
    uint32_t *lat_us; /* latencies of the answers counted */
    size_t nlat, caplat;
    long errors, reconnects, acked; /* acked: every ok answer, warm-up included */
    uint32_t next_r;
    char pushid_last_rand[12];
    uint64_t pushid_last_ms;
    unsigned rng;
    char *req; /* rest: the request, the same bytes every time */
    size_t reqlen;
} sender_t;

static sender_t senders[MAX_SENDERS];
static int nsenders;

static void report_error(sender_t *s, const char *what, const char *body, size_t len) {
    s->errors++;
    if (atomic_exchange(&first_error_printed, 1) == 0) {
        if (len > 2000) len = 2000;
        fprintf(stderr, "chat-load: first error (sender %s, chat %s): %s: %.*s\n", s->uid, s->chat, what, (int)len,
                body ? body : "");
    }
}

static int send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads more bytes into the buffer; -1 on EOF, error or the receive timeout. */
static int read_more(sender_t *s) {
    if (s->rcap - s->rlen < 4096) {
        s->rcap = s->rcap ? s->rcap * 2 : 65536;
        s->rb = realloc(s->rb, s->rcap);
        if (!s->rb) die("out of memory");
    }
    for (;;) {
        ssize_t r = recv(s->fd, s->rb + s->rlen, s->rcap - s->rlen, 0);
        if (r > 0) {
            s->rlen += (size_t)r;
            return 0;
        }
        if (r < 0 && errno == EINTR) continue;
        return -1;
    }
}

static void consume(sender_t *s, size_t n) {
    memmove(s->rb, s->rb + n, s->rlen - n);
    s->rlen -= n;
}

static int tcp_connect(sender_t *s) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)cfg.port);
    if (inet_pton(AF_INET, cfg.host, &a.sin_addr) != 1) die("--host must be an IPv4 address");
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return -1;
    }
    s->fd = fd;
    s->rlen = 0;
    return 0;
}

/* Waits for a whole HTTP response head; returns its length (through the blank line), or -1. */
static long http_head(sender_t *s) {
    for (;;) {
        char *e = s->rlen ? memmem(s->rb, s->rlen, "\r\n\r\n", 4) : NULL;
        if (e) return (long)(e - s->rb) + 4;
        if (s->rlen > (1 << 20) || read_more(s) < 0) return -1;
    }
}

static const char *header(const char *head, size_t len, const char *name) {
    size_t n = strlen(name);
    for (const char *p = head; p && p + n < head + len;) {
        const char *eol = memmem(p, (size_t)(head + len - p), "\r\n", 2);
        if (!eol) return NULL;
        if (strncasecmp(p, name, n) == 0 && p[n] == ':') return p + n + 1;
        p = eol + 2;
    }
    return NULL;
}

/* One HTTP response: status, and body = rb[*boff .. *boff + *blen) until consume(s, *total). */
static int http_response(sender_t *s, int *status, size_t *boff, size_t *blen, size_t *total) {
    long hl = http_head(s);
    if (hl < 0) return -1;
    if (s->rlen < 12 || memcmp(s->rb, "HTTP/1.1 ", 9) != 0) return -1;
    *status = atoi(s->rb + 9);
    const char *cl = header(s->rb, (size_t)hl, "content-length");
    const char *te = header(s->rb, (size_t)hl, "transfer-encoding");
    if (cl) {
        size_t n = strtoul(cl, NULL, 10);
        while (s->rlen < (size_t)hl + n)
            if (read_more(s) < 0) return -1;
        *boff = (size_t)hl;
        *blen = n;
        *total = (size_t)hl + n;
        return 0;
    }
    if (te && strstr(te, "chunked")) { /* rare for these answers: keep the chunks' bytes as the body */
        for (;;) {
            char *end = s->rlen > (size_t)hl ? memmem(s->rb + hl, s->rlen - (size_t)hl, "\r\n0\r\n\r\n", 7) : NULL;
            if (end) {
                *boff = (size_t)hl;
                *blen = (size_t)(end - s->rb) - (size_t)hl;
                *total = (size_t)(end - s->rb) + 7;
                return 0;
            }
            if (read_more(s) < 0) return -1;
        }
    }
    *boff = (size_t)hl;
    *blen = 0;
    *total = (size_t)hl;
    return 0;
}

/* ------------------------------------------------------------------ WebSocket */

static int ws_send_text(sender_t *s, const char *p, size_t n) {
    char hdr[14];
    size_t h = 0;
    hdr[h++] = (char)0x81;
    if (n < 126) {
        hdr[h++] = (char)(0x80 | n);
    } else if (n < 65536) {
        hdr[h++] = (char)(0x80 | 126);
        hdr[h++] = (char)(n >> 8);
        hdr[h++] = (char)n;
    } else {
        hdr[h++] = (char)(0x80 | 127);
        for (int i = 7; i >= 0; i--) hdr[h++] = (char)((uint64_t)n >> (8 * i));
    }
    /* A zero mask: masking is required of clients, its key may be any value (RFC 6455 5.3). */
    memset(hdr + h, 0, 4);
    h += 4;
    char *frame = malloc(h + n);
    if (!frame) die("out of memory");
    memcpy(frame, hdr, h);
    memcpy(frame + h, p, n);
    int r = send_all(s->fd, frame, h + n);
    free(frame);
    return r;
}

/* The next whole text message (a Firebase frame count joins the frames that follow it) into
 * *msg (malloc'd, NUL-terminated), fragments joined. Pings are answered; other control frames skipped. */
static int ws_message(sender_t *s, char **msg, size_t *mlen) {
    char *acc = NULL;
    size_t alen = 0;
    long parts = -1;
    for (;;) {
        while (s->rlen < 2)
            if (read_more(s) < 0) goto fail;
        unsigned op = (unsigned char)s->rb[0] & 0x0f;
        int fin = (unsigned char)s->rb[0] & 0x80;
        int masked = (unsigned char)s->rb[1] & 0x80;
        uint64_t n = (unsigned char)s->rb[1] & 0x7f;
        size_t h = 2;
        if (n == 126) {
            while (s->rlen < 4)
                if (read_more(s) < 0) goto fail;
            n = ((uint64_t)(unsigned char)s->rb[2] << 8) | (unsigned char)s->rb[3];
            h = 4;
        } else if (n == 127) {
            while (s->rlen < 10)
                if (read_more(s) < 0) goto fail;
            n = 0;
            for (int i = 0; i < 8; i++) n = (n << 8) | (unsigned char)s->rb[2 + i];
            h = 10;
        }
        unsigned char mask[4] = {0, 0, 0, 0};
        if (masked) {
            while (s->rlen < h + 4)
                if (read_more(s) < 0) goto fail;
            memcpy(mask, s->rb + h, 4);
            h += 4;
        }
        if (n > (64u << 20)) goto fail;
        while (s->rlen < h + n)
            if (read_more(s) < 0) goto fail;
        char *pl = s->rb + h;
        if (masked)
            for (uint64_t i = 0; i < n; i++) pl[i] ^= (char)mask[i % 4];
        if (op == 0x9) { /* ping: pong with the same payload */
            char pong[256];
            size_t pn = n < 125 ? (size_t)n : 125;
            pong[0] = (char)0x8A;
            pong[1] = (char)(0x80 | pn);
            memset(pong + 2, 0, 4);
            memcpy(pong + 6, pl, pn);
            if (send_all(s->fd, pong, 6 + pn) < 0) goto fail;
            consume(s, h + (size_t)n);
            continue;
        }
        if (op == 0x8) goto fail; /* close */
        if (op != 0x1 && op != 0x0) {
            consume(s, h + (size_t)n);
            continue;
        }
        if (parts < 0 && n > 0 && n <= 6) { /* a frame count? */
            int digits = 1;
            for (uint64_t i = 0; i < n; i++)
                if (pl[i] < '0' || pl[i] > '9') digits = 0;
            if (digits) {
                parts = strtol(pl, NULL, 10);
                consume(s, h + (size_t)n);
                continue;
            }
        }
        acc = realloc(acc, alen + (size_t)n + 1);
        if (!acc) die("out of memory");
        memcpy(acc + alen, pl, (size_t)n);
        alen += (size_t)n;
        acc[alen] = 0;
        consume(s, h + (size_t)n);
        if (!fin) continue; /* a fragmented message: its continuation frames follow */
        if (parts > 1) {
            parts--;
            continue;
        }
        *msg = acc;
        *mlen = alen;
        return 0;
    }
fail:
    free(acc);
    return -1;
}

/* The request number of a response ({"t":"d","d":{"r":N,"b":...}}), or -1 for other messages. */
static long ws_response_number(const char *m) {
    const char *p = strstr(m, "\"d\":{\"r\":");
    if (!p) return -1;
    return strtol(p + 9, NULL, 10);
}

static int ws_ok(const char *m) { return strstr(m, "\"s\":\"ok\"") != NULL; }

/* Sends request r and waits for its response; 1 ok, 0 not ok (counted), -1 broken connection. */
static int ws_request(sender_t *s, uint32_t r, const char *req, size_t len) {
    if (ws_send_text(s, req, len) < 0) return -1;
    for (;;) {
        char *m;
        size_t ml;
        if (ws_message(s, &m, &ml) < 0) return -1;
        long got = ws_response_number(m);
        if (got == (long)r) {
            int ok = ws_ok(m);
            if (!ok) report_error(s, "ws answer", m, ml);
            free(m);
            return ok;
        }
        free(m);
    }
}

static int ws_open(sender_t *s) {
    if (tcp_connect(s) < 0) return -1;
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET /.ws?v=5%s%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     cfg.ns[0] ? "&ns=" : "", cfg.ns, cfg.host, cfg.port);
    if (send_all(s->fd, req, (size_t)n) < 0) return -1;
    long hl = http_head(s);
    if (hl < 0 || s->rlen < 12 || memcmp(s->rb + 9, "101", 3) != 0) {
        report_error(s, "websocket upgrade", s->rb, s->rlen < 300 ? s->rlen : 300);
        return -1;
    }
    consume(s, (size_t)hl);
    size_t al = strlen(s->token) + 128;
    char *auth = malloc(al);
    if (!auth) die("out of memory");
    uint32_t r = ++s->next_r;
    n = snprintf(auth, al, "{\"t\":\"d\",\"d\":{\"r\":%u,\"a\":\"auth\",\"b\":{\"cred\":\"%s\"}}}", r, s->token);
    int ok = ws_request(s, r, auth, (size_t)n);
    free(auth);
    return ok == 1 ? 0 : -1;
}

/* A Firebase push id: 8 characters of milliseconds, 12 random ones, increased by one within a
 * millisecond, so that ids sort in the order they were made. */
static void push_id(sender_t *s, char out[21]) {
    static const char A[] = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if (ms == s->pushid_last_ms) {
        int i = 11;
        while (i >= 0 && s->pushid_last_rand[i] == 63) s->pushid_last_rand[i--] = 0;
        if (i >= 0) s->pushid_last_rand[i]++;
    } else {
        s->pushid_last_ms = ms;
        for (int i = 0; i < 12; i++) s->pushid_last_rand[i] = (char)(rand_r(&s->rng) % 64);
    }
    uint64_t t = ms;
    for (int i = 7; i >= 0; i--) {
        out[i] = A[t % 64];
        t /= 64;
    }
    for (int i = 0; i < 12; i++) out[8 + i] = A[(int)s->pushid_last_rand[i]];
    out[20] = 0;
}

/* ------------------------------------------------------------------ REST */

static void rest_prepare(sender_t *s) {
    char body[1024];
    int bl = snprintf(body, sizeof body,
                      "{\"sender\":\"%s\",\"kind\":\"text\",\"text\":\"%s\",\"sentAt\":{\".sv\":\"timestamp\"}}", s->uid,
                      cfg.text);
    size_t cap = strlen(s->token) + 2048;
    s->req = malloc(cap);
    if (!s->req) die("out of memory");
    int n = snprintf(s->req, cap,
                     "POST /messages/%s.json?auth=%s%s%s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\n\r\n%s",
                     s->chat, s->token, cfg.ns[0] ? "&ns=" : "", cfg.ns, cfg.host, cfg.port, bl, body);
    s->reqlen = (size_t)n;
}

/* One POST and its answer; 1 ok, 0 not ok (counted), -1 broken connection. */
static int rest_message(sender_t *s) {
    if (send_all(s->fd, s->req, s->reqlen) < 0) return -1;
    int status;
    size_t boff, blen, total;
    if (http_response(s, &status, &boff, &blen, &total) < 0) return -1;
    int ok = status == 200 && blen > 8 && memmem(s->rb + boff, blen, "\"name\"", 6) != NULL;
    if (!ok) {
        char what[32];
        snprintf(what, sizeof what, "HTTP %d", status);
        report_error(s, what, s->rb + boff, blen);
    }
    const char *conn = header(s->rb, boff, "connection");
    int closing = conn && strncasecmp(conn + strspn(conn, " "), "close", 5) == 0;
    consume(s, total);
    return closing ? (ok ? 2 : 3) : ok;
}

/* ------------------------------------------------------------------ the loop */

static void record(sender_t *s, uint64_t start, uint64_t done) {
    if (done < warm_end_ns || done > end_ns) return;
    if (s->nlat == s->caplat) {
        s->caplat = s->caplat ? s->caplat * 2 : 16384;
        s->lat_us = realloc(s->lat_us, s->caplat * sizeof *s->lat_us);
        if (!s->lat_us) die("out of memory");
    }
    uint64_t us = (done - start) / 1000;
    s->lat_us[s->nlat++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static void *run_sender(void *arg) {
    sender_t *s = arg;
    size_t cap = 4096; /* holds the longest chat id, uid and --text */
    char *req = malloc(cap);
    if (!req) die("out of memory");
    int open = 0;
    if (!cfg.ws) rest_prepare(s);
    while (now_ns() < end_ns) {
        if (!open) {
            if (s->reconnects++ > MAX_RECONNECTS) {
                fprintf(stderr, "chat-load: sender %s gave up after %d connections\n", s->uid, MAX_RECONNECTS);
                break;
            }
            if ((cfg.ws ? ws_open(s) : tcp_connect(s)) < 0) {
                if (s->fd >= 0) close(s->fd);
                s->fd = -1;
                report_error(s, "connect", "", 0);
                sleep_until(now_ns() + 20000000ull);
                continue;
            }
            open = 1;
        }
        uint64_t t0 = now_ns();
        int r;
        if (cfg.ws) {
            char id[21];
            push_id(s, id);
            uint32_t rn = ++s->next_r;
            int n = snprintf(req, cap,
                             "{\"t\":\"d\",\"d\":{\"r\":%u,\"a\":\"p\",\"b\":{\"p\":\"/messages/%s/%s\",\"d\":{\"sender\":\"%s\","
                             "\"kind\":\"text\",\"text\":\"%s\",\"sentAt\":{\".sv\":\"timestamp\"}}}}}",
                             rn, s->chat, id, s->uid, cfg.text);
            if (n < 0 || (size_t)n >= cap) die("a request longer than its buffer");
            r = ws_request(s, rn, req, (size_t)n);
        } else {
            r = rest_message(s);
        }
        uint64_t t1 = now_ns();
        if (r == 1 || r == 2) {
            s->acked++;
            record(s, t0, t1);
        }
        if (r < 0) report_error(s, "connection broken", strerror(errno), strlen(strerror(errno)));
        if (r < 0 || r >= 2) {
            close(s->fd);
            s->fd = -1;
            open = 0;
        }
    }
    if (s->fd >= 0) close(s->fd);
    free(req);
    return NULL;
}

/* utime and stime of PID, in seconds; -1 when it cannot be read. */
static int proc_cpu_s(int pid, double *user, double *sys) {
    char path[64], b[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = 0;
    char *p = strrchr(b, ')');
    if (!p) return -1;
    unsigned long long ut = 0, st = 0;
    /* after ") ": state(3) ... utime is field 14, stime 15 */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return -1;
    double tick = (double)sysconf(_SC_CLK_TCK);
    *user = (double)ut / tick;
    *sys = (double)st / tick;
    return 0;
}

/* The CPU ticks of each thread of PID (/proc/PID/task/TID/stat), to split the server's CPU. */
#define MAX_THREADS 512
typedef struct {
    int tid;
    char name[32];
    unsigned long long ticks;
} thread_cpu_t;

static int threads_cpu(int pid, thread_cpu_t *out) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_THREADS) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p2[320], b[1024];
        snprintf(p2, sizeof p2, "/proc/%d/task/%s/stat", pid, e->d_name);
        FILE *f = fopen(p2, "r");
        if (!f) continue;
        size_t len = fread(b, 1, sizeof b - 1, f);
        fclose(f);
        b[len] = 0;
        char *open = strchr(b, '('), *close = strrchr(b, ')');
        if (!open || !close) continue;
        unsigned long long ut = 0, st = 0;
        if (sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) continue;
        thread_cpu_t *t = &out[n++];
        t->tid = atoi(e->d_name);
        size_t nl = (size_t)(close - open - 1);
        if (nl >= sizeof t->name) nl = sizeof t->name - 1;
        memcpy(t->name, open + 1, nl);
        t->name[nl] = 0;
        for (char *c = t->name; *c; c++)
            if (*c == '"' || *c == '\\' || (unsigned char)*c < 32) *c = '_';
        t->ticks = ut + st;
    }
    closedir(d);
    return n;
}

static int cmp_thread_desc(const void *a, const void *b) {
    unsigned long long x = ((const thread_cpu_t *)a)->ticks, y = ((const thread_cpu_t *)b)->ticks;
    return x < y ? 1 : x > y ? -1 : 0;
}

static double self_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void load_senders(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) die("cannot open the --senders file");
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        char chat[128], uid[160];
        char *tok = malloc(strlen(line) + 1);
        if (!tok) die("out of memory");
        if (sscanf(line, "%127s %159s %s", chat, uid, tok) != 3) {
            free(tok);
            continue;
        }
        if (nsenders == MAX_SENDERS) die("too many senders");
        sender_t *s = &senders[nsenders++];
        snprintf(s->chat, sizeof s->chat, "%s", chat);
        snprintf(s->uid, sizeof s->uid, "%s", uid);
        s->token = tok;
        s->fd = -1;
        s->rng = (unsigned)(now_ns() ^ (uint64_t)nsenders * 2654435761u);
    }
    free(line);
    fclose(f);
    if (!nsenders) die("the --senders file names no sender");
}

static void usage(void) {
    fprintf(stderr, "usage: chat-load --mode rest|ws --senders FILE [--host 127.0.0.1] [--port 9000] [--ns NAME]\n"
                    "                 [--duration 5] [--warmup 2] [--server-pid PID] [--text TEXT]\n"
                    "FILE: one sender a line: CHAT_ID UID ID_TOKEN\n");
    exit(64);
}

int main(int argc, char **argv) {
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "ws")) cfg.ws = 1;
            else if (!strcmp(v, "rest")) cfg.ws = 0;
            else usage();
        } else if (!strcmp(a, "--senders")) file = v;
        else if (!strcmp(a, "--host")) snprintf(cfg.host, sizeof cfg.host, "%s", v);
        else if (!strcmp(a, "--port")) cfg.port = atoi(v);
        else if (!strcmp(a, "--ns")) snprintf(cfg.ns, sizeof cfg.ns, "%s", v);
        else if (!strcmp(a, "--duration")) cfg.duration = atof(v);
        else if (!strcmp(a, "--warmup")) cfg.warmup = atof(v);
        else if (!strcmp(a, "--server-pid")) cfg.server_pid = atoi(v);
        else if (!strcmp(a, "--text")) {
            if (strpbrk(v, "\"\\") || strlen(v) >= sizeof cfg.text || !*v) die("--text: 1-511 bytes, no '\"' or '\\'");
            snprintf(cfg.text, sizeof cfg.text, "%s", v);
        } else usage();
    }
    if (!file || cfg.duration <= 0 || cfg.warmup < 0 || cfg.duration > 600 || cfg.warmup > 600) usage();
    if (strncmp(cfg.host, "127.", 4) != 0) die("--host must be a loopback address (127.x.x.x)");
    load_senders(file);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(cfg.warmup + cfg.duration + 60));

    uint64_t t0 = now_ns();
    warm_end_ns = t0 + (uint64_t)(cfg.warmup * 1e9);
    end_ns = warm_end_ns + (uint64_t)(cfg.duration * 1e9);
    pthread_t th[MAX_SENDERS];
    for (int i = 0; i < nsenders; i++)
        if (pthread_create(&th[i], NULL, run_sender, &senders[i]) != 0) die("pthread_create");
    sleep_until(warm_end_ns);
    double u0 = 0, s0 = 0, u1 = 0, s1 = 0, cli0 = self_cpu_s();
    int srv_ok = cfg.server_pid && proc_cpu_s(cfg.server_pid, &u0, &s0) == 0;
    static thread_cpu_t th0[MAX_THREADS], th1[MAX_THREADS];
    int nth0 = cfg.server_pid ? threads_cpu(cfg.server_pid, th0) : 0;
    uint64_t w0 = now_ns();
    sleep_until(end_ns);
    srv_ok = srv_ok && proc_cpu_s(cfg.server_pid, &u1, &s1) == 0;
    int nth1 = cfg.server_pid ? threads_cpu(cfg.server_pid, th1) : 0;
    double cli1 = self_cpu_s();
    double window = (double)(now_ns() - w0) / 1e9;
    for (int i = 0; i < nsenders; i++) pthread_join(th[i], NULL);

    size_t n = 0;
    long errors = 0, acked = 0;
    for (int i = 0; i < nsenders; i++) {
        n += senders[i].nlat;
        errors += senders[i].errors;
        acked += senders[i].acked;
    }
    uint32_t *all = malloc((n ? n : 1) * sizeof *all);
    if (!all) die("out of memory");
    size_t k = 0;
    double sum = 0;
    for (int i = 0; i < nsenders; i++)
        for (size_t j = 0; j < senders[i].nlat; j++) {
            all[k++] = senders[i].lat_us[j];
            sum += senders[i].lat_us[j];
        }
    qsort(all, n, sizeof *all, cmp_u32);
#define Q(q) (n ? all[(size_t)((q) * (double)(n - 1))] / 1e3 : 0.0)
    printf("{\"tool\":\"chat-load\",\"mode\":\"%s\",\"senders\":%d,\"warmup_s\":%g,\"duration_s\":%g,"
           "\"messages\":%zu,\"messages_per_s\":%.1f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f,"
           "\"errors\":%ld,\"acked_total\":%ld,\"client_cpu_s\":%.3f",
           cfg.ws ? "ws" : "rest", nsenders, cfg.warmup, cfg.duration, n, (double)n / cfg.duration, Q(0.5), Q(0.99),
           n ? all[n - 1] / 1e3 : 0.0, n ? sum / (double)n / 1e3 : 0.0, errors, acked, cli1 - cli0);
    if (srv_ok) {
        double cpu = (u1 - u0) + (s1 - s0);
        printf(",\"server_cpu_s\":%.3f,\"server_user_s\":%.3f,\"server_sys_s\":%.3f,\"server_cores\":%.3f,"
               "\"server_cpu_ms_per_msg\":%.4f",
               cpu, u1 - u0, s1 - s0, cpu / window, n ? cpu * 1e3 / (double)n : 0.0);
        /* the busiest threads in the window (a thread that started in it counts from zero) */
        for (int i = 0; i < nth1; i++)
            for (int j = 0; j < nth0; j++)
                if (th0[j].tid == th1[i].tid) th1[i].ticks -= th0[j].ticks < th1[i].ticks ? th0[j].ticks : th1[i].ticks;
        qsort(th1, (size_t)nth1, sizeof *th1, cmp_thread_desc);
        double tick = (double)sysconf(_SC_CLK_TCK);
        printf(",\"server_threads\":[");
        for (int i = 0; i < nth1 && i < 6 && th1[i].ticks > 0; i++)
            printf("%s{\"tid\":%d,\"name\":\"%s\",\"cpu_s\":%.2f}", i ? "," : "", th1[i].tid, th1[i].name,
                   (double)th1[i].ticks / tick);
        printf("]");
    }
    printf("}\n");
    return 0;
}
