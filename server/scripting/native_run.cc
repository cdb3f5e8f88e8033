// The native forms of known lock scripts (native_scripts.h): what each covers, and how it runs.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/dispatcher.h"
#include "server/scripting/lua_bridge.h"
#include "server/scripting/native_scripts.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "storage/hash.h"
#include "storage/keyspace.h"

namespace warden::server {
namespace {

// A canonical integer (Redis's string2ll) below 10^15 in magnitude: PEXPIRE takes it whatever
// the clock reads, and so does SET's PX when it is positive.
bool IsPlainMillis(std::string_view arg, bool positive) {
  constexpr std::int64_t kLimit = 1'000'000'000'000'000;
  std::int64_t n = 0;
  return protocol::ParseStrictInt64(arg, n) && n > -kLimit && n < kLimit && (!positive || n > 0);
}

// tonumber(arg) written back as redis.call writes a Lua number: the same digits only when arg
// is canonical, and SELECT accepts it when below the database count.
bool IsPlainDb(std::string_view arg, int databases, int& db) {
  std::int64_t n = 0;
  if (!protocol::ParseStrictInt64(arg, n) || n < 0 || n >= databases) return false;
  db = static_cast<int>(n);
  return true;
}

// Every key holds a string or nothing: GET answers without an error.
bool AllStrings(const storage::Keyspace& keyspace, std::span<const std::string_view> keys) {
  for (const std::string_view key : keys) {
    const storage::Entry* e = keyspace.Peek(key);
    if (e != nullptr && !e->is_string()) return false;
  }
  return true;
}

// A Redisson lock: the key is missing, or a hash whose `field`, if there, HINCRBY can move by
// `by` without an error.
bool RedissonHashFits(const storage::Keyspace& keyspace, std::string_view key,
                      std::string_view field, std::int64_t by) {
  if (field.size() > storage::Keyspace::kMaxKeyLength) return false;
  const storage::Entry* e = keyspace.Peek(key);
  if (e == nullptr) return true;
  if (e->type() != storage::ValueType::kHash) return false;
  const std::optional<std::string_view> value = storage::HashGet(*e, field);
  if (!value.has_value()) return true;
  std::int64_t n = 0;
  std::int64_t sum = 0;
  return protocol::ParseStrictInt64(*value, n) && !__builtin_add_overflow(n, by, &sum);
}

// A Redisson lock HEXISTS can look into: missing, or a hash.
bool MissingOrHash(const storage::Keyspace& keyspace, std::string_view key,
                   std::string_view field) {
  if (field.size() > storage::Keyspace::kMaxKeyLength) return false;
  const storage::Entry* e = keyspace.Peek(key);
  return e == nullptr || e->type() == storage::ValueType::kHash;
}

// A redis-semaphore semaphore: missing, or a sorted set.
bool MissingOrZset(const storage::Keyspace& keyspace, std::string_view key) {
  const storage::Entry* e = keyspace.Peek(key);
  return e == nullptr || e->type() == storage::ValueType::kZset;
}

// Redisson's unlock latch: missing, or the "0" or "1" Redisson writes (tonumber of which is
// plainly that integer).
bool RedissonLatchFits(const storage::Keyspace& keyspace, std::string_view key) {
  const storage::Entry* e = keyspace.Peek(key);
  return e == nullptr || (e->is_string() && (e->value() == "0" || e->value() == "1"));
}

// Whether the native form gives what the Lua form would for these KEYS and ARGV (the script's
// own ARGV, after a SELECTing script's database).
bool Covers(NativeProgram program, const storage::Keyspace& keyspace,
            std::span<const std::string_view> keys, std::span<const std::string_view> argv) {
  switch (program) {
    case NativeProgram::kCompareAndDelete:
    case NativeProgram::kCompareAndDeleteOrMissing:
    case NativeProgram::kTokenDelete:
      return !keys.empty() && !argv.empty() && AllStrings(keyspace, keys.first(1));
    case NativeProgram::kTouchOrSetNx:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[1], true) &&
             AllStrings(keyspace, keys.first(1));
    case NativeProgram::kCompareAndPexpire:
    case NativeProgram::kTokenPexpire:
    case NativeProgram::kTokenExtend:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[1], false) &&
             AllStrings(keyspace, keys.first(1));
    case NativeProgram::kRedlockAcquire:
      return argv.size() >= 2 && IsPlainMillis(argv[1], true);
    case NativeProgram::kRedlockExtend:
      return argv.size() >= 2 && IsPlainMillis(argv[1], true) && AllStrings(keyspace, keys);
    case NativeProgram::kRedlockRelease:
      return !argv.empty() && AllStrings(keyspace, keys);
    case NativeProgram::kRedissonTryLock:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[0], false) &&
             RedissonHashFits(keyspace, keys[0], argv[1], 1);
    case NativeProgram::kRedissonUnlock:
      return keys.size() >= 3 && argv.size() >= 5 && IsPlainMillis(argv[1], false) &&
             IsPlainMillis(argv[4], true) &&
             (ArgIs(argv[3], "publish") || ArgIs(argv[3], "spublish")) &&
             RedissonLatchFits(keyspace, keys[2]) &&
             RedissonHashFits(keyspace, keys[0], argv[2], -1);
    case NativeProgram::kRedissonRenew:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[0], false) &&
             MissingOrHash(keyspace, keys[0], argv[1]);
    case NativeProgram::kRedissonRenewBatch:
      // ARGV[i + 1] is the holder of KEYS[i]; with no keys the script touches nothing.
      if (keys.empty()) return true;
      if (argv.size() < keys.size() + 1 || !IsPlainMillis(argv[0], false)) return false;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!MissingOrHash(keyspace, keys[i], argv[i + 1])) return false;
      }
      return true;
    case NativeProgram::kSpringObtain:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[1], true) &&
             AllStrings(keyspace, keys.first(1));
    case NativeProgram::kSpringRenew:
      return !keys.empty() && argv.size() >= 2 && IsPlainMillis(argv[1], false) &&
             AllStrings(keyspace, keys.first(1));
    case NativeProgram::kSpringUnlink:
      return !keys.empty() && !argv.empty() && AllStrings(keyspace, keys.first(1));
    case NativeProgram::kSpringUnlinkPublish:
      return !keys.empty() && argv.size() >= 2 && AllStrings(keyspace, keys.first(1));
    case NativeProgram::kSemaphoreAcquire:
    case NativeProgram::kSemaphoreRefresh:
      // limit, lockTimeout and now go through tonumber and back: plain integers below 10^15
      // come back as the same digits, and their difference is exact.
      return !keys.empty() && argv.size() >= 4 && IsPlainMillis(argv[0], false) &&
             IsPlainMillis(argv[2], false) && IsPlainMillis(argv[3], false) &&
             MissingOrZset(keyspace, keys[0]);
  }
  return false;
}

// A RESP2 bulk reply: `nil` for a null one.
bool ReadBulk(std::string_view reply, std::string_view& value, bool& nil) {
  if (reply.size() < 4 || reply[0] != '$') return false;
  nil = reply[1] == '-';
  if (nil) return true;
  const std::size_t header_end = reply.find("\r\n");
  if (header_end == std::string_view::npos) return false;
  value = reply.substr(header_end + 2, reply.size() - header_end - 4);
  return true;
}

bool ReadInteger(std::string_view reply, std::int64_t& n) {
  return reply.size() >= 4 && reply[0] == ':' &&
         protocol::ParseStrictInt64(reply.substr(1, reply.size() - 3), n);
}

}  // namespace

// One run: the calls go through RunScriptCommand, as a redis.call does. A call whose reply is
// not what the prechecks promise (an error, or a type they ruled out) ends the run with the
// error a redis.call raising there would give, so even an unforeseen case answers as Lua.
class NativeRunner {
 public:
  NativeRunner(const NativeScript& native, std::string_view sha, ServerState& server,
               Session& session, ScriptEngine::RunState& run, std::string& buffer,
               protocol::ReplyWriter& reply)
      : native_(native),
        sha_(sha),
        server_(server),
        session_(session),
        run_(run),
        buffer_(buffer),
        reply_(reply) {}

  // Runs call site `site` with `args` after the command name; false once it raised.
  bool Call(std::size_t site, std::initializer_list<std::string_view> args) {
    return CallNamed(site, native_.calls[site].name, args);
  }
  // The same for a site whose command name the script takes from ARGV.
  bool CallNamed(std::size_t site, std::string_view name,
                 std::initializer_list<std::string_view> args) {
    Send(name, args);
    last_site_ = site;
    if (!buffer_.empty() && buffer_[0] == '-') return Raise();
    return true;
  }
  // The same for redis.pcall: an error is the script's to ignore.
  void ProtectedCall(std::size_t site, std::initializer_list<std::string_view> args) {
    Send(native_.calls[site].name, args);
  }

  // The last call's reply as GET's: false (having replied) when it was not a bulk reply.
  bool Bulk(std::string_view& value, bool& nil) {
    return ReadBulk(buffer_, value, nil) || Unexpected();
  }
  bool Integer(std::int64_t& n) { return ReadInteger(buffer_, n) || Unexpected(); }
  // The script returns the last call's integer reply.
  void ReturnLastInteger() {
    std::int64_t n = 0;
    if (Integer(n)) reply_.Integer(n);
  }
  void Return(std::int64_t n) { reply_.Integer(n); }
  // A Lua table of integers.
  void ReturnIntegers(std::span<const std::uint8_t> values) {
    reply_.ArrayHeader(values.size());
    for (const std::uint8_t n : values) reply_.Integer(n);
  }
  void ReturnNil() { reply_.Null(); }
  bool LastIsStatus() const { return !buffer_.empty() && buffer_[0] == '+'; }

 private:
  // Runs `name args...` as redis.call does; the reply is left in buffer_.
  void Send(std::string_view name, std::initializer_list<std::string_view> args) {
    std::string_view argv[8];
    std::size_t argc = 0;
    argv[argc++] = name;
    for (const std::string_view arg : args) argv[argc++] = arg;
    buffer_.clear();
    protocol::ReplyWriter writer(&buffer_, 2);
    RunScriptCommand(server_, session_, std::span<const std::string_view>(argv, argc),
                     run_.read_only, run_.deny_oom, run_.wrote, writer);
  }

  // As Run reports an error raised by redis.call: the command's error, where it was raised.
  bool Raise() {
    const std::string error = ScriptErrorText(buffer_);
    const std::size_t mark = reply_.BeginError();
    reply_.Raw(error);
    char line[16];
    const int n = std::snprintf(line, sizeof(line), "%d", native_.calls[last_site_].line);
    WriteErrorPlace(reply_, sha_, "@user_script",
                    std::string_view(line, static_cast<std::size_t>(n)));
    reply_.EndError(mark, true);
    return false;
  }
  bool Unexpected() {
    reply_.Error({"ERR internal error: unexpected reply to a native script's call script: ", sha_});
    return false;
  }

  const NativeScript& native_;
  std::string_view sha_;
  ServerState& server_;
  Session& session_;
  ScriptEngine::RunState& run_;
  std::string& buffer_;
  protocol::ReplyWriter& reply_;
  std::size_t last_site_ = 0;
};

namespace {

// What a script checking the owner's token returns.
enum class Owned {
  kCallsReply,   // the call's integer reply, else 0 (compare-and-delete, compare-and-pexpire)
  kOneOrZero,    // 1, else 0 (redis-py, whose `not token or token ~= ARGV[1]` is a plain miss)
  kTrueOrFalse,  // true (1), else false (nil): Spring
};

// The owner's token in `key`, then call site 1 with `then_args`.
void IfOwned(NativeRunner& r, std::string_view key, std::string_view token,
             std::initializer_list<std::string_view> then_args, Owned returns) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (nil || value != token) return returns == Owned::kTrueOrFalse ? r.ReturnNil() : r.Return(0);
  if (!r.Call(1, then_args)) return;
  if (returns == Owned::kCallsReply) return r.ReturnLastInteger();
  r.Return(1);
}

// go-redsync's later delete: -1 tells the caller the lock was already gone.
void CompareAndDeleteOrMissing(NativeRunner& r, std::string_view key, std::string_view token) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (nil) return r.Return(-1);
  if (value != token) return r.Return(0);
  if (r.Call(1, {key})) r.ReturnLastInteger();
}

// go-redsync's touchWithSetNX: extends its own lock, or takes a free one.
void TouchOrSetNx(NativeRunner& r, std::string_view key, std::string_view token,
                  std::string_view ms) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (!nil && value == token) {
    if (r.Call(1, {key, ms})) r.ReturnLastInteger();
    return;
  }
  if (!r.Call(2, {key, token, "PX", ms, "NX"})) return;
  // SET's +OK is a table in Lua (true); its nil reply is false.
  r.Return(r.LastIsStatus() ? 1 : 0);
}

// redis-py's extend: ARGV[3] == "0" adds ARGV[2] to the time left, else replaces it.
void TokenExtend(NativeRunner& r, std::span<const std::string_view> keys,
                 std::span<const std::string_view> argv) {
  const std::string_view key = keys[0];
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (nil || value != argv[0]) return r.Return(0);
  std::int64_t left = 0;
  if (!r.Call(1, {key}) || !r.Integer(left)) return;
  if (left < 0) return r.Return(0);
  char sum[64];
  std::string_view ttl = argv[1];
  if (argv.size() >= 3 && argv[2] == "0") {
    // Lua adds two doubles and redis.call writes the sum as it writes any number: past 2^53,
    // or in exponent form, as the interpreter would (PEXPIRE then refuses it, as there).
    std::int64_t add = 0;
    protocol::ParseStrictInt64(argv[1], add);  // Covers checked it
    const double total = static_cast<double>(add) + static_cast<double>(left);
    ttl = std::string_view(sum, protocol::FormatDouble(total, sum));
  }
  if (r.Call(2, {key, ttl})) r.Return(1);
}

void RedlockAcquire(NativeRunner& r, std::size_t first, std::span<const std::string_view> keys,
                    std::span<const std::string_view> argv) {
  for (const std::string_view key : keys) {
    std::int64_t exists = 0;
    if (!r.Call(first, {key}) || !r.Integer(exists)) return;
    if (exists == 1) return r.Return(0);
  }
  for (const std::string_view key : keys) {
    if (!r.Call(first + 1, {key, argv[0], "PX", argv[1]})) return;
  }
  r.Return(static_cast<std::int64_t>(keys.size()));
}

void RedlockExtend(NativeRunner& r, std::size_t first, std::span<const std::string_view> keys,
                   std::span<const std::string_view> argv) {
  for (const std::string_view key : keys) {
    std::string_view value;
    bool nil = false;
    if (!r.Call(first, {key}) || !r.Bulk(value, nil)) return;
    if (nil || value != argv[0]) return r.Return(0);
  }
  for (const std::string_view key : keys) {
    if (!r.Call(first + 1, {key, argv[0], "PX", argv[1]})) return;
  }
  r.Return(static_cast<std::int64_t>(keys.size()));
}

void RedlockRelease(NativeRunner& r, std::size_t first, std::span<const std::string_view> keys,
                    std::span<const std::string_view> argv) {
  std::int64_t count = 0;
  for (const std::string_view key : keys) {
    std::string_view value;
    bool nil = false;
    if (!r.Call(first, {key}) || !r.Bulk(value, nil)) return;
    if (!nil && value == argv[0]) {
      r.ProtectedCall(first + 1, {key});
      ++count;
    }
  }
  r.Return(count);
}

// Redisson's tryLockInnerAsync: nil when taken or re-entered, else the holder's time left.
void RedissonTryLock(NativeRunner& r, std::span<const std::string_view> keys,
                     std::span<const std::string_view> argv) {
  const std::string_view key = keys[0];
  std::int64_t n = 0;
  if (!r.Call(0, {key}) || !r.Integer(n)) return;
  bool take = n == 0;
  if (!take) {
    if (!r.Call(1, {key, argv[1]}) || !r.Integer(n)) return;
    take = n == 1;
  }
  if (!take) {
    if (r.Call(4, {key})) r.ReturnLastInteger();
    return;
  }
  if (!r.Call(2, {key, argv[1], "1"}) || !r.Call(3, {key, argv[0]})) return;
  r.ReturnNil();
}

// Redisson's unlockInnerAsync: the latch answers a repeated unlock; otherwise one hold less,
// and the last one deletes the lock, publishes the unlock message and sets the latch.
void RedissonUnlock(NativeRunner& r, std::span<const std::string_view> keys,
                    std::span<const std::string_view> argv) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {keys[2]}) || !r.Bulk(value, nil)) return;
  if (!nil) return r.Return(value == "1" ? 1 : 0);
  std::int64_t n = 0;
  if (!r.Call(1, {keys[0], argv[2]}) || !r.Integer(n)) return;
  if (n == 0) return r.ReturnNil();
  if (!r.Call(2, {keys[0], argv[2], "-1"}) || !r.Integer(n)) return;
  if (n > 0) {
    if (r.Call(3, {keys[0], argv[1]}) && r.Call(4, {keys[2], "0", "px", argv[4]})) r.Return(0);
    return;
  }
  if (r.Call(5, {keys[0]}) && r.CallNamed(6, argv[3], {keys[1], argv[0]}) &&
      r.Call(7, {keys[2], "1", "px", argv[4]})) {
    r.Return(1);
  }
}

// Redisson's watchdog: the lease renewed for each lock its holder still holds.
// Renews KEYS[i] for its holder ARGV[i + 1]; false once a call raised (having replied).
bool RenewOne(NativeRunner& r, std::span<const std::string_view> keys,
              std::span<const std::string_view> argv, std::size_t i, bool& renewed) {
  std::int64_t n = 0;
  if (!r.Call(0, {keys[i], argv[i + 1]}) || !r.Integer(n)) return false;
  renewed = n == 1;
  return !renewed || r.Call(1, {keys[i], argv[0]});
}

// Redisson before 3.44: one lock, 1 or 0.
void RedissonRenew(NativeRunner& r, std::span<const std::string_view> keys,
                   std::span<const std::string_view> argv) {
  bool renewed = false;
  if (RenewOne(r, keys, argv, 0, renewed)) r.Return(renewed ? 1 : 0);
}

// Redisson 3.44+: 1 or 0 per key, answered once every call ran, so a call that raises leaves
// no half-written array.
void RedissonRenewBatch(NativeRunner& r, std::span<const std::string_view> keys,
                        std::span<const std::string_view> argv) {
  std::vector<std::uint8_t> results(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    bool renewed = false;
    if (!RenewOne(r, keys, argv, i, renewed)) return;
    results[i] = renewed ? 1 : 0;
  }
  r.ReturnIntegers(results);
}

// Spring's obtain: re-entry extends the lease, a free lock is taken, a held one is refused.
void SpringObtain(NativeRunner& r, std::string_view key, std::string_view token,
                  std::string_view ms) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (!nil && value != token) return r.ReturnNil();
  if (nil ? r.Call(2, {key, token, "PX", ms}) : r.Call(1, {key, ms})) r.Return(1);
}

// Spring's pub/sub unlock: only the holder's UNLINK that removed the key publishes.
void SpringUnlinkPublish(NativeRunner& r, std::string_view key, std::string_view token,
                         std::string_view channel) {
  std::string_view value;
  bool nil = false;
  if (!r.Call(0, {key}) || !r.Bulk(value, nil)) return;
  if (nil || value != token) return r.ReturnNil();
  std::int64_t removed = 0;
  if (!r.Call(1, {key}) || !r.Integer(removed)) return;
  if (removed != 1) return r.ReturnNil();
  if (r.Call(2, {channel, key})) r.Return(1);
}

// redis-semaphore's Semaphore: the holders older than lockTimeout leave, then the caller joins
// if there is room (acquire) or renews its place if it is still there (refresh).
void SemaphoreJoin(NativeRunner& r, std::string_view key, std::span<const std::string_view> argv,
                   bool refresh) {
  const std::string_view identifier = argv[1];
  const std::string_view timeout = argv[2];
  const std::string_view now = argv[3];
  std::int64_t limit = 0;
  std::int64_t timeout_ms = 0;
  std::int64_t now_ms = 0;
  // Covers checked all three.
  protocol::ParseStrictInt64(argv[0], limit);
  protocol::ParseStrictInt64(timeout, timeout_ms);
  protocol::ParseStrictInt64(now, now_ms);
  char expired[24];
  const char* end = std::to_chars(expired, expired + sizeof(expired), now_ms - timeout_ms).ptr;
  if (!r.Call(0, {key, "-inf", std::string_view(expired, end)})) return;
  bool join = false;
  if (refresh) {
    std::string_view score;
    bool nil = false;
    if (!r.Call(1, {key, identifier}) || !r.Bulk(score, nil)) return;
    join = !nil;
  } else {
    std::int64_t holders = 0;
    if (!r.Call(1, {key}) || !r.Integer(holders)) return;
    join = holders < limit;
  }
  if (!join) return r.Return(0);
  if (r.Call(2, {key, now, identifier}) && r.Call(3, {key, timeout})) r.Return(1);
}

}  // namespace

bool ScriptEngine::RunNative(const NativeScript& native, std::string_view sha, Session& caller,
                             std::span<const std::string_view> keys,
                             std::span<const std::string_view> args, bool read_only,
                             protocol::ReplyWriter& reply) {
  // Every known script writes: under EVAL_RO the interpreter gives the refusal, with its line.
  if (read_only) return false;
  int db = caller.db;
  std::span<const std::string_view> argv = args;
  if (native.selects_db) {
    if (args.empty() || !IsPlainDb(args[0], server_.dbs.count(), db)) return false;
    argv = args.subspan(1);
  }
  if (!Covers(native.program, server_.dbs.db(db), keys, argv)) return false;

  ++native_runs_;
  RunState run;
  const std::int64_t outer_now_ms = BeginRun(run, sha, caller, read_only);
  run.deny_oom = server_.ScriptOomDenied();
  NativeRunner r(native, sha, server_, script_session_, run, call_reply_, reply);
  std::size_t first = 0;
  if (native.selects_db) {
    r.ProtectedCall(0, {args[0]});
    first = 1;
  }
  switch (native.program) {
    case NativeProgram::kCompareAndDelete:
      IfOwned(r, keys[0], argv[0], {keys[0]}, Owned::kCallsReply);
      break;
    case NativeProgram::kCompareAndPexpire:
      IfOwned(r, keys[0], argv[0], {keys[0], argv[1]}, Owned::kCallsReply);
      break;
    case NativeProgram::kCompareAndDeleteOrMissing:
      CompareAndDeleteOrMissing(r, keys[0], argv[0]);
      break;
    case NativeProgram::kTouchOrSetNx:
      TouchOrSetNx(r, keys[0], argv[0], argv[1]);
      break;
    case NativeProgram::kTokenDelete:
      IfOwned(r, keys[0], argv[0], {keys[0]}, Owned::kOneOrZero);
      break;
    case NativeProgram::kTokenPexpire:
      IfOwned(r, keys[0], argv[0], {keys[0], argv[1]}, Owned::kOneOrZero);
      break;
    case NativeProgram::kTokenExtend:
      TokenExtend(r, keys, argv);
      break;
    case NativeProgram::kRedlockAcquire:
      RedlockAcquire(r, first, keys, argv);
      break;
    case NativeProgram::kRedlockExtend:
      RedlockExtend(r, first, keys, argv);
      break;
    case NativeProgram::kRedlockRelease:
      RedlockRelease(r, first, keys, argv);
      break;
    case NativeProgram::kRedissonTryLock:
      RedissonTryLock(r, keys, argv);
      break;
    case NativeProgram::kRedissonUnlock:
      RedissonUnlock(r, keys, argv);
      break;
    case NativeProgram::kRedissonRenew:
      RedissonRenew(r, keys, argv);
      break;
    case NativeProgram::kRedissonRenewBatch:
      RedissonRenewBatch(r, keys, argv);
      break;
    case NativeProgram::kSpringObtain:
      SpringObtain(r, keys[0], argv[0], argv[1]);
      break;
    case NativeProgram::kSpringRenew:
      IfOwned(r, keys[0], argv[0], {keys[0], argv[1]}, Owned::kTrueOrFalse);
      break;
    case NativeProgram::kSpringUnlink:
      IfOwned(r, keys[0], argv[0], {keys[0]}, Owned::kTrueOrFalse);
      break;
    case NativeProgram::kSpringUnlinkPublish:
      SpringUnlinkPublish(r, keys[0], argv[0], argv[1]);
      break;
    case NativeProgram::kSemaphoreAcquire:
      SemaphoreJoin(r, keys[0], argv, false);
      break;
    case NativeProgram::kSemaphoreRefresh:
      SemaphoreJoin(r, keys[0], argv, true);
      break;
  }
  EndRun(outer_now_ms);
  return true;
}

}  // namespace warden::server
