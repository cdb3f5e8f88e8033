// OBJECT IDLETIME and DEBUG OBJECT's lru fields: seconds since the key was last read or
// written, on warden's clock. Which commands count as an access was checked against
// redis-server 7.0.15 (a key idle for two real seconds, one command, then OBJECT IDLETIME):
// TYPE, EXISTS, TTL, PTTL, EXPIRETIME, OBJECT, DEBUG OBJECT and MEMORY USAGE do not; GET,
// STRLEN, TOUCH, SET, EXPIRE, PERSIST, APPEND, RENAME and commands inside scripts do.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using ::testing::HasSubstr;

class IdleTimeTest : public CommandTest {
 protected:
  std::string Idle(const std::string& key) { return Run({"OBJECT", "IDLETIME", key}); }
};

TEST_F(IdleTimeTest, CountsWholeSecondsOfTheClockSinceTheWrite) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Idle("s"), ":0\r\n");
  clock_.AdvanceMs(999);
  EXPECT_EQ(Idle("s"), ":0\r\n");
  clock_.AdvanceMs(1);
  EXPECT_EQ(Idle("s"), ":1\r\n");
  clock_.AdvanceMs(3'600'000);
  EXPECT_EQ(Idle("s"), ":3601\r\n");
}

TEST_F(IdleTimeTest, ReadingTheKeyStartsItAgain) {
  Run({"SET", "s", "v"});
  clock_.AdvanceMs(30'000);

  Run({"GET", "s"});

  EXPECT_EQ(Idle("s"), ":0\r\n");
  clock_.AdvanceMs(5'000);
  EXPECT_EQ(Idle("s"), ":5\r\n");
}

TEST_F(IdleTimeTest, InspectingCommandsAreNoAccess) {
  Run({"SET", "s", "v", "EX", "1000"});
  clock_.AdvanceMs(10'000);

  Run({"TYPE", "s"});
  Run({"EXISTS", "s"});
  Run({"TTL", "s"});
  Run({"PTTL", "s"});
  Run({"EXPIRETIME", "s"});
  Run({"PEXPIRETIME", "s"});
  Run({"OBJECT", "ENCODING", "s"});
  Run({"OBJECT", "REFCOUNT", "s"});
  Run({"MEMORY", "USAGE", "s"});
  Run({"SCAN", "0"});
  Run({"KEYS", "*"});
  Run({"RANDOMKEY"});
  Run({"DBSIZE"});

  EXPECT_EQ(Idle("s"), ":10\r\n");
}

TEST_F(IdleTimeTest, ReadsAndWritesOfEveryTypeAreAccesses) {
  Run({"SET", "s", "v"});
  Run({"HSET", "h", "f", "v"});
  Run({"SADD", "set", "m"});
  Run({"ZADD", "z", "1", "m"});
  Run({"RPUSH", "l", "a"});
  Run({"SET", "t", "v"});
  clock_.AdvanceMs(10'000);

  Run({"STRLEN", "s"});
  Run({"HGET", "h", "f"});
  Run({"SISMEMBER", "set", "m"});
  Run({"ZSCORE", "z", "m"});
  Run({"LPUSH", "l", "b"});
  Run({"EXPIRE", "t", "100"});

  for (const char* key : {"s", "h", "set", "z", "l", "t"}) {
    EXPECT_EQ(Idle(key), ":0\r\n") << key;
  }
}

TEST_F(IdleTimeTest, TouchIsAnAccess) {
  Run({"SET", "s", "v"});
  clock_.AdvanceMs(7'000);

  EXPECT_EQ(Run({"TOUCH", "s", "nokey"}), ":1\r\n");

  EXPECT_EQ(Idle("s"), ":0\r\n");
}

TEST_F(IdleTimeTest, OverwriteIsANewValue) {
  Run({"SET", "s", "v"});
  clock_.AdvanceMs(7'000);

  Run({"SET", "s", "w"});

  EXPECT_EQ(Idle("s"), ":0\r\n");
}

TEST_F(IdleTimeTest, ScriptsReadsAreAccesses) {
  Run({"SET", "a", "v"});
  Run({"SET", "b", "v"});
  clock_.AdvanceMs(4'000);

  Run({"EVAL", "redis.call('get', KEYS[1]); return redis.call('type', KEYS[2])", "2", "a", "b"});

  EXPECT_EQ(Idle("a"), ":0\r\n");
  EXPECT_EQ(Idle("b"), ":4\r\n");
}

// CLIENT NO-TOUCH (Redis 7.2): the client's reads leave the idle time alone, except TOUCH.
TEST_F(IdleTimeTest, NoTouchClientReadsAreNoAccessButTouchIs) {
  Run({"SET", "s", "v"});
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "ON"}), "+OK\r\n");
  clock_.AdvanceMs(3'000);

  Run({"GET", "s"});
  EXPECT_EQ(Idle("s"), ":3\r\n");

  Run({"TOUCH", "s"});
  EXPECT_EQ(Idle("s"), ":0\r\n");

  clock_.AdvanceMs(2'000);
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "OFF"}), "+OK\r\n");
  Run({"GET", "s"});
  EXPECT_EQ(Idle("s"), ":0\r\n");
}

// Redis asks the client that called the script, and its command (EVAL): no access at all.
TEST_F(IdleTimeTest, NoTouchClientsScriptsAreNoAccessEvenTheirTouch) {
  Run({"SET", "s", "v"});
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "ON"}), "+OK\r\n");
  clock_.AdvanceMs(3'000);

  Run({"EVAL", "redis.call('get', KEYS[1]); return redis.call('touch', KEYS[1])", "1", "s"});

  EXPECT_EQ(Idle("s"), ":3\r\n");
}

// RENAME and MOVE keep the value, and its access time; the lookup of the source is an access.
TEST_F(IdleTimeTest, RenameAndMoveKeepTheAccessOfTheirLookup) {
  Run({"SET", "a", "v"});
  Run({"SET", "b", "v"});
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "ON"}), "+OK\r\n");
  clock_.AdvanceMs(6'000);

  Run({"RENAME", "a", "a2"});
  Run({"MOVE", "b", "1"});

  EXPECT_EQ(Idle("a2"), ":6\r\n");
  Run({"SELECT", "1"});
  EXPECT_EQ(Idle("b"), ":6\r\n");
}

TEST_F(IdleTimeTest, LongKeysAndValuesKeepTheirTimeToo) {
  const std::string long_key(5000, 'k');
  Run({"SET", long_key, std::string(100, 'v')});
  clock_.AdvanceMs(2'000);

  EXPECT_EQ(Idle(long_key), ":2\r\n");
  EXPECT_EQ(Run({"GET", long_key}), "$100\r\n" + std::string(100, 'v') + "\r\n");
  EXPECT_EQ(Idle(long_key), ":0\r\n");
}

class IdleTimeDebugTest : public CommandTest {
 protected:
  IdleTimeDebugTest() : CommandTest(DebugConfig()) {}

  std::string Idle(const std::string& key) { return Run({"OBJECT", "IDLETIME", key}); }

  static Config DebugConfig() {
    Config config = TestConfig();
    config.enable_debug_command = DebugCommandPolicy::kYes;
    return config;
  }
};

// lru is the stamp, Redis's 24-bit clock of seconds: 1,700,000,000 s mod 2^24 at the start.
TEST_F(IdleTimeDebugTest, DebugObjectShowsTheStampAndIdleSeconds) {
  Run({"SET", "s", "v"});
  clock_.AdvanceMs(12'000);

  EXPECT_THAT(
      Run({"DEBUG", "OBJECT", "s"}),
      HasSubstr(" lru:" + std::to_string(1'700'000'000 % (1 << 24)) + " lru_seconds_idle:12\r\n"));
  EXPECT_EQ(Idle("s"), ":12\r\n");
}

TEST_F(IdleTimeDebugTest, SnapshotsKeepAccessTimes) {
  Run({"SET", "s", "v"});
  clock_.AdvanceMs(5'000);
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "SAVE", "one"}), "+OK\r\n");
  clock_.AdvanceMs(5'000);

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LOAD", "one"}), "+OK\r\n");

  EXPECT_EQ(Idle("s"), ":10\r\n");
}

}  // namespace
}  // namespace warden::server
