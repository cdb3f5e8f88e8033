#include "server/dispatcher.h"

#include <algorithm>
#include <cstring>

#include "server/acl/acl_gate.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/eviction.h"
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
      reply.Error(server.scripts->busy_error());
    } else {
      reply.Error("ERR Replica can't interact with the keyspace");
    }
    return false;
  }
  return true;
}

void PushSlowlog(ServerState& server, const Session& session, const CommandSpec& spec,
                 std::span<const std::string_view> args, std::int64_t duration_us) {
  const Config& config = server.config;
  if (config.slowlog_log_slower_than_us < 0 || (spec.flags & kSkipSlowlog) != 0) return;
  if (duration_us >= config.slowlog_log_slower_than_us) {
    // A client without an address is a script's: Redis names its fake client "?:0".
    server.slowlog.Push(spec, args, duration_us, server.clock.NowMs() / 1000,
                        session.addr.empty() ? std::string_view("?:0") : session.addr,
                        session.name);
  }
  server.slowlog.Trim(config.slowlog_max_len);
}

void RecordLatency(ServerState& server, CommandCounters& counters, std::int64_t duration_us) {
  if (!server.config.latency_tracking) return;
  if (counters.latency == nullptr) counters.latency = std::make_unique<LatencyHistogram>();
  counters.latency->Record(duration_us * 1000);
}

// Call()'s statistics, in Redis's order: failed_calls, the latency monitor, the slow log, then
// calls, usec and the latency histogram. A client that blocked is timed again when served (its
// slow log entry and histogram sample wait for that, as in Redis).
void RecordExecution(ServerState& server, const Session& session, const CommandSpec& spec,
                     std::span<const std::string_view> args, std::int64_t duration_us) {
  CommandCounters& counters = server.command_stats.For(spec);
  if (server.command_stats.CloseErrorWindow()) ++counters.failed_calls;
  const Config& config = server.config;
  if (config.latency_monitor_threshold_ms != 0 &&
      duration_us / 1000 >= config.latency_monitor_threshold_ms) {
    server.latency.AddSample((spec.flags & kFast) != 0 ? "fast-command" : "command",
                             duration_us / 1000, server.clock.NowMs() / 1000);
  }
  if (!session.blocked) PushSlowlog(server, session, spec, args, duration_us);
  ++counters.calls;
  counters.usec += static_cast<std::uint64_t>(duration_us);
  if (!session.blocked) RecordLatency(server, counters, duration_us);
}

// Dispatch's end: MULTI's queue, or the command and the clients its writes woke.
void Run(ServerState& server, Session& session, const CommandSpec& spec,
         std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  if (session.in_multi) [[unlikely]] {
    if (QueueInTransaction(session, spec, args, reply)) return;
  }
  Call(server, session, spec, args, reply);
  // After the whole command, as Redis's handleClientsBlockedOnKeys: a script's pushes wake their
  // waiters once it has ended.
  if (!session.is_script && server.blocking.has_ready()) server.blocking.ServeReady(server);
}

// Run() for a request some fault rule may take (faults.h).
void RunFaulted(ServerState& server, Session& session, const CommandSpec& spec,
                std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  const std::optional<FaultHit> hit = server.faults.Match(spec, args, session.name);
  if (!hit) {
    Run(server, session, spec, args, reply);
    return;
  }
  switch (hit->action) {
    case FaultAction::kError:
      reply.Error(hit->error);
      server.command_stats.Reject(&spec);
      CommandRefused(server, session, args, reply);
      return;
    case FaultAction::kDrop:
      // The replies before it still go out; then the connection closes.
      session.close_after_reply = true;
      return;
    case FaultAction::kDelay:
      // A connection that closed while sending the replies before the hold runs nothing more.
      if (session.host != nullptr && !session.host->HoldReplies(hit->delay_ms)) return;
      Run(server, session, spec, args, reply);
      return;
    case FaultAction::kDropAfter: {
      const std::size_t mark = reply.buffer()->size();
      Run(server, session, spec, args, reply);
      if (session.blocked) {
        // Its reply comes when it is served; the connection drops it then.
        session.drop_reply_when_served = true;
      } else {
        reply.buffer()->resize(mark);
        session.close_after_reply = true;
      }
      return;
    }
  }
}

}  // namespace

const CommandSpec* ResolveCommand(std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply, const CommandSpec** refused) {
  const CommandSpec* spec = FindTopLevelCommand(args[0]);
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
      errors::UnknownSubcommand(reply, spec->name, args[1]);
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

void SetAccessClock(ServerState& server, const Session& session, const CommandSpec& spec,
                    std::int64_t now_ms) {
  // A script's commands keep what its EVAL set: Redis asks the calling client and its command
  // (EVAL, never TOUCH) whether lookups count.
  if (session.is_script) return;
  server.dbs.access_clock().Set(now_ms, !session.no_touch || spec.handler == TouchCommand);
}

namespace {

void Propagate(ServerState& server, const CommandSpec& spec, int db,
               std::span<const std::string_view> args, std::uint64_t changes_before) {
  // A script's or a transaction's calls were written as they ran, never the runner itself; a
  // DEBUG command's changes are a test's controls, not data (the README says which).
  const Handler h = spec.handler;
  const bool runner = h == EvalCommand || h == EvalshaCommand || h == EvalRoCommand ||
                      h == EvalshaRoCommand || h == FcallCommand || h == FcallRoCommand ||
                      h == ExecCommand || (spec.flags & kProtected) != 0;
  if (!runner && server.dbs.changes() != changes_before) {
    server.propagation.AddCommand(db, args, server.call_depth + 1);
  }
  if (server.call_depth == 0) server.propagation.EndCommand();
}

}  // namespace

void Call(ServerState& server, Session& session, const CommandSpec& spec,
          std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  ++server.stats.total_commands;
  server.command_stats.OpenErrorWindow();
  // Commands run by a command (scripts, EXEC) always read the clock: what ran between them is
  // not theirs.
  std::int64_t start_us = server.next_call_start_us;
  if (start_us < 0 || server.call_depth > 0) start_us = server.clock.MonotonicUs();
  server.next_call_start_us = -1;
  CommandContext ctx{server, session, reply, args, spec, server.NowMs()};
  SetAccessClock(server, session, spec, ctx.now_ms);
  if (server.command_log.on()) [[unlikely]] {
    LogCall(server, session, spec, args, ctx.now_ms);
  }
  const bool monitored = server.monitors.active();
  // A script runner (the skip_monitor commands) is shown before its script's commands.
  if (monitored && (spec.flags & kSkipMonitor) != 0) [[unlikely]] {
    server.monitors.Feed(server, session, session.db, args);
  }
  const int db = session.db;
  const std::uint64_t changes = server.dbs.changes();
  if (server.propagation.active()) [[unlikely]] {
    server.propagation.ClearReplacement();
  }
  ++server.call_depth;
  spec.handler(ctx);
  --server.call_depth;
  if (server.propagation.active()) [[unlikely]] {
    Propagate(server, spec, db, args, changes);
  }
  const std::int64_t end_us = server.clock.MonotonicUs();
  RecordExecution(server, session, spec, args, end_us - start_us);
  if (server.call_depth == 0 && server.timing_batch) server.next_call_start_us = end_us;
  if ((spec.flags & (kWrite | kNoWake)) == kWrite && !session.blocked) {
    server.blocking.SignalKeys(session.db, spec, args);
  }
  // The others after they ran (the db after SELECT); admin commands are never shown.
  if (monitored && (spec.flags & (kSkipMonitor | kAdmin)) == 0) [[unlikely]] {
    server.monitors.Feed(server, session, session.db, args);
  }
}

void RecordServedBlockedCommand(ServerState& server, const Session& session,
                                const CommandSpec& spec, std::span<const std::string_view> args,
                                std::int64_t duration_us, bool failed) {
  CommandCounters& counters = server.command_stats.For(spec);
  counters.usec += static_cast<std::uint64_t>(duration_us);
  if (failed) ++counters.failed_calls;
  const std::int64_t threshold_ms = server.config.latency_monitor_threshold_ms;
  if (threshold_ms != 0 && duration_us / 1000 >= threshold_ms) {
    server.latency.AddSample("command-unblocking", duration_us / 1000, server.clock.NowMs() / 1000);
  }
  RecordLatency(server, counters, duration_us);
  PushSlowlog(server, session, spec, args, duration_us);
}

void RunScriptCommand(ServerState& server, Session& session, std::span<const std::string_view> args,
                      bool read_only, bool deny_oom, bool& wrote, protocol::ReplyWriter& reply) {
  reply.set_error_listener(&server.command_stats);
  const CommandSpec* spec = FindTopLevelCommand(args[0]);
  if (spec != nullptr && spec->is_container() && (args.size() >= 2 || spec->handler == nullptr)) {
    spec = args.size() >= 2 ? FindCommand(spec->subcommands(), args[1]) : spec;
  }
  if (spec == nullptr || spec->handler == nullptr) {
    if (spec == nullptr) {
      server.unsupported.RecordRequest(args);
      reply.Error("ERR Unknown Redis command called from script");
    } else {
      reply.Error("ERR Wrong number of args calling Redis command from script");
    }
    server.command_stats.Reject(spec);
    return;
  }
  if (!ArityOk(spec->arity, args.size())) {
    reply.Error("ERR Wrong number of args calling Redis command from script");
    server.command_stats.Reject(spec);
    return;
  }
  if (KeyTooLong(*spec, args, reply)) {
    server.command_stats.Reject(spec);
    return;
  }
  const bool debug_allowed = (spec->flags & kProtected) != 0 && server.scripts_may_call_debug;
  if ((spec->flags & kNoScript) != 0 && !debug_allowed) {
    reply.Error("ERR This Redis command is not allowed from script");
    server.command_stats.Reject(spec);
    return;
  }
  if (session.user != nullptr && !session.user->unrestricted &&
      RefusedInScript(server, session, *spec, args, reply)) [[unlikely]] {
    server.command_stats.Reject(spec);
    return;
  }
  if ((spec->flags & kWrite) != 0 && read_only) {
    reply.Error("ERR Write commands are not allowed from read-only scripts.");
    server.command_stats.Reject(spec);
    return;
  }
  // Only before the first write: a script cannot be stopped halfway through its effects.
  if (deny_oom && !wrote && (spec->flags & kDenyOom) != 0) [[unlikely]] {
    reply.Error(errors::kOom);
    server.command_stats.Reject(spec);
    return;
  }
  if ((spec->flags & kWrite) != 0 && !wrote) [[unlikely]] {
    if (const int err = server.aof.write_error(); err != 0) {
      reply.Error({errors::kMisconfAof, std::strerror(err)});
      server.command_stats.Reject(spec);
      return;
    }
  }
  if ((spec->flags & kWrite) != 0) wrote = true;
  // Its waiters are served when the script is over.
  Call(server, session, *spec, args, reply);
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

namespace {

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
// refused because used memory is past maxmemory and eviction cannot bring it back (Redis's
// processCommand); true having replied.
// Records the state for a script the command runs. Skipped while a script is busy, as Redis
// skips it inside a yielding command: only SCRIPT KILL and its kin get through then.
bool OverMaxmemory(ServerState& server, Session& session, const CommandSpec& spec,
                   std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  if (server.scripts->busy() || session.is_script || server.loading) return false;
  server.pre_command_oom = PerformEvictions(server) == EvictResult::kFail;
  if (!server.pre_command_oom) return false;
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
  if (err == 0 || server.loading) return false;
  bool refuse = (EffectiveFlags(server, spec, args) & kWrite) != 0 || spec.handler == PingCommand;
  if (!refuse && spec.handler == ExecCommand && session.in_multi) {
    refuse = QueuedAny(server, session, kWrite);
  }
  if (refuse) reply.Error({errors::kMisconfAof, std::strerror(err)});
  return refuse;
}

}  // namespace

void Dispatch(ServerState& server, Session& session, std::span<const std::string_view> args,
              protocol::ReplyWriter& reply) {
  // Cross-protocol scripting defence (processCommand): an HTTP request is dropped unanswered.
  if (!session.is_script && (ArgIs(args[0], "post") || ArgIs(args[0], "host:"))) {
    session.close_now = true;
    return;
  }
  reply.set_error_listener(&server.command_stats);
  const CommandSpec* refused = nullptr;
  const CommandSpec* spec = ResolveCommand(args, reply, &refused);
  if (spec == nullptr) {
    if (refused != nullptr) {
      server.command_stats.Reject(refused);
    } else {
      server.unsupported.RecordRequest(args);
    }
    CommandRefused(server, session, args, reply);
    return;
  }
  if ((spec->flags & kProtected) != 0) {
    const DebugCommandPolicy policy = server.config.enable_debug_command;
    if (policy == DebugCommandPolicy::kNo ||
        (policy == DebugCommandPolicy::kLocal && !session.local)) {
      reply.Error(errors::kDebugNotAllowed);
      server.command_stats.Reject(spec);
      CommandRefused(server, session, args, reply);
      return;
    }
  }
  // A password cleared by CONFIG SET frees every client, as Redis's nopass default user does.
  if (!session.authenticated && (spec->flags & kNoAuth) == 0 && AuthRequired(server, session)) {
    reply.Error(errors::kNoAuth);
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  // The default user, allowed everything, skips the check in one test.
  if (session.user != nullptr && !session.user->unrestricted &&
      RefusedByAcl(server, session, *spec, args, reply)) [[unlikely]] {
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  // Before the pub/sub-context and busy checks, as in Redis's processCommand.
  if (server.config.maxmemory > 0 && OverMaxmemory(server, session, *spec, args, reply))
      [[unlikely]] {
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  if (server.aof.write_error() != 0 && RefusedByDiskError(server, session, *spec, args, reply))
      [[unlikely]] {
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  if (session.modes != 0 && !ModeAllows(server, session, *spec, reply)) [[unlikely]] {
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  if (server.scripts->busy() && (spec->flags & kAllowBusy) == 0) {
    reply.Error(server.scripts->busy_error());
    server.command_stats.Reject(spec);
    CommandRefused(server, session, args, reply);
    return;
  }
  session.last_command = spec;
  // Redis's last check before running: a command held by CLIENT PAUSE waits, unanswered.
  if (server.pause.active() && server.pause.Holds(server, session, *spec, args)) [[unlikely]] {
    server.pause.Postpone(session, args);
    return;
  }
  // After the pause, so that a held command meets the rules once, when it is released.
  if (server.faults.armed()) [[unlikely]] {
    RunFaulted(server, session, *spec, args, reply);
    return;
  }
  Run(server, session, *spec, args, reply);
}

void ForgetSession(ServerState& server, Session& session) {
  server.blocking.Remove(session);
  server.blocked_waits.Remove(session);
  server.pubsub.RemoveClient(session);
  server.monitors.Remove(session);
  DiscardTransaction(server, session);
  server.pause.Remove(session);
}

}  // namespace warden::server
