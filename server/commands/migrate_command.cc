// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
// [AUTH2 username password] [KEYS key...] (Redis 7.0's cluster.c migrateCommand): each key is
// sent as RESTORE with its DUMP payload over a connection to the target, and deleted here once
// the target has taken it (unless COPY). Like Redis, the exchange is synchronous and bounded by
// `timeout` at each step: the loop waits on the target for at most that long per read or write.
// The connection is kept for the next MIGRATE to the same target (persistence/migrate_sockets.h).
#include <charconv>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/notify.h"
#include "server/persistence/aof.h"
#include "server/persistence/migrate_sockets.h"
#include "server/server_state.h"

namespace warden::server {

std::string DumpPayload(const storage::Entry& e, bool compress);

namespace {

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

  // The RESTOREs, once; each attempt prefixes its own AUTH and SELECT.
  std::string restores;
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
      AppendBulkArray(restores, {"RESTORE", key, ttl_view, payload, "REPLACE"});
    } else {
      AppendBulkArray(restores, {"RESTORE", key, ttl_view, payload});
    }
    sent.push_back(key);
  }

  MigrateSockets& sockets = ctx.server.migrate_sockets;
  const std::string_view host = ctx.arg(1);
  const std::string_view port = ctx.arg(2);
  // As Redis: a cached connection may have gone stale, so a failure before the target answered
  // any RESTORE, other than a timeout, is tried once more on a new connection.
  bool may_retry = true;
  for (;;) {
    MigrateSocket* socket = sockets.Get(host, port, timeout_ms, ctx.now_ms);
    if (socket == nullptr) {
      ctx.reply.Error("IOERR error or timeout connecting to the client");
      return;
    }
    const bool select = socket->last_dbid != dbid;
    std::string prefix;
    if (has_password) {
      if (!username.empty()) {
        AppendBulkArray(prefix, {"AUTH", username, password});
      } else {
        AppendBulkArray(prefix, {"AUTH", password});
      }
    }
    if (select) {
      char db_text[24];
      const auto [db_end, db_ec] = std::to_chars(db_text, db_text + sizeof db_text, dbid);
      AppendBulkArray(prefix, {"SELECT", std::string_view(
                                             db_text, static_cast<std::size_t>(db_end - db_text))});
    }
    std::string auth_reply;
    std::string select_reply;
    const bool write_error =
        !socket->Write(prefix, timeout_ms) || !socket->Write(restores, timeout_ms);
    if (write_error || (has_password && !socket->ReadLine(auth_reply, timeout_ms)) ||
        (select && !socket->ReadLine(select_reply, timeout_ms))) {
      const bool timed_out = socket->timed_out();
      sockets.Close(host, port);
      if (!timed_out && may_retry) {
        may_retry = false;
        continue;
      }
      ctx.reply.Error(write_error ? "IOERR error or timeout writing to target instance"
                                  : "IOERR error or timeout reading from target instance");
      return;
    }

    bool error_from_target = false;
    bool socket_error = false;
    std::vector<std::string_view> deleted = {"DEL"};
    std::string line;
    std::size_t answered = 0;
    for (; answered < sent.size(); ++answered) {
      const std::string_view key = sent[answered];
      if (!socket->ReadLine(line, timeout_ms)) {
        socket_error = true;
        break;
      }
      const bool failed = (has_password && !auth_reply.empty() && auth_reply[0] == '-') ||
                          (select && !select_reply.empty() && select_reply[0] == '-') ||
                          (!line.empty() && line[0] == '-');
      if (failed) {
        if (!error_from_target) {
          error_from_target = true;
          // The database it selected is no longer known.
          socket->last_dbid = -1;
          std::string_view text = line;
          if (has_password && !auth_reply.empty() && auth_reply[0] == '-') {
            text = auth_reply;
          } else if (select && !select_reply.empty() && select_reply[0] == '-') {
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
    if (socket_error) {
      const bool retry = !error_from_target && answered == 0 && may_retry && !socket->timed_out();
      sockets.Close(host, port);
      if (retry) {
        may_retry = false;
        continue;
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
    socket->last_dbid = dbid;
    ctx.reply.Ok();
    return;
  }
}

}  // namespace warden::server
