// The EXPIRE family, PERSIST and the TTL readers through the dispatcher, with a manual clock
// (Redis 7.0's expire.c and db.c, tests/unit/expire.tcl).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ExpireCommandsTest : public CommandTest {};

TEST_F(ExpireCommandsTest, PttlIsExactRightAfterPx) {
  Run({"SET", "lock", "me", "NX", "PX", "30000"});

  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
  EXPECT_EQ(Run({"TTL", "lock"}), ":30\r\n");
}

TEST_F(ExpireCommandsTest, PttlCountsDownWithTheClock) {
  Run({"SET", "lock", "me", "PX", "30000"});

  clock_.AdvanceMs(12'345);

  EXPECT_EQ(Run({"PTTL", "lock"}), ":17655\r\n");
}

TEST_F(ExpireCommandsTest, TtlOf499MsIsZero) {
  Run({"SET", "k", "v", "PX", "499"});

  EXPECT_EQ(Run({"TTL", "k"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, TtlOf500MsIsOne) {
  Run({"SET", "k", "v", "PX", "500"});

  EXPECT_EQ(Run({"TTL", "k"}), ":1\r\n");
}

TEST_F(ExpireCommandsTest, TtlRoundsHalfUpAsTimePasses) {
  Run({"SET", "a", "v", "EX", "2"});
  Run({"SET", "b", "v", "EX", "2"});

  clock_.AdvanceMs(500);
  EXPECT_EQ(Run({"TTL", "a"}), ":2\r\n");  // 1500 ms left
  clock_.AdvanceMs(1);
  EXPECT_EQ(Run({"TTL", "b"}), ":1\r\n");  // 1499 ms left
}

TEST_F(ExpireCommandsTest, KeyAtItsDeadlineHasZeroTtl) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(100);

  EXPECT_EQ(Run({"PTTL", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, KeyPastItsDeadlineIsMissing) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"PTTL", "k"}), ":-2\r\n");
}

TEST_F(ExpireCommandsTest, ReadersOfMissingKey) {
  EXPECT_EQ(Run({"TTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":-2\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":-2\r\n");
}

TEST_F(ExpireCommandsTest, ReadersOfPersistentKey) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"PTTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":-1\r\n");
}

TEST_F(ExpireCommandsTest, ExpiretimeRoundsToNearestSecond) {
  Run({"SET", "a", "v", "PXAT", "2000000000499"});
  Run({"SET", "b", "v", "PXAT", "2000000000500"});

  EXPECT_EQ(Run({"EXPIRETIME", "a"}), ":2000000000\r\n");
  EXPECT_EQ(Run({"EXPIRETIME", "b"}), ":2000000001\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "b"}), ":2000000000500\r\n");
}

TEST_F(ExpireCommandsTest, ExpiretimeOfLargestDeadline) {
  Run({"SET", "k", "v"});
  Run({"PEXPIREAT", "k", "9223372036854775807"});

  EXPECT_EQ(Run({"EXPIRETIME", "k"}), ":9223372036854776\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":9223372036854775807\r\n");
}

TEST_F(ExpireCommandsTest, TtlReadersArity) {
  EXPECT_EQ(Run({"TTL"}), "-ERR wrong number of arguments for 'ttl' command\r\n");
  EXPECT_EQ(Run({"PTTL", "a", "b"}), "-ERR wrong number of arguments for 'pttl' command\r\n");
  EXPECT_EQ(Run({"EXPIRETIME"}), "-ERR wrong number of arguments for 'expiretime' command\r\n");
  EXPECT_EQ(Run({"PEXPIRETIME", "a", "b"}),
            "-ERR wrong number of arguments for 'pexpiretime' command\r\n");
}

// EXPIRE and friends: the transcript of section 3.6, in order.
TEST_F(ExpireCommandsTest, ExpireOptionsTranscript) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "nokey", "10"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100", "NX"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "200", "XX"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":200\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "50", "GT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "500", "GT"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "600", "LT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "50", "LT"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":50\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "10", "NX", "NX"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, GtWithEqualTimeFails) {
  Run({"SET", "a", "v", "EX", "100"});

  EXPECT_EQ(Run({"EXPIRE", "a", "100", "GT"}), ":0\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100", "LT"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, NxOnPersistentKeySets) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "10", "NX"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":10\r\n");
}

TEST_F(ExpireCommandsTest, XxOnPersistentKeyFails) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "10", "XX"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":-1\r\n");
}

TEST_F(ExpireCommandsTest, LtOnPersistentKeySucceeds) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "10", "LT"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":10\r\n");
}

TEST_F(ExpireCommandsTest, GtOnPersistentKeyFails) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "10", "GT"}), ":0\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":-1\r\n");
}

TEST_F(ExpireCommandsTest, XxWithGtIsAllowed) {
  Run({"SET", "a", "v", "EX", "10"});

  EXPECT_EQ(Run({"EXPIRE", "a", "20", "XX", "GT"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":20\r\n");
}

TEST_F(ExpireCommandsTest, OptionsAreCaseInsensitive) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"expire", "a", "10", "nx"}), ":1\r\n");
}

TEST_F(ExpireCommandsTest, ExpireZeroDeletes) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, ExpireNegativeDeletes) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIRE", "a", "-5"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "a"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, ExpireatInThePastDeletes) {
  Run({"SET", "a", "v"});
  Run({"SET", "b", "v"});

  EXPECT_EQ(Run({"EXPIREAT", "a", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "b", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, PexpireatNowDeletes) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"PEXPIREAT", "a", std::to_string(now_ms())}), ":1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, PexpireatOneMillisecondAheadSetsTtl) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"PEXPIREAT", "a", std::to_string(now_ms() + 1)}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "a"}), ":1\r\n");
}

TEST_F(ExpireCommandsTest, ExpireatInTheFuture) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"EXPIREAT", "a", std::to_string(now_ms() / 1000 + 100)}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "a"}), ":100000\r\n");
}

TEST_F(ExpireCommandsTest, PexpireSetsMilliseconds) {
  Run({"SET", "a", "v"});

  EXPECT_EQ(Run({"PEXPIRE", "a", "1500"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "a"}), ":1500\r\n");
}

TEST_F(ExpireCommandsTest, PexpireatLargeValues) {
  Run({"SET", "a", "v"});
  Run({"SET", "b", "v"});

  EXPECT_EQ(Run({"PEXPIREAT", "a", "9223372036854770000"}), ":1\r\n");
  EXPECT_EQ(Run({"PEXPIREAT", "b", "-9223372036854770000"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "a", "b"}), ":1\r\n");
}

TEST_F(ExpireCommandsTest, ExpireOnExpiredKeyIsZeroAndDeletesIt) {
  Run({"SET", "a", "v", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, ExpiryMidSequence) {
  EXPECT_EQ(Run({"SET", "lock", "me", "NX", "PX", "30000"}), "+OK\r\n");
  clock_.AdvanceMs(29'999);
  EXPECT_EQ(Run({"SET", "lock", "you", "NX", "PX", "30000"}), "$-1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":1\r\n");
  clock_.AdvanceMs(1);
  EXPECT_EQ(Run({"GET", "lock"}), "$2\r\nme\r\n");
  clock_.AdvanceMs(1);
  EXPECT_EQ(Run({"GET", "lock"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "lock", "you", "NX", "PX", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$3\r\nyou\r\n");
}

struct ExpireErrorCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
};

const ExpireErrorCase kExpireErrors[] = {
    {"NxAndXx",
     {"EXPIRE", "a", "10", "NX", "XX"},
     "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"},
    {"XxAndNx",
     {"EXPIRE", "a", "10", "xx", "nx"},
     "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"},
    {"NxAndGt",
     {"EXPIRE", "a", "10", "NX", "GT"},
     "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"},
    {"NxGtLtGivesNxMessage",
     {"EXPIRE", "a", "10", "NX", "GT", "LT"},
     "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"},
    {"GtAndLt",
     {"EXPIRE", "a", "10", "GT", "LT"},
     "-ERR GT and LT options at the same time are not compatible\r\n"},
    {"UnknownOption", {"EXPIRE", "a", "10", "FOO"}, "-ERR Unsupported option FOO\r\n"},
    {"OptionCheckedBeforeNumber", {"EXPIRE", "a", "abc", "foo"}, "-ERR Unsupported option foo\r\n"},
    {"OptionCutAtNul",
     {"EXPIRE", "a", "10", std::string_view("a\0b", 3)},
     "-ERR Unsupported option a\r\n"},
    {"NotInteger", {"EXPIRE", "a", "abc"}, "-ERR value is not an integer or out of range\r\n"},
    {"EmptyNumber", {"EXPIRE", "a", ""}, "-ERR value is not an integer or out of range\r\n"},
    {"PlusSign", {"EXPIRE", "a", "+10"}, "-ERR value is not an integer or out of range\r\n"},
    {"LeadingZero", {"EXPIRE", "a", "010"}, "-ERR value is not an integer or out of range\r\n"},
    {"MinusZero", {"EXPIRE", "a", "-0"}, "-ERR value is not an integer or out of range\r\n"},
    {"ExpireOverflowsWithNow",
     {"EXPIRE", "a", "9223370399119966"},
     "-ERR invalid expire time in 'expire' command\r\n"},
    {"ExpireBelowMinimum",
     {"EXPIRE", "a", "-9223372036854775808"},
     "-ERR invalid expire time in 'expire' command\r\n"},
    {"PexpireOverflowsWithNow",
     {"PEXPIRE", "a", "9223372036854770000"},
     "-ERR invalid expire time in 'pexpire' command\r\n"},
    {"ExpireatOverflowsInMs",
     {"EXPIREAT", "a", "9223372036854775807"},
     "-ERR invalid expire time in 'expireat' command\r\n"},
    {"ExpireatBelowMinimum",
     {"EXPIREAT", "a", "-9223372036854776"},
     "-ERR invalid expire time in 'expireat' command\r\n"},
    {"ExpireArity", {"EXPIRE", "a"}, "-ERR wrong number of arguments for 'expire' command\r\n"},
    {"PexpireatArity",
     {"PEXPIREAT", "a"},
     "-ERR wrong number of arguments for 'pexpireat' command\r\n"},
};

class ExpireErrorTest : public CommandTest,
                        public ::testing::WithParamInterface<ExpireErrorCase> {};

TEST_P(ExpireErrorTest, RepliesErrorAndKeepsKey) {
  Run({"SET", "a", "v", "EX", "100"});

  EXPECT_EQ(RunView(GetParam().args), GetParam().reply);

  EXPECT_EQ(Run({"TTL", "a"}), ":100\r\n");
}

INSTANTIATE_TEST_SUITE_P(Table, ExpireErrorTest, ::testing::ValuesIn(kExpireErrors),
                         [](const ::testing::TestParamInfo<ExpireErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(ExpireCommandsTest, PersistRemovesTtl) {
  Run({"SET", "k", "v", "EX", "100"});

  EXPECT_EQ(Run({"PERSIST", "k"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
  EXPECT_EQ(Run({"PERSIST", "k"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, PersistOfMissingKeyIsZero) {
  EXPECT_EQ(Run({"PERSIST", "nokey"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, PersistOfExpiredKeyIsZero) {
  Run({"SET", "k", "v", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"PERSIST", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ExpireCommandsTest, PersistArity) {
  EXPECT_EQ(Run({"PERSIST"}), "-ERR wrong number of arguments for 'persist' command\r\n");
}

}  // namespace
}  // namespace warden::server
