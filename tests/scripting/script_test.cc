// EVAL, EVALSHA and SCRIPT through the dispatcher (Redis 7.0's eval.c, tests/unit/scripting.tcl):
// argument checks, the script cache, KEYS and ARGV, time frozen at the script's start, and
// math.random's generator. Replies are redis-server 7.0's
// (tests/differential/cases/scripting_commands.txt, scripting_api.txt,
// scripting_time_and_numbers.txt).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "server/scripting/script_engine.h"
#include "storage/clock.h"
#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kNoScript = "-NOSCRIPT No matching script. Please use EVAL.\r\n";

TEST_F(ScriptTest, EvalCachesTheScriptForEvalsha) {
  const std::string script = "return 'evaled'";
  ASSERT_EQ(Eval(script), "$6\r\nevaled\r\n");

  EXPECT_EQ(Evalsha(script), "$6\r\nevaled\r\n");
  EXPECT_EQ(RunArgs({"SCRIPT", "EXISTS", Sha(script)}), "*1\r\n:1\r\n");
  EXPECT_EQ(state_.scripts->cached_scripts(), 1u);
}

TEST_F(ScriptTest, ScriptLoadRepliesTheShaOfTheExactBytes) {
  EXPECT_EQ(Run({"SCRIPT", "LOAD", "return 'loaded'"}),
            BulkReply("b534286061d4b9e4026607613b95c06c06015ae8"));
  EXPECT_EQ(Run({"SCRIPT", "LOAD", "return 'loaded' "}), BulkReply(Sha("return 'loaded' ")));
}

TEST_F(ScriptTest, EvalshaAcceptsTheShaInAnyCase) {
  Run({"SCRIPT", "LOAD", "return 'loaded'"});

  EXPECT_EQ(Run({"EVALSHA", "B534286061D4B9E4026607613B95C06C06015AE8", "0"}), "$6\r\nloaded\r\n");
  EXPECT_EQ(Run({"EVALSHA", "b534286061D4B9E4026607613b95c06c06015AE8", "0"}), "$6\r\nloaded\r\n");
  EXPECT_EQ(Run({"SCRIPT", "EXISTS", "B534286061D4B9E4026607613B95C06C06015AE8", "ffff"}),
            "*2\r\n:1\r\n:0\r\n");
}

TEST_F(ScriptTest, EvalshaOfAnUnknownShaIsNoscript) {
  EXPECT_EQ(Run({"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"}), kNoScript);
}

TEST_F(ScriptTest, EvalshaOfTheWrongLengthIsNoscriptBeforeNumkeysIsRead) {
  EXPECT_EQ(Run({"EVALSHA", "short", "abc"}), kNoScript);
  EXPECT_EQ(Run({"EVALSHA", "", "0"}), kNoScript);
  EXPECT_EQ(Run({"EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8a", "0"}), kNoScript);
}

TEST_F(ScriptTest, EvalshaOfFortyCharactersReadsNumkeysFirst) {
  EXPECT_EQ(Run({"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "abc"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "3"}),
            "-ERR Number of keys can't be greater than number of args\r\n");
}

TEST_F(ScriptTest, ScriptFlushDropsEveryScript) {
  Eval("return 1");
  Run({"SCRIPT", "LOAD", "return 'loaded'"});

  EXPECT_EQ(Run({"SCRIPT", "FLUSH"}), "+OK\r\n");

  EXPECT_EQ(state_.scripts->cached_scripts(), 0u);
  EXPECT_EQ(Run({"EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"}), kNoScript);
  EXPECT_EQ(Run({"SCRIPT", "EXISTS", "b534286061d4b9e4026607613b95c06c06015ae8"}), "*1\r\n:0\r\n");
}

TEST_F(ScriptTest, ScriptFlushTakesSyncOrAsyncOnly) {
  EXPECT_EQ(Run({"SCRIPT", "FLUSH", "async"}), "+OK\r\n");
  EXPECT_EQ(Run({"SCRIPT", "FLUSH", "SYNC"}), "+OK\r\n");
  EXPECT_EQ(Run({"SCRIPT", "FLUSH", "FOO"}),
            "-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n");
  EXPECT_EQ(Run({"SCRIPT", "FLUSH", "SYNC", "ASYNC"}),
            "-ERR SCRIPT FLUSH only support SYNC|ASYNC option\r\n");
}

TEST_F(ScriptTest, FailedCompileIsNotCached) {
  Run({"SCRIPT", "LOAD", "return 1 +"});
  Eval("return 1 +");

  EXPECT_EQ(state_.scripts->cached_scripts(), 0u);
  EXPECT_EQ(RunArgs({"SCRIPT", "EXISTS", Sha("return 1 +")}), "*1\r\n:0\r\n");
}

TEST_F(ScriptTest, ScriptKillWithoutAScriptIsNotbusy) {
  EXPECT_EQ(Run({"SCRIPT", "KILL"}), "-NOTBUSY No scripts in execution right now.\r\n");
}

TEST_F(ScriptTest, ScriptSubcommandErrors) {
  EXPECT_EQ(Run({"SCRIPT"}), "-ERR wrong number of arguments for 'script' command\r\n");
  EXPECT_EQ(Run({"SCRIPT", "FOO"}), "-ERR unknown subcommand 'FOO'. Try SCRIPT HELP.\r\n");
  EXPECT_EQ(Run({"SCRIPT", "EXISTS"}),
            "-ERR wrong number of arguments for 'script|exists' command\r\n");
  EXPECT_EQ(Run({"SCRIPT", "LOAD", "a", "b"}),
            "-ERR wrong number of arguments for 'script|load' command\r\n");
  EXPECT_EQ(Run({"SCRIPT", "KILL", "x"}),
            "-ERR wrong number of arguments for 'script|kill' command\r\n");
}

TEST_F(ScriptTest, ScriptHelpListsTheSubcommands) {
  const std::string reply = Run({"SCRIPT", "HELP"});

  EXPECT_TRUE(reply.starts_with(
      "*17\r\n+SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"));
  EXPECT_TRUE(reply.ends_with("+HELP\r\n+    Prints this help.\r\n"));
}

struct NumkeysCase {
  std::vector<std::string_view> args;
  std::string_view expected;
};

class NumkeysTest : public ScriptTest, public ::testing::WithParamInterface<NumkeysCase> {};

TEST_P(NumkeysTest, ReplyMatchesRedis) {
  std::vector<std::string_view> args = {"EVAL", "return {#KEYS, #ARGV}"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());

  EXPECT_EQ(RunView(std::span<const std::string_view>(args)), GetParam().expected);
}

constexpr std::string_view kNotInteger = "-ERR value is not an integer or out of range\r\n";
constexpr std::string_view kTooMany =
    "-ERR Number of keys can't be greater than number of args\r\n";
constexpr std::string_view kNegative = "-ERR Number of keys can't be negative\r\n";

INSTANTIATE_TEST_SUITE_P(
    Values, NumkeysTest,
    ::testing::Values(NumkeysCase{{"abc"}, kNotInteger}, NumkeysCase{{""}, kNotInteger},
                      NumkeysCase{{"1.5"}, kNotInteger}, NumkeysCase{{"+1"}, kNotInteger},
                      NumkeysCase{{"01"}, kNotInteger}, NumkeysCase{{"-0"}, kNotInteger},
                      NumkeysCase{{"99999999999999999999"}, kNotInteger},
                      NumkeysCase{{"1"}, kTooMany}, NumkeysCase{{"2", "a"}, kTooMany},
                      NumkeysCase{{"9223372036854775807"}, kTooMany},
                      NumkeysCase{{"-1"}, kNegative}, NumkeysCase{{"-1", "a"}, kNegative},
                      NumkeysCase{{"-9223372036854775808"}, kNegative},
                      NumkeysCase{{"0", "a", "b"}, "*2\r\n:0\r\n:2\r\n"},
                      NumkeysCase{{"1", "a", "b"}, "*2\r\n:1\r\n:1\r\n"},
                      NumkeysCase{{"2", "a", "b"}, "*2\r\n:2\r\n:0\r\n"}));

TEST_F(ScriptTest, KeysAndArgvAreThisCallsOnly) {
  ASSERT_EQ(Eval("return {KEYS[1], ARGV[1], ARGV[2]}", {"k"}, {"a", "b"}),
            "*3\r\n$1\r\nk\r\n$1\r\na\r\n$1\r\nb\r\n");

  EXPECT_EQ(Eval("return {#KEYS, #ARGV}"), "*2\r\n:0\r\n:0\r\n");
}

TEST_F(ScriptTest, ChangingKeysDoesNotLeakIntoTheNextCall) {
  Eval("KEYS[1] = 'changed' ARGV[2] = 'added'", {"orig"}, {"a"});

  EXPECT_EQ(Eval("return {KEYS[1], #ARGV}", {"orig"}, {"a"}), "*2\r\n$4\r\norig\r\n:1\r\n");
}

TEST_F(ScriptTest, EngineIsIdleAfterEveryKindOfEnd) {
  Eval("return 1");
  Eval("error('x')");
  Eval("return 1 +");

  EXPECT_FALSE(state_.scripts->running());
  EXPECT_FALSE(state_.scripts->busy());
}

// Time: a script keeps the "now" of its start for every expiry decision; the clock is read again
// only after it ends.

TEST_F(ScriptTest, KeyExpiringExactlyAtTheStartIsAliveForTheScript) {
  Run({"SET", "lock", "me", "PX", "100"});
  clock_.AdvanceMs(100);  // now == deadline: not yet expired (expired means now > deadline)

  EXPECT_EQ(Eval("return {redis.call('exists', KEYS[1]), redis.call('get', KEYS[1]), "
                 "redis.call('pttl', KEYS[1])}",
                 {"lock"}),
            "*3\r\n:1\r\n$2\r\nme\r\n:0\r\n");
  clock_.AdvanceMs(1);
  EXPECT_EQ(Eval("return redis.call('exists', KEYS[1])", {"lock"}), ":0\r\n");
}

TEST_F(ScriptTest, KeyOneMillisecondPastItsDeadlineIsGoneForTheScript) {
  Run({"SET", "lock", "me", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Eval("return {redis.call('exists', KEYS[1]), redis.call('get', KEYS[1])}", {"lock"}),
            "*2\r\n:0\r\n$-1\r\n");
}

TEST_F(ScriptTest, PttlInsideAScriptIsExact) {
  Run({"SET", "lock", "me", "PX", "30000"});
  clock_.AdvanceMs(12'345);

  EXPECT_EQ(Eval("return redis.call('pttl', KEYS[1])", {"lock"}), ":17655\r\n");
}

TEST_F(ScriptTest, FrozenTimeIsReleasedWhenTheScriptEnds) {
  Eval("return redis.call('ping')");
  Eval("error('boom')");
  Eval("redis.call('nosuch')");

  EXPECT_EQ(state_.call.frozen_now_ms, -1);
  EXPECT_EQ(state_.NowMs(), clock_.NowMs());
}

// A clock that moves forward every time it is read, so any command inside a script that read
// the clock instead of the script's start time would see keys expire.
class SteppingClock final : public storage::Clock {
 public:
  explicit SteppingClock(std::int64_t step_ms) : step_us_(step_ms * 1000) {}
  std::int64_t NowMs() const override { return NowUs() / 1000; }
  std::int64_t NowUs() const override {
    const std::int64_t now = now_us_;
    now_us_ += step_us_;
    return now;
  }

 private:
  std::int64_t step_us_;
  mutable std::int64_t now_us_ = 1'700'000'000'000'000;
};

class SteppingClockScriptTest : public ::testing::Test {
 protected:
  std::string Run(std::initializer_list<std::string_view> args) {
    out_.clear();
    protocol::ReplyWriter writer(&out_, session_.resp);
    Dispatch(state_, session_, std::span<const std::string_view>(args.begin(), args.size()),
             writer);
    return out_;
  }

  SteppingClock clock_{1000};
  ServerState state_{TestConfig(), clock_};
  Session session_;
  std::string out_;
};

TEST_F(SteppingClockScriptTest, EveryCallInAScriptSeesTheStartTime) {
  Run({"SET", "lock", "me", "PX", "10000"});

  // Each TIME moves the clock a second: the loop ends well past the ten-second lease.
  EXPECT_EQ(Run({"EVAL",
                 "local n = 0 for i = 1, 15 do redis.call('time') "
                 "if redis.call('get', KEYS[1]) == 'me' then n = n + 1 end end return n",
                 "1", "lock"}),
            ":15\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$-1\r\n");
}

TEST_F(SteppingClockScriptTest, OwnerCheckAndDeleteSeeTheSameKey) {
  Run({"SET", "lock", "me", "PX", "3000"});

  EXPECT_EQ(Run({"EVAL",
                 "redis.call('time') redis.call('time') redis.call('time') redis.call('time') "
                 "if redis.call('get', KEYS[1]) == ARGV[1] then "
                 "return redis.call('del', KEYS[1]) else return 0 end",
                 "1", "lock", "me"}),
            ":1\r\n");
}

// math.random is Redis's own generator: after math.randomseed(n) the sequence is the one
// redis-server 7.0 produces (scripting_api.txt).

TEST_F(ScriptTest, RandomAfterRandomseedMatchesRedis) {
  EXPECT_EQ(Eval("math.randomseed(42) return {math.random(100), math.random(100), "
                 "math.random(100)}"),
            "*3\r\n:75\r\n:35\r\n:12\r\n");
  EXPECT_EQ(Eval("math.randomseed(1) return {math.random(1, 6), math.random(1, 6), "
                 "math.random(10, 20), math.random(1000000)}"),
            "*4\r\n:1\r\n:3\r\n:19\r\n:335987\r\n");
  EXPECT_EQ(Eval("math.randomseed(7) return {tostring(math.random()), tostring(math.random())}"),
            "*2\r\n$16\r\n0.26644419658298\r\n$16\r\n0.68203523041775\r\n");
  EXPECT_EQ(Eval("math.randomseed(0) return {math.random(2147483647), math.random(2147483647)}"),
            "*2\r\n:366850415\r\n:1610402241\r\n");
  EXPECT_EQ(Eval("math.randomseed(-5) return math.random(1000)"), ":817\r\n");
}

TEST_F(ScriptTest, RandomSequenceContinuesAcrossScripts) {
  EXPECT_EQ(Eval("math.randomseed(99) return math.random(1000)"), ":381\r\n");
  EXPECT_EQ(Eval("return math.random(1000)"), ":505\r\n");
  EXPECT_EQ(Eval("return math.random(1000)"), ":203\r\n");
}

TEST_F(ScriptTest, ScriptFlushDoesNotResetTheRandomSequence) {
  Eval("math.randomseed(99) return math.random(1000)");
  Run({"SCRIPT", "FLUSH"});

  EXPECT_EQ(Eval("return math.random(1000)"), ":505\r\n");
}

TEST_F(ScriptTest, SameSeedSameSequence) {
  const std::string script = "math.randomseed(12345) return {math.random(), math.random(9)}";

  EXPECT_EQ(Eval(script), Eval(script));
}

}  // namespace
}  // namespace warden::server
