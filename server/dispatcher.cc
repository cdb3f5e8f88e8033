#include "server/dispatcher.h"

#include <algorithm>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/scripting/script_engine.h"
#include "server/transaction.h"

namespace warden::server {
namespace {

bool ArityOk(int arity, std::size_t argc) {
  return arity > 0 ? argc == static_cast<std::size_t>(arity)
                   : argc >= static_cast<std::size_t>(-arity);
}

// The header of an entry keeps 28 bits of key length: a longer key (which only a
// proto-max-bulk-len raised past 256 MB could carry) is refused before it reaches storage.
bool KeyTooLong(const CommandSpec& spec, std::span<const std::string_view> args,
                protocol::ReplyWriter& reply) {
  if (spec.first_key <= 0) return false;
  const int argc = static_cast<int>(args.size());
  const int last = spec.last_key < 0 ? argc + spec.last_key : std::min(spec.last_key, argc - 1);
  for (int i = spec.first_key; i <= last; i += std::max(spec.key_step, 1)) {
    if (args[static_cast<std::size_t>(i)].size() > storage::Keyspace::kMaxKeyLength) {
      reply.Error(errors::kKeyTooLong);
      return true;
    }
  }
  return false;
}

// Redis 7.0's processCommand gates for a client in pub/sub mode (RESP2) or MONITOR mode; only
// reached when session.modes is set. Writes the refusal and returns false.
bool ModeAllows(ServerState& server, const Session& session, const CommandSpec& spec,
                protocol::ReplyWriter& reply) {
  if (session.subscribed() && session.resp == 2 && spec.handler != PingCommand &&
      spec.handler != SubscribeCommand && spec.handler != SsubscribeCommand &&
      spec.handler != UnsubscribeCommand && spec.handler != SunsubscribeCommand &&
      spec.handler != PsubscribeCommand && spec.handler != PunsubscribeCommand &&
      spec.handler != QuitCommand && spec.handler != ResetCommand) {
    reply.Error({"ERR Can't execute '", spec.name,
                 "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                 "this context"});
    return false;
  }
  // A monitor is a replica inside Redis: it may not touch the keyspace. Redis checks this after
  // the busy-script check, which is repeated here to keep the order.
  if (session.monitoring() && (spec.flags & (kWrite | kReadOnly | kMayReplicate)) != 0) {
    if (server.scripts->busy() && (spec.flags & kAllowBusy) == 0) {
      reply.Error(errors::kBusy);
    } else {
      reply.Error("ERR Replica can't interact with the keyspace");
    }
    return false;
  }
  return true;
}

}  // namespace

const CommandSpec* ResolveCommand(std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply) {
  const CommandSpec* spec = FindTopLevelCommand(args[0]);
  if (spec == nullptr) {
    errors::UnknownCommand(reply, args);
    return nullptr;
  }
  if (spec->is_container() && (args.size() >= 2 || spec->handler == nullptr)) {
    if (args.size() < 2) {
      errors::WrongArity(reply, spec->name);
      return nullptr;
    }
    const CommandSpec* sub = FindCommand(spec->subcommands(), args[1]);
    if (sub == nullptr) {
      errors::UnknownSubcommand(reply, spec->name, args[1]);
      return nullptr;
    }
    spec = sub;
  }
  if (!ArityOk(spec->arity, args.size())) {
    errors::WrongArity(reply, spec->name);
    return nullptr;
  }
  if (KeyTooLong(*spec, args, reply)) return nullptr;
  return spec;
}

void Call(ServerState& server, Session& session, const CommandSpec& spec,
          std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  ++server.stats.total_commands;
  CommandContext ctx{server, session, reply, args, spec, server.NowMs()};
  const bool monitored = server.monitors.active();
  // A script runner (the skip_monitor commands) is shown before its script's commands.
  if (monitored && (spec.flags & kSkipMonitor) != 0) [[unlikely]] {
    server.monitors.Feed(server, session, session.db, args);
  }
  spec.handler(ctx);
  if ((spec.flags & kWrite) != 0 && !session.blocked) {
    server.blocking.SignalKeys(session.db, spec, args);
  }
  // The others after they ran (the db after SELECT); admin commands are never shown.
  if (monitored && (spec.flags & (kSkipMonitor | kAdmin)) == 0) [[unlikely]] {
    server.monitors.Feed(server, session, session.db, args);
  }
}

void RunScriptCommand(ServerState& server, Session& session, std::span<const std::string_view> args,
                      bool read_only, bool& wrote, protocol::ReplyWriter& reply) {
  const CommandSpec* spec = FindTopLevelCommand(args[0]);
  if (spec != nullptr && spec->is_container() && (args.size() >= 2 || spec->handler == nullptr)) {
    spec = args.size() >= 2 ? FindCommand(spec->subcommands(), args[1]) : spec;
  }
  if (spec == nullptr || spec->handler == nullptr) {
    if (spec == nullptr) {
      reply.Error("ERR Unknown Redis command called from script");
    } else {
      reply.Error("ERR Wrong number of args calling Redis command from script");
    }
    return;
  }
  if (!ArityOk(spec->arity, args.size())) {
    reply.Error("ERR Wrong number of args calling Redis command from script");
    return;
  }
  if (KeyTooLong(*spec, args, reply)) return;
  const bool debug_allowed = (spec->flags & kProtected) != 0 && server.scripts_may_call_debug;
  if ((spec->flags & kNoScript) != 0 && !debug_allowed) {
    reply.Error("ERR This Redis command is not allowed from script");
    return;
  }
  if ((spec->flags & kWrite) != 0) {
    if (read_only) {
      reply.Error("ERR Write commands are not allowed from read-only scripts.");
      return;
    }
    wrote = true;
  }
  // Its waiters are served when the script is over.
  Call(server, session, *spec, args, reply);
}

void Dispatch(ServerState& server, Session& session, std::span<const std::string_view> args,
              protocol::ReplyWriter& reply) {
  // Cross-protocol scripting defence (processCommand): an HTTP request is dropped unanswered.
  if (!session.is_script && (ArgIs(args[0], "post") || ArgIs(args[0], "host:"))) {
    session.close_now = true;
    return;
  }
  const CommandSpec* spec = ResolveCommand(args, reply);
  if (spec == nullptr) {
    CommandRefused(server, session, args, reply);
    return;
  }
  if ((spec->flags & kProtected) != 0) {
    const DebugCommandPolicy policy = server.config.enable_debug_command;
    if (policy == DebugCommandPolicy::kNo ||
        (policy == DebugCommandPolicy::kLocal && !session.local)) {
      reply.Error(errors::kDebugNotAllowed);
      CommandRefused(server, session, args, reply);
      return;
    }
  }
  // A password cleared by CONFIG SET frees every client, as Redis's nopass default user does.
  if (!session.authenticated && (spec->flags & kNoAuth) == 0 &&
      !server.config.requirepass.empty()) {
    reply.Error(errors::kNoAuth);
    CommandRefused(server, session, args, reply);
    return;
  }
  if (session.modes != 0 && !ModeAllows(server, session, *spec, reply)) [[unlikely]] {
    CommandRefused(server, session, args, reply);
    return;
  }
  if (server.scripts->busy() && (spec->flags & kAllowBusy) == 0) {
    reply.Error(errors::kBusy);
    CommandRefused(server, session, args, reply);
    return;
  }
  if (server.faults.fail_remaining > 0 && (spec->flags & kProtected) == 0 &&
      (server.faults.fail_command.empty() || server.faults.fail_command == spec->name)) {
    --server.faults.fail_remaining;
    reply.Error(server.faults.fail_error);
    CommandRefused(server, session, args, reply);
    return;
  }
  session.last_command = spec;
  // Redis's last check before running: a command held by CLIENT PAUSE waits, unanswered.
  if (server.pause.active() && server.pause.Holds(server, session, *spec, args)) [[unlikely]] {
    server.pause.Postpone(session, args);
    return;
  }
  if (session.in_multi) [[unlikely]] {
    if (QueueInTransaction(session, *spec, args, reply)) return;
  }
  Call(server, session, *spec, args, reply);
  // After the whole command, as Redis's handleClientsBlockedOnKeys: a script's pushes wake their
  // waiters once it has ended.
  if (!session.is_script && server.blocking.has_ready()) server.blocking.ServeReady(server);
}

}  // namespace warden::server
