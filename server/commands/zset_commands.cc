// The sorted set commands of Redis 7.0 that read or change single members: ZADD, ZINCRBY,
// ZSCORE, ZMSCORE, ZCARD, ZREM, ZRANK, ZREVRANK, the pops, ZRANDMEMBER and ZSCAN. The value
// model is storage/zset.h; ranges are in zset_range_commands.cc, set algebra in
// zset_store_commands.cc.
#include <algorithm>
#include <charconv>
#include <climits>
#include <string>
#include <unordered_set>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/commands/zset_ops.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

[[nodiscard]] bool LookupZset(CommandContext& ctx, std::string_view key, Entry*& zset) {
  return LookupTyped(ctx, key, ValueType::kZset, zset);
}

// For the commands that only read the sorted set: a missing key publishes `keymiss`.
[[nodiscard]] bool ReadZset(CommandContext& ctx, std::string_view key, Entry*& zset) {
  return LookupTypedRead(ctx, key, ValueType::kZset, zset);
}

// ZADD's event, sent even when a NaN stopped it halfway (Redis's cleanup path).
void NotifyZadd(CommandContext& ctx, std::int64_t changed, bool incr) {
  if (changed > 0) Notify(ctx, notify::kZset, incr ? "zincr" : "zadd", ctx.arg(1));
}

// Redis's zaddGenericCommand, which ZINCRBY shares: options are read first (so ZINCRBY takes
// "nx" as its increment's place and fails on the pair count), then every score, then the key.
void ZaddGeneric(CommandContext& ctx, bool incr) {
  storage::ZaddFlags flags{.incr = incr};
  bool ch = false;
  std::size_t at = 2;
  for (; at < ctx.argc(); ++at) {
    const std::string_view opt = ctx.arg(at);
    if (ArgIs(opt, "nx")) {
      flags.nx = true;
    } else if (ArgIs(opt, "xx")) {
      flags.xx = true;
    } else if (ArgIs(opt, "ch")) {
      ch = true;
    } else if (ArgIs(opt, "incr")) {
      flags.incr = true;
    } else if (ArgIs(opt, "gt")) {
      flags.gt = true;
    } else if (ArgIs(opt, "lt")) {
      flags.lt = true;
    } else {
      break;
    }
  }
  const std::size_t args = ctx.argc() - at;
  if (args == 0 || args % 2 != 0) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (flags.nx && flags.xx) {
    ctx.reply.Error(errors::kZaddXxAndNx);
    return;
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    ctx.reply.Error(errors::kZaddGtLtNx);
    return;
  }
  if (flags.incr && args > 2) {
    ctx.reply.Error(errors::kZaddIncrPairs);
    return;
  }
  // Every score is checked before anything changes.
  for (std::size_t i = at; i < ctx.argc(); i += 2) {
    double score;
    if (!ParseScore(ctx.arg(i), score)) {
      ctx.reply.Error(errors::kNotFloat);
      return;
    }
  }
  if (!ElementsFit(ctx, at + 1, 2)) return;
  Entry* zset = nullptr;
  if (!LookupZset(ctx, ctx.arg(1), zset)) return;
  std::int64_t added = 0;
  std::int64_t updated = 0;
  bool processed = false;
  double last_score = 0;
  const bool missing = zset == nullptr;
  bool created = false;
  if (zset != nullptr || !flags.xx) {
    for (std::size_t i = at; i < ctx.argc(); i += 2) {
      double score = 0;
      ParseScore(ctx.arg(i), score);
      const storage::ZaddResult r = storage::ZsetAdd(ctx.keyspace(), zset, ctx.arg(1),
                                                     ctx.arg(i + 1), score, flags, ctx.limits());
      // `new` as the key is added (Redis's dbAdd), so before the reply; `zadd` after it.
      if (missing && !created && zset != nullptr) {
        created = true;
        NotifyNew(ctx, ctx.arg(1));
      }
      if (r.nan) {
        ctx.reply.Error(errors::kZsetNanResult);
        NotifyZadd(ctx, added + updated, flags.incr);
        return;
      }
      added += r.added;
      updated += r.updated;
      if (!r.skipped) {
        processed = true;
        last_score = r.score;
      }
    }
  }
  if (flags.incr) {
    if (processed) {
      ctx.reply.Double(last_score);
    } else {
      ctx.reply.Null();
    }
  } else {
    ctx.reply.Integer(ch ? added + updated : added);
  }
  NotifyZadd(ctx, added + updated, flags.incr);
}

// The pop count of ZPOPMIN/ZPOPMAX: a non-negative integer, or Redis's "must be positive".
[[nodiscard]] bool PopCountArg(CommandContext& ctx, std::string_view arg, std::int64_t& count) {
  if (protocol::ParseStrictInt64(arg, count) && count >= 0) return true;
  ctx.reply.Error(errors::kOutOfRangePositive);
  return false;
}

void ZpopCommand(CommandContext& ctx, bool max) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::int64_t count = -1;
  if (ctx.argc() == 3 && !PopCountArg(ctx, ctx.arg(2), count)) return;
  Entry* zset = nullptr;
  if (!LookupZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr || count == 0) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  // RESP3 nests the pairs only when a count was given.
  const bool nested = ctx.reply.protocol() == 3 && count != -1;
  ReplyZpop(ctx, zset, ctx.arg(1), max, count == -1 ? 1 : count, nested, false);
}

void ReplyMemberAndScore(CommandContext& ctx, std::string_view member, double score,
                         bool with_scores) {
  if (with_scores && ctx.reply.protocol() == 3) ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(member);
  if (with_scores) ctx.reply.Double(score);
}

void ZrandmemberWithCount(CommandContext& ctx, std::int64_t count, bool with_scores) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr || count == 0) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  if (!RandomCountWithinCap(ctx, count)) return;
  storage::Random& random = ctx.server.random;
  const std::size_t size = storage::ZsetSize(*zset);
  const std::size_t factor = with_scores && ctx.reply.protocol() == 2 ? 2 : 1;
  // A packed set is listed once and every draw is an index; a large one is drawn by rank.
  std::vector<storage::ZsetItem> items;
  if (zset->encoding() == storage::Encoding::kZsetPacked) items = storage::ZsetItems(*zset);
  auto reply_rank = [&](std::size_t rank) {
    if (!items.empty()) {
      ReplyMemberAndScore(ctx, items[rank].member, items[rank].score, with_scores);
      return;
    }
    storage::ZsetVisit(*zset, rank, false, [&](std::string_view m, double s) {
      ReplyMemberAndScore(ctx, m, s, with_scores);
      return false;
    });
  };
  if (count < 0 || count == 1) {
    const auto n = static_cast<std::size_t>(count < 0 ? -count : count);
    ctx.reply.ArrayHeader(n * factor);
    for (std::size_t i = 0; i < n; ++i) reply_rank(random.Below(size));
    return;
  }
  if (static_cast<std::uint64_t>(count) >= size) {
    // The whole set, highest first: Redis walks a sorted set backwards here (zuiInitIterator).
    ctx.reply.ArrayHeader(size * factor);
    for (std::size_t rank = size; rank-- > 0;) reply_rank(rank);
    return;
  }
  const auto n = static_cast<std::size_t>(count);
  std::vector<std::size_t> picked;
  if (n * 3 > size) {
    picked.resize(size);
    for (std::size_t i = 0; i < size; ++i) picked[i] = i;
    for (std::size_t i = 0; i < n; ++i) std::swap(picked[i], picked[i + random.Below(size - i)]);
    picked.resize(n);
  } else {
    std::unordered_set<std::size_t> seen;
    while (picked.size() < n) {
      const std::size_t i = random.Below(size);
      if (seen.insert(i).second) picked.push_back(i);
    }
  }
  ctx.reply.ArrayHeader(n * factor);
  for (std::size_t rank : picked) reply_rank(rank);
}

// A score as ZSCAN lists it: a listpack keeps integral scores as integers (so 1e17 lists as
// 100000000000000000), a skiplist's are printed with %.17Lg.
std::string_view ScanScore(double score, bool packed, char (&buf)[40]) {
  constexpr double kLimit = static_cast<double>(LLONG_MAX / 2);
  if (packed && score >= -kLimit && score <= kLimit &&
      static_cast<double>(static_cast<long long>(score)) == score) {
    const char* end = std::to_chars(buf, buf + sizeof(buf), static_cast<long long>(score)).ptr;
    return {buf, static_cast<std::size_t>(end - buf)};
  }
  return {buf, protocol::FormatDouble(score, buf)};
}

}  // namespace

void ZaddCommand(CommandContext& ctx) { ZaddGeneric(ctx, false); }

void ZincrbyCommand(CommandContext& ctx) { ZaddGeneric(ctx, true); }

void ZscoreCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  const std::optional<double> score =
      zset == nullptr ? std::nullopt : storage::ZsetScore(*zset, ctx.arg(2));
  if (score) {
    ctx.reply.Double(*score);
  } else {
    ctx.reply.Null();
  }
}

void ZmscoreCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const std::optional<double> score =
        zset == nullptr ? std::nullopt : storage::ZsetScore(*zset, ctx.arg(i));
    if (score) {
      ctx.reply.Double(*score);
    } else {
      ctx.reply.Null();
    }
  }
}

void ZcardCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  ctx.reply.Integer(zset == nullptr ? 0 : static_cast<std::int64_t>(storage::ZsetSize(*zset)));
}

void ZremCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!LookupZset(ctx, ctx.arg(1), zset)) return;
  std::int64_t removed = 0;
  for (std::size_t i = 2; i < ctx.argc() && zset != nullptr; ++i) {
    removed += storage::ZsetRemove(ctx.keyspace(), zset, ctx.arg(i));
  }
  if (removed > 0) {
    Notify(ctx, notify::kZset, "zrem", ctx.arg(1));
    if (zset == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  }
  ctx.reply.Integer(removed);
}

void ZrankCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  const std::optional<std::size_t> rank =
      zset == nullptr ? std::nullopt : storage::ZsetRank(*zset, ctx.arg(2));
  if (rank) {
    ctx.reply.Integer(static_cast<std::int64_t>(*rank));
  } else {
    ctx.reply.Null();
  }
}

void ZrevrankCommand(CommandContext& ctx) {
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  const std::optional<std::size_t> rank =
      zset == nullptr ? std::nullopt : storage::ZsetRank(*zset, ctx.arg(2));
  if (rank) {
    ctx.reply.Integer(static_cast<std::int64_t>(storage::ZsetSize(*zset) - 1 - *rank));
  } else {
    ctx.reply.Null();
  }
}

void ZpopminCommand(CommandContext& ctx) { ZpopCommand(ctx, false); }

void ZpopmaxCommand(CommandContext& ctx) { ZpopCommand(ctx, true); }

void ZmpopCommand(CommandContext& ctx) {
  ZmpopArgs args;
  if (!ParseZmpopArgs(ctx, 1, args)) return;
  // The first key that exists is popped; only the keys up to it are checked for their type.
  for (std::size_t i = 0; i < args.numkeys; ++i) {
    const std::string_view key = ctx.arg(args.first_key + i);
    Entry* zset = nullptr;
    if (!LookupZset(ctx, key, zset)) return;
    if (zset == nullptr) continue;
    // Written as ZPOPMIN/ZPOPMAX of what it took (Redis's genericZpopCommand).
    const std::size_t popped =
        std::min(static_cast<std::size_t>(args.count), storage::ZsetSize(*zset));
    ReplyZpop(ctx, zset, key, args.max, args.count, true, true);
    if (ctx.server.propagation.active()) {
      const std::string n = std::to_string(popped);
      ctx.server.propagation.Replace({args.max ? "ZPOPMAX" : "ZPOPMIN", key, n});
    }
    return;
  }
  ctx.reply.NullArray();
}

void ZrandmemberCommand(CommandContext& ctx) {
  if (ctx.argc() >= 3) {
    std::int64_t count = 0;
    if (!RandomCountArg(ctx, ctx.arg(2), count)) return;
    const bool with_scores = ctx.argc() == 4;
    if (ctx.argc() > 4 || (with_scores && !ArgIs(ctx.arg(3), "withscores"))) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (with_scores && (count < -(INT64_MAX / 2) || count > INT64_MAX / 2)) {
      ctx.reply.Error(errors::kOutOfRange);
      return;
    }
    ZrandmemberWithCount(ctx, count, with_scores);
    return;
  }
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr) {
    ctx.reply.Null();
    return;
  }
  const std::size_t rank = ctx.server.random.Below(storage::ZsetSize(*zset));
  storage::ZsetVisit(*zset, rank, false, [&](std::string_view m, double) {
    ctx.reply.Bulk(m);
    return false;
  });
}

void ZscanCommand(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!ScanCursorArg(ctx, ctx.arg(2), cursor)) return;
  Entry* zset = nullptr;
  if (!ReadZset(ctx, ctx.arg(1), zset)) return;
  if (zset == nullptr) {
    ScanReplyHeader(ctx, 0);
    ctx.reply.ArrayHeader(0);
    return;
  }
  ValueScanOptions options;
  if (!ParseValueScanOptions(ctx, 3, options)) return;
  std::vector<storage::ZsetItem> found;
  auto keep = [&](std::string_view m, double s) {
    if (!options.use_pattern || storage::GlobMatch(options.pattern, m)) {
      found.push_back({std::string(m), s});
    }
    return true;
  };
  const bool packed = zset->encoding() == storage::Encoding::kZsetPacked;
  if (packed) {
    storage::ZsetVisit(*zset, 0, false, keep);
    cursor = 0;
  } else {
    // The member table is scanned as SCAN scans the keyspace, with the same guarantees.
    auto* set = static_cast<storage::SortedSet*>(zset->large());
    std::vector<Entry*> entries;
    cursor = set->members().Scan(cursor, options.count, entries);
    for (const Entry* e : entries) keep(e->key(), storage::SortedSet::ScoreOf(*e));
  }
  ScanReplyHeader(ctx, cursor);
  ctx.reply.ArrayHeader(found.size() * 2);
  for (const storage::ZsetItem& item : found) {
    char buf[40];
    ctx.reply.Bulk(item.member);
    ctx.reply.Bulk(ScanScore(item.score, packed, buf));
  }
}

}  // namespace warden::server
