/* streamcycle: a consumer group read and acknowledged at pipeline depth P, on many connections.

Each connection is a consumer (c<connection>) of one group and, in every write, sends the XACKs
of the entries its previous write read (one XACK per id) followed by P reads:

    XACK <stream> <group> <id>                                          (one per id read before)
    XREADGROUP GROUP <group> c<conn> COUNT 1 STREAMS <stream> >         (P of them)

so in the steady state a write is P XREADGROUP + XACK pairs, 2P commands, and the next write
goes out when all of the previous one's replies are in (redis-benchmark's -P with the pair as
its unit). Once --reads reads have been sent in all, connections send only their last XACKs and
stop, so every entry read is acknowledged and the group's pending list ends empty. Preload the
stream with at least --reads entries and create the group first (bench/streams_section.py does).

    streamcycle [--host 127.0.0.1] [--port 6379] [--connections 50] [--pipeline 16]
                [--stream s] [--group g] --reads N

Every XACK must answer :1 and every XREADGROUP an entry; a nil reply (the stream was empty for
the group) is counted in "empty", any other reply in "unexpected". Latency is per write, from
the write to its last reply, counted once for each of its commands.

Prints one JSON line: {"ops":..,"reads":..,"acks":..,"empty":..,"seconds":..,"ops_per_sec":..,
"p50_us":..,"p99_us":..,"p999_us":..,"connections":..,"pipeline":..,"unexpected":..,
"first_unexpected":".."}. Exits 1 after unexpected or empty replies, 2 on an error.
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cycle_common.h"

enum { kMaxPipeline = 256, kIdMax = 48, kInMax = 1 << 16 };

struct Conn {
  int fd;
  int id;
  char* out;
  size_t out_len, out_sent;
  char in[kInMax];
  size_t in_len;
  uint64_t sent_ns;
  /* The ids the last reads returned, acknowledged by the next write. */
  char ids[kMaxPipeline][kIdMax];
  int id_lens[kMaxPipeline];
  int nids;
  /* What the write in flight expects: acks replies, then reads replies. */
  int acks, reads, replies;
  int done;
};

struct Options {
  const char* host;
  int port;
  int connections;
  int pipeline;
  const char* stream;
  const char* group;
  uint64_t reads;
};

static void Fail(const char* what, const char* detail) {
  fprintf(stderr, "streamcycle: %s%s\n", what, detail);
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

/* The entry id in a complete XREADGROUP reply of one stream and one entry:
   *1 *2 $<stream> <stream> *1 *2 $<id> <id> *<2k> ... : the second bulk string. Returns its
   length, 0 if the reply is not of that shape. */
static int EntryId(const char* reply, size_t len, const char** id) {
  size_t at = 0;
  int bulks = 0;
  while (at < len) {
    const char* eol = memmem(reply + at, len - at, "\r\n", 2);
    if (eol == NULL) return 0;
    long n = strtol(reply + at + 1, NULL, 10);
    size_t line = (size_t)(eol - (reply + at)) + 2;
    if (reply[at] == '*') {
      at += line;
      continue;
    }
    if (reply[at] != '$' || n < 0) return 0;
    if (++bulks == 2) {
      if (n <= 0 || n >= kIdMax) return 0;
      *id = reply + at + line;
      return (int)n;
    }
    at += line + (size_t)n + 2;
  }
  return 0;
}

static size_t AppendArg(char* out, size_t at, const char* arg, size_t n) {
  at += (size_t)sprintf(out + at, "$%zu\r\n", n);
  memcpy(out + at, arg, n);
  at += n;
  memcpy(out + at, "\r\n", 2);
  return at + 2;
}

static size_t AppendText(char* out, size_t at, const char* arg) {
  return AppendArg(out, at, arg, strlen(arg));
}

/* Writes what the socket takes; returns 0 once the write is fully sent. */
static int Flush(struct Conn* c) {
  while (c->out_sent < c->out_len) {
    ssize_t w = write(c->fd, c->out + c->out_sent, c->out_len - c->out_sent);
    if (w < 0 && errno == EAGAIN) return 1;
    if (w <= 0) Die("write");
    c->out_sent += (size_t)w;
  }
  return 0;
}

static uint64_t reads_issued;

/* The next write: the acks of the last reads, then up to --pipeline reads while reads remain.
   Returns 0 (and marks the connection done) when there is nothing left to send. */
static int Send(struct Conn* c, const struct Options* o, int epfd) {
  uint64_t left = o->reads - reads_issued;
  int reads = left < (uint64_t)o->pipeline ? (int)left : o->pipeline;
  if (c->nids == 0 && reads == 0) {
    c->done = 1;
    return 0;
  }
  char consumer[32];
  snprintf(consumer, sizeof consumer, "c%d", c->id);
  size_t n = 0;
  for (int i = 0; i < c->nids; i++) {
    n += (size_t)sprintf(c->out + n, "*4\r\n");
    n = AppendText(c->out, n, "XACK");
    n = AppendText(c->out, n, o->stream);
    n = AppendText(c->out, n, o->group);
    n = AppendArg(c->out, n, c->ids[i], (size_t)c->id_lens[i]);
  }
  for (int i = 0; i < reads; i++) {
    n += (size_t)sprintf(c->out + n, "*9\r\n");
    const char* args[] = {"XREADGROUP", "GROUP", o->group, consumer, "COUNT", "1", "STREAMS",
                          o->stream, ">"};
    for (int a = 0; a < 9; a++) n = AppendText(c->out, n, args[a]);
  }
  reads_issued += (uint64_t)reads;
  c->out_len = n;
  c->out_sent = 0;
  c->acks = c->nids;
  c->reads = reads;
  c->replies = 0;
  c->nids = 0;
  c->sent_ns = NowNs();
  if (Flush(c)) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  }
  return 1;
}

static void Usage(void) {
  fprintf(stderr,
          "usage: streamcycle [--host h] [--port p] [--connections n] [--pipeline n] "
          "[--stream key] [--group name] --reads n\n");
  exit(2);
}

static struct Options ParseOptions(int argc, char** argv) {
  struct Options o = {"127.0.0.1", 6379, 50, 16, "s", "g", 0};
  static const struct option kLong[] = {
      {"host", required_argument, 0, 'h'},        {"port", required_argument, 0, 'p'},
      {"connections", required_argument, 0, 'c'}, {"pipeline", required_argument, 0, 'P'},
      {"stream", required_argument, 0, 's'},      {"group", required_argument, 0, 'g'},
      {"reads", required_argument, 0, 'n'},       {0, 0, 0, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "h:p:c:P:s:g:n:", kLong, NULL)) != -1) {
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
      case 'P':
        o.pipeline = atoi(optarg);
        break;
      case 's':
        o.stream = optarg;
        break;
      case 'g':
        o.group = optarg;
        break;
      case 'n':
        o.reads = strtoull(optarg, NULL, 10);
        break;
      default:
        Usage();
    }
  }
  if (optind != argc || o.connections < 1 || o.port < 1 || o.reads == 0 || o.pipeline < 1 ||
      o.pipeline > kMaxPipeline || strlen(o.stream) > 100 || strlen(o.group) > 100) {
    Usage();
  }
  return o;
}

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
  /* A write: up to kMaxPipeline acks and as many reads, each well under 400 bytes. */
  const size_t out_max = (size_t)o.pipeline * 2 * 400;
  for (int i = 0; i < o.connections; i++) {
    struct Conn* c = &conns[i];
    c->fd = ConnectTo(o.host, o.port, NULL);
    c->id = i;
    c->out = malloc(out_max);
    if (c->out == NULL) Die("malloc");
    if (fcntl(c->fd, F_SETFL, O_NONBLOCK) != 0) Die("fcntl");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) Die("epoll_ctl");
  }

  const uint64_t start_ns = NowNs();
  uint64_t ops = 0, reads = 0, acks = 0, empty = 0, unexpected = 0;
  char first_unexpected[256];
  size_t first_unexpected_len = 0;
  int active = 0;
  for (int i = 0; i < o.connections; i++) active += Send(&conns[i], &o, epfd);

  struct epoll_event events[256];
  uint64_t now_ns = start_ns;
  while (active > 0) {
    int n = epoll_wait(epfd, events, 256, 1000);
    if (n < 0 && errno != EINTR) Die("epoll_wait");
    now_ns = NowNs();
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
        fprintf(stderr, "streamcycle: connection %d closed by the server\n", c->id);
        exit(2);
      }
      c->in_len += (size_t)r;
      size_t at = 0;
      for (;;) {
        size_t len = ReplyLength(c->in + at, c->in_len - at);
        if (len == 0) break;
        const char* reply = c->in + at;
        int ok;
        if (c->replies < c->acks) {
          ok = len == 4 && memcmp(reply, ":1\r\n", 4) == 0;
          acks++;
        } else {
          const char* id = NULL;
          int id_len = 0;
          reads++;
          if (len == 5 && memcmp(reply, "*-1\r\n", 5) == 0) {
            empty++;
            ok = 1;
          } else if ((id_len = EntryId(reply, len, &id)) > 0) {
            memcpy(c->ids[c->nids], id, (size_t)id_len);
            c->id_lens[c->nids++] = id_len;
            ok = 1;
          } else {
            ok = 0;
          }
        }
        if (!ok && unexpected++ == 0) {
          first_unexpected_len = len < sizeof first_unexpected ? len : sizeof first_unexpected;
          memcpy(first_unexpected, reply, first_unexpected_len);
        }
        ops++;
        c->replies++;
        at += len;
      }
      if (at > 0) {
        memmove(c->in, c->in + at, c->in_len - at);
        c->in_len -= at;
      } else if (c->in_len == sizeof c->in) {
        Fail("a reply longer than the buffer", "");
      }
      if (c->replies == c->acks + c->reads) {
        if (c->in_len != 0) Fail("more replies than requests", "");
        histogram[BucketOf(now_ns - c->sent_ns)] += (uint64_t)(c->acks + c->reads);
        if (!Send(c, &o, epfd)) active--;
      }
    }
  }

  const double seconds = (double)(now_ns - start_ns) / 1e9;
  printf(
      "{\"ops\": %llu, \"reads\": %llu, \"acks\": %llu, \"empty\": %llu, \"seconds\": %.3f, "
      "\"ops_per_sec\": %.0f, \"p50_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, "
      "\"connections\": %d, \"pipeline\": %d, \"unexpected\": %llu, \"first_unexpected\": \"",
      (unsigned long long)ops, (unsigned long long)reads, (unsigned long long)acks,
      (unsigned long long)empty, seconds, ops / seconds, PercentileUs(ops, 0.50),
      PercentileUs(ops, 0.99), PercentileUs(ops, 0.999), o.connections, o.pipeline,
      (unsigned long long)unexpected);
  PrintJsonText(first_unexpected, first_unexpected_len);
  printf("\"}\n");
  return unexpected == 0 && empty == 0 ? 0 : 1;
}
