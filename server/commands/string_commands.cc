// SET and its relatives, GET and its relatives (GETDEL, GETEX, GETSET), MSET, MSETNX, MGET, the
// INCR family with INCRBYFLOAT, and Redis 8.4's DELEX and DIGEST.
#include <xxhash.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/set_options.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::kNoDeadline;

// EX, PX, EXAT or PXAT, as SET and GETEX take them.
std::optional<SetExpiry> ExpiryOption(std::string_view opt) {
  if (ArgIs(opt, "ex")) return SetExpiry::kEx;
  if (ArgIs(opt, "px")) return SetExpiry::kPx;
  if (ArgIs(opt, "exat")) return SetExpiry::kExat;
  if (ArgIs(opt, "pxat")) return SetExpiry::kPxat;
  return std::nullopt;
}

// The deadline an EX, PX, EXAT or PXAT option of `command` asks for (kNoDeadline for none or
// KEEPTTL), or false after replying the error.
[[nodiscard]] bool ExpiryDeadline(CommandContext& ctx, SetExpiry expiry, std::string_view arg,
                                  std::string_view command, std::int64_t& deadline) {
  deadline = kNoDeadline;
  if (expiry == SetExpiry::kNone || expiry == SetExpiry::kKeepTtl) return true;
  std::int64_t value = 0;
  if (!IntegerArg(ctx, arg, value)) return false;
  const bool seconds = expiry == SetExpiry::kEx || expiry == SetExpiry::kExat;
  const bool relative = expiry == SetExpiry::kEx || expiry == SetExpiry::kPx;
  if (!ComputeDeadline(value, seconds ? 1000 : 1, relative, relative ? ctx.live_now_ms() : 0,
                       deadline)) {
    errors::InvalidExpireTime(ctx.reply, command);
    return false;
  }
  return true;
}

// The 16 lower-case hex digits of XXH3-64 (seed 0) of `value`, as Redis 8.4's DIGEST prints it.
void FormatDigest(std::string_view value, char (&out)[17]) {
  const XXH64_hash_t h = XXH3_64bits(value.data(), value.size());
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
}

// Compares a client's digest with the value's, case-insensitively. The caller has checked that
// `digest` is 16 bytes long.
bool DigestMatches(std::string_view value, std::string_view digest) {
  char mine[17];
  FormatDigest(value, mine);
  for (std::size_t i = 0; i < 16; ++i) {
    char c = digest[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if (c != mine[i]) return false;
  }
  return true;
}

constexpr std::size_t kDigestLength = 16;

enum class ConditionResult { kHolds, kFails, kBadDigest };

// Evaluates an IFEQ/IFNE/IFDEQ/IFDNE (or NX/XX) condition against the current entry.
ConditionResult CheckCondition(SetCondition condition, std::string_view operand,
                               const Entry* entry) {
  const bool exists = entry != nullptr;
  switch (condition) {
    case SetCondition::kNone:
      return ConditionResult::kHolds;
    case SetCondition::kNx:
      return exists ? ConditionResult::kFails : ConditionResult::kHolds;
    case SetCondition::kXx:
      return exists ? ConditionResult::kHolds : ConditionResult::kFails;
    case SetCondition::kIfEq:
      return exists && entry->value() == operand ? ConditionResult::kHolds
                                                 : ConditionResult::kFails;
    case SetCondition::kIfNe:
      return !exists || entry->value() != operand ? ConditionResult::kHolds
                                                  : ConditionResult::kFails;
    case SetCondition::kIfDeq:
    case SetCondition::kIfDne: {
      // The digest is checked only when there is a value to compare it with.
      if (!exists) {
        return condition == SetCondition::kIfDne ? ConditionResult::kHolds
                                                 : ConditionResult::kFails;
      }
      if (operand.size() != kDigestLength) return ConditionResult::kBadDigest;
      const bool match = DigestMatches(entry->value(), operand);
      return match == (condition == SetCondition::kIfDeq) ? ConditionResult::kHolds
                                                          : ConditionResult::kFails;
    }
  }
  return ConditionResult::kFails;
}

// Shared by SET, SETNX, SETEX and PSETEX once their arguments are validated.
void StoreValue(CommandContext& ctx, std::string_view key, std::string_view value,
                const SetOptions& options, std::int64_t deadline_ms) {
  // EX, PX, EXAT, PXAT, SETEX and PSETEX (not KEEPTTL) publish `expire` after `set`.
  const bool sets_deadline = deadline_ms != kNoDeadline;
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(key, ctx.now_ms);
  // SET overwrites any type, but what GET or a value condition would read must be a string.
  const bool reads_value = options.get || (options.condition != SetCondition::kNone &&
                                           options.condition != SetCondition::kNx &&
                                           options.condition != SetCondition::kXx);
  if (reads_value && entry != nullptr && !entry->is_string()) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  const ConditionResult condition = CheckCondition(options.condition, options.operand, entry);
  if (condition == ConditionResult::kBadDigest) {
    ctx.reply.Error(errors::kDigestLength);
    return;
  }
  if (options.get) {
    if (entry != nullptr) {
      ctx.reply.Bulk(entry->value());
    } else {
      NotifyKeyMiss(ctx, key);
      ctx.reply.Null();
    }
  }
  if (condition == ConditionResult::kFails) {
    if (!options.get) ctx.reply.Null();
    return;
  }
  if (options.expiry == SetExpiry::kKeepTtl) {
    deadline_ms = entry != nullptr ? entry->deadline_ms() : kNoDeadline;
  }
  const bool created = entry == nullptr;
  keyspace.Store(key, value, deadline_ms, entry);
  // Any deadline is written as the instant it names, and the command as SET key value PXAT ms
  // alone (Redis 7.0's setGenericCommand: a PXAT given too, its NX, XX and GET dropped).
  if (sets_deadline && ctx.server.propagation.active()) [[unlikely]] {
    ctx.server.propagation.ReplaceSet(key, value, deadline_ms);
  } else if (options.get && !sets_deadline && ctx.server.propagation.active()) [[unlikely]] {
    // Redis's setCommand writes SET ... GET without its GETs.
    std::vector<std::string_view> argv;
    for (std::size_t j = 0; j < ctx.argc(); ++j) {
      if (j < 3 || !ArgIs(ctx.arg(j), "get")) argv.push_back(ctx.arg(j));
    }
    ctx.server.propagation.Replace(argv);
  }
  // SET is the hottest write: one test of the flags when notifications are off.
  if (ctx.server.config.notify_keyspace_events != 0) [[unlikely]] {
    if (created) NotifyNew(ctx, key);
    Notify(ctx, notify::kString, "set", key);
    if (sets_deadline) Notify(ctx, notify::kGeneric, "expire", key);
  }
  if (!options.get) ctx.reply.Ok();
}

void IncrBy(CommandContext& ctx, std::int64_t increment) {
  storage::Keyspace& keyspace = ctx.keyspace();
  const std::string_view key = ctx.arg(1);
  Entry* entry = nullptr;
  if (!LookupTyped(ctx, key, storage::ValueType::kString, entry)) return;
  std::int64_t value = 0;
  if (entry != nullptr && !protocol::ParseStrictInt64(entry->value(), value)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (!CheckedAdd(ctx, value, increment, value)) return;
  char digits[24];
  // INCR keeps the key's TTL.
  const std::int64_t deadline = entry != nullptr ? entry->deadline_ms() : kNoDeadline;
  keyspace.Store(key, FormatInt(value, digits), deadline, entry);
  if (entry == nullptr) NotifyNew(ctx, key);
  Notify(ctx, notify::kString, "incrby", key);
  ctx.reply.Integer(value);
}

// SETEX and PSETEX: a plain SET with EX or PX, named in its own error text.
void SetWithExpire(CommandContext& ctx, std::int64_t unit_ms) {
  std::int64_t ttl = 0;
  if (!IntegerArg(ctx, ctx.arg(2), ttl)) return;
  std::int64_t deadline = 0;
  if (!ComputeDeadline(ttl, unit_ms, /*relative=*/true, ctx.live_now_ms(), deadline)) {
    errors::InvalidExpireTime(ctx.reply, ctx.spec.name);
    return;
  }
  StoreValue(ctx, ctx.arg(1), ctx.arg(3), SetOptions{}, deadline);
}

// GETEX's options after the key, as Redis's parseExtendedStringArguments reads them for a GET:
// one of EX, PX, EXAT, PXAT (the same one may repeat, the last wins) or PERSIST.
struct GetexOptions {
  SetExpiry expiry = SetExpiry::kNone;
  std::string_view expire_arg;
  bool persist = false;
};

bool ParseGetexOptions(std::span<const std::string_view> args, GetexOptions& out) {
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::string_view opt = args[j];
    const bool has_next = j + 1 < args.size();
    if (ArgIs(opt, "persist") && out.expiry == SetExpiry::kNone) {
      out.persist = true;
    } else if (has_next && !out.persist && ExpiryOption(opt).has_value()) {
      const SetExpiry kind = *ExpiryOption(opt);
      if (out.expiry != SetExpiry::kNone && out.expiry != kind) return false;
      out.expiry = kind;
      out.expire_arg = args[++j];
    } else {
      return false;
    }
  }
  return true;
}

// MSET and MSETNX: the pairs after the command name; an odd count is an arity error.
[[nodiscard]] bool CheckPairs(CommandContext& ctx) {
  if (ctx.argc() % 2 == 1) return true;
  errors::WrongArity(ctx.reply, ctx.spec.name);
  return false;
}

// MGET's lookups and replies for arguments [first, end).
void MgetBatch(CommandContext& ctx, storage::Keyspace& keyspace, std::size_t first,
               std::size_t end) {
  for (std::size_t i = first; i < end; ++i) {
    const Entry* entry = keyspace.Find(ctx.arg(i), ctx.now_ms);
    // A key of another type reads as missing, never as an error.
    if (entry == nullptr || !entry->is_string()) {
      if (entry == nullptr) NotifyKeyMiss(ctx, ctx.arg(i));
      ++ctx.server.stats.keyspace_misses;
      ctx.reply.Null();
    } else {
      ++ctx.server.stats.keyspace_hits;
      ctx.reply.Bulk(entry->value());
    }
  }
}

}  // namespace

[[nodiscard]] bool IntegerArg(CommandContext& ctx, std::string_view arg, std::int64_t& out) {
  if (protocol::ParseStrictInt64(arg, out)) return true;
  ctx.reply.Error(errors::kNotInteger);
  return false;
}

bool ParseLongDouble(std::string_view text, long double& out) {
  // Redis's string2ld: strtold over a NUL-terminated copy, which must consume every byte (so
  // a value with a NUL in it is not a float).
  if (text.empty() || text.size() >= 5 * 1024) return false;
  const std::string copy(text);
  const char* begin = copy.c_str();
  if (std::isspace(static_cast<unsigned char>(begin[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const long double value = std::strtold(begin, &end);
  if (*end != '\0' || end != begin + text.size() || std::isnan(value)) return false;
  if (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || value == 0)) return false;
  if (errno == EINVAL) return false;
  out = value;
  return true;
}

std::string_view FormatLongDouble(long double value, char (&buf)[5200]) {
  int len = std::snprintf(buf, sizeof(buf), "%.17Lf", value);
  if (len < 0 || static_cast<std::size_t>(len) >= sizeof(buf)) len = 0;
  std::string_view text(buf, static_cast<std::size_t>(len));
  if (text.find('.') != std::string_view::npos) {
    while (!text.empty() && text.back() == '0') text.remove_suffix(1);
    if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  }
  if (text == "-0") {
    buf[0] = '0';
    text = std::string_view(buf, 1);
  }
  return text;
}

std::optional<std::string_view> AddLongDoubles(CommandContext& ctx, long double value,
                                               long double increment, char (&buf)[5200]) {
  value += increment;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply.Error(errors::kIncrNanOrInf);
    return std::nullopt;
  }
  return FormatLongDouble(value, buf);
}

bool ComputeDeadline(std::int64_t value, std::int64_t unit_ms, bool relative, std::int64_t now_ms,
                     std::int64_t& deadline_ms) {
  // Redis rejects zero and negative times, and seconds that would overflow once in ms.
  if (value <= 0 || (unit_ms == 1000 && value > INT64_MAX / 1000)) return false;
  std::int64_t ms = value * unit_ms;
  if (relative) {
    if (ms > INT64_MAX - now_ms) return false;
    ms += now_ms;
  }
  deadline_ms = ms;
  return true;
}

std::optional<std::string_view> ParseSetOptions(std::span<const std::string_view> args,
                                                SetOptions& out) {
  out = SetOptions{};
  auto has_condition = [&] { return out.condition != SetCondition::kNone; };
  for (std::size_t j = 0; j < args.size(); ++j) {
    const std::string_view opt = args[j];
    const bool has_next = j + 1 < args.size();
    if (ArgIs(opt, "nx") && out.condition != SetCondition::kXx &&
        (out.condition == SetCondition::kNone || out.condition == SetCondition::kNx)) {
      out.condition = SetCondition::kNx;
    } else if (ArgIs(opt, "xx") && out.condition != SetCondition::kNx &&
               (out.condition == SetCondition::kNone || out.condition == SetCondition::kXx)) {
      out.condition = SetCondition::kXx;
    } else if (ArgIs(opt, "get")) {
      out.get = true;
    } else if (ArgIs(opt, "keepttl") &&
               (out.expiry == SetExpiry::kNone || out.expiry == SetExpiry::kKeepTtl)) {
      out.expiry = SetExpiry::kKeepTtl;
    } else if (has_next && ExpiryOption(opt).has_value()) {
      const SetExpiry kind = *ExpiryOption(opt);
      // The same option twice is accepted (the last value wins); a different one is not.
      if (out.expiry != SetExpiry::kNone && out.expiry != kind) return errors::kSyntax;
      out.expiry = kind;
      out.expire_arg = args[++j];
    } else if (has_next && !has_condition() &&
               (ArgIs(opt, "ifeq") || ArgIs(opt, "ifne") || ArgIs(opt, "ifdeq") ||
                ArgIs(opt, "ifdne"))) {
      out.condition = ArgIs(opt, "ifeq")    ? SetCondition::kIfEq
                      : ArgIs(opt, "ifne")  ? SetCondition::kIfNe
                      : ArgIs(opt, "ifdeq") ? SetCondition::kIfDeq
                                            : SetCondition::kIfDne;
      out.operand = args[++j];
    } else {
      return errors::kSyntax;
    }
  }
  return std::nullopt;
}

void SetCommand(CommandContext& ctx) {
  SetOptions options;
  if (auto error = ParseSetOptions(ctx.args.subspan(3), options)) {
    ctx.reply.Error(*error);
    return;
  }
  std::int64_t deadline = kNoDeadline;
  if (!ExpiryDeadline(ctx, options.expiry, options.expire_arg, "set", deadline)) return;
  StoreValue(ctx, ctx.arg(1), ctx.arg(2), options, deadline);
}

void SetnxCommand(CommandContext& ctx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (entry != nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  keyspace.Store(ctx.arg(1), ctx.arg(2), kNoDeadline, nullptr);
  NotifyNew(ctx, ctx.arg(1));
  Notify(ctx, notify::kString, "set", ctx.arg(1));
  ctx.reply.Integer(1);
}

void SetexCommand(CommandContext& ctx) { SetWithExpire(ctx, 1000); }

void PsetexCommand(CommandContext& ctx) { SetWithExpire(ctx, 1); }

void GetCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ++ctx.server.stats.keyspace_misses;
    ctx.reply.Null();
    return;
  }
  ++ctx.server.stats.keyspace_hits;
  ctx.reply.Bulk(entry->value());
}

void IncrCommand(CommandContext& ctx) { IncrBy(ctx, 1); }

void DecrCommand(CommandContext& ctx) { IncrBy(ctx, -1); }

void IncrbyCommand(CommandContext& ctx) {
  std::int64_t increment = 0;
  if (!IntegerArg(ctx, ctx.arg(2), increment)) return;
  IncrBy(ctx, increment);
}

void DecrbyCommand(CommandContext& ctx) {
  std::int64_t decrement = 0;
  if (!IntegerArg(ctx, ctx.arg(2), decrement)) return;
  if (decrement == INT64_MIN) {
    ctx.reply.Error("ERR decrement would overflow");
    return;
  }
  IncrBy(ctx, -decrement);
}

void DelexCommand(CommandContext& ctx) {
  // Redis 8.4 checks the argument count before looking at the key: 2 or 4.
  if (ctx.argc() != 2 && ctx.argc() != 4) {
    errors::WrongArity(ctx.reply, "delex");
    return;
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  Entry* entry = keyspace.Find(ctx.arg(1), ctx.now_ms);
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (ctx.argc() == 2) {
    keyspace.Erase(entry);
    Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
    ctx.reply.Integer(1);
    return;
  }
  if (!entry->is_string()) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  const std::string_view opt = ctx.arg(2);
  SetCondition condition;
  if (ArgIs(opt, "ifeq")) {
    condition = SetCondition::kIfEq;
  } else if (ArgIs(opt, "ifne")) {
    condition = SetCondition::kIfNe;
  } else if (ArgIs(opt, "ifdeq")) {
    condition = SetCondition::kIfDeq;
  } else if (ArgIs(opt, "ifdne")) {
    condition = SetCondition::kIfDne;
  } else {
    ctx.reply.Error("ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE");
    return;
  }
  switch (CheckCondition(condition, ctx.arg(3), entry)) {
    case ConditionResult::kBadDigest:
      ctx.reply.Error(errors::kDigestLength);
      return;
    case ConditionResult::kFails:
      ctx.reply.Integer(0);
      return;
    case ConditionResult::kHolds:
      keyspace.Erase(entry);
      Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
      ctx.reply.Integer(1);
      return;
  }
}

void DigestCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Null();
    return;
  }
  char digest[17];
  FormatDigest(entry->value(), digest);
  ctx.reply.Bulk(std::string_view(digest, kDigestLength));
}

}  // namespace warden::server

namespace warden::server {

void MsetCommand(CommandContext& ctx) {
  if (!CheckPairs(ctx)) return;
  storage::Keyspace& keyspace = ctx.keyspace();
  for (std::size_t i = 1; i < ctx.argc(); i += 2) {
    Entry* existing = keyspace.Find(ctx.arg(i), ctx.now_ms);
    keyspace.Store(ctx.arg(i), ctx.arg(i + 1), kNoDeadline, existing);
    if (existing == nullptr) NotifyNew(ctx, ctx.arg(i));
    Notify(ctx, notify::kString, "set", ctx.arg(i));
  }
  ctx.reply.Ok();
}

void MsetnxCommand(CommandContext& ctx) {
  if (!CheckPairs(ctx)) return;
  storage::Keyspace& keyspace = ctx.keyspace();
  for (std::size_t i = 1; i < ctx.argc(); i += 2) {
    if (keyspace.Find(ctx.arg(i), ctx.now_ms) != nullptr) {
      ctx.reply.Integer(0);
      return;
    }
  }
  // A key named twice gets its last value.
  for (std::size_t i = 1; i < ctx.argc(); i += 2) {
    Entry* existing = keyspace.Find(ctx.arg(i), ctx.now_ms);
    keyspace.Store(ctx.arg(i), ctx.arg(i + 1), kNoDeadline, existing);
    if (existing == nullptr) NotifyNew(ctx, ctx.arg(i));
    Notify(ctx, notify::kString, "set", ctx.arg(i));
  }
  ctx.reply.Integer(1);
}

void MgetCommand(CommandContext& ctx) {
  storage::Keyspace& keyspace = ctx.keyspace();
  ctx.reply.ArrayHeader(ctx.argc() - 1);
  // The lookups of a batch of keys wait for memory together: every bucket is asked for, then
  // every first entry, before the first key is looked up.
  constexpr std::size_t kBatch = 16;
  for (std::size_t first = 1; first < ctx.argc(); first += kBatch) {
    const std::size_t end = std::min(ctx.argc(), first + kBatch);
    if (end - first > 1) {
      std::uint64_t hashes[kBatch];
      for (std::size_t i = first; i < end; ++i)
        hashes[i - first] = keyspace.PrefetchBucket(ctx.arg(i));
      for (std::size_t i = first; i < end; ++i) keyspace.PrefetchEntry(hashes[i - first]);
    }
    MgetBatch(ctx, keyspace, first, end);
  }
}

void GetdelCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(entry->value());
  ctx.keyspace().Erase(entry);
  Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
  // As Redis's getdelCommand: written as the DEL it did.
  if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"DEL", ctx.arg(1)});
}

void GetexCommand(CommandContext& ctx) {
  GetexOptions options;
  if (!ParseGetexOptions(ctx.args.subspan(2), options)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Null();
    return;
  }
  std::int64_t deadline = kNoDeadline;
  if (!ExpiryDeadline(ctx, options.expiry, options.expire_arg, "getex", deadline)) return;
  ctx.reply.Bulk(entry->value());
  storage::Keyspace& keyspace = ctx.keyspace();
  if (options.expiry == SetExpiry::kExat || options.expiry == SetExpiry::kPxat) {
    // Unlike SET, a deadline already past deletes the key.
    if (deadline <= ctx.live_now_ms() && !ctx.server.loading) {
      keyspace.Erase(entry);
      Notify(ctx, notify::kGeneric, "del", ctx.arg(1));
      if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"DEL", ctx.arg(1)});
      return;
    }
  }
  // Written as what it did to the deadline, as Redis writes GETEX.
  if (options.expiry != SetExpiry::kNone) {
    keyspace.SetDeadline(entry, deadline);
    Notify(ctx, notify::kGeneric, "expire", ctx.arg(1));
    if (ctx.server.propagation.active()) {
      ctx.server.propagation.ReplaceDeadline("PEXPIREAT", ctx.arg(1), deadline);
    }
  } else if (options.persist && entry->has_deadline()) {
    // Only a deadline removed is a change (WATCH, as Redis's removeExpire).
    keyspace.SetDeadline(entry, kNoDeadline);
    Notify(ctx, notify::kGeneric, "persist", ctx.arg(1));
    if (ctx.server.propagation.active()) ctx.server.propagation.Replace({"PERSIST", ctx.arg(1)});
  }
}

void GetsetCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(entry->value());
  }
  // GETSET is SET ... GET: the TTL goes.
  ctx.keyspace().Store(ctx.arg(1), ctx.arg(2), kNoDeadline, entry);
  if (entry == nullptr) NotifyNew(ctx, ctx.arg(1));
  Notify(ctx, notify::kString, "set", ctx.arg(1));
}

void IncrbyfloatCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTyped(ctx, ctx.arg(1), storage::ValueType::kString, entry)) return;
  long double value = 0;
  long double increment = 0;
  if ((entry != nullptr && !ParseLongDouble(entry->value(), value)) ||
      !ParseLongDouble(ctx.arg(2), increment)) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  char buf[5200];
  const std::optional<std::string_view> sum = AddLongDoubles(ctx, value, increment, buf);
  if (!sum) return;
  const std::string_view text = *sum;
  const std::int64_t deadline = entry != nullptr ? entry->deadline_ms() : kNoDeadline;
  ctx.keyspace().Store(ctx.arg(1), text, deadline, entry, storage::Encoding::kStringNoInt);
  if (entry == nullptr) NotifyNew(ctx, ctx.arg(1));
  Notify(ctx, notify::kString, "incrbyfloat", ctx.arg(1));
  // Written as the value it set, so that a reader's float arithmetic cannot differ (Redis's
  // SET key value KEEPTTL).
  if (ctx.server.propagation.active()) {
    ctx.server.propagation.Replace({"SET", ctx.arg(1), text, "KEEPTTL"});
  }
  ctx.reply.Bulk(text);
}

}  // namespace warden::server
