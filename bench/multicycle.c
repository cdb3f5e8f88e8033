/* multicycle: MULTI / SET / INCR / EXEC transactions, 16 per write on each connection.

Each connection writes 16 transactions at once (MULTI, SET tx:<seed>:<conn> <36 bytes>,
INCR n:<seed>:<conn>, EXEC), reads the 96 reply lines they produce (+OK +QUEUED +QUEUED *2 +OK
:n), and writes the next 16, until the deadline: redis-benchmark's -P 16 with a transaction as
the unit. --plain sends the same SET and INCR without MULTI/EXEC (32 lines per write). Any
error reply is counted as unexpected.

    multicycle [--port 6379] [--connections 50] [--duration 5] [--seed 1] [--plain]

Prints one JSON line: {"transactions":..,"seconds":..,"per_sec":..,"unexpected":..}.
*/
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kPipeline = 16, kValueLen = 36 };

struct Conn {
  int fd;
  char request[4096];
  size_t request_len;
  long lines_seen;
  int line_start;  // the next byte read starts a reply line
};

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t Append(char* out, size_t at, const char* arg) {
  return at + (size_t)sprintf(out + at, "$%zu\r\n%s\r\n", strlen(arg), arg);
}

static void BuildRequest(struct Conn* c, int seed, int index, int plain) {
  char set_key[64], incr_key[64], value[kValueLen + 1];
  snprintf(set_key, sizeof(set_key), "tx:%d:%d", seed, index);
  snprintf(incr_key, sizeof(incr_key), "n:%d:%d", seed, index);
  memset(value, 'x', kValueLen);
  value[kValueLen] = '\0';
  size_t n = 0;
  for (int i = 0; i < kPipeline; ++i) {
    if (!plain) n = Append(c->request, n + (size_t)sprintf(c->request + n, "*1\r\n"), "MULTI");
    n += (size_t)sprintf(c->request + n, "*3\r\n");
    n = Append(c->request, Append(c->request, Append(c->request, n, "SET"), set_key), value);
    n += (size_t)sprintf(c->request + n, "*2\r\n");
    n = Append(c->request, Append(c->request, n, "INCR"), incr_key);
    if (!plain) n = Append(c->request, n + (size_t)sprintf(c->request + n, "*1\r\n"), "EXEC");
  }
  c->request_len = n;
}

static int Send(struct Conn* c) {
  size_t sent = 0;
  while (sent < c->request_len) {
    ssize_t w = write(c->fd, c->request + sent, c->request_len - sent);
    if (w <= 0) return -1;
    sent += (size_t)w;
  }
  return 0;
}

int main(int argc, char** argv) {
  int port = 6379, connections = 50, seed = 1, plain = 0;
  double duration = 5;
  static const struct option kOptions[] = {{"port", required_argument, 0, 'p'},
                                           {"connections", required_argument, 0, 'c'},
                                           {"duration", required_argument, 0, 'd'},
                                           {"seed", required_argument, 0, 's'},
                                           {"plain", no_argument, 0, 'n'},
                                           {0, 0, 0, 0}};
  for (int opt; (opt = getopt_long(argc, argv, "", kOptions, NULL)) != -1;) {
    switch (opt) {
      case 'p': port = atoi(optarg); break;
      case 'c': connections = atoi(optarg); break;
      case 'd': duration = atof(optarg); break;
      case 's': seed = atoi(optarg); break;
      case 'n': plain = 1; break;
      default: return 2;
    }
  }
  const long lines_per_batch = (plain ? 2 : 6) * kPipeline;
  int ep = epoll_create1(0);
  struct Conn* conns = calloc((size_t)connections, sizeof(struct Conn));
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  for (int i = 0; i < connections; ++i) {
    struct Conn* c = &conns[i];
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(c->fd, (struct sockaddr*)&addr, sizeof(addr)) != 0) {
      perror("connect");
      return 1;
    }
    c->line_start = 1;
    BuildRequest(c, seed, i, plain);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
  }
  const double start = Now();
  const double deadline = start + duration;
  long batches = 0, unexpected = 0;
  int open_conns = connections;
  for (int i = 0; i < connections; ++i) Send(&conns[i]);
  char buf[65536];
  struct epoll_event events[256];
  while (open_conns > 0) {
    int n = epoll_wait(ep, events, 256, 10000);
    if (n <= 0) {
      fprintf(stderr, "no reply for 10 s\n");
      return 1;
    }
    for (int e = 0; e < n; ++e) {
      struct Conn* c = events[e].data.ptr;
      ssize_t r = read(c->fd, buf, sizeof(buf));
      if (r <= 0) {
        fprintf(stderr, "connection closed\n");
        return 1;
      }
      for (ssize_t k = 0; k < r; ++k) {
        if (c->line_start && buf[k] == '-') ++unexpected;
        c->line_start = 0;
        if (buf[k] == '\n') {
          ++c->lines_seen;
          c->line_start = 1;
        }
      }
      if (c->lines_seen >= lines_per_batch) {
        c->lines_seen -= lines_per_batch;
        ++batches;
        if (Now() < deadline) {
          Send(c);
        } else {
          epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
          close(c->fd);
          --open_conns;
        }
      }
    }
  }
  const double seconds = Now() - start;
  const long transactions = batches * kPipeline;
  printf("{\"transactions\":%ld,\"seconds\":%.3f,\"per_sec\":%.0f,\"unexpected\":%ld}\n",
         transactions, seconds, (double)transactions / seconds, unexpected);
  free(conns);
  return unexpected == 0 ? 0 : 3;
}
