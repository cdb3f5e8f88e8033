// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
// [AUTH2 username password] [KEYS key...] (Redis 7.0's cluster.c migrateCommand): each key is
// sent as RESTORE with its DUMP payload over a connection to the target, and deleted here once
// the target has taken it (unless COPY). Like Redis, the exchange is synchronous and bounded by
// `timeout` at each step: the loop waits on the target for at most that long per read or write.
// Unlike Redis, no connection is kept between calls: each MIGRATE connects and selects anew.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/notify.h"
#include "server/persistence/aof.h"
#include "server/server_state.h"

namespace warden::server {

std::string DumpPayload(const storage::Entry& e, bool compress);

namespace {

using Clock = std::chrono::steady_clock;

class TargetConnection {
 public:
  ~TargetConnection() {
    if (fd_ >= 0) close(fd_);
  }

  // A non-blocking connect bounded by `timeout_ms` (anetTcpNonBlockConnect, then a wait).
  bool Connect(const std::string& host, const std::string& port, int timeout_ms) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return false;
    for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
      const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
        // Writable is connected, as Redis's connBlockingConnect takes it: a refused connection
        // then fails at the first write ("error or timeout writing to target instance").
        pollfd p{fd, POLLOUT, 0};
        if (poll(&p, 1, timeout_ms) == 1) {
          fd_ = fd;
          break;
        }
      }
      close(fd);
    }
    freeaddrinfo(found);
    return fd_ >= 0;
  }

  // syncWrite: all of `data`, each wait at most `timeout_ms`.
  bool Write(std::string_view data, int timeout_ms) {
    while (!data.empty()) {
      const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (!Wait(POLLOUT, timeout_ms)) return false;
    }
    return true;
  }

  // syncReadLine: one reply line without its CRLF.
  bool ReadLine(std::string& line, int timeout_ms) {
    line.clear();
    for (;;) {
      const std::size_t nl = buffer_.find("\r\n");
      if (nl != std::string::npos) {
        line.assign(buffer_, 0, nl);
        buffer_.erase(0, nl + 2);
        return true;
      }
      char chunk[4096];
      const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EINTR)) return false;
      if (!Wait(POLLIN, timeout_ms)) {
        timed_out_ = true;
        return false;
      }
    }
  }
  bool timed_out() const { return timed_out_; }

 private:
  bool Wait(short events, int timeout_ms) {
    pollfd p{fd_, events, 0};
    return poll(&p, 1, timeout_ms) == 1;
  }

  int fd_ = -1;
  std::string buffer_;
  bool timed_out_ = false;
};

void AppendBulkArray(std::string& out, std::initializer_list<std::string_view> words) {
  std::vector<std::string_view> argv(words);
  AppendCommand(out, argv);
}

}  // namespace

void MigrateCommand(CommandContext& ctx) {
  bool copy = false;
  bool replace = false;
  std::string_view username;
  std::string_view password;
  bool has_password = false;
  std::size_t first_key = 3;
  std::size_t num_keys = 1;
  for (std::size_t j = 6; j < ctx.argc(); ++j) {
    const std::size_t more = ctx.argc() - 1 - j;
    const std::string_view arg = ctx.arg(j);
    if (ArgIs(arg, "copy")) {
      copy = true;
    } else if (ArgIs(arg, "replace")) {
      replace = true;
    } else if (ArgIs(arg, "auth")) {
      if (more == 0) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      password = ctx.arg(++j);
      has_password = true;
    } else if (ArgIs(arg, "auth2")) {
      if (more < 2) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      username = ctx.arg(++j);
      password = ctx.arg(++j);
      has_password = true;
    } else if (ArgIs(arg, "keys")) {
      if (!ctx.arg(3).empty()) {
        ctx.reply.Error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
        return;
      }
      first_key = j + 1;
      num_keys = ctx.argc() - j - 1;
      break;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  std::int64_t timeout = 0;
  std::int64_t dbid = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(5), timeout) ||
      !protocol::ParseStrictInt64(ctx.arg(4), dbid)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (timeout <= 0) timeout = 1000;
  const int timeout_ms = static_cast<int>(std::min<std::int64_t>(timeout, INT32_MAX));

  storage::Keyspace& keyspace = ctx.keyspace();
  std::vector<std::string_view> keys;
  for (std::size_t j = 0; j < num_keys; ++j) {
    if (keyspace.Find(ctx.arg(first_key + j), ctx.now_ms) != nullptr) {
      keys.push_back(ctx.arg(first_key + j));
    }
  }
  if (keys.empty()) {
    ctx.reply.Status("NOKEY");
    return;
  }

  std::string request;
  if (has_password) {
    if (!username.empty()) {
      AppendBulkArray(request, {"AUTH", username, password});
    } else {
      AppendBulkArray(request, {"AUTH", password});
    }
  }
  char db_text[24];
  const auto [db_end, db_ec] = std::to_chars(db_text, db_text + sizeof db_text, dbid);
  AppendBulkArray(
      request, {"SELECT", std::string_view(db_text, static_cast<std::size_t>(db_end - db_text))});
  std::vector<std::string_view> sent;
  for (const std::string_view key : keys) {
    const storage::Entry* e = keyspace.Peek(key);
    std::int64_t ttl = 0;
    if (e->has_deadline()) {
      ttl = e->deadline_ms() - ctx.now_ms;
      if (ttl < 0) continue;
      if (ttl < 1) ttl = 1;
    }
    char ttl_text[24];
    const auto [ttl_end, ttl_ec] = std::to_chars(ttl_text, ttl_text + sizeof ttl_text, ttl);
    const std::string payload = DumpPayload(*e, ctx.server.config.rdbcompression);
    const std::string_view ttl_view(ttl_text, static_cast<std::size_t>(ttl_end - ttl_text));
    if (replace) {
      AppendBulkArray(request, {"RESTORE", key, ttl_view, payload, "REPLACE"});
    } else {
      AppendBulkArray(request, {"RESTORE", key, ttl_view, payload});
    }
    sent.push_back(key);
  }

  // Redis retries once on a fresh connection when nothing was answered and no wait timed out
  // (its cached connection may have gone stale); a fresh connection each time needs no retry.
  TargetConnection target;
  if (!target.Connect(std::string(ctx.arg(1)), std::string(ctx.arg(2)), timeout_ms)) {
    ctx.reply.Error("IOERR error or timeout connecting to the client");
    return;
  }
  if (!target.Write(request, timeout_ms)) {
    ctx.reply.Error("IOERR error or timeout writing to target instance");
    return;
  }
  std::string auth_reply;
  std::string select_reply;
  if ((has_password && !target.ReadLine(auth_reply, timeout_ms)) ||
      !target.ReadLine(select_reply, timeout_ms)) {
    ctx.reply.Error("IOERR error or timeout reading from target instance");
    return;
  }
  bool error_from_target = false;
  bool socket_error = false;
  std::vector<std::string_view> deleted = {"DEL"};
  std::string line;
  for (const std::string_view key : sent) {
    if (!target.ReadLine(line, timeout_ms)) {
      socket_error = true;
      break;
    }
    const bool failed = (has_password && !auth_reply.empty() && auth_reply[0] == '-') ||
                        (!select_reply.empty() && select_reply[0] == '-') ||
                        (!line.empty() && line[0] == '-');
    if (failed) {
      if (!error_from_target) {
        error_from_target = true;
        std::string_view text = line;
        if (has_password && !auth_reply.empty() && auth_reply[0] == '-') {
          text = auth_reply;
        } else if (!select_reply.empty() && select_reply[0] == '-') {
          text = select_reply;
        }
        ctx.reply.Error({"ERR Target instance replied with error: ", text.substr(1)});
      }
      continue;
    }
    if (!copy) {
      if (storage::Entry* e = keyspace.Find(key, ctx.now_ms)) {
        keyspace.Erase(e);
        Notify(ctx, notify::kGeneric, "del", key);
      }
      deleted.push_back(key);
    }
  }
  // Propagated as the DEL of the keys the target took, as Redis rewrites it.
  if (ctx.server.propagation.active()) {
    if (deleted.size() > 1) {
      ctx.server.propagation.Replace(std::span<const std::string_view>(deleted));
    } else {
      ctx.server.propagation.Suppress();
    }
  }
  if (error_from_target) return;
  if (socket_error) {
    ctx.reply.Error("IOERR error or timeout reading from target instance");
    return;
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
