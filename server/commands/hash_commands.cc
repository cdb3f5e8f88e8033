// The hash commands of Redis 7.0. The value model is storage/hash.h; this file maps it to RESP.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "storage/glob.h"
#include "storage/hash.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

[[nodiscard]] bool LookupHash(CommandContext& ctx, Entry*& hash) {
  return LookupTyped(ctx, ctx.arg(1), ValueType::kHash, hash);
}

// For the commands that only read the hash: a missing key publishes `keymiss`.
[[nodiscard]] bool ReadHash(CommandContext& ctx, Entry*& hash) {
  return LookupTypedRead(ctx, ctx.arg(1), ValueType::kHash, hash);
}

// HSET and HMSET: the same write, a different reply.
[[nodiscard]] bool SetPairs(CommandContext& ctx, std::int64_t& created) {
  if (ctx.argc() % 2 == 1) {
    errors::WrongArity(ctx.reply, ctx.spec.name);
    return false;
  }
  if (!ElementsFit(ctx, 2, 2)) return false;
  Entry* hash = nullptr;
  if (!LookupHash(ctx, hash)) return false;
  storage::Keyspace& keyspace = ctx.keyspace();
  if (hash == nullptr) NotifyNew(ctx, ctx.arg(1));
  created = 0;
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    created +=
        storage::HashSet(keyspace, hash, ctx.arg(1), ctx.arg(i), ctx.arg(i + 1), ctx.limits());
  }
  // Even when no field changed, as Redis does.
  Notify(ctx, notify::kHash, "hset", ctx.arg(1));
  return true;
}

enum class Part { kKeys, kValues, kBoth };

void ReplyAll(CommandContext& ctx, Part part) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  if (hash == nullptr) {
    if (part == Part::kBoth) {
      ctx.reply.MapHeader(0);
    } else {
      ctx.reply.ArrayHeader(0);
    }
    return;
  }
  const std::size_t n = storage::HashLength(*hash);
  if (part == Part::kBoth) {
    ctx.reply.MapHeader(n);
  } else {
    ctx.reply.ArrayHeader(n);
  }
  storage::HashForEach(*hash, [&](std::string_view field, std::string_view value) {
    if (part != Part::kValues) ctx.reply.Bulk(field);
    if (part != Part::kKeys) ctx.reply.Bulk(value);
  });
}

// One field (and value) of HRANDFIELD's reply: RESP3 nests each pair in its own array.
void ReplyPair(CommandContext& ctx, std::string_view field, std::string_view value,
               bool with_values) {
  if (with_values && ctx.reply.protocol() == 3) ctx.reply.ArrayHeader(2);
  ctx.reply.Bulk(field);
  if (with_values) ctx.reply.Bulk(value);
}

void RandomFieldsWithCount(CommandContext& ctx, std::int64_t count, bool with_values) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  if (hash == nullptr || count == 0) {
    ctx.reply.ArrayHeader(0);
    return;
  }
  if (!RandomCountWithinCap(ctx, count)) return;
  storage::Random& random = ctx.server.random;
  const bool flat = !(with_values && ctx.reply.protocol() == 3);
  const std::size_t size = storage::HashLength(*hash);
  const bool repeats = count < 0;
  const std::uint64_t n =
      repeats ? static_cast<std::uint64_t>(-count) : static_cast<std::uint64_t>(count);
  // A table is drawn from rather than listed when the draws are fewer than its fields (or, for
  // distinct fields, at most a third of them).
  if (hash->encoding() == storage::Encoding::kHashTable && (repeats ? n < size : n <= size / 3)) {
    storage::Keyspace& table = *hash->table();
    ctx.reply.ArrayHeader(with_values && flat ? n * 2 : n);
    std::unordered_set<const Entry*> seen;
    std::vector<Entry*> scratch;
    for (std::uint64_t i = 0; i < n;) {
      const Entry& e = storage::TableRandomEntry(table, random, scratch);
      if (!repeats && !seen.insert(&e).second) continue;
      ReplyPair(ctx, e.key(), e.value(), with_values);
      ++i;
    }
    return;
  }
  // Fields are copied: a packed UUID field is spelled only for the callback (hash.h).
  std::vector<std::pair<std::string, std::string_view>> pairs;
  pairs.reserve(size);
  storage::HashForEach(*hash,
                       [&](std::string_view f, std::string_view v) { pairs.emplace_back(f, v); });
  if (repeats) {
    // |count| independent draws.
    ctx.reply.ArrayHeader(with_values && flat ? n * 2 : n);
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto& [f, v] = pairs[random.Below(pairs.size())];
      ReplyPair(ctx, f, v, with_values);
    }
    return;
  }
  const std::size_t distinct = std::min<std::size_t>(static_cast<std::size_t>(n), pairs.size());
  // Distinct fields: the first ones of a partial shuffle (all of them, in order, when the count
  // covers the hash, as Redis returns the whole hash then).
  if (distinct < pairs.size()) {
    for (std::size_t i = 0; i < distinct; ++i) {
      std::swap(pairs[i], pairs[i + random.Below(pairs.size() - i)]);
    }
  }
  ctx.reply.ArrayHeader(with_values && flat ? distinct * 2 : distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    ReplyPair(ctx, pairs[i].first, pairs[i].second, with_values);
  }
}

}  // namespace

void HsetCommand(CommandContext& ctx) {
  std::int64_t created = 0;
  if (SetPairs(ctx, created)) ctx.reply.Integer(created);
}

void HmsetCommand(CommandContext& ctx) {
  std::int64_t created = 0;
  if (SetPairs(ctx, created)) ctx.reply.Ok();
}

void HsetnxCommand(CommandContext& ctx) {
  if (!ElementsFit(ctx, 2, 2)) return;
  Entry* hash = nullptr;
  if (!LookupHash(ctx, hash)) return;
  if (hash != nullptr && storage::HashGet(*hash, ctx.arg(2)).has_value()) {
    ctx.reply.Integer(0);
    return;
  }
  if (hash == nullptr) NotifyNew(ctx, ctx.arg(1));
  storage::HashSet(ctx.keyspace(), hash, ctx.arg(1), ctx.arg(2), ctx.arg(3), ctx.limits());
  Notify(ctx, notify::kHash, "hset", ctx.arg(1));
  ctx.reply.Integer(1);
}

void HgetCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  const auto value = hash == nullptr ? std::nullopt : storage::HashGet(*hash, ctx.arg(2));
  if (value.has_value()) {
    ctx.reply.Bulk(*value);
  } else {
    ctx.reply.Null();
  }
}

void HmgetCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const auto value = hash == nullptr ? std::nullopt : storage::HashGet(*hash, ctx.arg(i));
    if (value.has_value()) {
      ctx.reply.Bulk(*value);
    } else {
      ctx.reply.Null();
    }
  }
}

void HdelCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!LookupHash(ctx, hash)) return;
  std::int64_t deleted = 0;
  for (std::size_t i = 2; i < ctx.argc() && hash != nullptr; ++i) {
    deleted += storage::HashDelete(ctx.keyspace(), hash, ctx.arg(i));
  }
  if (deleted > 0) {
    Notify(ctx, notify::kHash, "hdel", ctx.arg(1));
    if (hash == nullptr) Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  }
  ctx.reply.Integer(deleted);
}

void HlenCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  ctx.reply.Integer(hash == nullptr ? 0 : static_cast<std::int64_t>(storage::HashLength(*hash)));
}

void HstrlenCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  const auto value = hash == nullptr ? std::nullopt : storage::HashGet(*hash, ctx.arg(2));
  ctx.reply.Integer(value.has_value() ? static_cast<std::int64_t>(value->size()) : 0);
}

void HincrbyCommand(CommandContext& ctx) {
  std::int64_t increment = 0;
  if (!IntegerArg(ctx, ctx.arg(3), increment) || !ElementsFit(ctx, 2, 2)) return;
  Entry* hash = nullptr;
  if (!LookupHash(ctx, hash)) return;
  std::int64_t value = 0;
  if (hash != nullptr) {
    const auto current = storage::HashGet(*hash, ctx.arg(2));
    if (current.has_value() && !protocol::ParseStrictInt64(*current, value)) {
      ctx.reply.Error(errors::kHashNotInteger);
      return;
    }
  }
  if (!CheckedAdd(ctx, value, increment, value)) return;
  char digits[24];
  if (hash == nullptr) NotifyNew(ctx, ctx.arg(1));
  storage::HashSet(ctx.keyspace(), hash, ctx.arg(1), ctx.arg(2), FormatInt(value, digits),
                   ctx.limits());
  Notify(ctx, notify::kHash, "hincrby", ctx.arg(1));
  ctx.reply.Integer(value);
}

void HincrbyfloatCommand(CommandContext& ctx) {
  long double increment = 0;
  if (!ParseLongDouble(ctx.arg(3), increment)) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  if (std::isnan(increment) || std::isinf(increment)) {
    ctx.reply.Error(errors::kHashNanOrInf);
    return;
  }
  if (!ElementsFit(ctx, 2, 2)) return;
  Entry* hash = nullptr;
  if (!LookupHash(ctx, hash)) return;
  long double value = 0;
  if (hash != nullptr) {
    const auto current = storage::HashGet(*hash, ctx.arg(2));
    if (current.has_value() && !ParseLongDouble(*current, value)) {
      ctx.reply.Error(errors::kHashNotFloat);
      return;
    }
  }
  char buf[5200];
  const std::optional<std::string_view> sum = AddLongDoubles(ctx, value, increment, buf);
  if (!sum) return;
  const std::string_view text = *sum;
  if (hash == nullptr) NotifyNew(ctx, ctx.arg(1));
  storage::HashSet(ctx.keyspace(), hash, ctx.arg(1), ctx.arg(2), text, ctx.limits());
  Notify(ctx, notify::kHash, "hincrbyfloat", ctx.arg(1));
  // As Redis: written as the value it set (HSET key field value).
  if (ctx.server.propagation.active()) {
    ctx.server.propagation.Replace({"HSET", ctx.arg(1), ctx.arg(2), text});
  }
  ctx.reply.Bulk(text);
}

void HkeysCommand(CommandContext& ctx) { ReplyAll(ctx, Part::kKeys); }

void HvalsCommand(CommandContext& ctx) { ReplyAll(ctx, Part::kValues); }

void HgetallCommand(CommandContext& ctx) { ReplyAll(ctx, Part::kBoth); }

void HexistsCommand(CommandContext& ctx) {
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  ctx.reply.Integer(hash != nullptr && storage::HashGet(*hash, ctx.arg(2)).has_value() ? 1 : 0);
}

void HscanCommand(CommandContext& ctx) {
  std::uint64_t cursor = 0;
  if (!ScanCursorArg(ctx, ctx.arg(2), cursor)) return;
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  if (hash == nullptr) {
    ScanReplyHeader(ctx, 0);
    ctx.reply.ArrayHeader(0);
    return;
  }
  ValueScanOptions options;
  if (!ParseValueScanOptions(ctx, 3, options)) return;
  // Fields are copied: a packed UUID field is spelled only for the callback (hash.h).
  std::vector<std::pair<std::string, std::string_view>> found;
  auto keep = [&](std::string_view f, std::string_view v) {
    if (!options.use_pattern || storage::GlobMatch(options.pattern, f)) found.emplace_back(f, v);
  };
  if (hash->encoding() == storage::Encoding::kHashPacked) {
    // A packed hash is returned whole, as Redis returns a listpack in one call.
    storage::HashForEach(*hash, keep);
    cursor = 0;
  } else {
    std::vector<Entry*> entries;
    cursor = hash->table()->Scan(cursor, options.count, entries);
    for (const Entry* e : entries) keep(e->key(), e->value());
  }
  ScanReplyHeader(ctx, cursor);
  ctx.reply.ArrayHeader(found.size() * 2);
  for (const auto& [f, v] : found) {
    ctx.reply.Bulk(f);
    ctx.reply.Bulk(v);
  }
}

void HrandfieldCommand(CommandContext& ctx) {
  if (ctx.argc() >= 3) {
    std::int64_t count = 0;
    if (!RandomCountArg(ctx, ctx.arg(2), count)) return;
    const bool with_values = ctx.argc() == 4;
    if (ctx.argc() > 4 || (with_values && !ArgIs(ctx.arg(3), "withvalues"))) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (with_values && (count < -(INT64_MAX / 2) || count > INT64_MAX / 2)) {
      ctx.reply.Error(errors::kOutOfRange);
      return;
    }
    RandomFieldsWithCount(ctx, count, with_values);
    return;
  }
  Entry* hash = nullptr;
  if (!ReadHash(ctx, hash)) return;
  if (hash == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (hash->encoding() == storage::Encoding::kHashTable) {
    std::vector<Entry*> scratch;
    ctx.reply.Bulk(storage::TableRandomEntry(*hash->table(), ctx.server.random, scratch).key());
    return;
  }
  // Fields are copied: a packed UUID field is spelled only for the callback (hash.h).
  std::vector<std::string> fields;
  storage::HashForEach(*hash,
                       [&](std::string_view f, std::string_view) { fields.emplace_back(f); });
  ctx.reply.Bulk(fields[ctx.server.random.Below(fields.size())]);
}

}  // namespace warden::server
