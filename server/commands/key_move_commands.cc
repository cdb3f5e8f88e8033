// Commands that move a value to another name or database, or copy it: RENAME, RENAMENX, MOVE,
// COPY and SWAPDB. A moved value keeps its deadline; a large one moves without being copied.
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/zset.h"

namespace warden::server {
namespace {

using storage::Entry;

// Redis's getIntFromObjectOrReply: an integer that fits in an int. Replies `error` when set,
// otherwise Redis's generic texts.
[[nodiscard]] bool IntArg(CommandContext& ctx, std::string_view arg, int& out,
                          std::string_view error = {}) {
  std::int64_t value = 0;
  if (!protocol::ParseStrictInt64(arg, value)) {
    ctx.reply.Error(error.empty() ? errors::kNotInteger : error);
    return false;
  }
  if (value < INT32_MIN || value > INT32_MAX) {
    ctx.reply.Error(error.empty() ? errors::kIntOutOfRange : error);
    return false;
  }
  out = static_cast<int>(value);
  return true;
}

[[nodiscard]] bool DbArg(CommandContext& ctx, std::string_view arg, int& db) {
  if (!IntArg(ctx, arg, db)) return false;
  if (db < 0 || db >= ctx.server.dbs.count()) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return false;
  }
  return true;
}

void Rename(CommandContext& ctx, bool nx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* src = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (src == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  if (ctx.arg(1) == ctx.arg(2)) {
    if (nx) {
      ctx.reply.Integer(0);
    } else {
      ctx.reply.Ok();
    }
    return;
  }
  Entry* dst = keyspace.Find(ctx.arg(2), ctx.now_ms);
  if (dst != nullptr && nx) {
    ctx.reply.Integer(0);
    return;
  }
  // The old destination's value and TTL are replaced by the source's. Moving onto the old
  // entry (not erasing it first) tells observers of the source before the destination, the
  // order client-side caching's invalidations follow in Redis.
  keyspace.MoveTo(src, keyspace, ctx.arg(2), dst);
  // Redis deletes an old destination and adds the key anew: it is always "new".
  NotifyNew(ctx, ctx.arg(2));
  Notify(ctx, notify::kGeneric, "rename_from", ctx.arg(1));
  Notify(ctx, notify::kGeneric, "rename_to", ctx.arg(2));
  if (nx) {
    ctx.reply.Integer(1);
  } else {
    ctx.reply.Ok();
  }
}

// A copy of `value` for another key in `to`: the same bytes, or a new table for a large value.
std::string CopyValue(const Entry& value, storage::Keyspace& to) {
  switch (value.type()) {
    case storage::ValueType::kHash:
      return storage::HashCopyValue(value, to);
    case storage::ValueType::kSet:
      return storage::SetCopyValue(value, to);
    case storage::ValueType::kList:
      return storage::ListCopyValue(value);
    case storage::ValueType::kZset:
      return storage::ZsetCopyValue(value, to);
    case storage::ValueType::kStream:
      return storage::StreamCopyValue(value);
    default:
      return std::string(value.value());
  }
}

}  // namespace

void RenameCommand(CommandContext& ctx) { Rename(ctx, false); }

void RenamenxCommand(CommandContext& ctx) { Rename(ctx, true); }

void MoveCommand(CommandContext& ctx) {
  int db = 0;
  if (!DbArg(ctx, ctx.arg(2), db)) return;
  if (db == ctx.session.db) {
    ctx.reply.Error(errors::kSameObject);
    return;
  }
  storage::Keyspace& src = ctx.keyspace();
  Entry* entry = src.Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  storage::Keyspace& dst = ctx.server.dbs.db(db);
  if (dst.Find(ctx.arg(1), ctx.now_ms) != nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  src.MoveTo(entry, dst, ctx.arg(1), nullptr);
  NotifyKeyspaceEvent(ctx.server, notify::kNew, "new", ctx.arg(1), db);
  Notify(ctx, notify::kGeneric, "move_from", ctx.arg(1));
  NotifyKeyspaceEvent(ctx.server, notify::kGeneric, "move_to", ctx.arg(1), db);
  ctx.server.blocking.SignalKey(db, ctx.arg(1));
  ctx.reply.Integer(1);
}

void CopyCommand(CommandContext& ctx) {
  int db = ctx.session.db;
  bool replace = false;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    if (ArgIs(ctx.arg(j), "replace")) {
      replace = true;
    } else if (ArgIs(ctx.arg(j), "db") && j + 1 < ctx.argc()) {
      if (!DbArg(ctx, ctx.arg(j + 1), db)) return;
      ++j;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (db == ctx.session.db && ctx.arg(1) == ctx.arg(2)) {
    ctx.reply.Error(errors::kSameObject);
    return;
  }
  storage::Keyspace& src = ctx.keyspace();
  const Entry* entry = src.Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr) {
    NotifyKeyMiss(ctx, ctx.arg(1));
    ctx.reply.Integer(0);
    return;
  }
  storage::Keyspace& dst = ctx.server.dbs.db(db);
  Entry* existing = dst.Find(ctx.arg(2), ctx.now_ms);
  if (existing != nullptr && !replace) {
    ctx.reply.Integer(0);
    return;
  }
  const std::string value = CopyValue(*entry, dst);
  const std::int64_t deadline = entry->deadline_ms();
  // Redis duplicates a string object, so a copy of a shared small integer is its own.
  const storage::Encoding encoding = entry->encoding() == storage::Encoding::kString
                                         ? storage::Encoding::kStringUnshared
                                         : entry->encoding();
  if (existing != nullptr) dst.Erase(existing);
  dst.Store(ctx.arg(2), value, deadline, nullptr, encoding);
  NotifyKeyspaceEvent(ctx.server, notify::kNew, "new", ctx.arg(2), db);
  NotifyKeyspaceEvent(ctx.server, notify::kGeneric, "copy_to", ctx.arg(2), db);
  ctx.server.blocking.SignalKey(db, ctx.arg(2));
  ctx.reply.Integer(1);
}

void SwapdbCommand(CommandContext& ctx) {
  int first = 0;
  int second = 0;
  if (!IntArg(ctx, ctx.arg(1), first, errors::kInvalidFirstDb) ||
      !IntArg(ctx, ctx.arg(2), second, errors::kInvalidSecondDb)) {
    return;
  }
  const int count = ctx.server.dbs.count();
  if (first < 0 || first >= count || second < 0 || second >= count) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return;
  }
  if (first != second) {
    ctx.server.watched_keys.TouchDb(first, second, ctx.now_ms);
    ctx.server.watched_keys.TouchDb(second, first, ctx.now_ms);
    ctx.server.dbs.Swap(first, second);
    // Clients wait on a database's number, whatever it now holds (Redis 7.0's SWAPDB).
    ctx.server.blocking.SignalDb(first);
    ctx.server.blocking.SignalDb(second);
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
