// SET and its relatives, GET and the INCR family through the dispatcher. Replies follow
// Redis 7.0's t_string.c and tests/unit/type/string.tcl, checked against redis-server 7.0.15. SET's
// IF* conditions, DELEX and DIGEST are in conditional_commands_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using namespace std::string_view_literals;

class StringCommandsTest : public CommandTest {};

TEST_F(StringCommandsTest, SetThenGet) {
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, GetMissingIsNull) { EXPECT_EQ(Run({"GET", "nokey"}), "$-1\r\n"); }

TEST_F(StringCommandsTest, ValuesAreBinarySafe) {
  Run({"SET", "k\0k"sv, "a\0\r\nb"sv});

  EXPECT_EQ(Run({"GET", "k\0k"sv}), "$5\r\na\0\r\nb\r\n"sv);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
}

TEST_F(StringCommandsTest, EmptyValue) {
  Run({"SET", "k", ""});

  EXPECT_EQ(Run({"GET", "k"}), "$0\r\n\r\n");
}

TEST_F(StringCommandsTest, SetGetReturnsOldValue) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SET", "k", "v2", "GET"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$2\r\nv2\r\n");
}

TEST_F(StringCommandsTest, SetGetOnMissingKeyIsNullAndStores) {
  EXPECT_EQ(Run({"SET", "nokey", "v", "GET"}), "$-1\r\n");

  EXPECT_EQ(Run({"GET", "nokey"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetNxOnExistingKeyIsNullAndKeepsValue) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SET", "k", "w", "NX"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetNxOnMissingKeyStores) {
  EXPECT_EQ(Run({"SET", "k", "v", "NX"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetNxGetReturnsOldValueWithoutSetting) {
  Run({"SET", "k", "v2"});

  EXPECT_EQ(Run({"SET", "k", "v", "NX", "GET"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$2\r\nv2\r\n");
}

TEST_F(StringCommandsTest, SetXxGetReturnsOldValueAndSets) {
  Run({"SET", "k", "v2"});

  EXPECT_EQ(Run({"SET", "k", "v", "XX", "GET"}), "$2\r\nv2\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetXxOnMissingKeyIsNullAndDoesNotCreate) {
  EXPECT_EQ(Run({"SET", "k", "v", "XX"}), "$-1\r\n");

  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(StringCommandsTest, SetRepeatedConditionsAreAccepted) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SET", "k", "v", "nx", "nx"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v", "xx", "xx"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "w", "get", "get"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetExGetNx) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"SET", "k", "w", "EX", "10", "GET", "NX"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":-1\r\n");
}

TEST_F(StringCommandsTest, SetOptionsAreCaseInsensitive) {
  EXPECT_EQ(Run({"set", "k", "v", "nX", "pX", "100", "gEt"}), "$-1\r\n");

  EXPECT_EQ(Run({"PTTL", "k"}), ":100\r\n");
}

TEST_F(StringCommandsTest, SetSameExpireOptionTwiceLastWins) {
  EXPECT_EQ(Run({"SET", "k", "v", "EX", "10", "EX", "20"}), "+OK\r\n");

  EXPECT_EQ(Run({"TTL", "k"}), ":20\r\n");
}

TEST_F(StringCommandsTest, SetWithoutKeepTtlClearsTtl) {
  Run({"SET", "h", "1", "EX", "100"});

  Run({"SET", "h", "2"});

  EXPECT_EQ(Run({"TTL", "h"}), ":-1\r\n");
}

TEST_F(StringCommandsTest, SetKeepTtlKeepsTtl) {
  Run({"SET", "h", "1", "EX", "100"});

  EXPECT_EQ(Run({"SET", "h", "2", "KEEPTTL"}), "+OK\r\n");

  EXPECT_EQ(Run({"TTL", "h"}), ":100\r\n");
  EXPECT_EQ(Run({"GET", "h"}), "$1\r\n2\r\n");
}

TEST_F(StringCommandsTest, SetXxKeepTtlGet) {
  Run({"SET", "h", "2", "EX", "100"});

  EXPECT_EQ(Run({"SET", "h", "3", "XX", "KEEPTTL", "GET"}), "$1\r\n2\r\n");
  EXPECT_EQ(Run({"TTL", "h"}), ":100\r\n");
}

TEST_F(StringCommandsTest, SetKeepTtlOnMissingKeyHasNoTtl) {
  Run({"SET", "h", "1", "KEEPTTL"});

  EXPECT_EQ(Run({"TTL", "h"}), ":-1\r\n");
}

TEST_F(StringCommandsTest, SetPxGetReplacesTtl) {
  Run({"SET", "h", "3", "EX", "100"});

  EXPECT_EQ(Run({"SET", "h", "4", "PX", "100", "GET"}), "$1\r\n3\r\n");
  EXPECT_EQ(Run({"PTTL", "h"}), ":100\r\n");
}

TEST_F(StringCommandsTest, SetExatAndPxatAreAbsolute) {
  const std::string at_s = std::to_string(now_ms() / 1000 + 50);
  const std::string at_ms = std::to_string(now_ms() + 1234);

  Run({"SET", "a", "1", "EXAT", at_s});
  Run({"SET", "b", "1", "PXAT", at_ms});

  EXPECT_EQ(Run({"PTTL", "a"}), ":50000\r\n");
  EXPECT_EQ(Run({"PTTL", "b"}), ":1234\r\n");
}

TEST_F(StringCommandsTest, SetPxatInThePastStoresKeyThatReadsAsMissing) {
  Run({"SET", "other", "1"});

  EXPECT_EQ(Run({"SET", "f", "1", "PXAT", "1"}), "+OK\r\n");

  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  EXPECT_EQ(Run({"EXISTS", "f"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(StringCommandsTest, SetLargestPxatIsAccepted) {
  EXPECT_EQ(Run({"SET", "k", "v", "PXAT", "9223372036854775807"}), "+OK\r\n");

  EXPECT_EQ(Run({"PTTL", "k"}), ":" + std::to_string(INT64_MAX - now_ms()) + "\r\n");
}

TEST_F(StringCommandsTest, SetLargestExatIsAccepted) {
  EXPECT_EQ(Run({"SET", "k", "v", "EXAT", "9223372036854775"}), "+OK\r\n");

  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":9223372036854775000\r\n");
}

TEST_F(StringCommandsTest, SetPxUpToOverflowIsAccepted) {
  const std::string largest = std::to_string(INT64_MAX - now_ms());

  EXPECT_EQ(Run({"SET", "k", "v", "PX", largest}), "+OK\r\n");

  EXPECT_EQ(Run({"PEXPIRETIME", "k"}), ":9223372036854775807\r\n");
}

TEST_F(StringCommandsTest, SetPxOneOverOverflowIsInvalid) {
  const std::string too_large = std::to_string(INT64_MAX - now_ms() + 1);

  EXPECT_EQ(Run({"SET", "k", "v", "PX", too_large}),
            "-ERR invalid expire time in 'set' command\r\n");
}

TEST_F(StringCommandsTest, ExpiredKeyCountsAsMissingForNx) {
  Run({"SET", "k", "v", "PX", "10"});
  clock_.AdvanceMs(11);

  EXPECT_EQ(Run({"SET", "k", "w", "NX"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nw\r\n");
}

TEST_F(StringCommandsTest, SetGetOnExpiredKeyIsNullAndNewKeyHasNoTtl) {
  Run({"SET", "c", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"SET", "c", "2", "GET"}), "$-1\r\n");
  EXPECT_EQ(Run({"TTL", "c"}), ":-1\r\n");
}

struct ErrorCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
};

const ErrorCase kSetErrors[] = {
    {"NxThenXx", {"SET", "k", "v", "NX", "XX"}, "-ERR syntax error\r\n"},
    {"XxThenNx", {"SET", "k", "v", "XX", "NX"}, "-ERR syntax error\r\n"},
    {"ExAndPx", {"SET", "k", "v", "EX", "10", "PX", "100"}, "-ERR syntax error\r\n"},
    {"ExatAndPxat", {"SET", "k", "v", "EXAT", "10", "PXAT", "10"}, "-ERR syntax error\r\n"},
    {"ExThenKeepTtl", {"SET", "k", "v", "EX", "10", "KEEPTTL"}, "-ERR syntax error\r\n"},
    {"KeepTtlThenEx", {"SET", "k", "v", "KEEPTTL", "EX", "10"}, "-ERR syntax error\r\n"},
    {"ExWithoutValue", {"SET", "k", "v", "EX"}, "-ERR syntax error\r\n"},
    {"PxWithoutValueAfterEx", {"SET", "k", "v", "EX", "10", "PX"}, "-ERR syntax error\r\n"},
    {"UnknownOption", {"SET", "k", "v", "FOO"}, "-ERR syntax error\r\n"},
    {"SyntaxBeforeValue", {"SET", "k", "v", "EX", "abc", "NX", "XX"}, "-ERR syntax error\r\n"},
    {"UnknownOptionBeforeValue", {"SET", "k", "v", "EX", "abc", "FOO"}, "-ERR syntax error\r\n"},
    {"ExNotInteger",
     {"SET", "k", "v", "EX", "abc"},
     "-ERR value is not an integer or out of range\r\n"},
    {"ExFraction",
     {"SET", "k", "v", "EX", "1.5"},
     "-ERR value is not an integer or out of range\r\n"},
    {"ExPlusSign",
     {"SET", "k", "v", "EX", "+5"},
     "-ERR value is not an integer or out of range\r\n"},
    {"ExZero", {"SET", "k", "v", "EX", "0"}, "-ERR invalid expire time in 'set' command\r\n"},
    {"ExNegative", {"SET", "k", "v", "EX", "-1"}, "-ERR invalid expire time in 'set' command\r\n"},
    {"PxZero", {"SET", "k", "v", "PX", "0"}, "-ERR invalid expire time in 'set' command\r\n"},
    {"ExatZero", {"SET", "k", "v", "EXAT", "0"}, "-ERR invalid expire time in 'set' command\r\n"},
    {"PxatZero", {"SET", "k", "v", "PXAT", "0"}, "-ERR invalid expire time in 'set' command\r\n"},
    {"PxatNegative",
     {"SET", "k", "v", "PXAT", "-1"},
     "-ERR invalid expire time in 'set' command\r\n"},
    {"ExOverflowsWithNow",
     {"SET", "k", "v", "EX", "9223372036854775"},
     "-ERR invalid expire time in 'set' command\r\n"},
    {"ExOverflowsInMs",
     {"SET", "k", "v", "EX", "9223372036854776"},
     "-ERR invalid expire time in 'set' command\r\n"},
    {"ExatOverflowsInMs",
     {"SET", "k", "v", "EXAT", "9223372036854776"},
     "-ERR invalid expire time in 'set' command\r\n"},
    {"PxMax",
     {"SET", "k", "v", "PX", "9223372036854775807"},
     "-ERR invalid expire time in 'set' command\r\n"},
    {"MissingValue", {"SET", "k"}, "-ERR wrong number of arguments for 'set' command\r\n"},
    // Redis 8.4's conditions exclude each other and NX/XX, in either order.
    {"IfeqAndNx", {"SET", "k", "v", "IFEQ", "a", "NX"}, "-ERR syntax error\r\n"},
    {"XxAndIfne", {"SET", "k", "v", "XX", "IFNE", "a"}, "-ERR syntax error\r\n"},
    {"IfeqAndIfne", {"SET", "k", "v", "IFEQ", "a", "IFNE", "b"}, "-ERR syntax error\r\n"},
    {"IfeqTwice", {"SET", "k", "v", "IFEQ", "a", "IFEQ", "b"}, "-ERR syntax error\r\n"},
    {"IfdeqAndIfdne",
     {"SET", "k", "v", "IFDEQ", "0123456789abcdef", "IFDNE", "0123456789abcdef"},
     "-ERR syntax error\r\n"},
    {"IfeqWithoutValue", {"SET", "k", "v", "IFEQ"}, "-ERR syntax error\r\n"},
};

class SetErrorTest : public CommandTest, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(SetErrorTest, RepliesErrorAndStoresNothing) {
  EXPECT_EQ(RunView(GetParam().args), GetParam().reply);

  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

INSTANTIATE_TEST_SUITE_P(Transcript, SetErrorTest, ::testing::ValuesIn(kSetErrors),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(StringCommandsTest, SetErrorLeavesExistingKeyAlone) {
  Run({"SET", "k", "v", "EX", "100"});

  EXPECT_EQ(Run({"SET", "k", "w", "EX", "0"}), "-ERR invalid expire time in 'set' command\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":100\r\n");
}

// SETNX, SETEX, PSETEX.

TEST_F(StringCommandsTest, SetnxSetsOnlyMissingKeys) {
  EXPECT_EQ(Run({"SETNX", "a", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"SETNX", "a", "2"}), ":0\r\n");

  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(StringCommandsTest, SetnxOnExpiredKeySets) {
  Run({"SET", "a", "1", "PX", "5"});
  clock_.AdvanceMs(6);

  EXPECT_EQ(Run({"SETNX", "a", "2"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "a"}), ":-1\r\n");
}

TEST_F(StringCommandsTest, SetnxArity) {
  EXPECT_EQ(Run({"SETNX", "a"}), "-ERR wrong number of arguments for 'setnx' command\r\n");
}

TEST_F(StringCommandsTest, SetexSetsValueAndTtl) {
  EXPECT_EQ(Run({"SETEX", "b", "100", "v"}), "+OK\r\n");

  EXPECT_EQ(Run({"TTL", "b"}), ":100\r\n");
  EXPECT_EQ(Run({"GET", "b"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, SetexReplacesExistingTtl) {
  Run({"SET", "b", "x", "EX", "5"});

  Run({"SETEX", "b", "100", "v"});

  EXPECT_EQ(Run({"TTL", "b"}), ":100\r\n");
}

TEST_F(StringCommandsTest, PsetexSetsTtlInMilliseconds) {
  EXPECT_EQ(Run({"PSETEX", "c", "1500", "v"}), "+OK\r\n");

  EXPECT_EQ(Run({"PTTL", "c"}), ":1500\r\n");
}

const ErrorCase kSetexErrors[] = {
    {"SetexZero", {"SETEX", "b", "0", "v"}, "-ERR invalid expire time in 'setex' command\r\n"},
    {"SetexNotInteger",
     {"SETEX", "b", "abc", "v"},
     "-ERR value is not an integer or out of range\r\n"},
    {"SetexOverflowsWithNow",
     {"SETEX", "b", "9223372036854775", "v"},
     "-ERR invalid expire time in 'setex' command\r\n"},
    {"SetexOverflowsInMs",
     {"SETEX", "b", "9223372036854776", "v"},
     "-ERR invalid expire time in 'setex' command\r\n"},
    {"PsetexNegative",
     {"PSETEX", "b", "-1", "v"},
     "-ERR invalid expire time in 'psetex' command\r\n"},
    {"PsetexMax",
     {"PSETEX", "b", "9223372036854775807", "v"},
     "-ERR invalid expire time in 'psetex' command\r\n"},
    {"SetexArity", {"SETEX", "b", "10"}, "-ERR wrong number of arguments for 'setex' command\r\n"},
    {"PsetexArity",
     {"PSETEX", "b", "10", "v", "x"},
     "-ERR wrong number of arguments for 'psetex' command\r\n"},
};

INSTANTIATE_TEST_SUITE_P(Setex, SetErrorTest, ::testing::ValuesIn(kSetexErrors),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

// GET.

TEST_F(StringCommandsTest, GetExpiredKeyIsNullAndRemovesIt) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(StringCommandsTest, GetAtDeadlineStillReturnsValue) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(100);

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(StringCommandsTest, GetArity) {
  EXPECT_EQ(Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(Run({"GET", "a", "b"}), "-ERR wrong number of arguments for 'get' command\r\n");
}

TEST_F(StringCommandsTest, GetCountsHitsAndMisses) {
  Run({"SET", "k", "v"});

  Run({"GET", "k"});
  Run({"GET", "nokey"});
  Run({"GET", "nokey"});

  EXPECT_EQ(state_.stats.keyspace_hits, 1u);
  EXPECT_EQ(state_.stats.keyspace_misses, 2u);
}

// INCR, INCRBY, DECR, DECRBY.

TEST_F(StringCommandsTest, IncrMissingKeyStartsAtZero) {
  EXPECT_EQ(Run({"INCR", "n"}), ":1\r\n");

  EXPECT_EQ(Run({"GET", "n"}), "$1\r\n1\r\n");
}

TEST_F(StringCommandsTest, IncrbyAndDecrby) {
  Run({"SET", "n", "10"});

  EXPECT_EQ(Run({"INCRBY", "n", "5"}), ":15\r\n");
  EXPECT_EQ(Run({"DECRBY", "n", "20"}), ":-5\r\n");
  EXPECT_EQ(Run({"DECR", "n"}), ":-6\r\n");
  EXPECT_EQ(Run({"GET", "n"}), "$2\r\n-6\r\n");
}

TEST_F(StringCommandsTest, DecrbyOnMissingKey) { EXPECT_EQ(Run({"DECRBY", "n", "5"}), ":-5\r\n"); }

TEST_F(StringCommandsTest, IncrbyMinimumOnMissingKey) {
  EXPECT_EQ(Run({"INCRBY", "n", "-9223372036854775808"}), ":-9223372036854775808\r\n");
}

TEST_F(StringCommandsTest, DecrbyMaximumOnMissingKey) {
  EXPECT_EQ(Run({"DECRBY", "n", "9223372036854775807"}), ":-9223372036854775807\r\n");
}

TEST_F(StringCommandsTest, IncrKeepsTtl) {
  Run({"SET", "n", "5", "EX", "100"});

  EXPECT_EQ(Run({"INCR", "n"}), ":6\r\n");
  EXPECT_EQ(Run({"TTL", "n"}), ":100\r\n");
}

TEST_F(StringCommandsTest, IncrOnExpiredKeyStartsOverWithoutTtl) {
  Run({"SET", "n", "5", "PX", "10"});
  clock_.AdvanceMs(11);

  EXPECT_EQ(Run({"INCR", "n"}), ":1\r\n");
  EXPECT_EQ(Run({"TTL", "n"}), ":-1\r\n");
}

TEST_F(StringCommandsTest, IncrGrowsValueInPlace) {
  Run({"SET", "n", "9"});

  EXPECT_EQ(Run({"INCR", "n"}), ":10\r\n");
  EXPECT_EQ(Run({"GET", "n"}), "$2\r\n10\r\n");
}

struct IncrErrorCase {
  const char* name;
  const char* value;  // stored first
  std::vector<std::string_view> args;
  std::string reply;
};

const IncrErrorCase kIncrErrors[] = {
    {"NotANumber", "abc", {"INCR", "n"}, "-ERR value is not an integer or out of range\r\n"},
    {"LeadingSpace", " 1", {"INCR", "n"}, "-ERR value is not an integer or out of range\r\n"},
    {"LeadingZero", "010", {"INCR", "n"}, "-ERR value is not an integer or out of range\r\n"},
    {"Fraction", "1.5", {"INCR", "n"}, "-ERR value is not an integer or out of range\r\n"},
    {"Empty", "", {"INCR", "n"}, "-ERR value is not an integer or out of range\r\n"},
    {"IncrOverflow",
     "9223372036854775807",
     {"INCR", "n"},
     "-ERR increment or decrement would overflow\r\n"},
    {"DecrUnderflow",
     "-9223372036854775808",
     {"DECR", "n"},
     "-ERR increment or decrement would overflow\r\n"},
    {"IncrbyOverflow",
     "1",
     {"INCRBY", "n", "9223372036854775807"},
     "-ERR increment or decrement would overflow\r\n"},
    {"IncrbyNotInteger",
     "1",
     {"INCRBY", "n", "abc"},
     "-ERR value is not an integer or out of range\r\n"},
    {"DecrbyMinimum",
     "1",
     {"DECRBY", "n", "-9223372036854775808"},
     "-ERR decrement would overflow\r\n"},
    {"IncrArity", "1", {"INCR", "n", "1"}, "-ERR wrong number of arguments for 'incr' command\r\n"},
    {"DecrbyArity",
     "1",
     {"DECRBY", "n"},
     "-ERR wrong number of arguments for 'decrby' command\r\n"},
};

class IncrErrorTest : public CommandTest, public ::testing::WithParamInterface<IncrErrorCase> {};

TEST_P(IncrErrorTest, RepliesErrorAndKeepsValue) {
  Run({"SET", "n", GetParam().value});

  EXPECT_EQ(RunView(GetParam().args), GetParam().reply);

  EXPECT_EQ(Run({"GET", "n"}), BulkReply(GetParam().value));
}

INSTANTIATE_TEST_SUITE_P(Table, IncrErrorTest, ::testing::ValuesIn(kIncrErrors),
                         [](const ::testing::TestParamInfo<IncrErrorCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace warden::server
