// MULTI, EXEC, DISCARD, WATCH and UNWATCH, as Redis 7.0's multi.c. Queueing is Dispatch's (see
// QueueInTransaction in transaction.h); watched keys are ServerState::watched_keys.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_reader.h"
#include "server/acl/acl_gate.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/dispatcher.h"
#include "server/errors.h"
#include "server/transaction.h"

namespace warden::server {
namespace {

bool AnswersPerChannel(const CommandSpec& spec) {
  const Handler h = spec.handler;
  return h == SubscribeCommand || h == PsubscribeCommand || h == SsubscribeCommand ||
         h == UnsubscribeCommand || h == PunsubscribeCommand || h == SunsubscribeCommand;
}

// How many RESP values `out` holds from `from` on.
std::size_t ValuesSince(const std::string& out, std::size_t from) {
  std::size_t count = 0;
  protocol::Reply value;
  std::string_view rest = std::string_view(out).substr(from);
  while (!rest.empty()) {
    const std::optional<std::size_t> used = protocol::ReadReply(rest, value);
    if (!used.has_value() || *used == 0) break;
    rest.remove_prefix(*used);
    ++count;
  }
  return count;
}

}  // namespace

void MultiCommand(CommandContext& ctx) {
  if (ctx.session.in_multi) {
    ctx.reply.Error(errors::kMultiNested);  // and the transaction goes on
    return;
  }
  ctx.session.in_multi = true;
  ctx.reply.Ok();
}

void DiscardCommand(CommandContext& ctx) {
  if (!ctx.session.in_multi) {
    ctx.reply.Error(errors::kDiscardWithoutMulti);
    return;
  }
  DiscardTransaction(ctx.server, ctx.session);
  ctx.reply.Ok();
}

void ExecCommand(CommandContext& ctx) {
  Session& session = ctx.session;
  ServerState& server = ctx.server;
  MultiState& multi = session.multi;
  if (!session.in_multi) {
    ctx.reply.Error(errors::kExecWithoutMulti);
    return;
  }
  if (server.watched_keys.AnyExpiredSince(session, ctx.now_ms)) multi.watch_touched = true;
  if (multi.refused || multi.watch_touched) {
    if (multi.refused) {
      ctx.reply.Error(errors::kExecAbort);
    } else {
      ctx.reply.NullArray();
    }
    DiscardTransaction(server, session);
    return;
  }
  // Its own writes must not fail it, and there is nothing left to watch for.
  server.watched_keys.UnwatchAll(session);
  // Taken out, so that nothing a queued command does to the session can free what runs; given
  // back afterwards, so the next transaction reuses its buffers.
  QueuedCommands queued;
  queued.Swap(multi.queued);
  multi.running = queued.size();
  multi.executing = true;
  // One "now" for the whole transaction, as Redis's cached time in nested calls: a key alive
  // for the first command is alive for the last.
  const bool freeze = server.call.frozen_now_ms < 0;
  if (freeze) server.call.frozen_now_ms = ctx.now_ms;
  // In RESP2 a subscribe-family command answers once per channel. Redis 7.0 counts it as one
  // element all the same, so its EXEC array announces fewer values than follow and the rest of
  // the stream is misread; warden counts the values such a command writes (RESP3's
  // confirmations are push messages, outside the array).
  bool per_channel = false;
  for (std::size_t i = 0; i < queued.size() && session.resp == 2; ++i) {
    per_channel = per_channel || AnswersPerChannel(queued.spec(i));
  }
  const std::size_t mark = ctx.reply.DeferredMark();
  if (!per_channel) ctx.reply.ArrayHeader(queued.size());
  std::size_t values = 0;
  std::vector<std::string_view> args;
  args.swap(multi.exec_args);
  for (std::size_t i = 0; i < queued.size(); ++i) {
    queued.Args(i, args);
    const std::size_t before = ctx.reply.buffer()->size();
    ++values;
    // Redis's EXEC checks ACLs again, in case the user's rules changed while it queued.
    if (session.user != nullptr && !session.user->unrestricted &&
        RefusedSinceQueued(server, session, queued.spec(i), args, ctx.reply)) {
      continue;
    }
    Call(server, session, queued.spec(i), args, ctx.reply);
    if (per_channel && AnswersPerChannel(queued.spec(i))) {
      values += std::max<std::size_t>(ValuesSince(*ctx.reply.buffer(), before), 1) - 1;
    }
  }
  if (per_channel) ctx.reply.InsertArrayHeader(mark, values);
  args.swap(multi.exec_args);
  multi.queued.Swap(queued);
  if (freeze) server.call.frozen_now_ms = -1;
  multi.executing = false;
  multi.running = 0;
  DiscardTransaction(server, session);
}

void WatchCommand(CommandContext& ctx) {
  Session& session = ctx.session;
  if (session.in_multi) {
    ctx.reply.Error(errors::kWatchInsideMulti);
    return;
  }
  // A client already marked gains nothing by watching more.
  if (!session.multi.watch_touched) {
    for (std::size_t i = 1; i < ctx.argc(); ++i) {
      ctx.server.watched_keys.Watch(session, ctx.arg(i), ctx.now_ms);
    }
  }
  ctx.reply.Ok();
}

void UnwatchCommand(CommandContext& ctx) {
  ctx.server.watched_keys.UnwatchAll(ctx.session);
  ctx.session.multi.watch_touched = false;
  ctx.reply.Ok();
}

}  // namespace warden::server
