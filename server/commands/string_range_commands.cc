// Commands that read or write part of a string: APPEND, STRLEN, GETRANGE (and its old name
// SUBSTR), SETRANGE, and LCS.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

// Redis's checkStringLength: a string may not grow past proto-max-bulk-len.
[[nodiscard]] bool CheckStringLength(CommandContext& ctx, std::int64_t size, std::int64_t append) {
  std::int64_t total = 0;
  if (__builtin_add_overflow(size, append, &total) ||
      total > ctx.server.config.proto_max_bulk_len) {
    ctx.reply.Error(errors::kStringTooLong);
    return false;
  }
  return true;
}

// One match of LCS IDX: positions in the first and the second string, inclusive.
struct LcsRange {
  std::uint32_t a_start, a_end, b_start, b_end;
};

}  // namespace

void AppendCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTyped(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  storage::Keyspace& keyspace = ctx.keyspace();
  const std::string_view tail = ctx.arg(2);
  if (entry == nullptr) {
    entry = keyspace.Store(ctx.arg(1), tail, storage::kNoDeadline, nullptr);
    NotifyNew(ctx, ctx.arg(1));
    Notify(ctx, notify::kString, "append", ctx.arg(1));
    ctx.reply.Integer(static_cast<std::int64_t>(tail.size()));
    return;
  }
  const std::size_t old_len = entry->value().size();
  if (!CheckStringLength(ctx, static_cast<std::int64_t>(old_len),
                         static_cast<std::int64_t>(tail.size()))) {
    return;
  }
  // In place, in amortized constant time: only the tail is copied.
  entry = keyspace.ResizeValue(entry, old_len + tail.size(), storage::Encoding::kStringRaw);
  if (!tail.empty())
    std::memcpy(storage::Keyspace::ValueBytes(entry) + old_len, tail.data(), tail.size());
  Notify(ctx, notify::kString, "append", ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(entry->value().size()));
}

void StrlenCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  ctx.reply.Integer(entry == nullptr ? 0 : static_cast<std::int64_t>(entry->value().size()));
}

void GetrangeCommand(CommandContext& ctx) {
  std::int64_t start = 0;
  std::int64_t end = 0;
  if (!IntegerArg(ctx, ctx.arg(2), start) || !IntegerArg(ctx, ctx.arg(3), end)) return;
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Bulk("");
    return;
  }
  const std::string_view value = entry->value();
  const auto len = static_cast<std::int64_t>(value.size());
  // Redis's order of clamping, quirks included (GETRANGE s 0 -100 gives the first byte).
  if (start < 0 && end < 0 && start > end) {
    ctx.reply.Bulk("");
    return;
  }
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) {
    ctx.reply.Bulk("");
    return;
  }
  ctx.reply.Bulk(
      value.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start + 1)));
}

void SubstrCommand(CommandContext& ctx) { GetrangeCommand(ctx); }

void SetrangeCommand(CommandContext& ctx) {
  std::int64_t offset = 0;
  if (!IntegerArg(ctx, ctx.arg(2), offset)) return;
  if (offset < 0) {
    ctx.reply.Error(errors::kOffsetOutOfRange);
    return;
  }
  Entry* entry = nullptr;
  if (!LookupTyped(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  const std::string_view patch = ctx.arg(3);
  // An empty patch writes nothing and creates nothing.
  if (patch.empty()) {
    ctx.reply.Integer(entry == nullptr ? 0 : static_cast<std::int64_t>(entry->value().size()));
    return;
  }
  if (!CheckStringLength(ctx, offset, static_cast<std::int64_t>(patch.size()))) return;
  storage::Keyspace& keyspace = ctx.keyspace();
  const auto at = static_cast<std::size_t>(offset);
  if (entry == nullptr) {
    entry = keyspace.Store(ctx.arg(1), {}, storage::kNoDeadline, nullptr,
                           storage::Encoding::kStringRaw);
    NotifyNew(ctx, ctx.arg(1));
  }
  // In place: only the patch (and any zero padding) is written.
  const std::size_t old_len = entry->value().size();
  const std::size_t new_len = std::max(old_len, at + patch.size());
  entry = keyspace.ResizeValue(entry, new_len, storage::Encoding::kStringRaw);
  char* bytes = storage::Keyspace::ValueBytes(entry);
  if (at > old_len) std::memset(bytes + old_len, 0, at - old_len);
  std::memcpy(bytes + at, patch.data(), patch.size());
  Notify(ctx, notify::kString, "setrange", ctx.arg(1));
  ctx.reply.Integer(static_cast<std::int64_t>(entry->value().size()));
}

void LcsCommand(CommandContext& ctx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  const Entry* ea = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (ea == nullptr) NotifyKeyMiss(ctx, ctx.arg(1));
  const Entry* eb = keyspace.Find(ctx.arg(2), ctx.now_ms);
  if (eb == nullptr) NotifyKeyMiss(ctx, ctx.arg(2));
  if ((ea != nullptr && !ea->is_string()) || (eb != nullptr && !eb->is_string())) {
    ctx.reply.Error(errors::kLcsNotStrings);
    return;
  }
  // Copies: the options below cannot change the keyspace, but the views must outlive nothing.
  const std::string a(ea == nullptr ? std::string_view() : ea->value());
  const std::string b(eb == nullptr ? std::string_view() : eb->value());
  bool get_len = false;
  bool get_idx = false;
  bool with_match_len = false;
  std::int64_t min_match_len = 0;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const std::string_view opt = ctx.arg(j);
    const bool more = j + 1 < ctx.argc();
    if (ArgIs(opt, "idx")) {
      get_idx = true;
    } else if (ArgIs(opt, "len")) {
      get_len = true;
    } else if (ArgIs(opt, "withmatchlen")) {
      with_match_len = true;
    } else if (ArgIs(opt, "minmatchlen") && more) {
      if (!IntegerArg(ctx, ctx.arg(j + 1), min_match_len)) return;
      if (min_match_len < 0) min_match_len = 0;
      ++j;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (get_idx && get_len) {
    ctx.reply.Error(errors::kLcsLenAndIdx);
    return;
  }
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    ctx.reply.Error("ERR String too long for LCS");
    return;
  }
  const auto alen = static_cast<std::uint32_t>(a.size());
  const auto blen = static_cast<std::uint32_t>(b.size());
  const std::uint64_t cells = static_cast<std::uint64_t>(alen + 1) * (blen + 1);
  if (cells * sizeof(std::uint32_t) >
      static_cast<std::uint64_t>(ctx.server.config.proto_max_bulk_len)) {
    ctx.reply.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    return;
  }
  // The classic dynamic programme, walked back from the end as Redis does, so that IDX lists
  // the same ranges in the same order.
  std::vector<std::uint32_t> table(cells);
  auto at = [&](std::uint32_t i, std::uint32_t j) -> std::uint32_t& {
    return table[j + static_cast<std::uint64_t>(i) * (blen + 1)];
  };
  for (std::uint32_t i = 1; i <= alen; ++i) {
    for (std::uint32_t j = 1; j <= blen; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  const std::uint32_t length = at(alen, blen);
  std::string result(length, '\0');
  std::vector<LcsRange> ranges;
  std::uint32_t idx = length;
  std::uint32_t a_start = alen, a_end = 0, b_start = 0, b_end = 0;  // a_start == alen: no range
  const bool compute = get_idx || !get_len;
  for (std::uint32_t i = alen, j = blen; compute && i > 0 && j > 0;) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --idx;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != alen) emit = true;
    }
    if (emit) {
      const std::uint32_t match_len = a_end - a_start + 1;
      if (min_match_len == 0 || match_len >= min_match_len) {
        ranges.push_back({a_start, a_end, b_start, b_end});
      }
      a_start = alen;
    }
  }
  if (get_idx) {
    ctx.reply.MapHeader(2);
    ctx.reply.Bulk("matches");
    ctx.reply.ArrayHeader(ranges.size());
    for (const LcsRange& r : ranges) {
      ctx.reply.ArrayHeader(with_match_len ? 3 : 2);
      ctx.reply.ArrayHeader(2);
      ctx.reply.Integer(r.a_start);
      ctx.reply.Integer(r.a_end);
      ctx.reply.ArrayHeader(2);
      ctx.reply.Integer(r.b_start);
      ctx.reply.Integer(r.b_end);
      if (with_match_len) ctx.reply.Integer(r.a_end - r.a_start + 1);
    }
    ctx.reply.Bulk("len");
    ctx.reply.Integer(length);
  } else if (get_len) {
    ctx.reply.Integer(length);
  } else {
    ctx.reply.Bulk(result);
  }
}

}  // namespace warden::server
