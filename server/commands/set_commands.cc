// The set commands of Redis 7.0. The value model is storage/set.h; this file maps it to RESP.
#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "storage/glob.h"
#include "storage/set.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

[[nodiscard]] bool LookupSet(CommandContext& ctx, std::string_view key, Entry*& set) {
  return LookupTyped(ctx, key, ValueType::kSet, set);
}

// For the commands that only read the set: a missing key publishes `keymiss`.
[[nodiscard]] bool ReadSet(CommandContext& ctx, std::string_view key, Entry*& set) {
  return LookupTypedRead(ctx, key, ValueType::kSet, set);
}

void ReplyMembers(CommandContext& ctx, const Entry& set) {
  ctx.reply.SetHeader(storage::SetSize(set));
  storage::SetForEach(set, [&](std::string_view m) { ctx.reply.Bulk(m); });
}

std::vector<std::string> Members(const Entry& set) {
  std::vector<std::string> out;
  out.reserve(storage::SetSize(set));
  storage::SetForEach(set, [&](std::string_view m) { out.emplace_back(m); });
  return out;
}

// The sets named by `keys`, nullptr for a missing key. Every key is checked for its type, even
// after a missing one (Redis does). False after replying WRONGTYPE.
[[nodiscard]] bool LookupSets(CommandContext& ctx, std::span<const std::string_view> keys,
                              std::vector<Entry*>& sets) {
  sets.clear();
  for (std::string_view key : keys) {
    Entry* set = nullptr;
    if (!ReadSet(ctx, key, set)) return false;
    sets.push_back(set);
  }
  return true;
}

// A computed result, listed as Redis would list the set it builds: a set of integers that
// would be an intset comes out in ascending order.
void OrderLikeRedis(CommandContext& ctx, std::vector<std::string>& members) {
  if (members.size() > ctx.limits().set_max_intset_entries) return;
  std::vector<std::int64_t> ints;
  ints.reserve(members.size());
  for (const std::string& m : members) {
    std::int64_t v;
    if (!storage::ParseCanonicalInt64(m, v)) return;
    ints.push_back(v);
  }
  std::sort(ints.begin(), ints.end());
  for (std::size_t i = 0; i < ints.size(); ++i) members[i] = std::to_string(ints[i]);
}

// Replaces `key` with a set of `members` (or deletes it when there are none) and replies the
// count, as the *STORE commands do. The old value, of any type, and its TTL go. `event` is the
// command's notification.
void StoreResult(CommandContext& ctx, std::string_view key, const std::vector<std::string>& members,
                 std::string_view event) {
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* old = keyspace.Find(key, ctx.now_ms);
  if (old != nullptr) keyspace.Erase(old);
  if (members.empty()) {
    if (old != nullptr) Notify(ctx, notify::kGeneric, "del", key);
    ctx.reply.Integer(0);
    return;
  }
  Entry* set = nullptr;
  for (const std::string& m : members) storage::SetAdd(keyspace, set, key, m, ctx.limits());
  if (old == nullptr) NotifyNew(ctx, key);
  Notify(ctx, notify::kSet, event, key);
  ctx.reply.Integer(static_cast<std::int64_t>(members.size()));
}

// SINTER's core: the members of the smallest set found in all the others, in the smallest
// set's order; at most `limit` of them when limit > 0.
std::vector<std::string> Intersect(std::vector<Entry*> sets, std::size_t limit) {
  std::vector<std::string> out;
  for (const Entry* s : sets) {
    if (s == nullptr) return out;
  }
  std::stable_sort(sets.begin(), sets.end(), [](const Entry* a, const Entry* b) {
    return storage::SetSize(*a) < storage::SetSize(*b);
  });
  bool full = false;
  storage::SetForEach(*sets[0], [&](std::string_view m) {
    if (full) return;
    for (std::size_t j = 1; j < sets.size(); ++j) {
      if (sets[j] != sets[0] && !storage::SetContains(*sets[j], m)) return;
    }
    out.emplace_back(m);
    if (limit > 0 && out.size() >= limit) full = true;
  });
  return out;
}

std::vector<std::string> Union(const std::vector<Entry*>& sets) {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const Entry* s : sets) {
    if (s == nullptr) continue;
    storage::SetForEach(*s, [&](std::string_view m) {
      if (seen.emplace(m).second) out.emplace_back(m);
    });
  }
  return out;
}

std::vector<std::string> Difference(const std::vector<Entry*>& sets) {
  std::vector<std::string> out;
  if (sets.empty() || sets[0] == nullptr) return out;
  storage::SetForEach(*sets[0], [&](std::string_view m) {
    for (std::size_t j = 1; j < sets.size(); ++j) {
      if (sets[j] != nullptr && storage::SetContains(*sets[j], m)) return;
    }
    out.emplace_back(m);
  });
  return out;
}

enum class SetOp { kInter, kUnion, kDiff };

void SetOperation(CommandContext& ctx, SetOp op, bool store) {
  const std::size_t first = store ? 2 : 1;
  std::vector<Entry*> sets;
  if (!LookupSets(ctx, ctx.args.subspan(first), sets)) return;
  std::vector<std::string> members = op == SetOp::kInter   ? Intersect(sets, 0)
                                     : op == SetOp::kUnion ? Union(sets)
                                                           : Difference(sets);
  // SINTER lists members in the smallest set's order; SUNION and SDIFF build a new set first.
  if (op != SetOp::kInter || store) OrderLikeRedis(ctx, members);
  if (store) {
    StoreResult(ctx, ctx.arg(1), members,
                op == SetOp::kInter   ? "sinterstore"
                : op == SetOp::kUnion ? "sunionstore"
                                      : "sdiffstore");
    return;
  }
  ctx.reply.SetHeader(members.size());
  for (const std::string& m : members) ctx.reply.Bulk(m);
}

}  // namespace

void SaddCommand(CommandContext& ctx) {
  if (!ElementsFit(ctx, 2, 1)) return;
  Entry* set = nullptr;
  if (!LookupSet(ctx, ctx.arg(1), set)) return;
  if (set == nullptr) NotifyNew(ctx, ctx.arg(1));
  std::int64_t added = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    added += storage::SetAdd(ctx.keyspace(), set, ctx.arg(1), ctx.arg(i), ctx.limits());
  }
  if (added > 0) Notify(ctx, notify::kSet, "sadd", ctx.arg(1));
  ctx.reply.Integer(added);
}

void SremCommand(CommandContext& ctx) {
  Entry* set = nullptr;
  if (!LookupSet(ctx, ctx.arg(1), set)) return;
  std::int64_t removed = 0;
  for (std::size_t i = 2; i < ctx.argc() && set != nullptr; ++i) {
    removed += storage::SetRemove(ctx.keyspace(), set, ctx.arg(i));
  }
  if (removed > 0) {
    Notify(ctx, notify::kSet, "srem", ctx.arg(1));
    if (set == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  }
  ctx.reply.Integer(removed);
}

void SmembersCommand(CommandContext& ctx) {
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  if (set == nullptr) {
    ctx.reply.SetHeader(0);
    return;
  }
  ReplyMembers(ctx, *set);
}

void SismemberCommand(CommandContext& ctx) {
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  ctx.reply.Integer(set != nullptr && storage::SetContains(*set, ctx.arg(2)) ? 1 : 0);
}

void SmismemberCommand(CommandContext& ctx) {
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    ctx.reply.Integer(set != nullptr && storage::SetContains(*set, ctx.arg(i)) ? 1 : 0);
  }
}

void ScardCommand(CommandContext& ctx) {
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  ctx.reply.Integer(set == nullptr ? 0 : static_cast<std::int64_t>(storage::SetSize(*set)));
}

void SpopCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::int64_t count = 1;
  const bool with_count = ctx.argc() == 3;
  if (with_count && (!protocol::ParseStrictInt64(ctx.arg(2), count) || count < 0)) {
    ctx.reply.Error(errors::kOutOfRangePositive);
    return;
  }
  Entry* set = nullptr;
  if (!LookupSet(ctx, ctx.arg(1), set)) return;
  if (set == nullptr) {
    if (with_count) {
      ctx.reply.SetHeader(0);
    } else {
      ctx.reply.Null();
    }
    return;
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  if (!with_count) {
    const std::string member = storage::SetRandomMember(*set, ctx.server.random);
    storage::SetRemove(keyspace, set, member);
    Notify(ctx, notify::kSet, "spop", ctx.arg(1));
    ctx.reply.Bulk(member);
    // A random choice is written as what it chose (Redis's SREM).
    if (ctx.server.propagation.active())
      ctx.server.propagation.Replace({"SREM", ctx.arg(1), member});
    if (set == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    return;
  }
  if (count == 0) {
    ctx.reply.SetHeader(0);
    return;
  }
  Notify(ctx, notify::kSet, "spop", ctx.arg(1));
  const std::size_t size = storage::SetSize(*set);
  if (static_cast<std::uint64_t>(count) >= size) {
    // The whole set, and the key goes.
    ReplyMembers(ctx, *set);
    keyspace.Erase(set);
    Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"DEL", ctx.arg(1)});
    return;
  }
  ctx.reply.SetHeader(static_cast<std::size_t>(count));
  const bool propagating = ctx.server.propagation.active();
  std::vector<std::string> popped;
  for (std::int64_t i = 0; i < count; ++i) {
    std::string member = storage::SetRandomMember(*set, ctx.server.random);
    storage::SetRemove(keyspace, set, member);
    ctx.reply.Bulk(member);
    if (propagating) popped.push_back(std::move(member));
  }
  if (propagating) {
    std::vector<std::string_view> srem = {"SREM", ctx.arg(1)};
    srem.insert(srem.end(), popped.begin(), popped.end());
    ctx.server.propagation.Replace(srem);
  }
}

void SrandmemberCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (ctx.argc() == 2) {
    Entry* set = nullptr;
    if (!ReadSet(ctx, ctx.arg(1), set)) return;
    if (set == nullptr) {
      ctx.reply.Null();
    } else {
      ctx.reply.Bulk(storage::SetRandomMember(*set, ctx.server.random));
    }
    return;
  }
  std::int64_t count = 0;
  if (!RandomCountArg(ctx, ctx.arg(2), count)) return;
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  if (set == nullptr || count == 0) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  if (!RandomCountWithinCap(ctx, count)) return;
  storage::Random& random = ctx.server.random;
  if (count < 0) {
    const auto n = static_cast<std::uint64_t>(-count);
    ctx.reply.ArrayHeader(n);
    // A table is drawn from when the draws are fewer than its members; otherwise, and for a
    // packed set, the members are listed once and each draw is an index.
    if (set->encoding() == storage::Encoding::kSetTable && n < storage::SetSize(*set)) {
      std::vector<Entry*> scratch;
      for (std::uint64_t i = 0; i < n; ++i) {
        ctx.reply.Bulk(storage::TableRandomEntry(*set->table(), random, scratch).key());
      }
      return;
    }
    const std::vector<std::string> members = Members(*set);
    for (std::uint64_t i = 0; i < n; ++i) ctx.reply.Bulk(members[random.Below(members.size())]);
    return;
  }
  const std::size_t size = storage::SetSize(*set);
  if (static_cast<std::uint64_t>(count) >= size) {
    ctx.reply.ArrayHeader(size);
    storage::SetForEach(*set, [&](std::string_view m) { ctx.reply.Bulk(m); });
    return;
  }
  const auto n = static_cast<std::size_t>(count);
  std::vector<std::string> picked;
  if (n * 3 > size) {
    // Many of them: a partial shuffle of all the members.
    picked = Members(*set);
    for (std::size_t i = 0; i < n; ++i) std::swap(picked[i], picked[i + random.Below(size - i)]);
    picked.resize(n);
  } else {
    std::unordered_set<std::string> seen;
    while (picked.size() < n) {
      std::string m = storage::SetRandomMember(*set, random);
      if (seen.insert(m).second) picked.push_back(std::move(m));
    }
  }
  ctx.reply.ArrayHeader(n);
  for (const std::string& m : picked) ctx.reply.Bulk(m);
}

void SmoveCommand(CommandContext& ctx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* src = keyspace.Find(ctx.arg(1), ctx.now_ms);
  Entry* dst = keyspace.Find(ctx.arg(2), ctx.now_ms);
  if (src == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (src->type() != ValueType::kSet || (dst != nullptr && dst->type() != ValueType::kSet)) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  // (A member too long to be in any set is simply not in the source: no length check here.)
  const std::string_view member = ctx.arg(3);
  if (src == dst) {
    ctx.reply.Integer(storage::SetContains(*src, member) ? 1 : 0);
    return;
  }
  if (!storage::SetRemove(keyspace, src, member)) {
    ctx.reply.Integer(0);
    return;
  }
  Notify(ctx, notify::kSet, "srem", ctx.arg(1));
  if (src == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  if (dst == nullptr) NotifyNew(ctx, ctx.arg(2));
  // Removing from the source never moves the destination's entry.
  if (storage::SetAdd(keyspace, dst, ctx.arg(2), member, ctx.limits())) {
    Notify(ctx, notify::kSet, "sadd", ctx.arg(2));
  }
  ctx.reply.Integer(1);
}

void SinterCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kInter, false); }
void SinterstoreCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kInter, true); }
void SunionCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kUnion, false); }
void SunionstoreCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kUnion, true); }
void SdiffCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kDiff, false); }
void SdiffstoreCommand(CommandContext& ctx) { SetOperation(ctx, SetOp::kDiff, true); }

void SintercardCommand(CommandContext& ctx) {
  std::int64_t numkeys = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(1), numkeys) || numkeys < 1) {
    ctx.reply.Error(errors::kNumkeysZero);
    return;
  }
  if (numkeys > static_cast<std::int64_t>(ctx.argc()) - 2) {
    ctx.reply.Error(errors::kNumkeysTooMany);
    return;
  }
  std::int64_t limit = 0;
  for (std::size_t j = 2 + static_cast<std::size_t>(numkeys); j < ctx.argc(); ++j) {
    if (ArgIs(ctx.arg(j), "limit") && j + 1 < ctx.argc()) {
      ++j;
      if (!protocol::ParseStrictInt64(ctx.arg(j), limit) || limit < 0) {
        ctx.reply.Error(errors::kLimitNegative);
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  std::vector<Entry*> sets;
  if (!LookupSets(ctx, ctx.args.subspan(2, static_cast<std::size_t>(numkeys)), sets)) return;
  ctx.reply.Integer(
      static_cast<std::int64_t>(Intersect(sets, static_cast<std::size_t>(limit)).size()));
}

void SscanCommand(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!ScanCursorArg(ctx, ctx.arg(2), cursor)) return;
  Entry* set = nullptr;
  if (!ReadSet(ctx, ctx.arg(1), set)) return;
  if (set == nullptr) {
    ScanReplyHeader(ctx, 0);
    ctx.reply.ArrayHeader(0);
    return;
  }
  ValueScanOptions options;
  if (!ParseValueScanOptions(ctx, 3, options)) return;
  std::vector<std::string> found;
  auto keep = [&](std::string_view m) {
    if (!options.use_pattern || storage::GlobMatch(options.pattern, m)) found.emplace_back(m);
  };
  if (set->encoding() != storage::Encoding::kSetTable) {
    storage::SetForEach(*set, keep);
    cursor = 0;
  } else {
    std::vector<Entry*> entries;
    cursor = set->table()->Scan(cursor, options.count, entries);
    for (const Entry* e : entries) keep(e->key());
  }
  ScanReplyHeader(ctx, cursor);
  ctx.reply.ArrayHeader(found.size());
  for (const std::string& m : found) ctx.reply.Bulk(m);
}

}  // namespace warden::server
