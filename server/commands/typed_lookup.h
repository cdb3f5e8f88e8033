// Looking up a key that must hold one type, and the WRONGTYPE reply when it holds another.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include "server/command_context.h"
#include "server/errors.h"
#include "server/notify.h"
#include "storage/keyspace.h"

namespace warden::server {

// Finds `key` in the client's database. Returns false after replying WRONGTYPE when the key
// holds another type; otherwise true, with `entry` nullptr when the key is missing.
[[nodiscard]] inline bool LookupTyped(CommandContext& ctx, std::string_view key,
                                      storage::ValueType type, storage::Entry*& entry) {
  entry = ctx.keyspace().Find(key, ctx.now_ms);
  if (entry != nullptr && entry->type() != type) {
    ctx.reply.Error(errors::kWrongType);
    return false;
  }
  return true;
}

// LookupTyped for a command that only reads the key (Redis's lookupKeyRead): a missing key
// publishes `keymiss`.
[[nodiscard]] inline bool LookupTypedRead(CommandContext& ctx, std::string_view key,
                                          storage::ValueType type, storage::Entry*& entry) {
  if (!LookupTyped(ctx, key, type, entry)) return false;
  if (entry == nullptr) NotifyKeyMiss(ctx, key);
  return true;
}

// Whether the arguments from `first` on, every `step`-th, fit as hash fields or set members
// (keys of a value's table); replies the error when one does not.
[[nodiscard]] inline bool ElementsFit(CommandContext& ctx, std::size_t first, std::size_t step) {
  for (std::size_t i = first; i < ctx.argc(); i += step) {
    if (ctx.arg(i).size() > storage::Keyspace::kMaxKeyLength) {
      ctx.reply.Error(errors::kElementTooLong);
      return false;
    }
  }
  return true;
}

// value + increment, or false after replying Redis's overflow error (INCRBY, HINCRBY).
[[nodiscard]] inline bool CheckedAdd(CommandContext& ctx, std::int64_t value,
                                     std::int64_t increment, std::int64_t& sum) {
  if (__builtin_add_overflow(value, increment, &sum)) {
    ctx.reply.Error(errors::kIncrOverflow);
    return false;
  }
  return true;
}

// The decimal digits of `value`, in `buf`.
inline std::string_view FormatInt(std::int64_t value, char (&buf)[24]) {
  const char* end = std::to_chars(buf, buf + sizeof(buf), value).ptr;
  return {buf, static_cast<std::size_t>(end - buf)};
}

// Reads an integer argument or replies Redis's not-an-integer error.
[[nodiscard]] bool IntegerArg(CommandContext& ctx, std::string_view arg, std::int64_t& out);

// Redis's strict long double parser (string2ld): what INCRBYFLOAT and HINCRBYFLOAT accept.
bool ParseLongDouble(std::string_view text, long double& out);
// INCRBYFLOAT's output: %.17Lf with trailing zeros (and a trailing '.') removed, "-0" as "0".
// Writes into `buf` and returns the view.
std::string_view FormatLongDouble(long double value, char (&buf)[5200]);
// INCRBYFLOAT's and HINCRBYFLOAT's sum, in long double as Redis adds: its text in `buf`, or
// nullopt having replied that the result would be NaN or infinite.
[[nodiscard]] std::optional<std::string_view> AddLongDoubles(CommandContext& ctx, long double value,
                                                             long double increment,
                                                             char (&buf)[5200]);

// Replies a SCAN-style page: the next cursor as a bulk string, then `count` items written by
// the caller.
void ScanReplyHeader(CommandContext& ctx, std::uint64_t cursor);
// Parses SCAN's cursor as Redis does (strtoul); false after replying the error.
[[nodiscard]] bool ScanCursorArg(CommandContext& ctx, std::string_view arg, std::uint64_t& cursor);

}  // namespace warden::server

namespace warden::server {

// HSCAN's and SSCAN's options after the cursor: MATCH and COUNT (TYPE is SCAN's alone).
struct ValueScanOptions {
  std::size_t count = 10;
  std::string_view pattern;
  bool use_pattern = false;
};
// Reads the options from argument `first` on; false after replying the error.
[[nodiscard]] bool ParseValueScanOptions(CommandContext& ctx, std::size_t first,
                                         ValueScanOptions& out);

// The count of SRANDMEMBER and HRANDFIELD: any int64 but INT64_MIN, with Redis's texts.
[[nodiscard]] bool RandomCountArg(CommandContext& ctx, std::string_view arg, std::int64_t& count);
// Redis 7.0 answers a huge negative count by streaming elements until memory runs out; warden
// refuses counts whose reply could not be held (a known difference).
[[nodiscard]] bool RandomCountWithinCap(CommandContext& ctx, std::int64_t count);

}  // namespace warden::server

namespace warden::server {

// Redis's name for how `e` is held (OBJECT ENCODING, DEBUG OBJECT).
std::string_view EncodingName(const storage::Entry& e);
// What MEMORY USAGE reports: the entry, its bucket, and a large value's table, estimated from
// `samples` of its elements (0: all).
std::size_t ValueMemoryBytes(const storage::Entry& e, std::size_t samples);

}  // namespace warden::server
