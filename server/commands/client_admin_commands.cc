// The operator's CLIENT subcommands: KILL, PAUSE, UNPAUSE, NO-EVICT and NO-TOUCH (the table rows
// are in client_commands.cc with the other CLIENT subcommands).
#include <cstdint>
#include <string_view>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"

namespace warden::server {
namespace {

enum class ClientType { kNormal, kReplica, kPubSub, kMaster };

// Redis's getClientTypeByName.
bool ParseClientType(std::string_view name, ClientType& out) {
  if (ArgIs(name, "normal")) {
    out = ClientType::kNormal;
  } else if (ArgIs(name, "slave") || ArgIs(name, "replica")) {
    out = ClientType::kReplica;
  } else if (ArgIs(name, "pubsub")) {
    out = ClientType::kPubSub;
  } else if (ArgIs(name, "master")) {
    out = ClientType::kMaster;
  } else {
    return false;
  }
  return true;
}

// Redis's getClientType: the master's client, a replica, a subscriber, or normal (a MONITOR
// client counts as normal).
ClientType TypeOf(const Session& s) {
  if (s.is_master) return ClientType::kMaster;
  if (s.is_replica) return ClientType::kReplica;
  return s.subscribed() ? ClientType::kPubSub : ClientType::kNormal;
}

struct KillFilter {
  std::string_view addr;
  std::string_view laddr;
  std::uint64_t id = 0;
  bool by_type = false;
  ClientType type = ClientType::kNormal;
  bool skip_me = true;
  const AclUser* user = nullptr;

  bool Matches(const Session& s) const {
    if (user != nullptr && s.user != user) return false;
    if (!addr.empty() && s.addr != addr) return false;
    if (!laddr.empty() && s.laddr != laddr) return false;
    if (by_type && TypeOf(s) != type) return false;
    if (id != 0 && s.id != id) return false;
    return true;
  }
};

void SubcommandSyntaxError(CommandContext& ctx) {
  ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '", ctx.arg(1),
                   "'. Try CLIENT HELP."});
}

// Reads CLIENT KILL's filters. Returns false once it has written an error.
[[nodiscard]] bool ParseKillFilter(CommandContext& ctx, KillFilter& f) {
  if (ctx.argc() == 3) {
    // The old form: one address, and the caller may kill itself.
    f.addr = ctx.arg(2);
    f.skip_me = false;
    return true;
  }
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view option = ctx.arg(i);
    if (i + 1 >= ctx.argc()) {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
    const std::string_view value = ctx.arg(i + 1);
    if (ArgIs(option, "id")) {
      std::int64_t id = 0;
      if (!protocol::ParseStrictInt64(value, id) || id < 1) {
        ctx.reply.Error("ERR client-id should be greater than 0");
        return false;
      }
      f.id = static_cast<std::uint64_t>(id);
    } else if (ArgIs(option, "type")) {
      if (!ParseClientType(value, f.type)) {
        ctx.reply.Error({"ERR Unknown client type '", value, "'"});
        return false;
      }
      f.by_type = true;
    } else if (ArgIs(option, "addr")) {
      f.addr = value;
    } else if (ArgIs(option, "laddr")) {
      f.laddr = value;
    } else if (ArgIs(option, "user")) {
      f.user = ctx.server.acl.Find(value);
      if (f.user == nullptr) {
        ctx.reply.Error({"ERR No such user '", value, "'"});
        return false;
      }
    } else if (ArgIs(option, "skipme")) {
      if (ArgIs(value, "yes")) {
        f.skip_me = true;
      } else if (ArgIs(value, "no")) {
        f.skip_me = false;
      } else {
        ctx.reply.Error(errors::kSyntax);
        return false;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

}  // namespace

// CLIENT KILL addr | CLIENT KILL [ID id] [TYPE type] [USER user] [ADDR addr] [LADDR addr]
// [SKIPME yes|no]: filters combine with AND. As in Redis, the caller is closed last, after its
// reply.
void ClientKillCommand(CommandContext& ctx) {
  KillFilter filter;
  if (!ParseKillFilter(ctx, filter)) return;
  const bool kill_me = !filter.skip_me && filter.Matches(ctx.session);
  std::size_t killed = kill_me ? 1 : 0;
  if (ctx.server.connections != nullptr) {
    killed += ctx.server.connections->KillClients(
        [&filter](const Session& s) { return filter.Matches(s); }, &ctx.session);
  }
  if (ctx.argc() == 3) {
    if (killed == 0) {
      ctx.reply.Error("ERR No such client");
    } else {
      ctx.reply.Ok();
    }
  } else {
    ctx.reply.Integer(static_cast<std::int64_t>(killed));
  }
  if (kill_me) ctx.session.close_after_reply = true;
}

// CLIENT PAUSE timeout [WRITE|ALL]: the mode is read before the timeout, as in Redis.
void ClientPauseCommand(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    SubcommandSyntaxError(ctx);
    return;
  }
  PauseMode mode = PauseMode::kAll;
  if (ctx.argc() == 4) {
    if (ArgIs(ctx.arg(3), "write")) {
      mode = PauseMode::kWrite;
    } else if (!ArgIs(ctx.arg(3), "all")) {
      ctx.reply.Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  std::int64_t timeout_ms = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), timeout_ms)) {
    ctx.reply.Error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout_ms < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return;
  }
  const std::int64_t now_ms = ctx.server.clock.NowMs();
  // Redis adds the time to a non-zero timeout without an overflow check; a sum past the largest
  // time wraps to the past, which ends the pause at once. Mirrored without the undefined
  // behaviour.
  const std::int64_t end_ms =
      timeout_ms == 0 ? 0
                      : static_cast<std::int64_t>(static_cast<std::uint64_t>(timeout_ms) +
                                                  static_cast<std::uint64_t>(now_ms));
  ctx.server.pause.Pause(PausePurpose::kClientCommand, mode, end_ms, now_ms);
  ctx.reply.Ok();
}

void ClientUnpauseCommand(CommandContext& ctx) {
  ctx.server.pause.Unpause(PausePurpose::kClientCommand);
  ctx.reply.Ok();
}

// CLIENT NO-TOUCH on|off (Redis 7.2): the client's reads leave keys' access times alone. warden
// keeps no access times, so only the flag (CLIENT LIST's T) changes.
void ClientNoTouchCommand(CommandContext& ctx) {
  if (ArgIs(ctx.arg(2), "on")) {
    ctx.session.no_touch = true;
  } else if (ArgIs(ctx.arg(2), "off")) {
    ctx.session.no_touch = false;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
