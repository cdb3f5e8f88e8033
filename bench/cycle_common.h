/* What the one-request-in-flight load generators (lockcycle.c, cmdcycle.c) share: a monotonic
   clock, a log-linear latency histogram (64 buckets per power of two, each ~1.6% wide) and the
   connection to the server, over TCP or a unix socket. Each generator is its own program, so
   the histogram is a file-level array of the one that includes this. */
#ifndef WARDEN_BENCH_CYCLE_COMMON_H
#define WARDEN_BENCH_CYCLE_COMMON_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

enum { kSubBits = 6, kSub = 1 << kSubBits, kBuckets = 64 * kSub };

static uint64_t histogram[kBuckets];

static uint64_t NowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void Die(const char* what) {
  perror(what);
  exit(2);
}

static int BucketOf(uint64_t v) {
  if (v < kSub) return (int)v;
  int exp = 63 - __builtin_clzll(v);
  return (exp - kSubBits + 1) * kSub + (int)((v >> (exp - kSubBits)) & (kSub - 1));
}

static double BucketMid(int b) {
  if (b < kSub) return b;
  int exp = b / kSub + kSubBits - 1;
  uint64_t lo = (uint64_t)(kSub + b % kSub) << (exp - kSubBits);
  return lo + ((uint64_t)1 << (exp - kSubBits)) / 2.0;
}

static double PercentileUs(uint64_t total, double q) {
  uint64_t rank = (uint64_t)(q * (double)total);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; b++) {
    seen += histogram[b];
    if (seen > rank) return BucketMid(b) / 1000.0;
  }
  return 0;
}

/* A blocking connection to unix_path when it is set, else to host:port with TCP_NODELAY. Exits
   on failure. */
static int ConnectTo(const char* host, int port, const char* unix_path) {
  if (unix_path != NULL) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(unix_path) >= sizeof addr.sun_path) {
      fprintf(stderr, "unix socket path too long: %s\n", unix_path);
      exit(2);
    }
    strcpy(addr.sun_path, unix_path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) Die("socket");
    if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) Die("connect");
    return fd;
  }
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
    fprintf(stderr, "bad host %s\n", host);
    exit(2);
  }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) Die("socket");
  if (connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) Die("connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

#endif
