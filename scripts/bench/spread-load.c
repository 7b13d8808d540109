/* spread-load: W1-like acknowledged puts into many namespaces at once, from one thread.
 *
 * One WebSocket (Firebase RTDB protocol v5) per target line "NS PORT": GET /.ws?v=5&ns=NS on
 * 127.0.0.1:PORT (or --host), an `auth` request with --auth (the admin secret), then one put in
 * flight at a time:
 *   {"t":"d","d":{"r":N,"a":"p","b":{"p":"/bench/w/<i>/<seq>","d":{"ts":...,"c":i,"seq":...,"body":"xx.."}}}}
 * (--size bytes of value, 200 by default, as hearthload's w1), the next one sent when the answer
 * {"t":"d","d":{"r":N,"b":{"s":"ok",...}}} arrives. All connections are driven by one epoll loop,
 * so the client costs little CPU however many namespaces there are (one hearthload process per
 * namespace costs a few per cent of a core each, mostly in their timers).
 *
 * It waits until every connection is authenticated (at most 30 s), sends for --warmup then
 * --duration seconds, and counts the answers that arrive in the --duration window. Prints one JSON
 * line on stdout: total writes/s, each target's writes in the window, ack latency p50/p99/max (µs),
 * errors (an answer that is not "ok", a broken connection; the first one's text on stderr), and
 * the client's own CPU seconds in the window. Every loop is bounded by a deadline; a hard alarm
 * ends the process with exit 3.
 *
 * Build: cc -O2 -Wall -Wextra -o spread-load spread-load.c
 * Usage: spread-load --targets FILE --auth SECRET [--host 127.0.0.1] [--duration 5] [--warmup 2]
 *                    [--size 200]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024

enum { ST_CONNECTING, ST_UPGRADING, ST_HELLO, ST_AUTH, ST_READY, ST_DEAD };
enum { PH_SETUP, PH_WARMUP, PH_MEASURE, PH_DONE };

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

typedef struct {
    int fd, idx, port, state, want_out;
    char ns[64];
    buf_t in, out, msg; /* msg: a fragmented text message being assembled */
    uint32_t next_r, pending_r;
    uint64_t seq, sent_at, measured;
    uint32_t *lat;
    size_t nlat, caplat;
} conn_t;

static struct {
    char host[64], auth[512], targets[512];
    double duration, warmup;
    int size;
} cfg = {"127.0.0.1", "", "", 5, 2, 200};

static conn_t conns[MAX_CONNS];
static int nconns, epfd, phase = PH_SETUP, ready;
static long errors;
static char filler[8192];
static uint32_t mask_rng = 2463534242u;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double self_cpu_s(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static void die(const char *msg) {
    fprintf(stderr, "spread-load: %s\n", msg);
    exit(2);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char m[] = "spread-load: hard deadline passed\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    _exit(3);
}

static void buf_add(buf_t *b, const void *d, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) die("out of memory");
        b->cap = cap;
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void buf_consume(buf_t *b, size_t n) {
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void note_error(conn_t *c, const char *what, const char *detail, size_t n) {
    if (phase >= PH_DONE) return;
    if (errors++ == 0) fprintf(stderr, "spread-load: %s (ns %s): %.*s\n", what, c->ns, (int)(n > 300 ? 300 : n), detail);
}

static void fail(conn_t *c, const char *what) {
    if (c->state == ST_DEAD) return;
    note_error(c, what, strerror(errno), strlen(strerror(errno)));
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->state = ST_DEAD;
}

static void set_out_interest(conn_t *c, int want) {
    if (c->want_out == want) return;
    struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.u32 = (uint32_t)c->idx};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want;
}

static void flush(conn_t *c) {
    while (c->out.len) {
        ssize_t k = send(c->fd, c->out.p, c->out.len, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == EINTR) continue;
            fail(c, "send failed");
            return;
        }
        buf_consume(&c->out, (size_t)k);
    }
    set_out_interest(c, c->out.len > 0);
}

static void ws_send(conn_t *c, int op, const char *data, size_t n) {
    uint8_t h[14];
    size_t hl = 2;
    h[0] = (uint8_t)(0x80 | op);
    if (n < 126) h[1] = (uint8_t)(0x80 | n);
    else if (n < 65536) { h[1] = 0x80 | 126; h[2] = (uint8_t)(n >> 8); h[3] = (uint8_t)n; hl = 4; }
    else { h[1] = 0x80 | 127; for (int i = 0; i < 8; i++) h[2 + i] = (uint8_t)((uint64_t)n >> (56 - 8 * i)); hl = 10; }
    mask_rng ^= mask_rng << 13; mask_rng ^= mask_rng >> 17; mask_rng ^= mask_rng << 5;
    uint8_t m[4] = {(uint8_t)mask_rng, (uint8_t)(mask_rng >> 8), (uint8_t)(mask_rng >> 16), (uint8_t)(mask_rng >> 24)};
    memcpy(h + hl, m, 4);
    hl += 4;
    buf_add(&c->out, h, hl);
    size_t at = c->out.len;
    buf_add(&c->out, data, n);
    for (size_t i = 0; i < n; i++) c->out.p[at + i] ^= (char)m[i & 3];
}

static void send_put(conn_t *c) {
    char frame[9000];
    uint64_t seq = c->seq++;
    c->pending_r = c->next_r++;
    int o = snprintf(frame, sizeof frame,
                     "{\"t\":\"d\",\"d\":{\"r\":%u,\"a\":\"p\",\"b\":{\"p\":\"/bench/w/%d/%llu\",\"d\":", c->pending_r,
                     c->idx, (unsigned long long)seq);
    int v = snprintf(frame + o, sizeof frame - (size_t)o, "{\"ts\":%llu,\"c\":%d,\"seq\":%llu,\"body\":\"",
                     (unsigned long long)(now_ns() / 1000), c->idx, (unsigned long long)seq);
    int pad = cfg.size - v - 2;
    if (pad < 1) pad = 1;
    if ((size_t)(o + v + pad + 8) > sizeof frame) pad = (int)sizeof frame - o - v - 8;
    memcpy(frame + o + v, filler, (size_t)pad);
    int n = o + v + pad;
    n += snprintf(frame + n, sizeof frame - (size_t)n, "\"}}}}");
    c->sent_at = now_ns();
    ws_send(c, 1, frame, (size_t)n);
    flush(c);
}

static void on_message(conn_t *c, const char *p, size_t n) {
    if (c->state == ST_HELLO) {
        if (memmem(p, n, "\"t\":\"h\"", 7)) {
            char b[700];
            c->pending_r = c->next_r++;
            int k = snprintf(b, sizeof b, "{\"t\":\"d\",\"d\":{\"r\":%u,\"a\":\"auth\",\"b\":{\"cred\":\"%s\"}}}",
                             c->pending_r, cfg.auth);
            c->state = ST_AUTH;
            ws_send(c, 1, b, (size_t)k);
            flush(c);
        }
        return;
    }
    if (memmem(p, n, "\"a\":\"", 5)) return; /* a server push: not ours to count */
    const char *r = memmem(p, n, "\"r\":", 4);
    if (!r) return; /* control frames, keep-alives */
    uint32_t rid = (uint32_t)strtoul(r + 4, NULL, 10);
    if (rid != c->pending_r) return;
    int ok = memmem(p, n, "\"s\":\"ok\"", 8) != NULL;
    if (!ok) note_error(c, "request failed", p, n);
    if (c->state == ST_AUTH) {
        if (!ok) { fail(c, "auth refused"); return; }
        c->state = ST_READY;
        ready++;
        if (phase >= PH_WARMUP && phase < PH_DONE) send_put(c);
        return;
    }
    uint64_t now = now_ns();
    if (phase == PH_MEASURE && ok) {
        c->measured++;
        if (c->nlat == c->caplat) {
            c->caplat = c->caplat ? c->caplat * 2 : 4096;
            c->lat = realloc(c->lat, c->caplat * sizeof *c->lat);
            if (!c->lat) die("out of memory");
        }
        uint64_t us = (now - c->sent_at) / 1000;
        c->lat[c->nlat++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    }
    if (phase < PH_DONE) send_put(c);
}

static void on_readable(conn_t *c) {
    char tmp[65536];
    for (;;) {
        ssize_t k = recv(c->fd, tmp, sizeof tmp, 0);
        if (k == 0) { errno = ECONNRESET; fail(c, "connection closed by the server"); return; }
        if (k < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) break;
            if (errno == EINTR) continue;
            fail(c, "recv failed");
            return;
        }
        buf_add(&c->in, tmp, (size_t)k);
        if ((size_t)k < sizeof tmp) break;
    }
    if (c->state == ST_UPGRADING) {
        char *end = memmem(c->in.p, c->in.len, "\r\n\r\n", 4);
        if (!end) return;
        if (c->in.len < 12 || memcmp(c->in.p, "HTTP/1.1 101", 12) != 0) {
            note_error(c, "upgrade refused", c->in.p, c->in.len);
            errno = EPROTO;
            fail(c, "upgrade refused");
            return;
        }
        buf_consume(&c->in, (size_t)(end + 4 - c->in.p));
        c->state = ST_HELLO;
    }
    size_t off = 0;
    while (c->state != ST_DEAD) {
        uint8_t *p = (uint8_t *)c->in.p + off;
        size_t n = c->in.len - off;
        if (n < 2) break;
        int fin = p[0] >> 7, op = p[0] & 15;
        uint64_t len = p[1] & 127;
        size_t h = 2;
        if (len == 126) { if (n < 4) break; len = ((uint64_t)p[2] << 8) | p[3]; h = 4; }
        else if (len == 127) { if (n < 10) break; len = 0; for (int i = 0; i < 8; i++) len = (len << 8) | p[2 + i]; h = 10; }
        if (p[1] & 0x80) { errno = EPROTO; fail(c, "masked frame from the server"); return; }
        if (len > (1u << 30)) { errno = EPROTO; fail(c, "frame too large"); return; }
        if (n < h + len) break;
        const char *payload = (const char *)p + h;
        off += h + (size_t)len;
        if (op == 8) { errno = ECONNRESET; fail(c, "close frame from the server"); return; }
        if (op == 9) { ws_send(c, 10, payload, (size_t)len); flush(c); continue; }
        if (op == 10) continue;
        if (op == 0 || !fin) {
            buf_add(&c->msg, payload, (size_t)len);
            if (fin) {
                on_message(c, c->msg.p, c->msg.len);
                c->msg.len = 0;
            }
            continue;
        }
        on_message(c, payload, (size_t)len);
    }
    if (c->state != ST_DEAD) buf_consume(&c->in, off);
}

static void on_connected(conn_t *c) {
    int err = 0;
    socklen_t l = sizeof err;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
    if (err) { errno = err; fail(c, "connect failed"); return; }
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET /.ws?v=5&ns=%s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                     "User-Agent: spread-load\r\n\r\n", c->ns, cfg.host, c->port);
    c->state = ST_UPGRADING;
    buf_add(&c->out, req, (size_t)n);
    flush(c);
}

static void start(conn_t *c) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)c->port)};
    if (inet_pton(AF_INET, cfg.host, &a.sin_addr) != 1) die("--host must be an IPv4 address");
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->next_r = 1;
    c->state = ST_CONNECTING;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)c->idx};
    c->want_out = 1;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl");
    if (connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) fail(c, "connect failed");
}

static void loop_until(uint64_t deadline, int until_ready) {
    struct epoll_event evs[256];
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline) return;
        if (until_ready && ready == nconns) return;
        int alive = 0;
        for (int i = 0; i < nconns; i++) alive += conns[i].state != ST_DEAD;
        if (!alive) return;
        int timeout = (int)((deadline - now) / 1000000) + 1;
        if (timeout > 100) timeout = 100;
        int k = epoll_wait(epfd, evs, 256, timeout);
        if (k < 0 && errno != EINTR) die("epoll_wait");
        for (int i = 0; i < k; i++) {
            conn_t *c = &conns[evs[i].data.u32];
            if (c->state == ST_DEAD) continue;
            if (c->state == ST_CONNECTING && (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                on_connected(c);
                continue;
            }
            if (evs[i].events & EPOLLOUT) flush(c);
            if (c->state != ST_DEAD && (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) on_readable(c);
        }
    }
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void usage(void) {
    fprintf(stderr, "usage: spread-load --targets FILE --auth SECRET [--host 127.0.0.1] [--duration 5] [--warmup 2]\n"
                    "                   [--size 200]\nFILE: one \"NS PORT\" a line\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage();
        if (i + 1 >= argc) usage();
        const char *v = argv[++i];
        if (!strcmp(a, "--targets")) snprintf(cfg.targets, sizeof cfg.targets, "%s", v);
        else if (!strcmp(a, "--auth")) {
            if (strpbrk(v, "\"\\") || strlen(v) >= sizeof cfg.auth) die("--auth: no '\"' or '\\', < 512 bytes");
            snprintf(cfg.auth, sizeof cfg.auth, "%s", v);
        } else if (!strcmp(a, "--host")) snprintf(cfg.host, sizeof cfg.host, "%s", v);
        else if (!strcmp(a, "--duration")) cfg.duration = atof(v);
        else if (!strcmp(a, "--warmup")) cfg.warmup = atof(v);
        else if (!strcmp(a, "--size")) cfg.size = atoi(v);
        else usage();
    }
    if (!cfg.targets[0] || !cfg.auth[0]) usage();
    if (strncmp(cfg.host, "127.", 4) != 0) die("--host must be a loopback address (127.x.x.x)");
    if (cfg.duration <= 0 || cfg.duration > 600 || cfg.warmup < 0 || cfg.warmup > 600) die("--duration 0-600, --warmup 0-600");
    if (cfg.size < 40 || cfg.size > 8000) die("--size 40-8000");
    memset(filler, 'x', sizeof filler);
    FILE *f = fopen(cfg.targets, "r");
    if (!f) die("cannot open --targets");
    char ns[64];
    int port;
    while (nconns < MAX_CONNS && fscanf(f, "%63s %d", ns, &port) == 2) {
        conn_t *c = &conns[nconns];
        c->idx = nconns++;
        c->port = port;
        snprintf(c->ns, sizeof c->ns, "%s", ns);
    }
    fclose(f);
    if (!nconns) die("no targets");
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(30 + cfg.warmup + cfg.duration + 30));
    epfd = epoll_create1(0);
    if (epfd < 0) die("epoll_create1");
    for (int i = 0; i < nconns; i++) start(&conns[i]);
    uint64_t t0 = now_ns();
    loop_until(t0 + 30000000000ull, 1);
    if (ready < nconns) fprintf(stderr, "spread-load: %d of %d connections ready; running with those\n", ready, nconns);
    double setup_s = (double)(now_ns() - t0) / 1e9;
    phase = PH_WARMUP;
    for (int i = 0; i < nconns; i++)
        if (conns[i].state == ST_READY) send_put(&conns[i]);
    uint64_t w0 = now_ns();
    loop_until(w0 + (uint64_t)(cfg.warmup * 1e9), 0);
    phase = PH_MEASURE;
    double cpu0 = self_cpu_s();
    uint64_t m0 = now_ns();
    loop_until(m0 + (uint64_t)(cfg.duration * 1e9), 0);
    uint64_t m1 = now_ns();
    double cpu1 = self_cpu_s();
    phase = PH_DONE;
    double secs = (double)(m1 - m0) / 1e9;
    size_t n = 0;
    uint64_t total = 0;
    for (int i = 0; i < nconns; i++) { n += conns[i].nlat; total += conns[i].measured; }
    uint32_t *all = malloc((n ? n : 1) * sizeof *all);
    if (!all) die("out of memory");
    size_t k = 0;
    for (int i = 0; i < nconns; i++) {
        memcpy(all + k, conns[i].lat, conns[i].nlat * sizeof *all);
        k += conns[i].nlat;
    }
    qsort(all, n, sizeof *all, cmp_u32);
#define Q(q) (n ? all[(size_t)((q) * (double)(n - 1))] : 0u)
    int alive = 0;
    for (int i = 0; i < nconns; i++) alive += conns[i].state == ST_READY;
    printf("{\"tool\":\"spread-load\",\"connections\":%d,\"ready\":%d,\"alive_at_end\":%d,\"setup_s\":%.2f,"
           "\"warmup_s\":%g,\"seconds\":%.3f,\"size\":%d,\"acked\":%llu,\"writes_per_s\":%.1f,"
           "\"ack_p50_us\":%u,\"ack_p90_us\":%u,\"ack_p99_us\":%u,\"ack_max_us\":%u,\"errors\":%ld,\"client_cpu_s\":%.3f,"
           "\"targets\":[",
           nconns, ready, alive, setup_s, cfg.warmup, secs, cfg.size, (unsigned long long)total, (double)total / secs,
           Q(0.5), Q(0.9), Q(0.99), n ? all[n - 1] : 0u, errors, cpu1 - cpu0);
    for (int i = 0; i < nconns; i++)
        printf("%s{\"ns\":\"%s\",\"port\":%d,\"acked\":%llu}", i ? "," : "", conns[i].ns, conns[i].port,
               (unsigned long long)conns[i].measured);
    printf("]}\n");
    for (int i = 0; i < nconns; i++)
        if (conns[i].state != ST_DEAD) close(conns[i].fd);
    return 0;
}
