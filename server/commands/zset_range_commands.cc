// The sorted set commands that read or remove a range of ranks, scores or members: the ZRANGE
// family (ZRANGE, ZRANGESTORE and the older ZREVRANGE, Z[REV]RANGEBYSCORE, Z[REV]RANGEBYLEX),
// ZCOUNT, ZLEXCOUNT and the ZREMRANGEBY* commands. Every range becomes the ranks [first, end)
// it covers, then a walk from one end of them.
#include <algorithm>
#include <vector>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

using storage::Entry;

enum class RangeBy { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

[[nodiscard]] bool LookupZset(CommandContext& ctx, std::string_view key, Entry*& zset) {
  return LookupTyped(ctx, key, storage::ValueType::kZset, zset);
}

// For the commands that only read the sorted set: a missing key publishes `keymiss`.
[[nodiscard]] bool ReadZset(CommandContext& ctx, std::string_view key, Entry*& zset) {
  return LookupTypedRead(ctx, key, storage::ValueType::kZset, zset);
}

// Redis's rank sanitizing (ZRANGE, ZREMRANGEBYRANK): negative ranks count from the end; false
// when the range is empty.
bool ClampRanks(std::int64_t start, std::int64_t end, std::size_t size, std::size_t& first,
                std::size_t& last) {
  const auto llen = static_cast<std::int64_t>(size);
  if (start < 0) start += llen;
  if (end < 0) end += llen;
  if (start < 0) start = 0;
  if (start > end || start >= llen) return false;
  if (end >= llen) end = llen - 1;
  first = static_cast<std::size_t>(start);
  last = static_cast<std::size_t>(end);
  return true;
}

// Writes a ZRANGESTORE result: Redis fills a listpack (or, for a rank range longer than
// zset-max-listpack-entries, a skiplist) one ZADD at a time, so the members added before a
// conversion lose a -0 score as a listpack does.
void StoreRange(CommandContext& ctx, std::vector<storage::ZsetItem>& items, bool by_rank,
                bool reverse) {
  storage::Keyspace& keyspace = ctx.keyspace();
  const bool existed = keyspace.Erase(ctx.arg(1), ctx.now_ms);
  if (items.empty()) {
    ctx.reply.Integer(0);
    if (existed) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    return;
  }
  const storage::EncodingLimits& limits = ctx.limits();
  const bool sorted_from_start = by_rank && items.size() > limits.zset_max_listpack_entries;
  std::size_t convert_at = items.size();
  if (!sorted_from_start) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i + 1 > limits.zset_max_listpack_entries ||
          items[i].member.size() > limits.zset_max_listpack_value) {
        convert_at = i;
        break;
      }
    }
    for (std::size_t i = 0; i < convert_at; ++i) {
      if (items[i].score == 0) items[i].score = 0;
    }
  }
  if (reverse) std::reverse(items.begin(), items.end());
  storage::ZsetStore(keyspace, ctx.arg(1), items, !sorted_from_start && convert_at == items.size());
  if (!existed) NotifyNew(ctx, ctx.arg(1));
  Notify(ctx, notify::kZset, "zrangestore", ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(items.size()));
}

// Redis's zrangeGenericCommand. `src_at` is the source key's index; the range and the options
// follow it.
void ZrangeGeneric(CommandContext& ctx, std::size_t src_at, bool store, RangeBy by,
                   Direction direction) {
  std::size_t min_at = src_at + 1;
  std::size_t max_at = src_at + 2;
  bool with_scores = false;
  std::int64_t offset = 0;
  std::int64_t limit = -1;
  for (std::size_t j = src_at + 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const std::size_t left = ctx.argc() - j - 1;
    if (!store && ArgIs(opt, "withscores")) {
      with_scores = true;
    } else if (ArgIs(opt, "limit") && left >= 2) {
      if (!IntegerArg(ctx, ctx.arg(j + 1), offset) || !IntegerArg(ctx, ctx.arg(j + 2), limit)) {
        return;
      }
      j += 2;
    } else if (direction == Direction::kAuto && ArgIs(opt, "rev")) {
      direction = Direction::kReverse;
    } else if (by == RangeBy::kAuto && ArgIs(opt, "bylex")) {
      by = RangeBy::kLex;
    } else if (by == RangeBy::kAuto && ArgIs(opt, "byscore")) {
      by = RangeBy::kScore;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  const bool reverse = direction == Direction::kReverse;
  if (by == RangeBy::kAuto) by = RangeBy::kRank;
  // Redis checks "limit was given" as count != -1: LIMIT 5 -1 passes with a rank range.
  if (limit != -1 && by == RangeBy::kRank) {
    ctx.reply.Error(errors::kZrangeLimitNeedsRange);
    return;
  }
  if (with_scores && by == RangeBy::kLex) {
    ctx.reply.Error(errors::kZrangeWithscoresLex);
    return;
  }
  // Reverse score and lex ranges are given max first.
  if (reverse && by != RangeBy::kRank) std::swap(min_at, max_at);
  std::int64_t start = 0;
  std::int64_t end = 0;
  ScoreRange scores;
  storage::LexBound lo{};
  storage::LexBound hi{};
  if (by == RangeBy::kRank) {
    if (!IntegerArg(ctx, ctx.arg(min_at), start) || !IntegerArg(ctx, ctx.arg(max_at), end)) {
      return;
    }
  } else if (by == RangeBy::kScore) {
    if (!ParseScoreRange(ctx.arg(min_at), ctx.arg(max_at), scores)) {
      ctx.reply.Error(errors::kZsetRangeNotFloat);
      return;
    }
  } else if (!ParseLexRange(ctx.arg(min_at), ctx.arg(max_at), lo, hi)) {
    ctx.reply.Error(errors::kZsetLexRangeInvalid);
    return;
  }
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(src_at), zset)) return;
  std::vector<storage::ZsetItem> items;
  if (zset == nullptr) {
    if (store) {
      StoreRange(ctx, items, false, false);
    } else {
      ctx.reply.ArrayHeader(0);
    }
    return;
  }
  // The walk: `count` members from ascending rank `from`, downwards when reversed.
  const std::size_t size = storage::ZsetSize(*zset);
  std::size_t from = 0;
  std::size_t count = 0;
  if (by == RangeBy::kRank) {
    std::size_t first = 0;
    std::size_t last = 0;
    if (ClampRanks(start, end, size, first, last)) {
      count = last - first + 1;
      from = reverse ? size - 1 - first : first;
    }
  } else {
    const auto [first, past] =
        by == RangeBy::kScore ? ScoreRangeRanks(*zset, scores) : LexRangeRanks(*zset, lo, hi);
    const std::size_t in_range = past > first ? past - first : 0;
    // A negative offset walks off the end; LIMIT's count < 0 means no limit.
    const bool skip_all = offset < 0 || (offset > 0 && static_cast<std::uint64_t>(offset) >= size);
    if (!skip_all && in_range > static_cast<std::uint64_t>(offset)) {
      count = in_range - static_cast<std::size_t>(offset);
      if (limit >= 0) count = std::min<std::uint64_t>(count, static_cast<std::uint64_t>(limit));
      from = reverse ? past - 1 - static_cast<std::size_t>(offset)
                     : first + static_cast<std::size_t>(offset);
    }
  }
  const bool nested = with_scores && ctx.reply.protocol() == 3;
  if (!store) ctx.reply.ArrayHeader(with_scores && !nested ? count * 2 : count);
  std::size_t left = count;
  if (left > 0) {
    storage::ZsetVisit(*zset, from, reverse, [&](std::string_view m, double s) {
      if (store) {
        items.push_back({std::string(m), s});
      } else {
        if (nested) ctx.reply.ArrayHeader(2);
        ctx.reply.Bulk(m);
        if (with_scores) ctx.reply.Double(s);
      }
      return --left > 0;
    });
  }
  if (store) StoreRange(ctx, items, by == RangeBy::kRank, reverse);
}

enum class RemoveBy { kRank, kScore, kLex };

// Redis's zremrangeGenericCommand: the range is parsed before the key is looked up.
void ZremrangeGeneric(CommandContext& ctx, RemoveBy by) {
  std::int64_t start = 0;
  std::int64_t end = 0;
  ScoreRange scores;
  storage::LexBound lo{};
  storage::LexBound hi{};
  if (by == RemoveBy::kRank) {
    if (!IntegerArg(ctx, ctx.arg(2), start) || !IntegerArg(ctx, ctx.arg(3), end)) return;
  } else if (by == RemoveBy::kScore) {
    if (!ParseScoreRange(ctx.arg(2), ctx.arg(3), scores)) {
      ctx.reply.Error(errors::kZsetRangeNotFloat);
      return;
    }
  } else if (!ParseLexRange(ctx.arg(2), ctx.arg(3), lo, hi)) {
    ctx.reply.Error(errors::kZsetLexRangeInvalid);
    return;
  }
  Entry* zset = nullptr;
  if (!LookupZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  std::size_t first = 0;
  std::size_t past = 0;
  if (by == RemoveBy::kRank) {
    std::size_t last = 0;
    if (ClampRanks(start, end, storage::ZsetSize(*zset), first, last)) past = last + 1;
  } else {
    std::tie(first, past) =
        by == RemoveBy::kScore ? ScoreRangeRanks(*zset, scores) : LexRangeRanks(*zset, lo, hi);
  }
  const std::size_t removed =
      past > first ? storage::ZsetRemoveRange(ctx.keyspace(), zset, first, past) : 0;
  if (removed > 0) {
    Notify(ctx, notify::kZset,
           by == RemoveBy::kRank    ? "zremrangebyrank"
           : by == RemoveBy::kScore ? "zremrangebyscore"
                                    : "zremrangebylex",
           ctx.arg(1));
    if (zset == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  }
  ctx.reply.Integer(static_cast<std::int64_t>(removed));
}

}  // namespace

void ZrangeCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kAuto, Direction::kAuto);
}

void ZrangestoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 2, true, RangeBy::kAuto, Direction::kAuto);
}

void ZrevrangeCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kRank, Direction::kReverse);
}

void ZrangebyscoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kScore, Direction::kForward);
}

void ZrevrangebyscoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kScore, Direction::kReverse);
}

void ZrangebylexCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kLex, Direction::kForward);
}

void ZrevrangebylexCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, 1, false, RangeBy::kLex, Direction::kReverse);
}

void ZcountCommand(CommandContext& ctx) {
  ScoreRange scores;
  if (!ParseScoreRange(ctx.arg(2), ctx.arg(3), scores)) {
    ctx.reply.Error(errors::kZsetRangeNotFloat);
    return;
  }
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  const auto [first, past] = ScoreRangeRanks(*zset, scores);
  ctx.reply.Integer(past > first ? static_cast<std::int64_t>(past - first) : 0);
}

void ZlexcountCommand(CommandContext& ctx) {
  storage::LexBound lo{};
  storage::LexBound hi{};
  if (!ParseLexRange(ctx.arg(2), ctx.arg(3), lo, hi)) {
    ctx.reply.Error(errors::kZsetLexRangeInvalid);
    return;
  }
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  const auto [first, past] = LexRangeRanks(*zset, lo, hi);
  ctx.reply.Integer(past > first ? static_cast<std::int64_t>(past - first) : 0);
}

void ZremrangebyrankCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RemoveBy::kRank); }

void ZremrangebyscoreCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RemoveBy::kScore); }

void ZremrangebylexCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RemoveBy::kLex); }

}  // namespace warden::server
