// The sorted set commands through the dispatcher, checked against redis-server 7.0.15: ZADD's
// options and their conflicts, score parsing and formatting (RESP2 bulk, RESP3 doubles), the
// ZRANGE family with BYSCORE/BYLEX/REV/LIMIT, pops, the set algebra with plain sets as inputs,
// ZSCAN, encodings, and the lock-library patterns.
#include <gtest/gtest.h>

#include <string>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

class ZsetCommandsTest : public CommandTest {
 protected:
  void Abc() { ASSERT_EQ(Run({"ZADD", "z", "1", "a", "2", "b", "3", "c"}), ":3\r\n"); }
  // A set of `n` members m0..m<n-1>, score = index: past 128 it is a skiplist.
  void Big(std::string_view key, int n) {
    for (int i = 0; i < n; ++i) Run({"ZADD", key, std::to_string(i), "m" + std::to_string(i)});
  }
};

// ZADD

TEST_F(ZsetCommandsTest, ZaddCountsNewMembers) {
  EXPECT_EQ(Run({"ZADD", "z", "1", "a", "2", "b"}), ":2\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "5", "a", "3", "c"}), ":1\r\n");
  EXPECT_EQ(Run({"ZCARD", "z"}), ":3\r\n");
  EXPECT_EQ(Run({"TYPE", "z"}), "+zset\r\n");
}

TEST_F(ZsetCommandsTest, ZaddChCountsChangedScores) {
  Abc();

  EXPECT_EQ(Run({"ZADD", "z", "CH", "9", "a", "2", "b", "4", "d"}), ":2\r\n");
}

TEST_F(ZsetCommandsTest, ZaddOptionConflicts) {
  EXPECT_EQ(Run({"ZADD", "z", "NX", "XX", "1", "a"}),
            "-ERR XX and NX options at the same time are not compatible\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "GT", "LT", "1", "a"}),
            "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "NX", "GT", "1", "a"}),
            "-ERR GT, LT, and/or NX options at the same time are not compatible\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "INCR", "1", "a", "2", "b"}),
            "-ERR INCR option supports a single increment-element pair\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "1", "a", "2"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "INCR", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZADD", "z"}), "-ERR wrong number of arguments for 'zadd' command\r\n");
}

TEST_F(ZsetCommandsTest, ZaddChecksEveryScoreBeforeWriting) {
  EXPECT_EQ(Run({"ZADD", "z", "1", "a", "x", "b"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"EXISTS", "z"}), ":0\r\n");
}

TEST_F(ZsetCommandsTest, ZaddScoreParsing) {
  EXPECT_EQ(Run({"ZADD", "z", "nan", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZADD", "z", " 1", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "1e400", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "0x10", "a", "+inf", "b", "-Infinity", "c", "5.", "d"}), ":4\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), "$2\r\n16\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "b"}), "$3\r\ninf\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "c"}), "$4\r\n-inf\r\n");
}

TEST_F(ZsetCommandsTest, ZaddXxOnMissingKeyCreatesNothing) {
  EXPECT_EQ(Run({"ZADD", "z", "XX", "1", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "XX", "INCR", "1", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"EXISTS", "z"}), ":0\r\n");
}

TEST_F(ZsetCommandsTest, ZaddGtLtAddNewMembersAndGuardOldOnes) {
  Run({"ZADD", "z", "5", "a"});

  EXPECT_EQ(Run({"ZADD", "z", "GT", "1", "new"}), ":1\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "LT", "3", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), "$1\r\n3\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "GT", "CH", "1", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), "$1\r\n3\r\n");
}

TEST_F(ZsetCommandsTest, ZaddIncrRepliesScoreOrNull) {
  Run({"ZADD", "z", "1", "a"});

  EXPECT_EQ(Run({"ZADD", "z", "INCR", "2.5", "a"}), "$3\r\n3.5\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "NX", "INCR", "1", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "GT", "INCR", "-1", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"ZADD", "z", "GT", "CH", "INCR", "5", "new"}), "$1\r\n5\r\n");
}

TEST_F(ZsetCommandsTest, IncrToNanIsRefused) {
  Run({"ZADD", "z", "inf", "a"});

  EXPECT_EQ(Run({"ZINCRBY", "z", "-inf", "a"}), "-ERR resulting score is not a number (NaN)\r\n");
  EXPECT_EQ(Run({"ZINCRBY", "z", "nan", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), "$3\r\ninf\r\n");
}

TEST_F(ZsetCommandsTest, ZincrbyReadsOptionsLikeZadd) {
  EXPECT_EQ(Run({"ZINCRBY", "z", "NX", "a"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZINCRBY", "z", "0.1", "a"}), "$19\r\n0.10000000000000001\r\n");
  EXPECT_EQ(Run({"ZINCRBY", "z", "0.2", "a"}), "$19\r\n0.30000000000000004\r\n");
}

// Scores and RESP3

TEST_F(ZsetCommandsTest, ScoresFormatWithSeventeenDigits) {
  Run({"ZADD", "z", "0.1", "a", "1e17", "b", "123456789012345678", "c", "-0", "d"});

  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), "$19\r\n0.10000000000000001\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "b"}), "$5\r\n1e+17\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "c"}), "$22\r\n1.2345678901234568e+17\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "d"}), "$1\r\n0\r\n");
}

TEST_F(ZsetCommandsTest, SkiplistKeepsNegativeZero) {
  Run({"ZADD", "z", "-0", std::string(65, 'x')});

  EXPECT_EQ(Run({"ZSCORE", "z", std::string(65, 'x')}), "$2\r\n-0\r\n");
}

TEST_F(ZsetCommandsTest, Resp3RepliesDoublesAndNestedPairs) {
  Abc();
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"ZSCORE", "z", "a"}), ",1\r\n");
  EXPECT_EQ(Run({"ZSCORE", "z", "nosuch"}), "_\r\n");
  EXPECT_EQ(Run({"ZMSCORE", "z", "a", "nosuch"}), "*2\r\n,1\r\n_\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "1", "WITHSCORES"}),
            "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
  EXPECT_EQ(Run({"ZPOPMIN", "z"}), "*2\r\n$1\r\na\r\n,1\r\n");
  EXPECT_EQ(Run({"ZPOPMIN", "z", "1"}), "*1\r\n*2\r\n$1\r\nb\r\n,2\r\n");
}

// Reads

TEST_F(ZsetCommandsTest, MissingKeyReadsAsEmpty) {
  EXPECT_EQ(Run({"ZCARD", "nokey"}), ":0\r\n");
  EXPECT_EQ(Run({"ZSCORE", "nokey", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"ZMSCORE", "nokey", "a"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"ZRANK", "nokey", "a"}), "$-1\r\n");
  EXPECT_EQ(Run({"ZRANGE", "nokey", "0", "-1"}), "*0\r\n");
  EXPECT_EQ(Run({"ZCOUNT", "nokey", "-inf", "inf"}), ":0\r\n");
  EXPECT_EQ(Run({"ZREM", "nokey", "a"}), ":0\r\n");
}

TEST_F(ZsetCommandsTest, WrongTypeEverywhere) {
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"ZADD", "s", "1", "a"}), kWrongType);
  EXPECT_EQ(Run({"ZSCORE", "s", "a"}), kWrongType);
  EXPECT_EQ(Run({"ZRANGE", "s", "0", "-1"}), kWrongType);
  EXPECT_EQ(Run({"ZADD", "s", "x", "a"}), "-ERR value is not a valid float\r\n");
  EXPECT_EQ(Run({"ZRANGE", "s", "a", "b"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"ZUNIONSTORE", "d", "1", "s", "WEIGHTS", "x"}), kWrongType);
}

TEST_F(ZsetCommandsTest, RanksCountFromEitherEnd) {
  Abc();

  EXPECT_EQ(Run({"ZRANK", "z", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"ZREVRANK", "z", "a"}), ":2\r\n");
  EXPECT_EQ(Run({"ZRANK", "z", "nosuch"}), "$-1\r\n");
}

// ZRANGE family

TEST_F(ZsetCommandsTest, ZrangeByRank) {
  Abc();

  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1"}), "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "0", "REV"}), "*1\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "-100", "100", "WITHSCORES"}),
            "*6\r\n$1\r\na\r\n$1\r\n1\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "3", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"ZREVRANGE", "z", "0", "1"}), "*2\r\n$1\r\nc\r\n$1\r\nb\r\n");
}

TEST_F(ZsetCommandsTest, ZrangeOptionErrors) {
  Abc();

  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1", "LIMIT", "0", "2"}),
            "-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
            "BYLEX\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1", "LIMIT", "1", "-1"}),
            "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"}),
            "-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1", "LIMIT", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZREVRANGE", "z", "0", "-1", "REV"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "x", "2"}), "-ERR min or max is not a float\r\n");
  EXPECT_EQ(Run({"ZRANGEBYLEX", "z", "a", "+"}), "-ERR min or max not valid string range item\r\n");
}

TEST_F(ZsetCommandsTest, ZrangeByScoreWithBoundsAndLimit) {
  Abc();

  EXPECT_EQ(Run({"ZRANGE", "z", "(1", "3", "BYSCORE"}), "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "3", "1", "BYSCORE", "REV"}),
            "*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n");
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "1"}), "*1\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1", "-5"}),
            "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "-1", "5"}), "*0\r\n");
  EXPECT_EQ(Run({"ZREVRANGEBYSCORE", "z", "+inf", "(1", "WITHSCORES", "LIMIT", "0", "1"}),
            "*2\r\n$1\r\nc\r\n$1\r\n3\r\n");
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "", "( 2"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(ZsetCommandsTest, ZrangeByLex) {
  Run({"ZADD", "l", "0", "a", "0", "b", "0", "c", "0", "d"});

  EXPECT_EQ(Run({"ZRANGEBYLEX", "l", "[b", "(d"}), "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZREVRANGEBYLEX", "l", "+", "(b"}), "*2\r\n$1\r\nd\r\n$1\r\nc\r\n");
  EXPECT_EQ(Run({"ZLEXCOUNT", "l", "-", "+"}), ":4\r\n");
  EXPECT_EQ(Run({"ZRANGEBYLEX", "l", "+", "-"}), "*0\r\n");
  EXPECT_EQ(Run({"ZREMRANGEBYLEX", "l", "[a", "[b"}), ":2\r\n");
  EXPECT_EQ(Run({"ZRANGE", "l", "0", "-1"}), "*2\r\n$1\r\nc\r\n$1\r\nd\r\n");
}

TEST_F(ZsetCommandsTest, ZrangestoreWritesAndDeletes) {
  Abc();
  Run({"SET", "d", "old"});

  EXPECT_EQ(Run({"ZRANGESTORE", "d", "z", "1", "-1"}), ":2\r\n");
  EXPECT_EQ(Run({"ZRANGE", "d", "0", "-1", "WITHSCORES"}),
            "*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n");
  EXPECT_EQ(Run({"ZRANGESTORE", "d", "z", "0", "-1", "WITHSCORES"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZRANGESTORE", "d", "nokey", "0", "-1"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "d"}), ":0\r\n");
}

// Removal and counting

TEST_F(ZsetCommandsTest, ZremDeletesEmptiedKey) {
  Abc();

  EXPECT_EQ(Run({"ZREM", "z", "a", "a", "nosuch"}), ":1\r\n");
  EXPECT_EQ(Run({"ZREM", "z", "b", "c"}), ":2\r\n");
  EXPECT_EQ(Run({"EXISTS", "z"}), ":0\r\n");
}

TEST_F(ZsetCommandsTest, ZremrangeByScoreAndRank) {
  Abc();

  EXPECT_EQ(Run({"ZCOUNT", "z", "(1", "+inf"}), ":2\r\n");
  EXPECT_EQ(Run({"ZREMRANGEBYSCORE", "z", "-inf", "(2"}), ":1\r\n");
  EXPECT_EQ(Run({"ZREMRANGEBYRANK", "z", "-1", "-1"}), ":1\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1"}), "*1\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"ZREMRANGEBYRANK", "z", "5", "10"}), ":0\r\n");
  EXPECT_EQ(Run({"ZREMRANGEBYSCORE", "z", "1", "x"}), "-ERR min or max is not a float\r\n");
}

// Pops

TEST_F(ZsetCommandsTest, ZpopReplies) {
  Abc();

  EXPECT_EQ(Run({"ZPOPMIN", "z"}), "*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"ZPOPMAX", "z", "5"}), "*4\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n");
  EXPECT_EQ(Run({"EXISTS", "z"}), ":0\r\n");
  EXPECT_EQ(Run({"ZPOPMIN", "z"}), "*0\r\n");
  EXPECT_EQ(Run({"ZPOPMIN", "z", "-1"}), "-ERR value is out of range, must be positive\r\n");
  EXPECT_EQ(Run({"ZPOPMIN", "z", "1", "2"}), "-ERR syntax error\r\n");
}

TEST_F(ZsetCommandsTest, ZmpopTakesFirstNonEmptyKey) {
  Abc();

  EXPECT_EQ(Run({"ZMPOP", "2", "nokey", "z", "MAX", "COUNT", "2"}),
            "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
  EXPECT_EQ(Run({"ZMPOP", "1", "nokey", "MIN"}), "*-1\r\n");
  EXPECT_EQ(Run({"ZMPOP", "0", "z", "MIN"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(Run({"ZMPOP", "1", "z", "MIN", "COUNT", "0"}),
            "-ERR count should be greater than 0\r\n");
  EXPECT_EQ(Run({"ZMPOP", "1", "z", "MIDDLE"}), "-ERR syntax error\r\n");
}

// ZRANDMEMBER

TEST_F(ZsetCommandsTest, ZrandmemberCounts) {
  Abc();

  EXPECT_EQ(Run({"ZRANDMEMBER", "z", "5", "WITHSCORES"}),
            "*6\r\n$1\r\nc\r\n$1\r\n3\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\na\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"ZRANDMEMBER", "z", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"ZRANDMEMBER", "nokey"}), "$-1\r\n");
  EXPECT_EQ(Run({"ZRANDMEMBER", "nokey", "3"}), "*0\r\n");
  EXPECT_EQ(Run({"ZRANDMEMBER", "z", "1", "FOO"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"}),
            "-ERR value is out of range\r\n");
  EXPECT_EQ(RunView({"ZRANDMEMBER", "z", "-5"}).substr(0, 4), "*5\r\n");
}

// Set algebra

TEST_F(ZsetCommandsTest, ZunionstoreWithWeightsAndPlainSets) {
  Abc();
  Run({"SADD", "s", "a", "x"});

  EXPECT_EQ(Run({"ZUNIONSTORE", "d", "2", "z", "s", "WEIGHTS", "2", "10"}), ":4\r\n");
  EXPECT_EQ(Run({"ZRANGE", "d", "0", "-1", "WITHSCORES"}),
            "*8\r\n$1\r\nb\r\n$1\r\n4\r\n$1\r\nc\r\n$1\r\n6\r\n$1\r\nx\r\n$2\r\n10\r\n"
            "$1\r\na\r\n$2\r\n12\r\n");
  EXPECT_EQ(Run({"ZINTER", "2", "z", "s", "AGGREGATE", "MAX", "WITHSCORES"}),
            "*2\r\n$1\r\na\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"ZDIFF", "2", "z", "s"}), "*2\r\n$1\r\nb\r\n$1\r\nc\r\n");
}

TEST_F(ZsetCommandsTest, SetAlgebraErrors) {
  Abc();

  EXPECT_EQ(Run({"ZUNIONSTORE", "d", "0", "z"}),
            "-ERR at least 1 input key is needed for 'zunionstore' command\r\n");
  EXPECT_EQ(Run({"ZUNION", "3", "z"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZUNION", "1", "z", "WEIGHTS", "x"}), "-ERR weight value is not a float\r\n");
  EXPECT_EQ(Run({"ZUNION", "1", "z", "AGGREGATE", "AVG"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZDIFF", "1", "z", "WEIGHTS", "1"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZUNIONSTORE", "d", "1", "z", "WITHSCORES"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"ZINTERCARD", "1", "z", "LIMIT", "-1"}), "-ERR LIMIT can't be negative\r\n");
}

TEST_F(ZsetCommandsTest, InfinitiesThatCancelSumToZero) {
  Run({"ZADD", "a", "inf", "x"});
  Run({"ZADD", "b", "-inf", "x"});

  EXPECT_EQ(Run({"ZUNION", "2", "a", "b", "WITHSCORES"}), "*2\r\n$1\r\nx\r\n$1\r\n0\r\n");
}

TEST_F(ZsetCommandsTest, ZintercardStopsAtLimit) {
  Run({"ZADD", "a", "1", "x", "2", "y", "3", "z"});
  Run({"ZADD", "b", "1", "x", "2", "y", "3", "z"});

  EXPECT_EQ(Run({"ZINTERCARD", "2", "a", "b"}), ":3\r\n");
  EXPECT_EQ(Run({"ZINTERCARD", "2", "a", "b", "LIMIT", "2"}), ":2\r\n");
}

// Encodings

TEST_F(ZsetCommandsTest, EncodingFollowsRedisThresholds) {
  Big("z", 128);
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "z"}), "$8\r\nlistpack\r\n");

  Run({"ZADD", "z", "1000", "one-more"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "z"}), "$8\r\nskiplist\r\n");
  EXPECT_EQ(Run({"ZCARD", "z"}), ":129\r\n");
  EXPECT_EQ(Run({"ZRANGE", "z", "-1", "-1", "WITHSCORES"}),
            "*2\r\n$8\r\none-more\r\n$4\r\n1000\r\n");
  EXPECT_EQ(Run({"ZRANK", "z", "m100"}), ":100\r\n");
}

TEST_F(ZsetCommandsTest, StoredResultsPickTheirEncoding) {
  Big("big", 200);

  EXPECT_EQ(Run({"ZRANGESTORE", "small", "big", "0", "9"}), ":10\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "small"}), "$8\r\nlistpack\r\n");
  EXPECT_EQ(Run({"ZUNIONSTORE", "u", "1", "big"}), ":200\r\n");
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "u"}), "$8\r\nskiplist\r\n");
}

TEST_F(ZsetCommandsTest, CopyDuplicatesASkiplist) {
  Big("z", 150);

  EXPECT_EQ(Run({"COPY", "z", "c"}), ":1\r\n");
  Run({"DEL", "z"});

  EXPECT_EQ(Run({"ZCARD", "c"}), ":150\r\n");
  EXPECT_EQ(Run({"ZSCORE", "c", "m149"}), "$3\r\n149\r\n");
}

// ZSCAN

TEST_F(ZsetCommandsTest, ZscanListsPairs) {
  Run({"ZADD", "z", "1.5", "a", "1e17", "b"});

  EXPECT_EQ(
      Run({"ZSCAN", "z", "0"}),
      "*2\r\n$1\r\n0\r\n*4\r\n$1\r\na\r\n$3\r\n1.5\r\n$1\r\nb\r\n$18\r\n100000000000000000\r\n");
  EXPECT_EQ(Run({"ZSCAN", "z", "0", "MATCH", "b*"}),
            "*2\r\n$1\r\n0\r\n*2\r\n$1\r\nb\r\n$18\r\n100000000000000000\r\n");
  EXPECT_EQ(Run({"ZSCAN", "z", "x"}), "-ERR invalid cursor\r\n");
}

// Lock libraries

// redis-semaphore's acquire: drop expired holders, count, add ourselves, refresh the TTL.
TEST_F(ZsetCommandsTest, SemaphoreAcquirePattern) {
  Run({"ZADD", "semaphore:s", "1000", "old"});

  EXPECT_EQ(Run({"ZREMRANGEBYSCORE", "semaphore:s", "-inf", "5000"}), ":1\r\n");
  EXPECT_EQ(Run({"ZCARD", "semaphore:s"}), ":0\r\n");
  EXPECT_EQ(Run({"ZADD", "semaphore:s", "15000", "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b"}),
            ":1\r\n");
  EXPECT_EQ(Run({"PEXPIRE", "semaphore:s", "10000"}), ":1\r\n");
  EXPECT_EQ(Run({"ZRANGE", "semaphore:s", "0", "-1", "WITHSCORES"}),
            "*2\r\n$36\r\n3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b\r\n$5\r\n15000\r\n");
}

}  // namespace
}  // namespace warden::server
