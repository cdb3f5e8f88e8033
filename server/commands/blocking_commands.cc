// The blocking commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP.
// Each serves at once when it can, as its non-blocking form would; otherwise the client waits
// (server/blocking.h) and the command runs again when a key it waits on receives data.
#include <cmath>
#include <limits>

#include "server/command_table.h"
#include "server/commands/blocking_ops.h"
#include "server/commands/commands.h"
#include "server/commands/list_ops.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"

namespace warden::server {

[[nodiscard]] bool TimeoutArg(CommandContext& ctx, std::string_view arg,
                              std::int64_t& deadline_ms) {
  long double seconds = 0;
  if (!ParseLongDouble(arg, seconds)) {
    ctx.reply.Error("ERR timeout is not a float or out of range");
    return false;
  }
  // Redis 7.0 converts ceill(seconds * 1000) to long long unchecked: on x86-64 a value past
  // the range (inf, 1e16 seconds) comes out as LLONG_MIN, which it then calls negative.
  const long double ms = std::ceil(seconds * 1000.0L);
  constexpr long double kRange = 9223372036854775808.0L;  // 2^63
  if (!(ms < kRange && ms >= -kRange) || ms < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return false;
  }
  const auto timeout = static_cast<std::int64_t>(ms);
  // A deadline past the end of time is no deadline: 7.0's sum overflows and it waits forever.
  if (timeout == 0 || __builtin_add_overflow(timeout, ctx.now_ms, &deadline_ms)) deadline_ms = 0;
  return true;
}

bool CanBlock(const CommandContext& ctx) {
  return !ctx.session.is_script && !ctx.session.multi.executing && ctx.session.host != nullptr;
}

void WaitForKeys(CommandContext& ctx, std::span<const std::string_view> keys,
                 std::int64_t deadline_ms, bool null_bulk) {
  if (Retrying(ctx) || CanBlock(ctx)) {
    ctx.server.blocking.Block(ctx.session, ctx.spec, ctx.args, keys, deadline_ms);
  } else if (null_bulk) {
    ctx.reply.Null();
  } else {
    ctx.reply.NullArray();
  }
}

[[nodiscard]] bool FindServable(CommandContext& ctx, std::span<const std::string_view> keys,
                                storage::ValueType type, std::string_view& key,
                                storage::Entry*& entry) {
  const bool retrying = Retrying(ctx);
  for (std::string_view k : keys) {
    if (retrying && k != ctx.server.blocking.retry_key()) continue;
    storage::Entry* e = ctx.keyspace().Find(k, ctx.now_ms);
    if (e == nullptr) continue;
    if (e->type() != type) {
      // Redis 7.0 answers a wrong type when the command first runs; a waiter woken on a key
      // that now holds another type goes on waiting.
      if (retrying) return false;
      ctx.reply.Error(errors::kWrongType);
      entry = nullptr;
      return true;
    }
    key = k;
    entry = e;
    return true;
  }
  return false;
}

namespace {

using storage::Entry;
using storage::ListEnd;
using storage::ValueType;

// What a served pop is written to the append-only file as: the plain pop of the key it took
// from, as Redis writes it, so a reader need not know which key a multi-key wait was served on.
void PropagatePop(CommandContext& ctx, std::string_view command, std::string_view key,
                  std::int64_t count = 0) {
  if (!ctx.server.propagation.active()) return;
  if (count == 0) {
    ctx.server.propagation.Replace({command, key});
    return;
  }
  const std::string n = std::to_string(count);
  ctx.server.propagation.Replace({command, key, n});
}

// BLMOVE and BRPOPLPUSH are written as LMOVE and RPOPLPUSH: with the client's words when served
// at once, with Redis's lower-case sides when served after waiting (serveClientBlockedOnList).
void PropagateMove(CommandContext& ctx, ListEnd from, ListEnd to) {
  if (!ctx.server.propagation.active()) return;
  if (ctx.spec.handler == BrpoplpushCommand) {
    ctx.server.propagation.Replace({"RPOPLPUSH", ctx.arg(1), ctx.arg(2)});
    return;
  }
  const bool served_later = ctx.server.blocking.retrying();
  const auto side = [&](ListEnd end, std::size_t arg) -> std::string_view {
    if (!served_later) return ctx.arg(arg);
    return end == ListEnd::kHead ? "left" : "right";
  };
  ctx.server.propagation.Replace({"LMOVE", ctx.arg(1), ctx.arg(2), side(from, 3), side(to, 4)});
}

// What every blocking pop opens with: serve from the first of `keys` that has data (`serve`
// gets the key and its entry), answer a key of another type, or wait on all of them.
template <typename Serve>
void ServeOrWait(CommandContext& ctx, std::span<const std::string_view> keys, ValueType type,
                 std::int64_t deadline, bool null_bulk, Serve&& serve) {
  std::string_view key;
  Entry* entry = nullptr;
  if (FindServable(ctx, keys, type, key, entry)) {
    if (entry != nullptr) serve(key, entry);
    return;
  }
  WaitForKeys(ctx, keys, deadline, null_bulk);
}

// BLPOP and BRPOP: key... timeout.
void BlockingPop(CommandContext& ctx, ListEnd end) {
  std::int64_t deadline = 0;
  if (!TimeoutArg(ctx, ctx.arg(ctx.argc() - 1), deadline)) return;
  const auto keys = ctx.args.subspan(1, ctx.argc() - 2);
  ServeOrWait(ctx, keys, ValueType::kList, deadline, false, [&](std::string_view key, Entry* list) {
    PopOneWithKeyReply(ctx, key, list, end);
    PropagatePop(ctx, end == ListEnd::kHead ? "LPOP" : "RPOP", key);
  });
}

// BLMOVE and BRPOPLPUSH: the source is the one key waited on.
void BlockingMove(CommandContext& ctx, ListEnd from, ListEnd to, std::string_view timeout) {
  std::int64_t deadline = 0;
  if (!TimeoutArg(ctx, timeout, deadline)) return;
  // Inside MULTI Redis 7.0 answers a null bulk here, not a null array.
  ServeOrWait(ctx, ctx.args.subspan(1, 1), ValueType::kList, deadline, true,
              [&](std::string_view, Entry* src) {
                // As LMOVE: the destination's type is checked once the source has an element. A
                // waiter woken into a destination of another type gets the error and the source
                // keeps its element.
                Entry* dst = nullptr;
                if (!LookupTyped(ctx, ctx.arg(2), ValueType::kList, dst)) return;
                MoveReply(ctx, ctx.arg(1), src, ctx.arg(2), from, to);
                PropagateMove(ctx, from, to);
              });
}

}  // namespace

void BlpopCommand(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kHead); }

void BrpopCommand(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kTail); }

void BlmoveCommand(CommandContext& ctx) {
  ListEnd from = ListEnd::kHead;
  ListEnd to = ListEnd::kHead;
  if (!ListEndArg(ctx, ctx.arg(3), from) || !ListEndArg(ctx, ctx.arg(4), to)) return;
  BlockingMove(ctx, from, to, ctx.arg(5));
}

void BrpoplpushCommand(CommandContext& ctx) {
  BlockingMove(ctx, ListEnd::kTail, ListEnd::kHead, ctx.arg(3));
}

void BlmpopCommand(CommandContext& ctx) {
  std::int64_t deadline = 0;
  if (!TimeoutArg(ctx, ctx.arg(1), deadline)) return;
  MpopArgs args;
  if (!ParseMpopArgs(ctx, 2, args)) return;
  ServeOrWait(ctx, args.keys, ValueType::kList, deadline, false,
              [&](std::string_view key, Entry* list) {
                const std::size_t popped = std::min(args.count, storage::ListLength(*list));
                PopWithKeyReply(ctx, key, list, args.end, args.count);
                PropagatePop(ctx, args.end == ListEnd::kHead ? "LPOP" : "RPOP", key,
                             static_cast<std::int64_t>(popped));
              });
}

namespace {

// BZPOPMIN and BZPOPMAX: key... timeout; replies key, member, score.
void BlockingZpop(CommandContext& ctx, bool max) {
  std::int64_t deadline = 0;
  if (!TimeoutArg(ctx, ctx.arg(ctx.argc() - 1), deadline)) return;
  const auto keys = ctx.args.subspan(1, ctx.argc() - 2);
  ServeOrWait(ctx, keys, ValueType::kZset, deadline, false, [&](std::string_view key, Entry* zset) {
    ReplyZpop(ctx, zset, key, max, 1, false, true);
    PropagatePop(ctx, max ? "ZPOPMAX" : "ZPOPMIN", key);
  });
}

}  // namespace

void BzpopminCommand(CommandContext& ctx) { BlockingZpop(ctx, false); }

void BzpopmaxCommand(CommandContext& ctx) { BlockingZpop(ctx, true); }

void BzmpopCommand(CommandContext& ctx) {
  std::int64_t deadline = 0;
  if (!TimeoutArg(ctx, ctx.arg(1), deadline)) return;
  ZmpopArgs args;
  if (!ParseZmpopArgs(ctx, 2, args)) return;
  const auto keys = ctx.args.subspan(args.first_key, args.numkeys);
  ServeOrWait(ctx, keys, ValueType::kZset, deadline, false, [&](std::string_view key, Entry* zset) {
    const std::size_t popped =
        std::min(static_cast<std::size_t>(args.count), storage::ZsetSize(*zset));
    ReplyZpop(ctx, zset, key, args.max, args.count, true, true);
    PropagatePop(ctx, args.max ? "ZPOPMAX" : "ZPOPMIN", key, static_cast<std::int64_t>(popped));
  });
}

}  // namespace warden::server
