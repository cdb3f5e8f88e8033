// The native forms of the known lock scripts (server/scripting/native_scripts.h) against the Lua
// interpreter: two servers on the same manual clock, one with lua-native-scripts yes and one
// with no, get the same script calls over a grid of KEYS, ARGV and key states, and must answer
// byte for byte alike, leave the same keys, values and TTLs, and log the same inner commands
// (DEBUG COMMAND-LOG: names as the script spells them, arguments, marked as from a script).
// Against redis-server itself the scripts run in tests/differential/cases/
// scripting_lock_libraries.txt, where warden takes the native path.
#include "server/scripting/native_scripts.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "server/scripting/lock_library_scripts.h"
#include "server/scripting/script_engine.h"
#include "server/scripting/sha1.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

// One server without sockets, as CommandTest has, so a test can run two side by side.
class Instance {
 public:
  explicit Instance(bool native) : state_(MakeConfig(native), clock_) {
    session_.id = state_.NewClientId();
    session_.authenticated = true;
  }

  std::string Run(const std::vector<std::string>& args) {
    std::vector<std::string_view> views(args.begin(), args.end());
    out_.clear();
    protocol::ReplyWriter writer(&out_, session_.resp);
    Dispatch(state_, session_, views, writer);
    return out_;
  }

  std::uint64_t native_runs() const { return state_.scripts->native_runs(); }

 private:
  static Config MakeConfig(bool native) {
    Config config = TestConfig();
    config.enable_debug_command = DebugCommandPolicy::kYes;
    config.lua_native_scripts = native;
    return config;
  }

  storage::ManualClock clock_;
  ServerState state_;
  Session session_;
  std::string out_;
};

std::string Sha(std::string_view body) {
  char sha[41];
  Sha1Hex(body, sha);
  return std::string(sha, 40);
}

// How every key of a case starts.
enum class KeyState {
  kMissing,
  kOwnedWithTtl,
  kOwnedNoTtl,
  kOwnedHugeTtl,  // past 2^53 ms: redis-py's extend adds to it in a double
  kOther,
  kHash,
  kMixed,
  // redis-semaphore: the first key a sorted set of holders by acquire time (ms), one expired
  // at "now" 100000 with lockTimeout 10000, "tok" and two others live; or five live holders.
  kHolders,
  kHoldersFull,
  // Redisson: the first key a lock hash (holder uuid:1 once, twice, with a count that is not a
  // number or cannot grow, or held by uuid:2), the third key its unlock latch.
  kHeldOnce,
  kHeldTwice,
  kHeldBadCount,
  kHeldMaxCount,
  kHeldByOther,
  kHeldWithLatch,
  kHeldWithOddLatch,
};

bool IsRedisson(const NativeScript& script) {
  return script.program == NativeProgram::kRedissonTryLock ||
         script.program == NativeProgram::kRedissonUnlock ||
         script.program == NativeProgram::kRedissonRenew ||
         script.program == NativeProgram::kRedissonRenewBatch;
}

void Prepare(Instance& s, const std::vector<std::string>& keys, KeyState state) {
  s.Run({"FLUSHALL"});
  if (state >= KeyState::kHeldOnce) {
    const char* count = state == KeyState::kHeldTwice      ? "2"
                        : state == KeyState::kHeldBadCount ? "abc"
                        : state == KeyState::kHeldMaxCount ? "9223372036854775807"
                                                           : "1";
    const char* holder = state == KeyState::kHeldByOther ? "uuid:2" : "uuid:1";
    if (!keys.empty()) {
      s.Run({"HSET", keys[0], holder, count});
      s.Run({"PEXPIRE", keys[0], "30000"});
    }
    if (keys.size() >= 3 && state == KeyState::kHeldWithLatch) {
      s.Run({"SET", keys[2], "1", "PX", "5000"});
    }
    if (keys.size() >= 3 && state == KeyState::kHeldWithOddLatch) s.Run({"SET", keys[2], "x"});
  }
  for (std::size_t i = 0; i < keys.size() && state < KeyState::kHeldOnce; ++i) {
    KeyState k = state;
    if (state == KeyState::kMixed) k = i % 2 == 0 ? KeyState::kOwnedWithTtl : KeyState::kOther;
    switch (k) {
      case KeyState::kMissing:
      case KeyState::kMixed:
        break;
      case KeyState::kOwnedWithTtl:
        s.Run({"SET", keys[i], "tok", "PX", "10000"});
        break;
      case KeyState::kOwnedNoTtl:
        s.Run({"SET", keys[i], "tok"});
        break;
      case KeyState::kOwnedHugeTtl:
        s.Run({"SET", keys[i], "tok"});
        s.Run({"PEXPIRE", keys[i], "100000000000000001"});
        break;
      case KeyState::kOther:
        s.Run({"SET", keys[i], "other", "PX", "20000"});
        break;
      case KeyState::kHash:
        s.Run({"HSET", keys[i], "tok", "1"});
        break;
      case KeyState::kHolders:
        s.Run({"ZADD", keys[i], "80000", "old", "95000", "tok", "99000", "b", "99500", "c"});
        break;
      case KeyState::kHoldersFull:
        s.Run({"ZADD", keys[i], "91000", "a", "92000", "b", "93000", "c", "94000", "d", "95000",
               "e"});
        break;
      default:
        break;
    }
  }
  // Also a key in database 1, where a SELECTing script may look.
  s.Run({"SELECT", "1"});
  s.Run({"FLUSHDB"});
  if (!keys.empty() && state != KeyState::kMissing) s.Run({"SET", keys[0], "tok", "PX", "5000"});
  s.Run({"SELECT", "0"});
  s.Run({"DEBUG", "COMMAND-LOG", "RESET"});
}

// What a case left: each key's type, value and TTL in databases 0 and 1, and the command log.
std::string Observe(Instance& s, const std::vector<std::string>& keys) {
  std::string seen;
  for (const char* db : {"0", "1"}) {
    s.Run({"SELECT", db});
    for (const std::string& key : {std::string("a"), std::string("b"), std::string("c")}) {
      seen += s.Run({"TYPE", key}) + s.Run({"PTTL", key});
      if (s.Run({"TYPE", key}) == "+string\r\n") seen += s.Run({"GET", key});
      if (s.Run({"TYPE", key}) == "+hash\r\n") seen += s.Run({"HGETALL", key});
      if (s.Run({"TYPE", key}) == "+zset\r\n") {
        seen += s.Run({"ZRANGE", key, "0", "-1", "WITHSCORES"});
      }
    }
  }
  s.Run({"SELECT", "0"});
  (void)keys;
  seen += s.Run({"DEBUG", "COMMAND-LOG", "GET"});
  return seen;
}

bool IsSemaphore(const NativeScript& script) {
  return script.program == NativeProgram::kSemaphoreAcquire ||
         script.program == NativeProgram::kSemaphoreRefresh;
}

std::vector<std::vector<std::string>> ArgvCases(const NativeScript& script) {
  if (IsSemaphore(script)) {
    return {{},
            {"5", "tok", "10000"},
            {"5", "tok", "10000", "100000"},
            {"5", "new", "10000", "100000"},
            {"3", "new", "10000", "100000"},
            {"0", "tok", "10000", "100000"},
            {"5", "tok", "-10000", "100000"},
            {"5", "tok", "0", "100000"},
            {"5", "tok", "10000", "-100000"},
            {"5", "tok", "10000", "99999999999999"},
            {"abc", "tok", "10000", "100000"},
            {"5", "tok", "1e4", "100000"},
            {"5", "tok", "10000", "100000.5"},
            {"5", "tok", "10000", "007"},
            {"5", "tok", "10000", "99999999999999999999"},
            {"5", "tok", "10000", "100000", "extra"}};
  }
  if (script.program == NativeProgram::kRedissonTryLock) {
    return {{},
            {"30000"},
            {"30000", "uuid:1"},
            {"30000", "uuid:2"},
            {"0", "uuid:1"},
            {"-5", "uuid:1"},
            {"abc", "uuid:1"},
            {"30000", "uuid:1", "extra"}};
  }
  if (script.program == NativeProgram::kRedissonUnlock) {
    return {{},
            {"0", "30000", "uuid:1", "publish"},
            {"0", "30000", "uuid:1", "publish", "5000"},
            {"0", "30000", "uuid:2", "publish", "5000"},
            {"0", "30000", "uuid:1", "PUBLISH", "5000"},
            {"0", "30000", "uuid:1", "spublish", "5000"},
            {"0", "30000", "uuid:1", "get", "5000"},
            {"0", "30000", "uuid:1", "publish", "0"},
            {"0", "-1", "uuid:1", "publish", "5000"},
            {"0", "abc", "uuid:1", "publish", "5000"}};
  }
  if (script.program == NativeProgram::kRedissonRenew) {
    return {{},
            {"30000"},
            {"30000", "uuid:1"},
            {"30000", "uuid:2"},
            {"30000", "tok"},
            {"0", "uuid:1"},
            {"-5", "uuid:1"},
            {"abc", "uuid:1"},
            {"99999999999999999999", "uuid:1"}};
  }
  if (script.program == NativeProgram::kRedissonRenewBatch) {
    return {{},
            {"30000"},
            {"30000", "uuid:1"},
            {"30000", "uuid:1", "uuid:1"},
            {"30000", "uuid:1", "uuid:2", "uuid:1"},
            {"30000", "tok", "tok", "tok"},
            {"-5", "uuid:1", "uuid:1", "uuid:1"},
            {"abc", "uuid:1", "uuid:1", "uuid:1"},
            {"1e3", "tok", "tok"}};
  }
  std::vector<std::vector<std::string>> own = {
      {},
      {"tok"},
      {"other"},
      {"tok", "5000"},
      {"tok", "5000", "0"},
      {"tok", "5000", "1"},
      {"tok", "0"},
      {"tok", "-5"},
      {"tok", "1e3"},
      {"tok", "abc"},
      {"tok", "007"},
      {"tok", "99999999999999999999"},
      {"tok", "999999999999999"},
      {"tok", "-999999999999999", "0"},
      {"other", "5000", "0"},
  };
  if (!script.selects_db) return own;
  // Every ARGV case in database 0 and 1; the databases SELECT refuses, or that tonumber writes
  // differently, with the first few.
  std::vector<std::vector<std::string>> with_db = {{}};
  for (const char* db : {"0", "1", "15", "16", "01", "x", "-1", "1.0"}) {
    const bool all = std::string_view(db) == "0" || std::string_view(db) == "1";
    for (std::size_t i = 0; i < (all ? own.size() : 6); ++i) {
      std::vector<std::string> v = {db};
      v.insert(v.end(), own[i].begin(), own[i].end());
      with_db.push_back(v);
    }
  }
  return with_db;
}

class NativeScriptTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NativeScriptTest, AnswersAndActsAsTheInterpreterDoes) {
  const NativeScript& script = NativeScripts()[GetParam()];
  Instance native(true);
  Instance lua(false);
  const std::vector<std::vector<std::string>> key_sets = {
      {}, {"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "a"}};
  std::vector<KeyState> states = {
      KeyState::kMissing, KeyState::kOwnedWithTtl, KeyState::kOwnedNoTtl, KeyState::kOwnedHugeTtl,
      KeyState::kOther,   KeyState::kHash,         KeyState::kMixed};
  if (IsSemaphore(script))
    states.insert(states.end(), {KeyState::kHolders, KeyState::kHoldersFull});
  if (IsRedisson(script)) {
    states.insert(states.end(), {KeyState::kHeldOnce, KeyState::kHeldTwice, KeyState::kHeldBadCount,
                                 KeyState::kHeldMaxCount, KeyState::kHeldByOther,
                                 KeyState::kHeldWithLatch, KeyState::kHeldWithOddLatch});
  }
  for (Instance* s : {&native, &lua}) {
    ASSERT_EQ(s->Run({"SCRIPT", "LOAD", std::string(script.body)}), BulkReply(script.sha));
  }
  int cases = 0;
  for (const auto& keys : key_sets) {
    for (const KeyState state : states) {
      for (const auto& argv : ArgvCases(script)) {
        for (const int variant : {0, 1, 2}) {
          // EVALSHA and EVAL from a RESP2 client, and EVALSHA from a RESP3 one (one key set).
          const bool by_sha = variant != 1;
          const int resp = variant == 2 ? 3 : 2;
          if (resp == 3 && keys.size() != 1) continue;
          native.Run({"HELLO", std::to_string(resp)});
          lua.Run({"HELLO", std::to_string(resp)});
          std::vector<std::string> call = {by_sha ? "EVALSHA" : "EVAL",
                                           by_sha ? script.sha : std::string(script.body),
                                           std::to_string(keys.size())};
          call.insert(call.end(), keys.begin(), keys.end());
          call.insert(call.end(), argv.begin(), argv.end());
          Prepare(native, keys, state);
          Prepare(lua, keys, state);
          native.Run({"DEBUG", "COMMAND-LOG", "ON"});
          lua.Run({"DEBUG", "COMMAND-LOG", "ON"});
          const std::string native_reply = native.Run(call);
          const std::string lua_reply = lua.Run(call);
          native.Run({"DEBUG", "COMMAND-LOG", "OFF"});
          lua.Run({"DEBUG", "COMMAND-LOG", "OFF"});
          const std::string what =
              "resp " + std::to_string(resp) + ", keys " + std::to_string(keys.size()) +
              ", state " + std::to_string(static_cast<int>(state)) + ", argv " +
              std::to_string(argv.size()) + (argv.empty() ? "" : " first " + argv[0]) +
              (argv.size() > 1 ? " second " + argv[1] : "");
          ASSERT_EQ(native_reply, lua_reply) << what;
          ASSERT_EQ(Observe(native, keys), Observe(lua, keys)) << what;
          native.Run({"HELLO", "2"});
          lua.Run({"HELLO", "2"});
          ++cases;
        }
      }
    }
  }
  // The grid reaches the native form, not only its fallbacks.
  EXPECT_GT(native.native_runs(), 0u);
  EXPECT_EQ(lua.native_runs(), 0u);
  EXPECT_GT(cases, 100);
}

INSTANTIATE_TEST_SUITE_P(KnownScripts, NativeScriptTest,
                         ::testing::Range<std::size_t>(0, NativeScripts().size()));

TEST(NativeScriptsTest, EveryKnownTextHasItsOwnSha) {
  std::set<std::string> shas;
  for (const NativeScript& script : NativeScripts()) {
    EXPECT_EQ(script.sha, Sha(script.body));
    EXPECT_EQ(FindNativeScript(script.sha), &script);
    shas.insert(script.sha);
  }
  EXPECT_EQ(shas.size(), NativeScripts().size());
  EXPECT_EQ(FindNativeScript(Sha("return 1")), nullptr);
}

// The SHA-1s the libraries send with EVALSHA, as their own code computes them.
TEST(NativeScriptsTest, LibrariesShasAreKnown) {
  for (const char* sha : {
           "c3f8721cbb97f72bc19e972846bd7aaf91901658",  // redis-py Lock.release
           "a4e8783852e6b949f9ef3a97212805108459a890",  // redis-py Lock.extend
           "1cac51482acf5858da00f6d685d68f886cd6b6b2",  // redis-py Lock.reacquire
           "e5a322e2634ef59a516e8ea150cb085afafee684",  // node-redlock 4 lockScript (installed)
           "0f0f23b9048b36752b5be114f357ba083449f908",  // node-redlock 4 unlockScript
           "ce46f80993d5dac20dd066eb301a4e37994bdbed",  // node-redlock 4 extendScript
           "1b77b94aa78451d55dfa97e18819bfbfc596cb5b",  // @sesamecare-oss/redlock 1.4 acquire
           // Redisson 3.52's watchdog, from tests/clients/python/redisson_lock_scripts.py
           "6a3d31570dc6f4b0bd32bcdc8e75667747c6f635",
           // redis-semaphore 5.8.0 Semaphore acquire and refresh, hashed from the npm package
           "43ebdb49120d170e08af560cb4e46e36f8585936",
           "999a49a1d07671a8027165641001f5bad44608b3",
       }) {
    EXPECT_NE(FindNativeScript(sha), nullptr) << sha;
  }
}

// Where an error raised by a call is reported: the line of the call in the text.
TEST(NativeScriptsTest, CallSitesCarryTheirNamesAndLines) {
  const NativeScript* release = FindNativeScript(Sha(lock_scripts::kRedisPyRelease));
  ASSERT_NE(release, nullptr);
  ASSERT_EQ(release->calls.size(), 2u);
  EXPECT_EQ(release->calls[0].name, "get");
  EXPECT_EQ(release->calls[0].line, 2);
  EXPECT_EQ(release->calls[1].name, "del");
  EXPECT_EQ(release->calls[1].line, 6);
  const NativeScript* lesson = FindNativeScript(Sha(lock_scripts::kLessonRedisCli));
  ASSERT_NE(lesson, nullptr);
  EXPECT_EQ(lesson->calls[0].name, "GET");
  EXPECT_EQ(lesson->calls[1].line, 1);
}

}  // namespace
}  // namespace warden::server
