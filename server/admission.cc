#include "server/admission.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "server/acl/acl_gate.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"
#include "server/eviction.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "server/session.h"
#include "server/transaction.h"

namespace warden::server {
namespace {

bool ArityOk(int arity, std::size_t argc) {
  return arity > 0 ? argc == static_cast<std::size_t>(arity)
                   : argc >= static_cast<std::size_t>(-arity);
}

// The header of an entry keeps 28 bits of key length: a longer key (which only a
// proto-max-bulk-len raised past 256 MB could carry) is refused before it reaches storage.
[[gnu::always_inline]] inline bool KeyTooLong(const CommandSpec& spec,
                                              std::span<const std::string_view> args,
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

// Whether a command queued in `session`'s transaction has one of `flags` (Redis's
// mstate.cmd_flags, gathered with each command's getCommandFlags as it was queued).
bool QueuedAny(const ServerState& server, const Session& session, std::uint32_t flags) {
  const QueuedCommands& queued = session.multi.queued;
  std::vector<std::string_view> args;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    queued.Args(i, args);
    if ((EffectiveFlags(server, queued.spec(i), args) & flags) != 0) return true;
  }
  return false;
}

// Whether a command that may grow memory (or, inside MULTI, any command that queues) should be
// refused because used memory is past maxmemory and eviction cannot bring it back; true having
// replied. Records the state for a script the command runs. Skipped while a script is busy, as
// Redis skips it inside a yielding command: only SCRIPT KILL and its kin get through then.
bool OverMaxmemory(ServerState& server, Session& session, const CommandSpec& spec,
                   std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  if (server.scripts->busy() || session.is_script || server.loading) return false;
  server.call.pre_command_oom = PerformEvictions(server) == EvictResult::kFail;
  // A tracking client hears of keys evicted for its command before that command's reply.
  if (server.tracking.has_pending()) [[unlikely]]
    server.tracking.FlushPending(session);
  if (!server.call.pre_command_oom) return false;
  const Handler handler = spec.handler;
  bool refuse = (EffectiveFlags(server, spec, args) & kDenyOom) != 0;
  if (session.in_multi && handler != ExecCommand && handler != DiscardCommand &&
      handler != QuitCommand && handler != ResetCommand) {
    refuse = true;
  }
  if (!refuse && handler == ExecCommand && session.in_multi) {
    refuse = QueuedAny(server, session, kDenyOom);
  }
  if (refuse) reply.Error(errors::kOom);
  return refuse;
}

// Redis's writeCommandsDeniedByDiskError: while the append-only file cannot be written, writes
// (and PING, which monitors use to notice) are refused; true having replied.
bool RefusedByDiskError(ServerState& server, const Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  const int err = server.aof.write_error();
  if (server.loading) return false;
  bool refuse = (EffectiveFlags(server, spec, args) & kWrite) != 0 || spec.handler == PingCommand;
  if (!refuse && spec.handler == ExecCommand && session.in_multi) {
    refuse = QueuedAny(server, session, kWrite);
  }
  if (refuse) {
    // The snapshot's failure is named first, as Redis's writeCommandsDeniedByDiskError does.
    if (server.snapshots.refuses_writes()) {
      reply.Error(errors::kMisconfRdb);
    } else {
      reply.Error({errors::kMisconfAof, std::strerror(err)});
    }
  }
  return refuse;
}

// Redis's processCommand checks for replication, in its order: NOREPLICAS (a master with too
// few good replicas), READONLY (a read-only replica), MASTERDOWN (a replica whose link is down
// with replica-serve-stale-data no); true having replied. The master's own stream passes.
bool RefusedByReplication(ServerState& server, const Session& session, const CommandSpec& spec,
                          std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  if (session.is_master || server.loading) return false;
  const bool exec = spec.handler == ExecCommand && session.in_multi;
  const bool write = (EffectiveFlags(server, spec, args) & kWrite) != 0 ||
                     (exec && QueuedAny(server, session, kWrite));
  const Replication& repl = server.replication;
  if (write && repl.TooFewReplicas()) {
    reply.Error("NOREPLICAS Not enough good replicas to write.");
    return true;
  }
  if (write && repl.RefusesWrite(session)) {
    reply.Error("READONLY You can't write against a read only replica.");
    return true;
  }
  if (repl.RefusesStale(session)) {
    bool stale_ok = (spec.flags & kStale) != 0;
    if (stale_ok && exec) {
      // Redis's is_denystale_command for EXEC: any queued command without the flag.
      const QueuedCommands& queued = session.multi.queued;
      for (std::size_t i = 0; i < queued.size() && stale_ok; ++i) {
        stale_ok = (queued.spec(i).flags & kStale) != 0;
      }
    }
    if (!stale_ok) {
      reply.Error(
          "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
      return true;
    }
  }
  return false;
}

// What a RESP2 client in pub/sub mode may still send.
bool AllowedWhileSubscribed(const CommandSpec& spec) {
  const Handler h = spec.handler;
  return h == PingCommand || h == SubscribeCommand || h == SsubscribeCommand ||
         h == UnsubscribeCommand || h == SunsubscribeCommand || h == PsubscribeCommand ||
         h == PunsubscribeCommand || h == QuitCommand || h == ResetCommand;
}

}  // namespace

namespace {

// ResolveCommand, inlined into AdmitRequest: every request goes through it.
[[gnu::always_inline]] inline const CommandSpec* Resolve(const CommandSpec* top,
                                                         std::span<const std::string_view> args,
                                                         protocol::ReplyWriter& reply,
                                                         const CommandSpec** refused) {
  const CommandSpec* spec = top;
  if (spec == nullptr) {
    errors::UnknownCommand(reply, args);
    return nullptr;
  }
  if (spec->is_container() && (args.size() >= 2 || spec->handler == nullptr)) {
    if (args.size() < 2) {
      errors::WrongArity(reply, spec->name);
      if (refused != nullptr) *refused = spec;
      return nullptr;
    }
    const CommandSpec* sub = FindCommand(spec->subcommands(), args[1]);
    if (sub == nullptr) {
      // Redis names the container as the client did (a renamed CONFIG: "Try CFG HELP.").
      errors::UnknownSubcommand(reply, args[0], args[1]);
      return nullptr;
    }
    spec = sub;
  }
  if (!ArityOk(spec->arity, args.size()) || KeyTooLong(*spec, args, reply)) {
    if (!ArityOk(spec->arity, args.size())) errors::WrongArity(reply, spec->name);
    if (refused != nullptr) *refused = spec;
    return nullptr;
  }
  return spec;
}

}  // namespace

const CommandSpec* ResolveCommand(const CommandSpec* top, std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply, const CommandSpec** refused) {
  return Resolve(top, args, reply, refused);
}

void RejectCommand(ServerState& server, Session& session, const CommandSpec* spec,
                   std::span<const std::string_view> args, protocol::ReplyWriter& reply,
                   std::size_t mark) {
  if (spec != nullptr) {
    server.command_stats.Reject(spec);
  } else {
    server.debug->unsupported.RecordRequest(server.command_names.Find(args[0]), args);
  }
  if (session.in_multi) session.multi.refused = true;
  if (spec == nullptr || spec->handler != ExecCommand) return;
  // The refusal is "-<text>\r\n" after the mark. Redis formats its own refusals without the ERR
  // code here (rejectCommandFormat), and shared errors keep theirs.
  std::string& out = *reply.buffer();
  if (out.size() < mark + 3 || out[mark] != '-') return;
  std::size_t from = mark + 1;
  if (out.compare(from, 4, "ERR ") == 0) from += 4;
  const std::string reason = out.substr(from, out.size() - 2 - from);
  out.resize(mark);
  DiscardTransaction(server, session);
  reply.Error({errors::kExecAbortBecause, reason});
}

const CommandSpec* AdmitRequest(ServerState& server, Session& session,
                                std::span<const std::string_view> args,
                                protocol::ReplyWriter& reply) {
  const CommandSpec* top = server.command_names.Find(args[0]);
  // Cross-protocol scripting defence: an HTTP request is dropped unanswered (neither name is a
  // command, so only an unknown name is compared).
  if (top == nullptr && !session.is_script && (ArgIs(args[0], "post") || ArgIs(args[0], "host:")))
      [[unlikely]] {
    session.close_now = true;
    return nullptr;
  }
  const std::size_t mark = reply.buffer()->size();
  const CommandSpec* found = nullptr;
  const CommandSpec* spec = Resolve(top, args, reply, &found);
  if (spec == nullptr) {
    RejectCommand(server, session, found, args, reply, mark);
    return nullptr;
  }
  const std::uint32_t flags = spec->flags;
  const auto refuse = [&]() -> const CommandSpec* {
    RejectCommand(server, session, spec, args, reply, mark);
    return nullptr;
  };
  if ((flags & kProtected) != 0) {
    const DebugCommandPolicy policy = server.config.enable_debug_command;
    if (policy == DebugCommandPolicy::kNo ||
        (policy == DebugCommandPolicy::kLocal && !session.local)) {
      reply.Error(errors::kDebugNotAllowed);
      return refuse();
    }
  }
  // A password cleared by CONFIG SET frees every client, as Redis's nopass default user does.
  if (!session.authenticated && (flags & kNoAuth) == 0 && AuthRequired(server, session)) {
    reply.Error(errors::kNoAuth);
    return refuse();
  }
  if (session.in_multi && (flags & kNoMulti) != 0) [[unlikely]] {
    reply.Error(errors::kNotAllowedInMulti);
    return refuse();
  }
  // The default user, allowed everything, skips the check in one test.
  if (session.user != nullptr && !session.user->unrestricted &&
      RefusedByAcl(server, session, *spec, args, reply)) [[unlikely]] {
    return refuse();
  }
  if (server.config.maxmemory > 0 && OverMaxmemory(server, session, *spec, args, reply))
      [[unlikely]] {
    return refuse();
  }
  // Client-side caching's table kept to tracking-table-max-keys before each command.
  if (server.tracking.clients() != 0) [[unlikely]]
    server.tracking.LimitBeforeCommand();
  if ((server.aof.write_error() != 0 || server.snapshots.refuses_writes()) &&
      RefusedByDiskError(server, session, *spec, args, reply)) [[unlikely]] {
    return refuse();
  }
  if ((server.replication.is_replica() || server.config.repl.min_replicas_to_write > 0) &&
      RefusedByReplication(server, session, *spec, args, reply)) [[unlikely]] {
    return refuse();
  }
  if (session.modes != 0 && session.subscribed() && session.resp == 2 &&
      !AllowedWhileSubscribed(*spec)) [[unlikely]] {
    reply.Error({"ERR Can't execute '", spec->name,
                 "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in "
                 "this context"});
    return refuse();
  }
  if (server.scripts->busy() && (flags & kAllowBusy) == 0) {
    reply.Error(server.scripts->busy_error());
    return refuse();
  }
  // A monitor is a replica inside Redis: it may not touch the keyspace.
  if (session.modes != 0 && session.monitoring() &&
      (flags & (kWrite | kReadOnly | kMayReplicate)) != 0) [[unlikely]] {
    reply.Error("ERR Replica can't interact with the keyspace");
    return refuse();
  }
  session.last_command = spec;
  // Redis's last check before running: a command held by CLIENT PAUSE waits, unanswered.
  if (server.pause.active() && server.pause.Holds(server, session, *spec, args)) [[unlikely]] {
    server.pause.Postpone(session, args);
    return nullptr;
  }
  return spec;
}

const CommandSpec* AdmitScriptCall(ServerState& server, Session& session,
                                   std::span<const std::string_view> args, bool read_only,
                                   bool deny_oom, bool wrote, protocol::ReplyWriter& reply) {
  const CommandSpec* spec = server.command_names.FindFor(args);
  const auto refuse = [&](std::string_view error) -> const CommandSpec* {
    if (!error.empty()) reply.Error(error);
    server.command_stats.Reject(spec);
    return nullptr;
  };
  if (spec == nullptr) {
    server.debug->unsupported.RecordRequest(server.command_names.Find(args[0]), args);
    return refuse("ERR Unknown Redis command called from script");
  }
  if (spec->handler == nullptr || !ArityOk(spec->arity, args.size())) {
    return refuse("ERR Wrong number of args calling Redis command from script");
  }
  if (KeyTooLong(*spec, args, reply)) return refuse({});
  const std::uint32_t flags = spec->flags;
  const bool debug_allowed = (flags & kProtected) != 0 && server.debug->scripts_may_call_debug;
  if ((flags & kNoScript) != 0 && !debug_allowed) {
    return refuse("ERR This Redis command is not allowed from script");
  }
  if (session.user != nullptr && !session.user->unrestricted &&
      RefusedInScript(server, session, *spec, args, reply)) [[unlikely]] {
    return refuse({});
  }
  // Redis counts may-replicate commands (PFCOUNT, PUBLISH) as writes here.
  if ((flags & (kWrite | kMayReplicate)) != 0 && read_only) {
    return refuse("ERR Write commands are not allowed from read-only scripts.");
  }
  // Only before the first write: a script cannot be stopped halfway through its effects.
  if (deny_oom && !wrote && (flags & kDenyOom) != 0) [[unlikely]] {
    return refuse(errors::kOom);
  }
  if ((flags & kWrite) != 0 && !wrote) [[unlikely]] {
    if (server.replication.RefusesWrite(session)) {
      reply.Error("READONLY You can't write against a read only replica.");
      return refuse({});
    }
    if (server.snapshots.refuses_writes()) {
      reply.Error(errors::kMisconfRdb);
      return refuse({});
    }
    if (const int err = server.aof.write_error(); err != 0) {
      reply.Error({errors::kMisconfAof, std::strerror(err)});
      return refuse({});
    }
    if (server.replication.TooFewReplicas()) {
      reply.Error("NOREPLICAS Not enough good replicas to write.");
      return refuse({});
    }
  }
  return spec;
}

std::uint32_t EffectiveFlags(const ServerState& server, const CommandSpec& spec,
                             std::span<const std::string_view> args) {
  const Handler h = spec.handler;
  std::optional<std::uint8_t> declared;
  if (h == FcallCommand || h == FcallRoCommand) {
    if (const LuaFunction* function = server.scripts->FindFunction(args[1])) {
      declared = function->flags;
    }
  } else if (h == EvalCommand || h == EvalRoCommand) {
    declared = server.scripts->DeclaredFlags(false, args[1]);
  } else if (h == EvalshaCommand || h == EvalshaRoCommand) {
    declared = server.scripts->DeclaredFlags(true, args[1]);
  }
  if (!declared.has_value()) return spec.flags;
  std::uint32_t flags = spec.flags & ~(kWrite | kDenyOom | kMayReplicate);
  if ((*declared & (kFunctionAllowOom | kFunctionNoWrites)) == 0) flags |= kDenyOom;
  if ((*declared & kFunctionNoWrites) == 0) flags |= kWrite;
  return flags;
}

}  // namespace warden::server
