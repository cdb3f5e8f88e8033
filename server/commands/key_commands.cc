// Commands over keys regardless of their value: DEL, EXISTS, TYPE, SCAN, KEYS, RANDOMKEY,
// DBSIZE, FLUSHDB and FLUSHALL; and the cursor and option parsing SCAN shares with HSCAN and
// SSCAN.
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

using storage::Entry;

// Redis parses SCAN's cursor with strtoul(): leading '+' and '-' are taken (-1 wraps), an empty
// string is 0, a leading blank, trailing garbage or overflow is an error. The argument is read as
// the C string it is in Redis, up to its first NUL.
bool ParseScanCursor(std::string_view arg, std::uint64_t& cursor) {
  const std::size_t nul = arg.find('\0');
  if (nul != std::string_view::npos) arg = arg.substr(0, nul);
  const std::string text(arg);
  if (!text.empty() && (text[0] == ' ' || (text[0] >= '\t' && text[0] <= '\r'))) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  cursor = value;
  return true;
}

std::string_view TypeName(storage::ValueType type) {
  switch (type) {
    case storage::ValueType::kString:
      return "string";
    case storage::ValueType::kHash:
      return "hash";
    case storage::ValueType::kSet:
      return "set";
    case storage::ValueType::kZset:
      return "zset";
    case storage::ValueType::kList:
      return "list";
    case storage::ValueType::kStream:
      return "stream";
  }
  return "none";
}

// The most elements SRANDMEMBER or HRANDFIELD with a negative count may return.
constexpr std::int64_t kMaxRandomCount = 10'000'000;

}  // namespace

[[nodiscard]] bool ScanCursorArg(CommandContext& ctx, std::string_view arg, std::uint64_t& cursor) {
  if (ParseScanCursor(arg, cursor)) return true;
  ctx.reply.Error(errors::kInvalidCursor);
  return false;
}

void ScanReplyHeader(CommandContext& ctx, std::uint64_t cursor) {
  ctx.reply.ArrayHeader(2);
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof(digits), cursor).ptr;
  ctx.reply.Bulk(std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

[[nodiscard]] bool ParseValueScanOptions(CommandContext& ctx, std::size_t first,
                                         ValueScanOptions& out) {
  for (std::size_t i = first; i < ctx.argc(); i += 2) {
    const std::string_view opt = ctx.arg(i);
    const bool has_value = i + 1 < ctx.argc();
    if (has_value && ArgIs(opt, "count")) {
      std::int64_t count = 0;
      if (!IntegerArg(ctx, ctx.arg(i + 1), count)) return false;
      if (count < 1) {
        ctx.reply.Error(errors::kSyntax);
        return false;
      }
      out.count = static_cast<std::size_t>(count);
    } else if (has_value && ArgIs(opt, "match")) {
      out.pattern = ctx.arg(i + 1);
      out.use_pattern = out.pattern != "*";
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

[[nodiscard]] bool RandomCountArg(CommandContext& ctx, std::string_view arg, std::int64_t& count) {
  if (!IntegerArg(ctx, arg, count)) return false;
  if (count == INT64_MIN) {
    ctx.reply.Error(errors::kCountOutOfRange);
    return false;
  }
  return true;
}

[[nodiscard]] bool RandomCountWithinCap(CommandContext& ctx, std::int64_t count) {
  if (count >= -kMaxRandomCount) return true;
  ctx.reply.Error(errors::kOutOfRange);
  return false;
}

void DelCommand(CommandContext& ctx) {
  std::int64_t deleted = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.keyspace().Erase(ctx.arg(i), ctx.now_ms)) {
      ++deleted;
      Notify(ctx, notify::kGeneric, "del", ctx.arg(i));
    }
  }
  ctx.reply.Integer(deleted);
}

void ExistsCommand(CommandContext& ctx) {
  // Every argument counts, repeated ones included.
  std::int64_t found = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.keyspace().Find(ctx.arg(i), ctx.now_ms, storage::Touch::kNo) != nullptr) {
      ++found;
    } else {
      NotifyKeyMiss(ctx, ctx.arg(i));
    }
  }
  ctx.reply.Integer(found);
}

void TypeCommand(CommandContext& ctx) {
  const Entry* e = ctx.keyspace().Find(ctx.arg(1), ctx.now_ms, storage::Touch::kNo);
  if (e == nullptr) NotifyKeyMiss(ctx, ctx.arg(1));
  ctx.reply.Status(e != nullptr ? TypeName(e->type()) : "none");
}

void ScanCommand(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!ParseScanCursor(ctx.arg(1), cursor)) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  std::int64_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
  std::string_view type;
  bool use_type = false;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view opt = ctx.arg(i);
    const bool has_value = i + 1 < ctx.argc();
    if (has_value && ArgIs(opt, "count")) {
      if (!protocol::ParseStrictInt64(ctx.arg(i + 1), count)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 1) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
    } else if (has_value && ArgIs(opt, "match")) {
      pattern = ctx.arg(i + 1);
      // "*" matches everything: skip the matcher.
      use_pattern = pattern != "*";
    } else if (has_value && ArgIs(opt, "type")) {
      type = ctx.arg(i + 1);
      use_type = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  std::vector<Entry*> found;
  storage::Keyspace& keyspace = ctx.keyspace();
  cursor = keyspace.Scan(cursor, static_cast<std::size_t>(count), found);
  // Filter as Redis does: pattern, then type, then expiry. Redis's type filter looks the key up,
  // which removes it if it has expired, so every expired key that passes the pattern is removed,
  // whatever its type; and as the removed key's type reads "none", SCAN ... TYPE none returns it
  // (Redis 7.0 does). Entries erased here are never touched again.
  std::vector<std::string> removed_none;  // keys of such entries, copied before erasing
  removed_none.reserve(use_type && ArgIs(type, "none") ? found.size() : 0);
  std::size_t kept = 0;
  for (Entry* e : found) {
    if (use_pattern && !storage::GlobMatch(pattern, e->key())) continue;
    if (e->ExpiredAt(ctx.now_ms)) {
      if (use_type && ArgIs(type, "none")) removed_none.emplace_back(e->key());
      if (use_type) {
        // Redis's TYPE filter is a read lookup: it expires the key, then misses it.
        const std::string key(e->key());
        keyspace.ExpireEntry(e);
        NotifyKeyMiss(ctx, key);
        continue;
      }
      keyspace.ExpireEntry(e);
      continue;
    }
    if (use_type && !ArgIs(type, TypeName(e->type()))) continue;
    found[kept++] = e;
  }
  ScanReplyHeader(ctx, cursor);
  ctx.reply.ArrayHeader(kept + removed_none.size());
  for (std::size_t i = 0; i < kept; ++i) ctx.reply.Bulk(found[i]->key());
  for (const std::string& key : removed_none) ctx.reply.Bulk(key);
}

void KeysCommand(CommandContext& ctx) {
  const std::string_view pattern = ctx.arg(1);
  const bool all = pattern == "*";
  std::vector<const Entry*> found;
  // Expired keys are skipped but, unlike SCAN, not removed.
  ctx.keyspace().ForEach([&](const Entry& e) {
    if ((all || storage::GlobMatch(pattern, e.key())) && !e.ExpiredAt(ctx.now_ms)) {
      found.push_back(&e);
    }
  });
  ctx.reply.ArrayHeader(found.size());
  for (const Entry* e : found) ctx.reply.Bulk(e->key());
}

void RandomkeyCommand(CommandContext& ctx) {
  const Entry* e = ctx.keyspace().RandomEntry(ctx.now_ms);
  if (e == nullptr) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(e->key());
  }
}

void DbsizeCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.keyspace().size()));
}

void FlushdbCommand(CommandContext& ctx) {
  // FLUSHDB and FLUSHALL: no argument, ASYNC or SYNC. Either way the call returns at once: a
  // large database is freed in slices by the reclaimer.
  if (ctx.argc() > 2 ||
      (ctx.argc() == 2 && !ArgIs(ctx.arg(1), "async") && !ArgIs(ctx.arg(1), "sync"))) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (ctx.spec.name == "flushall") {
    for (int db = 0; db < ctx.server.dbs.count(); ++db) {
      ctx.server.watched_keys.TouchDb(db, -1, ctx.now_ms);
    }
    ctx.server.dbs.FlushAll();
    ctx.server.tracking.Flushed();
    ctx.server.active_expiry.ResetStats();
    // A blocked XREADGROUP whose stream went ends with UNBLOCKED, as in Redis; other waiters
    // find nothing and go on waiting.
    for (int db = 0; db < ctx.server.dbs.count(); ++db) ctx.server.blocking.SignalDb(db);
    // Redis's flushAllDataAndResetRDB: a save under way would bring the old data back, and with
    // save points the empty data set is saved at once.
    Snapshots& snapshots = ctx.server.snapshots;
    if (snapshots.saving()) snapshots.KillChild();
    if (snapshots.has_save_points()) snapshots.Save();
  } else {
    ctx.server.watched_keys.TouchDb(ctx.session.db, -1, ctx.now_ms);
    ctx.server.dbs.Flush(ctx.session.db);
    ctx.server.tracking.Flushed();
    ctx.server.blocking.SignalDb(ctx.session.db);
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
