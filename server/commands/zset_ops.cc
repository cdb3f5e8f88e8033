#include "server/commands/zset_ops.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "protocol/request_parser.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

// strtod over `text` up to its first NUL, as Redis's C-string parsers see an argument. Sets
// `consumed_all` when the parse stopped at that end.
double CStrtod(std::string_view text, bool& consumed_all, int& err) {
  text = text.substr(0, text.find('\0'));
  char small[64];
  std::string large;
  const char* begin;
  if (text.size() < sizeof(small)) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
    begin = small;
  } else {
    large.assign(text);
    begin = large.c_str();
  }
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  err = errno;
  consumed_all = *end == '\0';
  return v;
}

bool ParseRangeBound(std::string_view text, double& value, bool& exclusive) {
  exclusive = !text.empty() && text[0] == '(';
  if (exclusive) text.remove_prefix(1);
  bool consumed_all = false;
  int err = 0;
  value = CStrtod(text, consumed_all, err);
  return consumed_all && !std::isnan(value);
}

bool ParseLexBound(std::string_view text, storage::LexBound& out) {
  if (text.empty()) return false;
  // Redis reads the item as a C string for '+' and '-' (a NUL ends it), as sds after '[' '('.
  switch (text[0]) {
    case '+':
    case '-':
      if (text.size() > 1 && text[1] != '\0') return false;
      out.kind = text[0] == '+' ? storage::LexBound::kPlusInf : storage::LexBound::kMinusInf;
      out.member = {};
      return true;
    case '(':
    case '[':
      out.kind = text[0] == '(' ? storage::LexBound::kExclusive : storage::LexBound::kInclusive;
      out.member = text.substr(1);
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ParseScore(std::string_view text, double& out) {
  // An integer within 2^53 (a timestamp in ms, a counter) is exact as a double, so it is the
  // value strtod would give, without strtod's thousand instructions. The strict form has no
  // leading zero, plus sign or "-0" (which strtod makes -0.0): those go on to strtod.
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (std::int64_t v = 0; protocol::ParseStrictInt64(text, v) && v >= -kExact && v <= kExact) {
    out = static_cast<double>(v);
    return true;
  }
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  if (text.find('\0') != std::string_view::npos) return false;
  bool consumed_all = false;
  int err = 0;
  const double v = CStrtod(text, consumed_all, err);
  if (!consumed_all || std::isnan(v)) return false;
  if (err == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) return false;
  out = v;
  return true;
}

bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange& out) {
  return ParseRangeBound(min, out.min, out.min_exclusive) &&
         ParseRangeBound(max, out.max, out.max_exclusive);
}

bool ParseLexRange(std::string_view min, std::string_view max, storage::LexBound& lo,
                   storage::LexBound& hi) {
  return ParseLexBound(min, lo) && ParseLexBound(max, hi);
}

std::pair<std::size_t, std::size_t> ScoreRangeRanks(const storage::Entry& zset,
                                                    const ScoreRange& range) {
  const std::size_t first = storage::ZsetCountBelowScore(zset, range.min, range.min_exclusive);
  const std::size_t end = storage::ZsetCountBelowScore(zset, range.max, !range.max_exclusive);
  return {first, end};
}

std::pair<std::size_t, std::size_t> LexRangeRanks(const storage::Entry& zset,
                                                  const storage::LexBound& lo,
                                                  const storage::LexBound& hi) {
  return {storage::ZsetCountBelowLex(zset, lo, true), storage::ZsetCountBelowLex(zset, hi, false)};
}

void ReplyZpop(CommandContext& ctx, storage::Entry*& zset, std::string_view key, bool max,
               std::int64_t count, bool nested, bool emit_key) {
  const std::size_t size = storage::ZsetSize(*zset);
  const std::size_t n =
      static_cast<std::uint64_t>(count) > size ? size : static_cast<std::size_t>(count);
  if (emit_key && nested) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(key);
    ctx.reply.ArrayHeader(n);
  } else if (emit_key) {
    ctx.reply.ArrayHeader(n * 2 + 1);
    ctx.reply.Bulk(key);
  } else {
    ctx.reply.ArrayHeader(nested ? n : n * 2);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const storage::ZsetItem item = storage::ZsetPop(ctx.keyspace(), zset, max);
    if (nested) ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(item.member);
    ctx.reply.Double(item.score);
  }
  if (n == 0) return;
  Notify(ctx, notify::kZset, max ? "zpopmax" : "zpopmin", key);
  if (zset == nullptr) Notify(ctx, notify::kGeneric, "del", key);
}

[[nodiscard]] bool ParseZmpopArgs(CommandContext& ctx, std::size_t numkeys_at, ZmpopArgs& out) {
  std::int64_t numkeys = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(numkeys_at), numkeys) || numkeys < 1) {
    ctx.reply.Error(errors::kNumkeysZero);
    return false;
  }
  const std::size_t where_at = numkeys_at + 1 + static_cast<std::size_t>(numkeys);
  if (static_cast<std::uint64_t>(numkeys) >= ctx.argc() || where_at >= ctx.argc()) {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  if (ArgIs(ctx.arg(where_at), "min")) {
    out.max = false;
  } else if (ArgIs(ctx.arg(where_at), "max")) {
    out.max = true;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  bool counted = false;
  for (std::size_t j = where_at + 1; j < ctx.argc(); ++j) {
    if (!counted && ArgIs(ctx.arg(j), "count") && j + 1 < ctx.argc()) {
      ++j;
      if (!protocol::ParseStrictInt64(ctx.arg(j), out.count) || out.count < 1) {
        ctx.reply.Error(errors::kMpopCountZero);
        return false;
      }
      counted = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (!counted) out.count = 1;
  out.first_key = numkeys_at + 1;
  out.numkeys = static_cast<std::size_t>(numkeys);
  return true;
}

}  // namespace warden::server
