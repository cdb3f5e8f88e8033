// Redis 8.4's compare-and-set and compare-and-delete for locks without Lua: SET's IF* conditions,
// DELEX and DIGEST, through the dispatcher, as Redis 8.4 documents them (redis.io/commands/set,
// /delex and /digest).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ConditionalCommandsTest : public CommandTest {};

struct ErrorCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
};

// SET's IF* conditions (Redis 8.4).

TEST_F(ConditionalCommandsTest, SetIfeqMatchingSets) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "hello"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nworld\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfeqDifferentLeavesValue) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "x", "IFEQ", "nope"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nhello\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfeqMissingDoesNotCreate) {
  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "hello"}), "$-1\r\n");

  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfneMissingCreates) {
  EXPECT_EQ(Run({"SET", "k", "world", "IFNE", "hello"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nworld\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfneEqualLeavesValue) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "world", "IFNE", "hello"}), "$-1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nhello\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfneEmptyValueComparesBytes) {
  Run({"SET", "k", ""});

  EXPECT_EQ(Run({"SET", "k", "world", "IFNE", ""}), "$-1\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfeqGetReturnsOldValueEitherWay) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "diff", "GET"}), "$5\r\nhello\r\n");
  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "hello", "GET"}), "$5\r\nhello\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nworld\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfneGetOnMissingIsNullAndCreates) {
  EXPECT_EQ(Run({"SET", "k", "world", "IFNE", "hello", "GET"}), "$-1\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nworld\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfeqWithExSetsTtl) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "hello", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":10\r\n");
}

TEST_F(ConditionalCommandsTest, SetFailedIfeqKeepsTtl) {
  Run({"SET", "k", "hello", "EX", "100"});

  EXPECT_EQ(Run({"SET", "k", "world", "IFEQ", "nope", "EX", "10"}), "$-1\r\n");
  EXPECT_EQ(Run({"TTL", "k"}), ":100\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfdeqMatchingDigestSets) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "w", "IFDEQ", "9555e8555c62dcfd"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nw\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfdneComparesDigestCaseInsensitively) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"SET", "k", "w", "IFDNE", "9555E8555C62DCFD"}), "$-1\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfdeqShortDigestIsError) {
  Run({"SET", "k", "test"});

  EXPECT_EQ(Run({"SET", "k", "w", "IFDEQ", "9ec9f7918d7dfc4"}),
            "-ERR must be exactly 16 hexadecimal characters\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$4\r\ntest\r\n");
}

TEST_F(ConditionalCommandsTest, SetDigestIsNotCheckedOnMissingKey) {
  EXPECT_EQ(Run({"SET", "a", "v", "IFDEQ", "1234567890"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "b", "v", "IFDNE", "1234567890"}), "+OK\r\n");
}

TEST_F(ConditionalCommandsTest, SetIfeqComparesIntegerTextAsBytes) {
  Run({"SET", "k", "12345"});

  EXPECT_EQ(Run({"SET", "k", "w", "IFEQ", "12345"}), "+OK\r\n");
}

TEST_F(ConditionalCommandsTest, LockIdiom) {
  EXPECT_EQ(Run({"SET", "L", "tokA", "NX", "EX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "L", "tokA", "IFEQ", "tokA", "EX", "30"}), "+OK\r\n");
  EXPECT_EQ(Run({"TTL", "L"}), ":30\r\n");
  EXPECT_EQ(Run({"SET", "L", "tokB", "IFEQ", "tokX", "EX", "30"}), "$-1\r\n");
  EXPECT_EQ(Run({"DELEX", "L", "IFEQ", "tokX"}), ":0\r\n");
  EXPECT_EQ(Run({"DELEX", "L", "IFEQ", "tokA"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "L"}), ":0\r\n");
}

// DELEX (Redis 8.4).

TEST_F(ConditionalCommandsTest, DelexWithoutConditionDeletes) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"DELEX", "k"}), ":1\r\n");
  EXPECT_EQ(Run({"DELEX", "k"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, DelexIfeq) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"DELEX", "k", "IFEQ", "world"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nhello\r\n");
  EXPECT_EQ(Run({"DELEX", "k", "ifeq", "hello"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, DelexIfneDeletesDifferentValue) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"DELEX", "k", "IFNE", "hello"}), ":0\r\n");
  EXPECT_EQ(Run({"DELEX", "k", "IFNE", "x"}), ":1\r\n");
}

TEST_F(ConditionalCommandsTest, DelexMissingKeyIsZeroWhateverTheCondition) {
  EXPECT_EQ(Run({"DELEX", "k", "IFNE", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"DELEX", "k", "FOO", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"DELEX", "k", "IFDEQ", "1234567890"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, DelexExpiredKeyIsZero) {
  Run({"SET", "k", "hello", "PX", "10"});
  clock_.AdvanceMs(11);

  EXPECT_EQ(Run({"DELEX", "k", "IFEQ", "hello"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, DelexDigestConditions) {
  Run({"SET", "a", "hello"});
  Run({"SET", "b", "hello"});
  Run({"SET", "c", "hello"});

  EXPECT_EQ(Run({"DELEX", "a", "IFDEQ", "9555e8555c62dcfd"}), ":1\r\n");
  EXPECT_EQ(Run({"DELEX", "b", "IFDEQ", "9555E8555C62DCFD"}), ":1\r\n");
  EXPECT_EQ(Run({"DELEX", "c", "IFDNE", "9555e8555c62dcfd"}), ":0\r\n");
}

TEST_F(ConditionalCommandsTest, DelexDigestOnlyLengthIsChecked) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(Run({"DELEX", "k", "IFDEQ", "zzzzzzzzzzzzzzzz"}), ":0\r\n");
  EXPECT_EQ(Run({"DELEX", "k", "IFDNE", "zzzzzzzzzzzzzzzz"}), ":1\r\n");
}

const ErrorCase kDelexErrors[] = {
    {"BadCondition",
     {"DELEX", "k", "INVALID", "hello"},
     "-ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE\r\n"},
    {"ShortDigest",
     {"DELEX", "k", "IFDEQ", "555e8555c62dcfd"},
     "-ERR must be exactly 16 hexadecimal characters\r\n"},
    {"EmptyDigest",
     {"DELEX", "k", "IFDEQ", ""},
     "-ERR must be exactly 16 hexadecimal characters\r\n"},
    {"LongDigest",
     {"DELEX", "k", "IFDNE", "09555e8555c62dcfd"},
     "-ERR must be exactly 16 hexadecimal characters\r\n"},
    {"ThreeArguments",
     {"DELEX", "k", "IFEQ"},
     "-ERR wrong number of arguments for 'delex' command\r\n"},
    {"FiveArguments",
     {"DELEX", "k", "IFEQ", "hello", "extra"},
     "-ERR wrong number of arguments for 'delex' command\r\n"},
    {"NoKey", {"DELEX"}, "-ERR wrong number of arguments for 'delex' command\r\n"},
};

class DelexErrorTest : public CommandTest, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(DelexErrorTest, RepliesErrorAndKeepsKey) {
  Run({"SET", "k", "hello"});

  EXPECT_EQ(RunView(GetParam().args), GetParam().reply);

  EXPECT_EQ(Run({"GET", "k"}), "$5\r\nhello\r\n");
}

INSTANTIATE_TEST_SUITE_P(Table, DelexErrorTest, ::testing::ValuesIn(kDelexErrors),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(ConditionalCommandsTest, DelexArityIsCheckedBeforeLookup) {
  EXPECT_EQ(Run({"DELEX", "missing", "IFEQ"}),
            "-ERR wrong number of arguments for 'delex' command\r\n");
}

// DIGEST (Redis 8.4): XXH3-64 as 16 lower-case hex digits.

struct DigestCase {
  std::string value;
  const char* digest;
};

const DigestCase kDigests[] = {
    {"hello", "9555e8555c62dcfd"},
    {"Hello world", "b6acb9d84a38ff74"},
    {"", "2d06800538d394c2"},
    {"123", "404a763b3f4c8c9a"},
    {"v8", "0cc76dbb41381419"},
    {"v8lf0c11xh8ymlqztfd3eeq16kfn4sspw7fqmnuuq3k3t75em5wdizgcdw7uc26nnf961u2jkfzkjytls2kwlj7626"
     "sd",
     "00006c38adf31777"},
    {"test", "9ec9f7918d7dfc40"},
    {"world", "d6476c25083d69be"},
};

class DigestTest : public CommandTest, public ::testing::WithParamInterface<DigestCase> {};

TEST_P(DigestTest, MatchesXxh3Vector) {
  Run({"SET", "k", GetParam().value});

  EXPECT_EQ(Run({"DIGEST", "k"}), BulkReply(GetParam().digest));
}

INSTANTIATE_TEST_SUITE_P(Vectors, DigestTest, ::testing::ValuesIn(kDigests));

TEST_F(ConditionalCommandsTest, DigestOfMissingKeyIsNull) {
  EXPECT_EQ(Run({"DIGEST", "nokey"}), "$-1\r\n");
}

TEST_F(ConditionalCommandsTest, DigestArity) {
  EXPECT_EQ(Run({"DIGEST", "a", "b"}), "-ERR wrong number of arguments for 'digest' command\r\n");
}

}  // namespace
}  // namespace warden::server
