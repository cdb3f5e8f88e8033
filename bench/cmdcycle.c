/* cmdcycle: a cycle of commands given on the command line, repeated by every connection with one
request in flight, each reply checked against the one expected. What lockcycle does for the
string lock, for any cycle: bench/run_all.py drives Redisson's RLock scripts and redis-semaphore's
acquire and release with it.

    cmdcycle [--host 127.0.0.1] [--port 6379] [--unixsocket PATH] [--connections 50]
             [--duration 10] [--requests N] [--seed 1] STEP [STEP ...]

A STEP is one command: the reply it must get, then its arguments, separated by single spaces (so
no argument holds a space: load scripts beforehand and pass their SHA1). The reply is written as
its first line without the CRLF: ":1", "+OK", "$-1" (a nil bulk reply, what a Lua nil becomes),
"$36" (any 36-byte bulk string), or "?" for any reply but an error. In the arguments these expand:
  %c  the connection's number (0 .. connections - 1)
  %n  the connection's cycle number (0, 1, ...)
  %s  the seed
  %r  32 hex digits made of seed, connection and cycle (a request id, like Redisson's)
  %u  a 36-character UUID made of seed, connection and cycle
  %%  a percent sign
Every step of a cycle expands the same, so an acquire and its release name the same key and
holder. As in lockcycle, a run stops starting cycles at the deadline (or after --requests
requests) and finishes the cycles in progress, and latency is measured per request with
CLOCK_MONOTONIC into a log-linear histogram (64 buckets per power of two).

Prints one JSON line: {"ops":..,"cycles":..,"seconds":..,"ops_per_sec":..,"p50_us":..,
"p99_us":..,"p999_us":..,"connections":..,"unexpected":..,"first_unexpected":".."}. Exits 1
after unexpected replies, 2 on an error.
*/
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cycle_common.h"

enum { kMaxArgs = 32, kArgMax = 256, kOutMax = 4096, kInMax = 8192 };

struct Step {
  char want[64]; /* the reply's bytes, CRLF included; empty: any reply but an error */
  int argc;
  char* argv[kMaxArgs];
};

struct Conn {
  int fd;
  int id;
  int step;
  uint64_t n;
  uint64_t sent_ns;
  char out[kOutMax];
  size_t out_len, out_sent;
  char in[kInMax];
  size_t in_len;
};

struct Options {
  const char* host;
  int port;
  const char* unix_path; /* NULL: TCP to host:port */
  int connections;
  double duration_s;
  uint64_t requests;
  uint64_t seed;
};

static struct Step* steps;
static int step_count;

static void Fail(const char* what, const char* detail) {
  fprintf(stderr, "cmdcycle: %s%s\n", what, detail);
  exit(2);
}

/* Length of the one complete RESP2 reply at the start of buf (arrays included), 0 if it is not
   complete yet. */
static size_t ReplyLength(const char* buf, size_t len) {
  const char* eol = memmem(buf, len, "\r\n", 2);
  if (eol == NULL) return 0;
  size_t line = (size_t)(eol - buf) + 2;
  long n = strtol(buf + 1, NULL, 10);
  if (buf[0] == '$') {
    if (n < 0) return line;
    return len >= line + (size_t)n + 2 ? line + (size_t)n + 2 : 0;
  }
  if (buf[0] == '*') {
    size_t at = line;
    for (long i = 0; i < n; i++) {
      size_t element = ReplyLength(buf + at, len - at);
      if (element == 0) return 0;
      at += element;
    }
    return at;
  }
  return line;
}

static int Connect(const struct Options* o) { return ConnectTo(o->host, o->port, o->unix_path); }

/* One argument with its placeholders expanded; returns its length. */
static size_t Expand(const char* arg, const struct Conn* c, uint64_t seed, char* out) {
  size_t len = 0;
  for (const char* p = arg; *p != '\0'; p++) {
    if (len + 64 > kArgMax) Fail("argument too long: ", arg);
    if (*p != '%') {
      out[len++] = *p;
      continue;
    }
    p++;
    unsigned long long n = c->n, s = seed;
    switch (*p) {
      case 'c':
        len += (size_t)sprintf(out + len, "%d", c->id);
        break;
      case 'n':
        len += (size_t)sprintf(out + len, "%llu", n);
        break;
      case 's':
        len += (size_t)sprintf(out + len, "%llu", s);
        break;
      case 'r':
        len += (size_t)sprintf(out + len, "%08llx%08x%016llx", s & 0xffffffffu, (unsigned)c->id, n);
        break;
      case 'u':
        len += (size_t)sprintf(out + len, "%08llx-%04x-4%03x-8%03llx-%012llx", s & 0xffffffffu,
                               (unsigned)c->id & 0xffffu, ((unsigned)c->id >> 16) & 0xfffu,
                               (n >> 48) & 0xfffu, n & 0xffffffffffffull);
        break;
      case '%':
        out[len++] = '%';
        break;
      default:
        Fail("unknown placeholder in ", arg);
    }
  }
  out[len] = '\0';
  return len;
}

static void BuildRequest(struct Conn* c, const struct Options* o) {
  const struct Step* s = &steps[c->step];
  size_t len = (size_t)sprintf(c->out, "*%d\r\n", s->argc);
  char arg[kArgMax];
  for (int i = 0; i < s->argc; i++) {
    size_t n = Expand(s->argv[i], c, o->seed, arg);
    if (len + n + 32 > kOutMax) Fail("request too long at ", s->argv[0]);
    len += (size_t)sprintf(c->out + len, "$%zu\r\n", n);
    memcpy(c->out + len, arg, n);
    len += n;
    memcpy(c->out + len, "\r\n", 2);
    len += 2;
  }
  c->out_len = len;
  c->out_sent = 0;
}

/* Writes what the socket takes; returns 0 once the request is fully sent. */
static int Flush(struct Conn* c) {
  while (c->out_sent < c->out_len) {
    ssize_t w = write(c->fd, c->out + c->out_sent, c->out_len - c->out_sent);
    if (w < 0 && errno == EAGAIN) return 1;
    if (w <= 0) Die("write");
    c->out_sent += (size_t)w;
  }
  return 0;
}

static void Send(struct Conn* c, const struct Options* o, int epfd) {
  BuildRequest(c, o);
  c->sent_ns = NowNs();
  struct epoll_event ev = {.events = EPOLLIN | (Flush(c) ? EPOLLOUT : 0), .data.ptr = c};
  if (ev.events & EPOLLOUT) epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static int Matches(const struct Step* s, const char* reply, size_t len) {
  if (s->want[0] == '\0') return reply[0] != '-';
  /* The first line, CRLF included: a bulk reply's length, or all of a shorter reply. */
  size_t line = (size_t)((const char*)memmem(reply, len, "\r\n", 2) - reply) + 2;
  return line == strlen(s->want) && memcmp(reply, s->want, line) == 0;
}

static void Usage(void) {
  fprintf(stderr,
          "usage: cmdcycle [--host h] [--port p] [--unixsocket path] [--connections n] "
          "[--duration s] [--requests n] [--seed n] 'REPLY ARG ...' ...\n");
  exit(2);
}

static void ParseStep(const char* text, struct Step* s) {
  char* copy = strdup(text);
  if (copy == NULL) Die("strdup");
  char* save = NULL;
  char* want = strtok_r(copy, " ", &save);
  if (want == NULL || strlen(want) + 3 > sizeof s->want) Fail("bad step: ", text);
  if (strcmp(want, "?") == 0) {
    s->want[0] = '\0';
  } else {
    sprintf(s->want, "%s\r\n", want);
  }
  s->argc = 0;
  for (char* a = strtok_r(NULL, " ", &save); a != NULL; a = strtok_r(NULL, " ", &save)) {
    if (s->argc == kMaxArgs) Fail("too many arguments: ", text);
    s->argv[s->argc++] = a;
  }
  if (s->argc == 0) Fail("a step without a command: ", text);
}

static struct Options ParseOptions(int argc, char** argv) {
  struct Options o = {"127.0.0.1", 6379, NULL, 50, 10.0, 0, 1};
  static const struct option kLong[] = {
      {"host", required_argument, 0, 'h'},        {"port", required_argument, 0, 'p'},
      {"connections", required_argument, 0, 'c'}, {"duration", required_argument, 0, 'd'},
      {"requests", required_argument, 0, 'n'},    {"seed", required_argument, 0, 's'},
      {"unixsocket", required_argument, 0, 'u'},  {0, 0, 0, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "h:p:c:d:n:s:u:", kLong, NULL)) != -1) {
    switch (opt) {
      case 'h':
        o.host = optarg;
        break;
      case 'p':
        o.port = atoi(optarg);
        break;
      case 'c':
        o.connections = atoi(optarg);
        break;
      case 'd':
        o.duration_s = atof(optarg);
        break;
      case 'n':
        o.requests = strtoull(optarg, NULL, 10);
        break;
      case 's':
        o.seed = strtoull(optarg, NULL, 10);
        break;
      case 'u':
        o.unix_path = optarg;
        break;
      default:
        Usage();
    }
  }
  if (optind == argc || o.connections < 1 || o.port < 1) Usage();
  step_count = argc - optind;
  steps = calloc((size_t)step_count, sizeof *steps);
  if (steps == NULL) Die("calloc");
  for (int i = 0; i < step_count; i++) ParseStep(argv[optind + i], &steps[i]);
  return o;
}

/* The reply as a JSON string's contents: printable ASCII kept, the rest as \u00XX. */
static void PrintJsonText(const char* s, size_t len) {
  for (size_t i = 0; i < len && i < 200; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
      putchar(ch);
    } else {
      printf("\\u%04x", ch);
    }
  }
}

int main(int argc, char** argv) {
  struct Options o = ParseOptions(argc, argv);
  struct Conn* conns = calloc((size_t)o.connections, sizeof *conns);
  if (conns == NULL) Die("calloc");
  int epfd = epoll_create1(0);
  if (epfd < 0) Die("epoll_create1");
  for (int i = 0; i < o.connections; i++) {
    struct Conn* c = &conns[i];
    c->fd = Connect(&o);
    c->id = i;
    if (fcntl(c->fd, F_SETFL, O_NONBLOCK) != 0) Die("fcntl");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) Die("epoll_ctl");
  }

  const uint64_t start_ns = NowNs();
  const uint64_t end_ns = start_ns + (uint64_t)(o.duration_s * 1e9);
  uint64_t ops = 0, cycles = 0, unexpected = 0, issued = 0;
  char first_unexpected[256];
  size_t first_unexpected_len = 0;
  int in_flight = 0;
  for (int i = 0; i < o.connections && (o.requests == 0 || issued < o.requests); i++) {
    Send(&conns[i], &o, epfd);
    issued++;
    in_flight++;
  }

  /* At the deadline or the request count, stop starting cycles and let the started ones end. */
  struct epoll_event events[256];
  int stopping = 0;
  uint64_t now_ns = start_ns;
  while (in_flight > 0) {
    int n = epoll_wait(epfd, events, 256, 100);
    if (n < 0 && errno != EINTR) Die("epoll_wait");
    now_ns = NowNs();
    if (o.requests == 0 && now_ns >= end_ns) stopping = 1;
    for (int e = 0; e < n; e++) {
      struct Conn* c = events[e].data.ptr;
      if (events[e].events & EPOLLOUT) {
        if (Flush(c) == 0) {
          struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
          epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
        }
      }
      if (!(events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      ssize_t r = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
      if (r < 0 && errno == EAGAIN) continue;
      if (r <= 0) {
        fprintf(stderr, "cmdcycle: connection %d closed by the server\n", c->id);
        exit(2);
      }
      c->in_len += (size_t)r;
      size_t len = ReplyLength(c->in, c->in_len);
      if (len == 0) {
        if (c->in_len == sizeof c->in) Fail("a reply longer than the buffer to ", steps[c->step].argv[0]);
        continue;
      }
      histogram[BucketOf(now_ns - c->sent_ns)]++;
      ops++;
      in_flight--;
      if (!Matches(&steps[c->step], c->in, len)) {
        if (unexpected++ == 0) {
          first_unexpected_len = len < sizeof first_unexpected ? len : sizeof first_unexpected;
          memcpy(first_unexpected, c->in, first_unexpected_len);
        }
      }
      /* One request in flight, so nothing can follow this reply in the buffer. */
      c->in_len = 0;
      if (++c->step == step_count) {
        c->step = 0;
        c->n++;
        cycles++;
        /* A started cycle always runs to its end, so it leaves what a whole cycle leaves. */
        if (stopping || (o.requests != 0 && issued >= o.requests)) continue;
      }
      Send(c, &o, epfd);
      issued++;
      in_flight++;
    }
  }

  const double seconds = (double)(now_ns - start_ns) / 1e9;
  printf(
      "{\"ops\": %llu, \"cycles\": %llu, \"seconds\": %.3f, \"ops_per_sec\": %.0f, "
      "\"p50_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, \"connections\": %d, "
      "\"unexpected\": %llu, \"first_unexpected\": \"",
      (unsigned long long)ops, (unsigned long long)cycles, seconds, ops / seconds,
      PercentileUs(ops, 0.50), PercentileUs(ops, 0.99), PercentileUs(ops, 0.999), o.connections,
      (unsigned long long)unexpected);
  PrintJsonText(first_unexpected, first_unexpected_len);
  printf("\"}\n");
  return unexpected == 0 ? 0 : 1;
}
