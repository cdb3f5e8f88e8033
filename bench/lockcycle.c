/* lockcycle: the lock life cycle as clients run it, one request in flight per connection.

Each connection repeats acquire (SET key token NX PX), extend (EVALSHA compare-and-pexpire) and
release (EVALSHA compare-and-delete) on its own keys, lock:<seed>:<conn>:<n>, so every reply is
known in advance and any other reply is counted as unexpected. The keyspace stays empty between
cycles (a run stops starting cycles at the deadline and finishes those in progress), so a rerun
with the same seed measures the same work. Latency is measured per command with
CLOCK_MONOTONIC into a log-linear histogram (64 buckets per power of two, each ~1.6% wide).

    lockcycle [--host 127.0.0.1] [--port 6379] [--unixsocket PATH] [--connections 50]
              [--duration 10] [--requests N] [--seed 1] [--ttl-ms 30000]
              [--user NAME --password PASS] [--tls --cacert F [--cert F --key F]]

--requests N stops starting cycles after N requests instead of at the deadline. --unixsocket
connects to that unix socket instead of host and port. --user and --password authenticate every
connection as that ACL user (AUTH) before the run. --tls speaks TLS on every connection (the
handshakes are done before the clock starts), verifying the server with --cacert and showing
--cert and --key as the client's certificate.

--handshakes N runs no cycle: it opens N connections one after another, each connecting, doing
its TLS handshake (with --tls), sending PING and reading +PONG before closing, and reports the
time of each from connect to reply ("ops" counts connections).

Prints one JSON line: {"ops":..,"seconds":..,"ops_per_sec":..,"p50_us":..,"p99_us":..,...}.
*/
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
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

static const char kReleaseScript[] =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then return redis.call(\"del\",KEYS[1]) "
    "else return 0 end";
static const char kExtendScript[] =
    "if redis.call(\"get\",KEYS[1]) == ARGV[1] then "
    "return redis.call(\"pexpire\",KEYS[1],ARGV[2]) else return 0 end";

enum Step { kAcquire, kExtend, kRelease, kSteps };

struct Conn {
  int fd;
  SSL* ssl; /* NULL without --tls */
  int id;
  enum Step step;
  uint64_t n;
  uint64_t sent_ns;
  char token[37];
  char out[512];
  size_t out_len, out_sent;
  char in[512];
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
  long ttl_ms;
  const char* user; /* AUTH user password on each connection first, when set */
  const char* password;
  int tls;
  const char* cacert;
  const char* cert;
  const char* key;
  uint64_t handshakes;
};

static SSL_CTX* tls_ctx;

static void DieTls(const char* what) {
  fprintf(stderr, "%s: ", what);
  ERR_print_errors_fp(stderr);
  exit(2);
}

static void SetUpTls(const struct Options* o) {
  tls_ctx = SSL_CTX_new(TLS_client_method());
  if (tls_ctx == NULL) DieTls("SSL_CTX_new");
  if (o->cacert != NULL) {
    if (SSL_CTX_load_verify_locations(tls_ctx, o->cacert, NULL) != 1) DieTls("--cacert");
    SSL_CTX_set_verify(tls_ctx, SSL_VERIFY_PEER, NULL);
  }
  if (o->cert != NULL && (SSL_CTX_use_certificate_chain_file(tls_ctx, o->cert) != 1 ||
                          SSL_CTX_use_PrivateKey_file(tls_ctx, o->key, SSL_FILETYPE_PEM) != 1)) {
    DieTls("--cert/--key");
  }
}

/* read(2) and write(2), or their TLS forms: -1 with errno EAGAIN when the socket must be waited
   for (a TLS read may need to write, and the other way round: on loopback with one small
   request in flight, the next event of either kind brings it on). */
static ssize_t ConnRead(struct Conn* c, void* buf, size_t len) {
  if (c->ssl == NULL) return read(c->fd, buf, len);
  int n = SSL_read(c->ssl, buf, (int)len);
  if (n > 0) return n;
  int err = SSL_get_error(c->ssl, n);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    errno = EAGAIN;
    return -1;
  }
  return 0;
}

static ssize_t ConnWrite(struct Conn* c, const void* buf, size_t len) {
  if (c->ssl == NULL) return write(c->fd, buf, len);
  int n = SSL_write(c->ssl, buf, (int)len);
  if (n > 0) return n;
  int err = SSL_get_error(c->ssl, n);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    errno = EAGAIN;
    return -1;
  }
  errno = EPIPE;
  return -1;
}

static char release_sha[41], extend_sha[41];

/* Length of the one complete RESP reply at the start of buf, 0 if it is not complete yet. Only
   the reply types these commands produce: simple string, error, integer, bulk string. */
static size_t ReplyLength(const char* buf, size_t len) {
  const char* eol = memmem(buf, len, "\r\n", 2);
  if (eol == NULL) return 0;
  size_t line = (size_t)(eol - buf) + 2;
  if (buf[0] != '$') return line;
  long n = strtol(buf + 1, NULL, 10);
  if (n < 0) return line;
  return len >= line + (size_t)n + 2 ? line + (size_t)n + 2 : 0;
}

/* A blocking connection, with its TLS handshake done under --tls. */
static void Connect(const struct Options* o, struct Conn* c) {
  c->fd = ConnectTo(o->host, o->port, o->unix_path);
  if (tls_ctx == NULL) return;
  c->ssl = SSL_new(tls_ctx);
  if (c->ssl == NULL || SSL_set_fd(c->ssl, c->fd) != 1) DieTls("SSL_new");
  /* Lets the non-blocking writes later retry from a buffer that has moved on. */
  SSL_set_mode(c->ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  if (SSL_connect(c->ssl) != 1) DieTls("TLS handshake");
}

static size_t AppendBulk(char* out, size_t at, const char* s) {
  return at + (size_t)sprintf(out + at, "$%zu\r\n%s\r\n", strlen(s), s);
}

/* Sends the three-argument command a b c on a blocking socket and reads its whole reply into
   reply (size bytes at most); returns the reply's length. */
static size_t Call3(struct Conn* conn, const char* a, const char* b, const char* c, char* reply,
                    size_t size) {
  char req[512];
  size_t len = (size_t)sprintf(req, "*3\r\n");
  len = AppendBulk(req, len, a);
  len = AppendBulk(req, len, b);
  len = AppendBulk(req, len, c);
  if (ConnWrite(conn, req, len) != (ssize_t)len) Die("write");
  size_t got = 0;
  while (ReplyLength(reply, got) == 0) {
    ssize_t r = ConnRead(conn, reply + got, size - got - 1);
    if (r <= 0) Die("read");
    got += (size_t)r;
  }
  return got;
}

/* AUTH user password before the run; exits unless +OK. */
static void Authenticate(struct Conn* conn, const char* user, const char* password) {
  char reply[256];
  size_t got = Call3(conn, "AUTH", user, password, reply, sizeof reply);
  if (strncmp(reply, "+OK\r\n", 5) != 0) {
    fprintf(stderr, "AUTH failed: %.*s\n", (int)got, reply);
    exit(2);
  }
}

/* SCRIPT LOAD before the run; the reply is the script's SHA1. */
static void LoadScript(struct Conn* conn, const char* script, char sha[41]) {
  char reply[128];
  size_t got = Call3(conn, "SCRIPT", "LOAD", script, reply, sizeof reply);
  if (strncmp(reply, "$40\r\n", 5) != 0) {
    fprintf(stderr, "SCRIPT LOAD failed: %.*s\n", (int)got, reply);
    exit(2);
  }
  memcpy(sha, reply + 5, 40);
  sha[40] = '\0';
}

static void BuildRequest(struct Conn* c, const struct Options* o) {
  char key[96], ttl[24];
  snprintf(key, sizeof key, "lock:%llu:%d:%llu", (unsigned long long)o->seed, c->id,
           (unsigned long long)c->n);
  snprintf(ttl, sizeof ttl, "%ld", o->ttl_ms);
  size_t len;
  switch (c->step) {
    case kAcquire:
      len = (size_t)sprintf(c->out, "*6\r\n");
      len = AppendBulk(c->out, len, "SET");
      len = AppendBulk(c->out, len, key);
      len = AppendBulk(c->out, len, c->token);
      len = AppendBulk(c->out, len, "NX");
      len = AppendBulk(c->out, len, "PX");
      len = AppendBulk(c->out, len, ttl);
      break;
    case kExtend:
      len = (size_t)sprintf(c->out, "*6\r\n");
      len = AppendBulk(c->out, len, "EVALSHA");
      len = AppendBulk(c->out, len, extend_sha);
      len = AppendBulk(c->out, len, "1");
      len = AppendBulk(c->out, len, key);
      len = AppendBulk(c->out, len, c->token);
      len = AppendBulk(c->out, len, ttl);
      break;
    default:
      len = (size_t)sprintf(c->out, "*5\r\n");
      len = AppendBulk(c->out, len, "EVALSHA");
      len = AppendBulk(c->out, len, release_sha);
      len = AppendBulk(c->out, len, "1");
      len = AppendBulk(c->out, len, key);
      len = AppendBulk(c->out, len, c->token);
      break;
  }
  c->out_len = len;
  c->out_sent = 0;
}

/* Writes what the socket takes; returns 0 once the request is fully sent. */
static int Flush(struct Conn* c) {
  while (c->out_sent < c->out_len) {
    ssize_t w = ConnWrite(c, c->out + c->out_sent, c->out_len - c->out_sent);
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

static void Usage(void) {
  fprintf(stderr,
          "usage: lockcycle [--host h] [--port p] [--unixsocket path] [--connections n] "
          "[--duration s] [--requests n] [--seed n] [--ttl-ms ms] [--user u --password p] "
          "[--tls --cacert f [--cert f --key f]]\n");
  exit(2);
}

static struct Options ParseOptions(int argc, char** argv) {
  struct Options o = {"127.0.0.1", 6379, NULL, 50,   10.0, 0,    1, 30000,
                      NULL,        NULL, 0,    NULL, NULL, NULL, 0};
  static const struct option kLong[] = {{"host", required_argument, 0, 'h'},
                                        {"port", required_argument, 0, 'p'},
                                        {"connections", required_argument, 0, 'c'},
                                        {"duration", required_argument, 0, 'd'},
                                        {"requests", required_argument, 0, 'n'},
                                        {"seed", required_argument, 0, 's'},
                                        {"ttl-ms", required_argument, 0, 't'},
                                        {"unixsocket", required_argument, 0, 'u'},
                                        {"user", required_argument, 0, 'U'},
                                        {"password", required_argument, 0, 'P'},
                                        {"tls", no_argument, 0, 'T'},
                                        {"cacert", required_argument, 0, 'A'},
                                        {"cert", required_argument, 0, 'C'},
                                        {"key", required_argument, 0, 'K'},
                                        {"handshakes", required_argument, 0, 'H'},
                                        {0, 0, 0, 0}};
  int opt;
  while ((opt = getopt_long(argc, argv, "h:p:c:d:n:s:t:u:U:P:TA:C:K:H:", kLong, NULL)) != -1) {
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
      case 't':
        o.ttl_ms = atol(optarg);
        break;
      case 'u':
        o.unix_path = optarg;
        break;
      case 'U':
        o.user = optarg;
        break;
      case 'P':
        o.password = optarg;
        break;
      case 'T':
        o.tls = 1;
        break;
      case 'A':
        o.cacert = optarg;
        break;
      case 'C':
        o.cert = optarg;
        break;
      case 'K':
        o.key = optarg;
        break;
      case 'H':
        o.handshakes = strtoull(optarg, NULL, 10);
        break;
      default:
        Usage();
    }
  }
  if (optind != argc || o.connections < 1 || o.port < 1 ||
      (o.user == NULL) != (o.password == NULL) || (o.cert == NULL) != (o.key == NULL)) {
    Usage();
  }
  return o;
}

/* --handshakes: connection after connection, each timed from connect to its first reply. */
static int RunHandshakes(const struct Options* o) {
  const uint64_t start_ns = NowNs();
  for (uint64_t i = 0; i < o->handshakes; i++) {
    struct Conn c = {0};
    const uint64_t begin_ns = NowNs();
    Connect(o, &c);
    char reply[64];
    static const char kPing[] = "*1\r\n$4\r\nPING\r\n";
    if (ConnWrite(&c, kPing, sizeof kPing - 1) != (ssize_t)(sizeof kPing - 1)) Die("write");
    size_t got = 0;
    while (ReplyLength(reply, got) == 0) {
      ssize_t r = ConnRead(&c, reply + got, sizeof reply - got - 1);
      if (r <= 0) Die("read");
      got += (size_t)r;
    }
    histogram[BucketOf(NowNs() - begin_ns)]++;
    if (strncmp(reply, "+PONG\r\n", 7) != 0) Die("PING");
    if (c.ssl != NULL) SSL_free(c.ssl);
    close(c.fd);
  }
  const double seconds = (double)(NowNs() - start_ns) / 1e9;
  const double n = (double)o->handshakes;
  printf(
      "{\"ops\": %llu, \"seconds\": %.3f, \"ops_per_sec\": %.1f, \"p50_us\": %.1f, "
      "\"p99_us\": %.1f, \"p999_us\": %.1f, \"connections\": 1, \"unexpected\": 0}\n",
      (unsigned long long)o->handshakes, seconds, n / seconds, PercentileUs(o->handshakes, 0.50),
      PercentileUs(o->handshakes, 0.99), PercentileUs(o->handshakes, 0.999));
  return 0;
}

int main(int argc, char** argv) {
  struct Options o = ParseOptions(argc, argv);
  if (o.tls) SetUpTls(&o);
  if (o.handshakes > 0) return RunHandshakes(&o);
  struct Conn* conns = calloc((size_t)o.connections, sizeof *conns);
  if (conns == NULL) Die("calloc");
  int epfd = epoll_create1(0);
  if (epfd < 0) Die("epoll_create1");

  srandom((unsigned)o.seed);
  for (int i = 0; i < o.connections; i++) {
    struct Conn* c = &conns[i];
    Connect(&o, c);
    if (o.user != NULL) Authenticate(c, o.user, o.password);
    c->id = i;
    for (int j = 0; j < 36; j++) c->token[j] = "0123456789abcdef"[random() % 16];
  }
  LoadScript(&conns[0], kReleaseScript, release_sha);
  LoadScript(&conns[0], kExtendScript, extend_sha);

  for (int i = 0; i < o.connections; i++) {
    struct Conn* c = &conns[i];
    if (fcntl(c->fd, F_SETFL, O_NONBLOCK) != 0) Die("fcntl");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) Die("epoll_ctl");
  }

  const uint64_t start_ns = NowNs();
  const uint64_t end_ns = start_ns + (uint64_t)(o.duration_s * 1e9);
  uint64_t ops = 0, unexpected = 0, issued = 0;
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
      ssize_t r = ConnRead(c, c->in + c->in_len, sizeof c->in - c->in_len);
      if (r < 0 && errno == EAGAIN) continue;
      if (r <= 0) {
        fprintf(stderr, "connection %d closed by the server\n", c->id);
        exit(2);
      }
      c->in_len += (size_t)r;
      size_t len = ReplyLength(c->in, c->in_len);
      if (len == 0) continue;
      histogram[BucketOf(now_ns - c->sent_ns)]++;
      ops++;
      in_flight--;
      const char* want = c->step == kAcquire ? "+OK\r\n" : ":1\r\n";
      if (len != strlen(want) || memcmp(c->in, want, len) != 0) unexpected++;
      /* One request in flight, so nothing can follow this reply in the buffer. */
      c->in_len = 0;
      c->step = (enum Step)((c->step + 1) % kSteps);
      if (c->step == kAcquire) c->n++;
      /* A started cycle always ends with its release, so no lock outlives the run. */
      if (c->step == kAcquire && (stopping || (o.requests != 0 && issued >= o.requests))) {
        continue;
      }
      Send(c, &o, epfd);
      issued++;
      in_flight++;
    }
  }

  const double seconds = (double)(now_ns - start_ns) / 1e9;
  printf(
      "{\"ops\": %llu, \"seconds\": %.3f, \"ops_per_sec\": %.0f, \"p50_us\": %.1f, "
      "\"p99_us\": %.1f, \"p999_us\": %.1f, \"connections\": %d, \"unexpected\": %llu}\n",
      (unsigned long long)ops, seconds, ops / seconds, PercentileUs(ops, 0.50),
      PercentileUs(ops, 0.99), PercentileUs(ops, 0.999), o.connections,
      (unsigned long long)unexpected);
  return unexpected == 0 ? 0 : 1;
}
