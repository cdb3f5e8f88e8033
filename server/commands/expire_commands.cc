// The EXPIRE family, PERSIST, and the TTL readers.
#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::kNoDeadline;

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

// Redis's expireGenericCommand. `unit_ms` is 1000 for the seconds variants; `relative` adds the
// current time.
void ExpireGeneric(CommandContext& ctx, std::int64_t unit_ms, bool relative) {
  // Options come first: an unknown option is reported even when the time is not a number.
  unsigned flags = 0;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    if (ArgIs(opt, "nx")) {
      flags |= kNx;
    } else if (ArgIs(opt, "xx")) {
      flags |= kXx;
    } else if (ArgIs(opt, "gt")) {
      flags |= kGt;
    } else if (ArgIs(opt, "lt")) {
      flags |= kLt;
    } else {
      errors::UnsupportedOption(ctx.reply, opt);
      return;
    }
  }
  if ((flags & kNx) && (flags & (kXx | kGt | kLt))) {
    ctx.reply.Error(errors::kExpireNxAndOthers);
    return;
  }
  if ((flags & kGt) && (flags & kLt)) {
    ctx.reply.Error(errors::kExpireGtAndLt);
    return;
  }
  std::int64_t when = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), when)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (unit_ms == 1000) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) {
      errors::InvalidExpireTime(ctx.reply, ctx.spec.name);
      return;
    }
    when *= 1000;
  }
  const std::int64_t live_now = ctx.live_now_ms();
  if (relative) {
    if (when > INT64_MAX - live_now) {
      errors::InvalidExpireTime(ctx.reply, ctx.spec.name);
      return;
    }
    when += live_now;
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (flags != 0) {
    const bool has = entry->has_deadline();
    const std::int64_t current = entry->deadline_ms();
    // No TTL counts as an infinite one: GT can never beat it, LT always does.
    if (((flags & kNx) && has) || ((flags & kXx) && !has) ||
        ((flags & kGt) && (!has || when <= current)) || ((flags & kLt) && has && when >= current)) {
      ctx.reply.Integer(0);
      return;
    }
  }
  // Unlike SET with a past EXAT, EXPIRE with a past time deletes the key at once.
  // Every form is written as PEXPIREAT (or the DEL it came to), as Redis writes them. While the
  // append-only file loads, a deadline already past is kept, as Redis's checkAlreadyExpired
  // does: a lease renewed again later in the file must not be deleted by its older renewal.
  if (when <= live_now && !ctx.server.loading) {
    keyspace.Erase(entry);
    Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"DEL", ctx.arg(1)});
  } else {
    keyspace.SetDeadline(entry, when);
    Notify(ctx, notify::kGeneric, "expire", ctx.arg(1));
    if (ctx.server.propagation.active()) {
      ctx.server.propagation.ReplaceDeadline("PEXPIREAT", ctx.arg(1), when);
    }
  }
  ctx.reply.Integer(1);
}

enum class TtlUnit { kSeconds, kMilliseconds };

// TTL and PTTL (`absolute` false), EXPIRETIME and PEXPIRETIME (`absolute` true).
void TtlGeneric(CommandContext& ctx, TtlUnit unit, bool absolute) {
  const Entry* entry = ctx.keyspace().Find(ctx.arg(1), ctx.now_ms, storage::Touch::kNo);
  if (entry == nullptr) {
    NotifyKeyMiss(ctx, ctx.arg(1));
    ctx.reply.Integer(-2);
    return;
  }
  if (!entry->has_deadline()) {
    ctx.reply.Integer(-1);
    return;
  }
  std::int64_t ms = entry->deadline_ms();
  if (!absolute) {
    ms -= ctx.live_now_ms();
    if (ms < 0) ms = 0;
  }
  // Seconds are rounded to the nearest, half up, as Redis does: (ms + 500) / 1000, computed
  // without overflowing for deadlines near INT64_MAX (ms is never negative here).
  ctx.reply.Integer(unit == TtlUnit::kMilliseconds ? ms : ms / 1000 + (ms % 1000 + 500) / 1000);
}

}  // namespace

void ExpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, true); }
void PexpireCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, true); }
void ExpireatCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1000, false); }
void PexpireatCommand(CommandContext& ctx) { ExpireGeneric(ctx, 1, false); }

void PersistCommand(CommandContext& ctx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr || !entry->has_deadline()) {
    ctx.reply.Integer(0);
    return;
  }
  keyspace.SetDeadline(entry, kNoDeadline);
  Notify(ctx, notify::kGeneric, "persist", ctx.arg(1));
  ctx.reply.Integer(1);
}

void TtlCommand(CommandContext& ctx) { TtlGeneric(ctx, TtlUnit::kSeconds, false); }
void PttlCommand(CommandContext& ctx) { TtlGeneric(ctx, TtlUnit::kMilliseconds, false); }
void ExpiretimeCommand(CommandContext& ctx) { TtlGeneric(ctx, TtlUnit::kSeconds, true); }
void PexpiretimeCommand(CommandContext& ctx) { TtlGeneric(ctx, TtlUnit::kMilliseconds, true); }

}  // namespace warden::server
