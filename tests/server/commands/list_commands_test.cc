// The list commands through the dispatcher, checked against redis-server 7.0: exact RESP2 and
// RESP3 replies, the null shapes of the pops, error texts and which error wins, LPOS options,
// LMPOP, LMOVE on one key, WRONGTYPE, and lists past the inline bound.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

class ListCommandsTest : public CommandTest {
 protected:
  // l = a b c a b c a, the list of Redis's LPOS documentation.
  void PutLposList() {
    ASSERT_EQ(Run({"RPUSH", "l", "a", "b", "c", "a", "b", "c", "a"}), ":7\r\n");
  }

  // Makes `key` hold 1..n, past the inline bound when n > 128.
  void PutNumbers(std::string_view key, int n) {
    for (int i = 1; i <= n; ++i) Run({"RPUSH", key, std::to_string(i)});
  }
};

TEST_F(ListCommandsTest, LpushReversesItsElements) {
  EXPECT_EQ(Run({"LPUSH", "l", "a", "b", "c"}), ":3\r\n");

  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n");
}

TEST_F(ListCommandsTest, RpushReturnsNewLength) {
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"RPUSH", "l", "b", "c"}), ":3\r\n");
}

TEST_F(ListCommandsTest, PushxOnMissingKeyCreatesNothing) {
  EXPECT_EQ(Run({"LPUSHX", "l", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"RPUSHX", "l", "a"}), ":0\r\n");

  EXPECT_EQ(Run({"EXISTS", "l"}), ":0\r\n");
}

TEST_F(ListCommandsTest, TypeAndEncodingOfList) {
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"TYPE", "l"}), "+list\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "l"}), "$9\r\nquicklist\r\n");
}

TEST_F(ListCommandsTest, PopWithoutCountOnMissingKeyIsNullBulk) {
  EXPECT_EQ(Run({"LPOP", "nokey"}), "$-1\r\n");
}

TEST_F(ListCommandsTest, PopWithCountOnMissingKeyIsNullArray) {
  EXPECT_EQ(Run({"LPOP", "nokey", "1"}), "*-1\r\n");
  EXPECT_EQ(Run({"RPOP", "nokey", "0"}), "*-1\r\n");
}

TEST_F(ListCommandsTest, PopCountZeroOnListIsEmptyArray) {
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"LPOP", "l", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"LLEN", "l"}), ":1\r\n");
}

TEST_F(ListCommandsTest, RpopCountRepliesInPopOrder) {
  Run({"RPUSH", "l", "a", "b", "c"});

  EXPECT_EQ(Run({"RPOP", "l", "2"}), "*2\r\n$1\r\nc\r\n$1\r\nb\r\n");
}

TEST_F(ListCommandsTest, PopCountPastLengthEmptiesAndDeletes) {
  Run({"RPUSH", "l", "a", "b"});

  EXPECT_EQ(Run({"LPOP", "l", "10"}), "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"EXISTS", "l"}), ":0\r\n");
}

TEST_F(ListCommandsTest, PopNegativeOrBadCountIsOutOfRange) {
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"LPOP", "l", "-1"}), "-ERR value is out of range, must be positive\r\n");
  EXPECT_EQ(Run({"LPOP", "l", "x"}), "-ERR value is out of range, must be positive\r\n");
}

TEST_F(ListCommandsTest, PopWithTwoCountsIsWrongArity) {
  EXPECT_EQ(Run({"LPOP", "l", "1", "2"}), "-ERR wrong number of arguments for 'lpop' command\r\n");
  EXPECT_EQ(Run({"RPOP", "l", "1", "2"}), "-ERR wrong number of arguments for 'rpop' command\r\n");
}

TEST_F(ListCommandsTest, PopsInResp3ReplyNull) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"LPOP", "nokey"}), "_\r\n");
  EXPECT_EQ(Run({"LPOP", "nokey", "1"}), "_\r\n");
  EXPECT_EQ(Run({"LMPOP", "1", "nokey", "LEFT"}), "_\r\n");
  EXPECT_EQ(Run({"LMOVE", "nokey", "d", "LEFT", "LEFT"}), "_\r\n");
}

TEST_F(ListCommandsTest, LrangeClampsAndEmpties) {
  Run({"RPUSH", "l", "a", "b", "c", "d"});

  EXPECT_EQ(Run({"LRANGE", "l", "-2", "100"}), "*2\r\n$1\r\nc\r\n$1\r\nd\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "-100", "0"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "3", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "10", "20"}), "*0\r\n");
}

TEST_F(ListCommandsTest, LrangeParsesIndexesBeforeTypeCheck) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"LRANGE", "s", "x", "0"}), "-ERR value is not an integer or out of range\r\n");
}

TEST_F(ListCommandsTest, LindexChecksTypeBeforeIndex) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"LINDEX", "s", "x"}), kWrongType);
  EXPECT_EQ(Run({"LINDEX", "nokey", "x"}), "$-1\r\n");
}

TEST_F(ListCommandsTest, LsetErrors) {
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"LSET", "nokey", "0", "x"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"LSET", "nokey", "x", "x"}), "-ERR no such key\r\n");
  EXPECT_EQ(Run({"LSET", "l", "1", "x"}), "-ERR index out of range\r\n");
  EXPECT_EQ(Run({"LSET", "l", "-2", "x"}), "-ERR index out of range\r\n");
}

TEST_F(ListCommandsTest, LsetReplacesByNegativeIndex) {
  Run({"RPUSH", "l", "a", "b"});

  EXPECT_EQ(Run({"LSET", "l", "-1", "z"}), "+OK\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*2\r\n$1\r\na\r\n$1\r\nz\r\n");
}

TEST_F(ListCommandsTest, LinsertRepliesLengthOrMinusOneOrZero) {
  Run({"RPUSH", "l", "a", "c"});

  EXPECT_EQ(Run({"LINSERT", "l", "after", "a", "b"}), ":3\r\n");
  EXPECT_EQ(Run({"LINSERT", "l", "BEFORE", "zz", "x"}), ":-1\r\n");
  EXPECT_EQ(Run({"LINSERT", "nokey", "BEFORE", "a", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"LINSERT", "l", "MIDDLE", "a", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
}

TEST_F(ListCommandsTest, LremNegativeCountRemovesFromTail) {
  Run({"RPUSH", "l", "a", "b", "a", "b", "a"});

  EXPECT_EQ(Run({"LREM", "l", "-2", "a"}), ":2\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nb\r\n");
}

TEST_F(ListCommandsTest, LtrimToEmptyDeletesKey) {
  Run({"RPUSH", "l", "a", "b"});

  EXPECT_EQ(Run({"LTRIM", "l", "2", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"EXISTS", "l"}), ":0\r\n");
  EXPECT_EQ(Run({"LTRIM", "nokey", "0", "1"}), "+OK\r\n");
}

TEST_F(ListCommandsTest, LposRanksFromEitherEnd) {
  PutLposList();

  EXPECT_EQ(Run({"LPOS", "l", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "2"}), ":3\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "-1"}), ":6\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "-2"}), ":3\r\n");
}

TEST_F(ListCommandsTest, LposCountAndMaxlen) {
  PutLposList();

  EXPECT_EQ(Run({"LPOS", "l", "a", "COUNT", "0"}), "*3\r\n:0\r\n:3\r\n:6\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "COUNT", "0", "RANK", "-1"}), "*3\r\n:6\r\n:3\r\n:0\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "MAXLEN", "3", "COUNT", "0"}), "*1\r\n:0\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "zz"}), "$-1\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "zz", "COUNT", "0"}), "*0\r\n");
}

TEST_F(ListCommandsTest, LposErrors) {
  PutLposList();

  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "0"}),
            "-ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "COUNT", "-1"}), "-ERR COUNT can't be negative\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "MAXLEN", "x"}), "-ERR MAXLEN can't be negative\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK"}), "-ERR syntax error\r\n");
}

// Redis 7.0 negates RANK in a long: INT64_MIN stays negative, so it counts from the tail and
// COUNT never stops the scan.
TEST_F(ListCommandsTest, LposRankInt64MinMatchesRedis70) {
  PutLposList();

  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "-9223372036854775808"}), ":6\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "a", "RANK", "-9223372036854775808", "COUNT", "2"}),
            "*3\r\n:6\r\n:3\r\n:0\r\n");
}

TEST_F(ListCommandsTest, LmoveMissingSourceIgnoresDestinationType) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"LMOVE", "nokey", "s", "LEFT", "LEFT"}), "$-1\r\n");
}

TEST_F(ListCommandsTest, LmoveToWrongTypeLeavesSource) {
  Run({"SET", "s", "v"});
  Run({"RPUSH", "l", "a"});

  EXPECT_EQ(Run({"LMOVE", "l", "s", "LEFT", "LEFT"}), kWrongType);
  EXPECT_EQ(Run({"LLEN", "l"}), ":1\r\n");
}

TEST_F(ListCommandsTest, RpoplpushOnOneKeyRotates) {
  Run({"RPUSH", "l", "a", "b", "c"});

  EXPECT_EQ(Run({"RPOPLPUSH", "l", "l"}), "$1\r\nc\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n");
}

TEST_F(ListCommandsTest, LmoveOfOnlyElementOntoItsKeyKeepsTtl) {
  Run({"RPUSH", "l", "a"});
  Run({"PEXPIRE", "l", "5000"});

  EXPECT_EQ(Run({"LMOVE", "l", "l", "LEFT", "RIGHT"}), "$1\r\na\r\n");
  EXPECT_EQ(Run({"PTTL", "l"}), ":5000\r\n");
}

TEST_F(ListCommandsTest, LmpopPopsFirstNonEmptyKey) {
  Run({"RPUSH", "b", "1", "2", "3"});

  EXPECT_EQ(Run({"LMPOP", "2", "a", "b", "RIGHT", "COUNT", "2"}),
            "*2\r\n$1\r\nb\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n");
}

TEST_F(ListCommandsTest, LmpopWrongTypeOnlyBeforeFirstNonEmpty) {
  Run({"SET", "s", "v"});
  Run({"RPUSH", "b", "1"});

  EXPECT_EQ(Run({"LMPOP", "2", "s", "b", "LEFT"}), kWrongType);
  EXPECT_EQ(Run({"LMPOP", "2", "b", "s", "LEFT"}), "*2\r\n$1\r\nb\r\n*1\r\n$1\r\n1\r\n");
}

TEST_F(ListCommandsTest, LmpopArgumentErrors) {
  EXPECT_EQ(Run({"LMPOP", "0", "a", "LEFT"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(Run({"LMPOP", "x", "a", "LEFT"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(Run({"LMPOP", "2", "a", "LEFT"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"LMPOP", "1", "a", "UP"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"LMPOP", "1", "a", "LEFT", "COUNT", "0"}),
            "-ERR count should be greater than 0\r\n");
  EXPECT_EQ(Run({"LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"LMPOP", "1", "a", "LEFT"}), "*-1\r\n");
}

TEST_F(ListCommandsTest, WrongTypeFromEveryReadAndWrite) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"LPUSH", "s", "a"}), kWrongType);
  EXPECT_EQ(Run({"LLEN", "s"}), kWrongType);
  EXPECT_EQ(Run({"LRANGE", "s", "0", "-1"}), kWrongType);
  EXPECT_EQ(Run({"LPOS", "s", "a"}), kWrongType);
  EXPECT_EQ(Run({"LREM", "s", "0", "a"}), kWrongType);
}

TEST_F(ListCommandsTest, LargeListIndexesAcrossChunks) {
  PutNumbers("l", 1000);

  EXPECT_EQ(Run({"LLEN", "l"}), ":1000\r\n");
  EXPECT_EQ(Run({"LINDEX", "l", "500"}), "$3\r\n501\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "127", "129"}), "*3\r\n$3\r\n128\r\n$3\r\n129\r\n$3\r\n130\r\n");
  EXPECT_EQ(Run({"LPOS", "l", "1", "RANK", "-1", "COUNT", "0"}), "*1\r\n:0\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "l"}), "$9\r\nquicklist\r\n");
}

TEST_F(ListCommandsTest, CopyOfLargeListIsDeep) {
  PutNumbers("l", 300);

  EXPECT_EQ(Run({"COPY", "l", "c"}), ":1\r\n");
  Run({"LPOP", "c", "100"});

  EXPECT_EQ(Run({"LLEN", "l"}), ":300\r\n");
  EXPECT_EQ(Run({"LLEN", "c"}), ":200\r\n");
}

TEST_F(ListCommandsTest, ConfigListMaxListpackSize) {
  EXPECT_EQ(Run({"CONFIG", "GET", "list-max-listpack-size"}),
            "*2\r\n$22\r\nlist-max-listpack-size\r\n$2\r\n-2\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "list-max-ziplist-size", "5"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "list-max-listpack-size"}),
            "*2\r\n$22\r\nlist-max-listpack-size\r\n$1\r\n5\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "list-max-listpack-size", "3000000000"}),
            "-ERR CONFIG SET failed (possibly related to argument 'list-max-listpack-size') - "
            "argument must be between -2147483648 and 2147483647 inclusive\r\n");
}

}  // namespace
}  // namespace warden::server
