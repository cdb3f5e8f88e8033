#include "server/dispatcher.h"

#include <algorithm>
#include <cstring>

#include "server/admission.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"
#include "server/eviction.h"
#include "server/scripting/script_engine.h"
#include "server/transaction.h"

namespace warden::server {
namespace {

// The rare halves of the statistics below, kept out of every command's path.
[[gnu::noinline, gnu::cold]] void AddSlowlogEntry(ServerState& server, const Session& session,
                                                  const CommandSpec& spec,
                                                  std::span<const std::string_view> args,
                                                  std::int64_t duration_us) {
  // A client without an address is a script's: Redis names its fake client "?:0".
  server.slowlog.Push(spec, args, duration_us, server.clock.NowMs() / 1000,
                      session.addr.empty() ? std::string_view("?:0") : session.addr, session.name);
}

[[gnu::noinline, gnu::cold]] void AddLatencySample(ServerState& server, const CommandSpec& spec,
                                                   std::int64_t duration_us) {
  server.latency.AddSample((spec.flags & kFast) != 0 ? "fast-command" : "command",
                           duration_us / 1000, server.clock.NowMs() / 1000);
}

[[gnu::noinline, gnu::cold]] void AddHistogram(CommandCounters& counters) {
  counters.latency = std::make_unique<LatencyHistogram>();
}

inline void PushSlowlog(ServerState& server, const Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args, std::int64_t duration_us) {
  const Config& config = server.config;
  if (config.slowlog_log_slower_than_us < 0 || (spec.flags & kSkipSlowlog) != 0) return;
  if (duration_us >= config.slowlog_log_slower_than_us) [[unlikely]] {
    AddSlowlogEntry(server, session, spec, args, duration_us);
  }
  server.slowlog.Trim(config.slowlog_max_len);
}

inline void RecordLatency(ServerState& server, CommandCounters& counters,
                          std::int64_t duration_us) {
  if (!server.config.latency_tracking) return;
  if (counters.latency == nullptr) [[unlikely]]
    AddHistogram(counters);
  counters.latency->Record(duration_us * 1000);
}

// Call()'s statistics, in Redis's order: failed_calls, the latency monitor, the slow log, then
// calls, usec and the latency histogram. A client that blocked is timed again when served (its
// slow log entry and histogram sample wait for that, as in Redis).
inline void RecordExecution(ServerState& server, const Session& session, const CommandSpec& spec,
                            std::span<const std::string_view> args, std::int64_t duration_us) {
  CommandCounters& counters = server.command_stats.For(spec);
  if (server.command_stats.CloseErrorWindow()) ++counters.failed_calls;
  const std::int64_t threshold_ms = server.config.latency_monitor_threshold_ms;
  if (threshold_ms != 0 && duration_us / 1000 >= threshold_ms) [[unlikely]] {
    AddLatencySample(server, spec, duration_us);
  }
  if (!session.blocked) PushSlowlog(server, session, spec, args, duration_us);
  ++counters.calls;
  counters.usec += static_cast<std::uint64_t>(duration_us);
  if (!session.blocked) RecordLatency(server, counters, duration_us);
}

// Dispatch's end: MULTI's queue, or the command and the clients its writes woke.
[[gnu::always_inline]] inline void Run(ServerState& server, Session& session,
                                       const CommandSpec& spec,
                                       std::span<const std::string_view> args,
                                       protocol::ReplyWriter& reply) {
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
  const std::optional<FaultHit> hit = server.debug->faults.Match(spec, args, session.name);
  if (!hit) {
    Run(server, session, spec, args, reply);
    return;
  }
  switch (hit->action) {
    case FaultAction::kError: {
      const std::size_t mark = reply.buffer()->size();
      reply.Error(hit->error);
      RejectCommand(server, session, &spec, args, reply, mark);
      return;
    }
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
    server.propagation.AddCommand(db, args, server.call.depth + 1);
  }
  if (server.call.depth == 0) server.propagation.EndCommand();
}

}  // namespace

void Call(ServerState& server, Session& session, const CommandSpec& spec,
          std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  ++server.stats.total_commands;
  server.command_stats.OpenErrorWindow();
  // Commands run by a command (scripts, EXEC) always read the clock: what ran between them is
  // not theirs.
  std::int64_t start_us = server.call.next_start_us;
  if (start_us < 0 || server.call.depth > 0) start_us = server.clock.RealUs();
  server.call.next_start_us = -1;
  const std::int64_t now_ms = server.call.frozen_now_ms >= 0
                                  ? server.call.frozen_now_ms
                                  : server.clock.NowUsAt(start_us) / 1000;
  CommandContext ctx{server, session, reply, args, spec, now_ms};
  SetAccessClock(server, session, spec, ctx.now_ms);
  if (session.tracking != 0 && server.call.depth == 0) [[unlikely]] {
    server.tracking.set_top_command(&spec, args);
  }
  if (server.debug->command_log.on()) [[unlikely]] {
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
  ++server.call.depth;
  spec.handler(ctx);
  --server.call.depth;
  if ((spec.flags & kReadOnly) != 0 && server.tracking.clients() != 0) [[unlikely]] {
    server.tracking.AfterRead(session, spec, args);
  }
  if (server.propagation.active()) [[unlikely]] {
    Propagate(server, spec, db, args, changes);
    session.repl_offset = server.replication.master_repl_offset();
  }
  const std::int64_t end_us = server.clock.RealUs();
  // A clock stepped back during the command counts as no time, not as negative time.
  RecordExecution(server, session, spec, args, std::max<std::int64_t>(end_us - start_us, 0));
  if (server.call.depth == 0 && server.call.timing_batch) server.call.next_start_us = end_us;
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

bool RunScriptCommand(ServerState& server, Session& session, std::span<const std::string_view> args,
                      bool read_only, bool deny_oom, bool& wrote, protocol::ReplyWriter& reply) {
  reply.set_error_listener(&server.command_stats);
  const CommandSpec* spec =
      AdmitScriptCall(server, session, args, read_only, deny_oom, wrote, reply);
  if (spec == nullptr) return false;
  if ((spec->flags & kWrite) != 0) wrote = true;
  // Its waiters are served when the script is over.
  Call(server, session, *spec, args, reply);
  return true;
}

void EndSilencedReply(Session& session, const CommandSpec* spec, std::string& out,
                      std::size_t mark) {
  const bool push = spec != nullptr &&
                    (spec->handler == SubscribeCommand || spec->handler == UnsubscribeCommand ||
                     spec->handler == PsubscribeCommand || spec->handler == PunsubscribeCommand ||
                     spec->handler == SsubscribeCommand || spec->handler == SunsubscribeCommand);
  if (session.reply_silenced() && !push && out.size() > mark) out.resize(mark);
  if (session.blocked) return;  // its reply comes when it is served
  session.reply_silence &= static_cast<std::uint8_t>(~Session::kReplySkip);
}

namespace {

void DispatchOnce(ServerState& server, Session& session, std::span<const std::string_view> args,
                  protocol::ReplyWriter& reply, const CommandSpec*& spec) {
  spec = AdmitRequest(server, session, args, reply);
  if (spec == nullptr) return;
  // After the pause, so that a held command meets the rules once, when it is released.
  if (server.debug->faults.armed()) [[unlikely]] {
    RunFaulted(server, session, *spec, args, reply);
    return;
  }
  Run(server, session, *spec, args, reply);
}

}  // namespace

void Dispatch(ServerState& server, Session& session, std::span<const std::string_view> args,
              protocol::ReplyWriter& reply) {
  reply.set_error_listener(&server.command_stats);
  const CommandSpec* spec = nullptr;
  if ((session.reply_silence | session.tracking) == 0) [[likely]] {
    DispatchOnce(server, session, args, reply, spec);
    return;
  }
  // A tracking client's own invalidations wait for its reply (Redis's tracking_pending_keys).
  Tracking& tracking = server.tracking;
  const bool tracked = session.tracking != 0;
  if (tracked) tracking.set_current(&session);
  // CLIENT REPLY SKIP asked for this command's reply to go.
  if ((session.reply_silence & Session::kReplySkipNext) != 0) {
    session.reply_silence ^= Session::kReplySkipNext | Session::kReplySkip;
  }
  const std::size_t mark = reply.DeferredMark();
  DispatchOnce(server, session, args, reply, spec);
  EndSilencedReply(session, spec, *reply.buffer(), mark);
  if (!tracked) return;
  if (tracking.has_pending()) tracking.FlushPending(session);
  tracking.set_current(nullptr);
  tracking.set_top_command(nullptr, {});
  // CLIENT CACHING holds for the next command, or the next transaction (Redis's resetClient).
  if (!session.in_multi && (spec == nullptr || !spec->name.starts_with("client|"))) {
    session.tracking &= static_cast<std::uint8_t>(~Session::kTrackingCaching);
  }
}

void ForgetSession(ServerState& server, Session& session) {
  server.blocking.Remove(session);
  server.debug->blocked_waits.Remove(session);
  server.pubsub.RemoveClient(session);
  server.tracking.Disable(session);
  server.monitors.Remove(session);
  DiscardTransaction(server, session);
  server.pause.Remove(session);
  server.replication.ForgetSession(session);
}

}  // namespace warden::server
