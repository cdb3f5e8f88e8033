// TOUCH, OBJECT, MEMORY and DEBUG OBJECT through the dispatcher, checked against
// redis-server 7.0.15; DEBUG OBJECT, like Redis, describes a key past its deadline that nothing
// has removed yet. Idle times are in idle_time_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class ObjectCommandsTest : public CommandTest {};

// TOUCH

TEST_F(ObjectCommandsTest, TouchCountsExistingKeysOfAnyType) {
  Run({"SET", "s", "v"});
  Run({"HSET", "h", "f", "v"});
  Run({"SADD", "set", "m"});

  EXPECT_EQ(Run({"TOUCH", "s", "h", "set", "nokey", "s"}), ":4\r\n");
}

TEST_F(ObjectCommandsTest, TouchOfExpiredKeyIsZero) {
  Run({"SET", "s", "v", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"TOUCH", "s"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

// OBJECT ENCODING

TEST_F(ObjectCommandsTest, EncodingOfStrings) {
  Run({"SET", "n", "12345"});
  Run({"SET", "e", "hello"});
  Run({"SET", "r", std::string(45, 'x')});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "n"}), "$3\r\nint\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "e"}), "$6\r\nembstr\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "r"}), "$3\r\nraw\r\n");
}

// Redis decides by how the string was written: APPEND and SETRANGE leave it raw, INCRBYFLOAT
// writes an embstr even for an integer.
TEST_F(ObjectCommandsTest, EncodingOfStringsFollowsHowTheyWereWritten) {
  Run({"SET", "a", "x"});
  Run({"APPEND", "a", "y"});
  Run({"SETRANGE", "g", "0", "abc"});
  Run({"SET", "f", "16"});
  Run({"INCRBYFLOAT", "f", "0"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "a"}), "$3\r\nraw\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "g"}), "$3\r\nraw\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "f"}), "$6\r\nembstr\r\n");
}

TEST_F(ObjectCommandsTest, AppendToMissingKeyIsEmbstr) {
  Run({"APPEND", "a", "x"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "a"}), "$6\r\nembstr\r\n");
}

TEST_F(ObjectCommandsTest, EncodingOfHashAndSet) {
  Run({"HSET", "h", "f", "v"});
  Run({"SADD", "ints", "1"});
  Run({"SADD", "text", "a"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "h"}), "$8\r\nlistpack\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "ints"}), "$6\r\nintset\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "text"}), "$9\r\nhashtable\r\n");
}

TEST_F(ObjectCommandsTest, EncodingSurvivesRename) {
  Run({"SET", "a", "x"});
  Run({"APPEND", "a", "y"});

  Run({"RENAME", "a", "b"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "b"}), "$3\r\nraw\r\n");
}

TEST_F(ObjectCommandsTest, EncodingOfMissingOrExpiredKeyIsNull) {
  Run({"SET", "s", "v", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "nokey"}), "$-1\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$-1\r\n");
}

// OBJECT IDLETIME, REFCOUNT, FREQ, HELP

TEST_F(ObjectCommandsTest, IdletimeOfMissingKeyIsNull) {
  EXPECT_EQ(Run({"OBJECT", "IDLETIME", "nokey"}), "$-1\r\n");
}

TEST_F(ObjectCommandsTest, RefcountOfSharedIntegerIsIntMax) {
  Run({"SET", "m", "5"});
  Run({"SET", "n", "12345"});
  Run({"HSET", "h", "f", "v"});

  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "m"}), ":2147483647\r\n");
  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "n"}), ":1\r\n");
  EXPECT_EQ(Run({"OBJECT", "REFCOUNT", "h"}), ":1\r\n");
}

TEST_F(ObjectCommandsTest, FreqNeedsAnLfuPolicy) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"OBJECT", "FREQ", "s"}),
            "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
            "note that when switching between policies at runtime LRU and LFU data will take "
            "some time to adjust.\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "nokey"}), "$-1\r\n");
}

// Under an LFU policy an overwrite keeps the key's counter (Redis 7.0's dbSetValue), and
// RESTORE ... FREQ sets it; a fresh key starts at 5.
TEST_F(ObjectCommandsTest, OverwriteKeepsTheLfuCounter) {
  ASSERT_EQ(Run({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"}), "+OK\r\n");
  Run({"SET", "src", "v"});
  EXPECT_EQ(Run({"OBJECT", "FREQ", "src"}), ":5\r\n");
  const std::string dump = Run({"DUMP", "src"});
  const std::size_t body = dump.find("\r\n") + 2;
  const std::string payload = dump.substr(body, dump.size() - body - 2);
  ASSERT_EQ(Run({"RESTORE", "k", "0", payload, "FREQ", "100"}), "+OK\r\n");
  EXPECT_EQ(Run({"OBJECT", "FREQ", "k"}), ":100\r\n");
  // The SET's own lookup may count as one more access (a 1-in-951 draw at 100).
  ASSERT_EQ(Run({"SET", "k", "other"}), "+OK\r\n");
  EXPECT_THAT(Run({"OBJECT", "FREQ", "k"}), ::testing::AnyOf(":100\r\n", ":101\r\n"));
}

TEST_F(ObjectCommandsTest, ObjectErrors) {
  EXPECT_EQ(Run({"OBJECT"}), "-ERR wrong number of arguments for 'object' command\r\n");
  EXPECT_EQ(Run({"OBJECT", "FOO"}), "-ERR unknown subcommand 'FOO'. Try OBJECT HELP.\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING"}),
            "-ERR wrong number of arguments for 'object|encoding' command\r\n");
}

TEST_F(ObjectCommandsTest, ObjectHelpListsSubcommands) {
  const std::string reply = Run({"OBJECT", "HELP"});

  EXPECT_THAT(reply, ::testing::StartsWith("*15\r\n+OBJECT <subcommand>"));
  EXPECT_THAT(reply, HasSubstr("+IDLETIME <key>\r\n"));
}

// MEMORY

TEST_F(ObjectCommandsTest, MemoryUsageOfMissingKeyIsNull) {
  EXPECT_EQ(Run({"MEMORY", "USAGE", "nokey"}), "$-1\r\n");
}

TEST_F(ObjectCommandsTest, MemoryUsageIsPositive) {
  Run({"SET", "s", "v"});

  EXPECT_THAT(Run({"MEMORY", "USAGE", "s"}), MatchesRegex(":[1-9][0-9]*\r\n"));
}

TEST_F(ObjectCommandsTest, MemoryUsageGrowsWithAHash) {
  Run({"HSET", "small", "f", "v"});
  Run({"CONFIG", "SET", "hash-max-listpack-entries", "2"});
  for (int i = 0; i < 100; ++i) Run({"HSET", "large", "f" + std::to_string(i), "v"});

  const std::string small = Run({"MEMORY", "USAGE", "small"});
  const std::string large = Run({"MEMORY", "USAGE", "large", "SAMPLES", "0"});

  EXPECT_GT(std::stoll(large.substr(1)), std::stoll(small.substr(1)));
}

TEST_F(ObjectCommandsTest, MemoryUsageOptionErrors) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"MEMORY", "USAGE", "s", "SAMPLES", "-1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "s", "FOO"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"MEMORY", "USAGE", "s", "SAMPLES", "x"}),
            "-ERR value is not an integer or out of range\r\n");
}

// DEBUG OBJECT

Config DebugConfig() {
  Config config = TestConfig();
  config.enable_debug_command = DebugCommandPolicy::kYes;
  return config;
}

class DebugObjectTest : public CommandTest {
 protected:
  DebugObjectTest() : CommandTest(DebugConfig()) {}
};

TEST_F(DebugObjectTest, DescribesHashEncoding) {
  Run({"HSET", "h", "f", "v"});

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "h"}),
              MatchesRegex("\\+Value at:0x[0-9a-f]+ refcount:1 encoding:listpack "
                           "serializedlength:[0-9]+ lru:[0-9]+ lru_seconds_idle:0\r\n"));
}

TEST_F(DebugObjectTest, DescribesIntset) {
  Run({"SADD", "s", "1", "2"});

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "s"}), HasSubstr(" encoding:intset "));
}

// Redis reads its dictionary directly: a key past its deadline that active expiry has not
// removed is still described.
TEST_F(DebugObjectTest, DescribesKeyPastDeadlineWhileActiveExpiryIsOff) {
  Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(200);

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "k"}),
              MatchesRegex("\\+Value at:0x[0-9a-f]+ refcount:1 encoding:embstr "
                           "serializedlength:2 lru:[0-9]+ lru_seconds_idle:0\r\n"));
}

TEST_F(DebugObjectTest, KeyPastDeadlineIsGoneOnceRead) {
  Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(200);

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");

  EXPECT_EQ(Run({"DEBUG", "OBJECT", "k"}), "-ERR no such key\r\n");
}

TEST_F(DebugObjectTest, DescribesKeyInSelectedDatabase) {
  Run({"SELECT", "2"});
  Run({"SET", "k", "12345"});

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "k"}), HasSubstr(" encoding:int "));
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"DEBUG", "OBJECT", "k"}), "-ERR no such key\r\n");
}

}  // namespace
}  // namespace warden::server
