#include "fuzz/fuzz_harness.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>
#include <vector>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/config/config.h"
#include "server/debug/debug_controls.h"
#include "server/dispatcher.h"
#include "server/scripting/script_engine.h"
#include "storage/list.h"
#include "storage/zset.h"

namespace {

// Set on the thread that runs commands while one runs. DEBUG SLEEP is fuzzed like any other
// command, but a fuzzer that sleeps finds nothing: its sleep returns at once.
thread_local bool skip_sleep = false;

}  // namespace

// DEBUG SLEEP sleeps with nanosleep; this definition takes precedence over the C library's. Other
// threads (libFuzzer's RSS watchdog) still sleep for real.
extern "C" int nanosleep(const timespec* request, timespec* remaining) {
  if (skip_sleep) return 0;
  return static_cast<int>(syscall(SYS_nanosleep, request, remaining));
}

// CONFIG SET appendonly yes and BGREWRITEAOF fork a child that writes the data set: a fuzzer
// must not fork per input. Here fork fails as it does when the system is out of processes, so
// those commands take their error paths.
extern "C" pid_t fork() noexcept {
  errno = EAGAIN;
  return -1;
}

namespace warden::fuzz {
namespace {

// Lua instructions come in slices of 100000 between hook calls: a script turns busy after two
// slices (busy-reply-threshold 2 ms of the stepping clock) and is stopped after six, even if it
// wrote, so an endless loop costs a few milliseconds.
constexpr int kHookBudget = 6;
constexpr std::int64_t kBusyThresholdMs = 2;
constexpr std::int64_t kScriptMemoryLimit = 32LL * 1024 * 1024;
// As Server::OnCron.
constexpr int kCronRehashBuckets = 1000;
constexpr int kCronTrimSlabs = 64;
constexpr std::size_t kCronReclaimEntries = 4096;
constexpr std::int64_t kExpirySliceUs = 1000;

// Where CONFIG SET appendonly yes would put its files: a directory that cannot be made, so the
// fuzzer reaches the error path and leaves nothing on disk.
constexpr const char* kNoDir = "/proc/warden-fuzz-has-no-dir";

server::Config FuzzConfig() {
  server::Config config;
  config.seed = 1;
  config.dir = kNoDir;
  config.enable_debug_command = server::DebugCommandPolicy::kYes;
  config.busy_reply_threshold_ms = kBusyThresholdMs;
  config.script_memory_limit = kScriptMemoryLimit;
  return config;
}

// The length of the RESP value at the start of `data`, or 0 if it is not one complete
// well-formed value (of RESP2's types only, for a RESP2 client). Iterative rather than
// protocol::ReadReply, which stops at 1000 levels of nesting while a script may return deeper
// tables.
std::size_t RespValueLength(std::string_view data, int resp) {
  static constexpr std::string_view kResp2Types = "+-:$*";
  std::size_t pos = 0;
  std::int64_t pending = 1;
  while (pending > 0) {
    const std::size_t cr = data.find("\r\n", pos);
    if (pos >= data.size() || cr == std::string_view::npos) return 0;
    const char type = data[pos];
    if (resp == 2 && kResp2Types.find(type) == std::string_view::npos) return 0;
    const std::string_view line = data.substr(pos + 1, cr - pos - 1);
    if (line.find_first_of("\r\n") != std::string_view::npos) return 0;
    pos = cr + 2;
    --pending;
    std::int64_t n = 0;
    switch (type) {
      case '+':
      case '-':
      case ',':
        break;
      case '_':
        if (!line.empty()) return 0;
        break;
      case '#':
        if (line != "t" && line != "f") return 0;
        break;
      case ':':
      case '(':
        if (!protocol::ParseStrictInt64(line, n) && type == ':') return 0;
        break;
      case '$':
      case '=':
        if (!protocol::ParseStrictInt64(line, n) || n < -1 || (n == -1 && type == '=')) return 0;
        if (n >= 0) {
          if (data.size() - pos < static_cast<std::size_t>(n) + 2 ||
              data.substr(pos + static_cast<std::size_t>(n), 2) != "\r\n" ||
              (type == '=' && (n < 4 || data[pos + 3] != ':'))) {
            return 0;
          }
          pos += static_cast<std::size_t>(n) + 2;
        }
        break;
      case '*':
      case '~':
      case '%':
      case '>':  // a RESP3 client's push: a message, or a subscribe/unsubscribe confirmation
        if (!protocol::ParseStrictInt64(line, n) || n < -1 || (n == -1 && type != '*')) return 0;
        // Every element takes at least three bytes.
        if (n > static_cast<std::int64_t>(data.size())) return 0;
        if (n > 0) pending += type == '%' ? 2 * n : n;
        break;
      default:
        return 0;
    }
  }
  return pos;
}

// A command answers with one RESP value. Around it a RESP3 client may get push messages (the
// events its own command caused, if it subscribed to them); the (P|S)(UN)SUBSCRIBE family
// answers once per channel, as Redis does.
void CheckReplies(std::string_view out, int resp, std::string_view command) {
  static constexpr std::string_view kPerChannel[] = {"subscribe",   "psubscribe",   "ssubscribe",
                                                     "unsubscribe", "punsubscribe", "sunsubscribe"};
  bool per_channel = false;
  for (const std::string_view name : kPerChannel) per_channel |= server::ArgIs(command, name);
  std::size_t values = 0;
  std::size_t answers = 0;
  for (std::size_t pos = 0; pos < out.size();) {
    const std::size_t length = RespValueLength(out.substr(pos), resp);
    if (length == 0) {
      std::fprintf(stderr, "reply: %.*s\n", static_cast<int>(out.size() < 2000 ? out.size() : 2000),
                   out.data());
    }
    Check(length != 0, "the reply is well-formed RESP values");
    answers += out[pos] != '>' ? 1 : 0;
    ++values;
    pos += length;
  }
  Check(values > 0, "a command writes a reply");
  if (!per_channel && answers != 1) {
    std::fprintf(stderr, "reply: %.*s\n", static_cast<int>(out.size() < 2000 ? out.size() : 2000),
                 out.data());
  }
  Check(per_channel || answers == 1, "a command writes exactly one reply besides push messages");
}

}  // namespace

void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

FuzzServer::FuzzServer() : state_(FuzzConfig(), clock_) {
  state_.debug->clock_control = &clock_.control;
  for (std::size_t client = 0; client < kClients; ++client) Connect(client);
  state_.scripts->set_interrupt_check([this] { return --hooks_left_ < 0 || out_of_time(); });
  state_.scripts->set_poll_clients([this] {
    if (on_busy_) on_busy_();
  });
}

void FuzzServer::Connect(std::size_t client) {
  server::Session& s = sessions_[client];
  s = server::Session{};
  s.id = state_.NewClientId();
  s.resp = client >= 2 ? 3 : 2;
  s.authenticated = state_.config.requirepass.empty();
  s.created_ms = clock_.NowMs();
  s.last_interaction_ms = clock_.NowMs();
}

std::string FuzzServer::Run(std::size_t client, std::span<const std::string_view> args) {
  server::Session& session = sessions_[client];
  if (depth_ == 0) hooks_left_ = kHookBudget;
  const bool outer_skip_sleep = skip_sleep;
  skip_sleep = true;
  ++depth_;
  std::string out;
  protocol::ReplyWriter writer(&out, session.resp);
  server::Dispatch(state_, session, args, writer);
  --depth_;
  skip_sleep = outer_skip_sleep;

  // A SHUTDOWN that went ahead leaves its caller waiting for the exit, with no reply: here the
  // server lives on, and the caller is a new connection.
  const bool shut_down = session.blocked && server::ArgIs(args[0], "shutdown");
  if (session.close_now || shut_down) {
    Connect(client);
  } else {
    CheckReplies(out, session.resp, args[0]);
    if (session.close_after_reply) Connect(client);
  }
  if (depth_ == 0) {
    Check(!state_.scripts->running(), "no script runs between commands");
    Check(!state_.scripts->busy(), "no script is busy between commands");
    Check(state_.call.frozen_now_ms == -1, "time is not frozen between commands");
    // DEBUG CLOCK REAL hands time to the system clock; take it back so runs replay.
    if (!clock_.control.frozen()) clock_.control.Freeze(FuzzClock::kStartMs);
  }
  CheckKeyspace();
  return out;
}

void FuzzServer::AdvanceClock(std::int64_t delta_ms) {
  clock_.control.AdvanceMs(delta_ms);
  state_.dbs.ExpireDue(clock_.NowMs());
  CheckKeyspace();
}

void FuzzServer::Cron() {
  if (state_.debug->active_expire_enabled) {
    state_.active_expiry.RunOnce(clock_.NowMs(), kExpirySliceUs);
  }
  state_.dbs.RehashSteps(kCronRehashBuckets);
  state_.dbs.reclaimer().Step(kCronReclaimEntries);
  state_.dbs.pool().Trim(kCronTrimSlabs);
  CheckKeyspace();
}

void FuzzServer::CheckKeyspace() const {
  for (int db = 0; db < state_.dbs.count(); ++db) {
    const storage::Keyspace& keyspace = state_.dbs.db(db);
    Check(keyspace.Verify(), "Keyspace::Verify");
    keyspace.ForEach([&](const storage::Entry& e) {
      Check(keyspace.Peek(e.key()) == &e, "every entry is found by its key, and only one");
      // A large value must be as sound as the keyspace that holds it, and never empty: an
      // emptied collection deletes its key.
      switch (e.encoding()) {
        case storage::Encoding::kHashTable:
        case storage::Encoding::kSetTable:
          Check(e.table()->Verify() && e.table()->size() > 0, "a value table is sound, not empty");
          break;
        case storage::Encoding::kZsetSorted: {
          const auto* zset = static_cast<const storage::SortedSet*>(e.large());
          Check(zset->Verify() && zset->size() > 0, "a sorted set is sound, not empty");
          break;
        }
        case storage::Encoding::kListChunked:
          Check(storage::ListOf(e)->size() > 0, "a chunked list is not empty");
          break;
        default:
          break;
      }
    });
  }
}

void FuzzServer::CheckScanSeesEveryKey() {
  // The database client 0 has selected, which its DBSIZE below counts.
  storage::Keyspace& keyspace = state_.dbs.db(sessions_[0].db);
  std::unordered_set<const storage::Entry*> seen;
  std::vector<storage::Entry*> batch;
  std::uint64_t cursor = 0;
  // A cursor visits each bucket of the larger table once; more calls than keys plus buckets
  // means it does not terminate.
  std::size_t calls_left = 2 * keyspace.size() + (1u << 20);
  do {
    batch.clear();
    cursor = keyspace.Scan(cursor, 10, batch);
    seen.insert(batch.begin(), batch.end());
  } while (cursor != 0 && --calls_left > 0);
  Check(cursor == 0, "SCAN ends");
  keyspace.ForEach(
      [&](const storage::Entry& e) { Check(seen.count(&e) == 1, "SCAN sees every key"); });

  // A fault rule (DEBUG FAULT, FAIL-NEXT) may be about to answer DBSIZE with an error.
  if (state_.debug->faults.armed()) return;
  // From a client of its own on client 0's database: client 0 may be subscribed, in MULTI or
  // monitoring, where DBSIZE is refused or queued.
  server::Session checker;
  checker.id = state_.NewClientId();
  checker.db = sessions_[0].db;
  std::string out;
  protocol::ReplyWriter writer(&out, checker.resp);
  const std::string_view dbsize[] = {"DBSIZE"};
  server::Dispatch(state_, checker, dbsize, writer);
  server::ForgetSession(state_, checker);
  Check(out == ":" + std::to_string(keyspace.size()) + "\r\n", "DBSIZE counts every key");
}

}  // namespace warden::fuzz
