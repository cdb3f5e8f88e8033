// The set commands through the dispatcher, checked against redis-server 7.0.15: replies in
// RESP2 and RESP3 (sets are `~`), intset order, WRONGTYPE, emptied sets disappearing, the
// *STORE commands, and SRANDMEMBER's limit on negative counts (a warden choice).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_reader.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

// The strings of a flat array or set reply, in any order.
std::multiset<std::string> MembersIn(std::string_view reply) {
  protocol::Reply parsed;
  EXPECT_EQ(protocol::ReadReply(reply, parsed), std::optional<std::size_t>(reply.size())) << reply;
  std::multiset<std::string> out;
  for (const protocol::Reply& e : parsed.elements) out.emplace(e.text);
  return out;
}

class SetCommandsTest : public CommandTest {};

// SADD, SREM, SCARD, SISMEMBER, SMISMEMBER

TEST_F(SetCommandsTest, SaddCountsNewMembers) {
  EXPECT_EQ(Run({"SADD", "s", "a", "b", "a"}), ":2\r\n");

  EXPECT_EQ(Run({"SADD", "s", "b", "c"}), ":1\r\n");
  EXPECT_EQ(Run({"SCARD", "s"}), ":3\r\n");
}

TEST_F(SetCommandsTest, ScardOfMissingKeyIsZero) { EXPECT_EQ(Run({"SCARD", "nokey"}), ":0\r\n"); }

TEST_F(SetCommandsTest, SremCountsRemovedMembers) {
  Run({"SADD", "s", "a", "b", "c"});

  EXPECT_EQ(Run({"SREM", "s", "a", "x", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"SCARD", "s"}), ":2\r\n");
}

TEST_F(SetCommandsTest, SremOfLastMemberRemovesKey) {
  Run({"SADD", "s", "1", "2"});

  EXPECT_EQ(Run({"SREM", "s", "1", "2"}), ":2\r\n");

  EXPECT_EQ(Run({"EXISTS", "s"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SremOfLastTextMemberRemovesKey) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SREM", "s", "a"}), ":1\r\n");

  EXPECT_EQ(Run({"TYPE", "s"}), "+none\r\n");
}

TEST_F(SetCommandsTest, SremOfMissingKeyIsZero) {
  EXPECT_EQ(Run({"SREM", "nokey", "a"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SismemberOfIntsetAndTable) {
  Run({"SADD", "ints", "1", "2"});
  Run({"SADD", "text", "a", "1"});

  EXPECT_EQ(Run({"SISMEMBER", "ints", "2"}), ":1\r\n");
  EXPECT_EQ(Run({"SISMEMBER", "ints", "02"}), ":0\r\n");
  EXPECT_EQ(Run({"SISMEMBER", "text", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"SISMEMBER", "text", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"SISMEMBER", "nokey", "a"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SmismemberAnswersEachMember) {
  Run({"SADD", "s", "a", "b"});

  EXPECT_EQ(Run({"SMISMEMBER", "s", "a", "x", "b"}), "*3\r\n:1\r\n:0\r\n:1\r\n");
  EXPECT_EQ(Run({"SMISMEMBER", "nokey", "a"}), "*1\r\n:0\r\n");
}

// SMEMBERS

TEST_F(SetCommandsTest, SmembersOfIntsetIsAscending) {
  Run({"SADD", "s", "30", "-5", "10", "0"});

  EXPECT_EQ(Run({"SMEMBERS", "s"}), "*4\r\n$2\r\n-5\r\n$1\r\n0\r\n$2\r\n10\r\n$2\r\n30\r\n");
}

TEST_F(SetCommandsTest, SmembersIsASetInResp3) {
  Run({"SADD", "s", "3", "1", "2"});
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SMEMBERS", "s"}), "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SmembersOfMissingKeyIsEmpty) {
  EXPECT_EQ(Run({"SMEMBERS", "nokey"}), "*0\r\n");
}

TEST_F(SetCommandsTest, SmembersOfMissingKeyIsAnEmptySetInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SMEMBERS", "nokey"}), "~0\r\n");
}

TEST_F(SetCommandsTest, SmembersOfTableListsEveryMember) {
  Run({"SADD", "s", "a", "b", "1", "c"});

  EXPECT_EQ(MembersIn(Run({"SMEMBERS", "s"})), (std::multiset<std::string>{"1", "a", "b", "c"}));
}

// SPOP

TEST_F(SetCommandsTest, SpopRemovesAndReturnsAMember) {
  Run({"SADD", "s", "a", "b"});

  const std::string reply = Run({"SPOP", "s"});

  EXPECT_TRUE(reply == "$1\r\na\r\n" || reply == "$1\r\nb\r\n") << reply;
  EXPECT_EQ(Run({"SCARD", "s"}), ":1\r\n");
}

TEST_F(SetCommandsTest, SpopOfLastMemberRemovesKey) {
  Run({"SADD", "s", "7"});

  EXPECT_EQ(Run({"SPOP", "s"}), "$1\r\n7\r\n");

  EXPECT_EQ(Run({"EXISTS", "s"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SpopCountCoveringSetReturnsAllAndRemovesKey) {
  Run({"SADD", "s", "3", "1", "2"});

  EXPECT_EQ(Run({"SPOP", "s", "10"}), "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");

  EXPECT_EQ(Run({"EXISTS", "s"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SpopCountIsASetInResp3) {
  Run({"SADD", "s", "1", "2", "3"});
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SPOP", "s", "0"}), "~0\r\n");
  EXPECT_EQ(Run({"SPOP", "s", "3"}), "~3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SpopCountRemovesThatMany) {
  Run({"SADD", "s", "a", "b", "c", "d", "e"});

  const std::multiset<std::string> popped = MembersIn(Run({"SPOP", "s", "2"}));

  EXPECT_EQ(popped.size(), 2u);
  EXPECT_EQ(Run({"SCARD", "s"}), ":3\r\n");
  for (const std::string& m : popped) EXPECT_EQ(Run({"SISMEMBER", "s", m}), ":0\r\n") << m;
}

TEST_F(SetCommandsTest, SpopOfMissingKey) {
  EXPECT_EQ(Run({"SPOP", "nokey"}), "$-1\r\n");
  EXPECT_EQ(Run({"SPOP", "nokey", "3"}), "*0\r\n");
}

TEST_F(SetCommandsTest, SpopOfMissingKeyInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SPOP", "nokey"}), "_\r\n");
  EXPECT_EQ(Run({"SPOP", "nokey", "3"}), "~0\r\n");
}

TEST_F(SetCommandsTest, SpopNegativeCountIsOutOfRange) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SPOP", "s", "-1"}), "-ERR value is out of range, must be positive\r\n");
}

// SRANDMEMBER

TEST_F(SetCommandsTest, SrandmemberReturnsAMemberAndKeepsIt) {
  Run({"SADD", "s", "only"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s"}), "$4\r\nonly\r\n");
  EXPECT_EQ(Run({"SCARD", "s"}), ":1\r\n");
}

TEST_F(SetCommandsTest, SrandmemberOfMissingKey) {
  EXPECT_EQ(Run({"SRANDMEMBER", "nokey"}), "$-1\r\n");
  EXPECT_EQ(Run({"SRANDMEMBER", "nokey", "3"}), "*0\r\n");
}

// Redis answers an array here even in RESP3.
TEST_F(SetCommandsTest, SrandmemberCountCoveringSetReturnsItWholeAsArray) {
  Run({"SADD", "s", "3", "1", "2"});
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s", "5"}), "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SrandmemberNegativeCountRepeatsMembers) {
  Run({"SADD", "s", "x"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s", "-3"}), "*3\r\n$1\r\nx\r\n$1\r\nx\r\n$1\r\nx\r\n");
}

TEST_F(SetCommandsTest, SrandmemberPositiveCountGivesDistinctMembers) {
  for (int i = 0; i < 30; ++i) Run({"SADD", "s", "m" + std::to_string(i)});

  const std::multiset<std::string> picked = MembersIn(Run({"SRANDMEMBER", "s", "8"}));

  EXPECT_EQ(picked.size(), 8u);
  EXPECT_EQ(std::set<std::string>(picked.begin(), picked.end()).size(), 8u);
}

// Pearson's chi-square of how often each of `outcomes` equally likely members was drawn. Redis's
// tests bound it where a uniform draw exceeds it with probability 0.00001: 40 for 9 degrees of
// freedom, 296 for 199. The seed is fixed, so the values are too.
double ChiSquare(const std::multiset<std::string>& draws, std::size_t outcomes) {
  std::map<std::string, int> counts;
  for (const std::string& d : draws) ++counts[d];
  EXPECT_EQ(counts.size(), outcomes);
  const double expected = static_cast<double>(draws.size()) / static_cast<double>(outcomes);
  double x2 = 0;
  for (const auto& [draw, n] : counts) x2 += (n - expected) * (n - expected) / expected;
  return x2;
}

// Redis's "SRANDMEMBER histogram distribution - hashtable", on a table of 200 members (past
// the 128 a packed set holds): counts smaller than the set, so each is a draw from the table.
TEST_F(SetCommandsTest, SrandmemberNegativeCountOfTableIsUniform) {
  for (int i = 0; i < 200; ++i) Run({"SADD", "s", "m" + std::to_string(i)});
  ASSERT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
  std::multiset<std::string> draws;

  for (int i = 0; i < 200; ++i) draws.merge(MembersIn(Run({"SRANDMEMBER", "s", "-100"})));

  EXPECT_LT(ChiSquare(draws, 200), 296.0);
}

TEST_F(SetCommandsTest, SrandmemberOfSmallTableIsUniform) {
  Run({"SADD", "s", "1", "5", "10", "50", "125", "MARY", "PATRICIA", "LINDA", "BARBARA",
       "ELIZABETH"});
  ASSERT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
  std::multiset<std::string> draws;

  for (int i = 0; i < 2000; ++i) draws.merge(MembersIn("*1\r\n" + Run({"SRANDMEMBER", "s"})));

  EXPECT_LT(ChiSquare(draws, 10), 40.0);
}

TEST_F(SetCommandsTest, SrandmemberManyOfASetGivesDistinctMembers) {
  for (int i = 0; i < 10; ++i) Run({"SADD", "s", std::to_string(i)});

  const std::multiset<std::string> picked = MembersIn(Run({"SRANDMEMBER", "s", "9"}));

  EXPECT_EQ(std::set<std::string>(picked.begin(), picked.end()).size(), 9u);
}

TEST_F(SetCommandsTest, SrandmemberHugeCountOfTableReturnsItWhole) {
  Run({"SADD", "s", "a", "b", "c"});

  EXPECT_EQ(MembersIn(Run({"SRANDMEMBER", "s", "6148914691236517206"})),
            (std::multiset<std::string>{"a", "b", "c"}));
}

TEST_F(SetCommandsTest, SrandmemberCountOfInt64MinIsOutOfRange) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s", "-9223372036854775808"}),
            "-ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807\r\n");
}

// warden's choice: Redis 7.0 would stream elements until it runs out of memory.
TEST_F(SetCommandsTest, SrandmemberNegativeCountBelowCapIsOutOfRange) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s", "-10000001"}), "-ERR value is out of range\r\n");
  EXPECT_EQ(Run({"SRANDMEMBER", "s", "-9223372036854775807"}), "-ERR value is out of range\r\n");
}

TEST_F(SetCommandsTest, SrandmemberWithExtraArgumentIsSyntaxError) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SRANDMEMBER", "s", "1", "x"}), "-ERR syntax error\r\n");
}

// SMOVE

TEST_F(SetCommandsTest, SmoveMovesMember) {
  Run({"SADD", "src", "a", "b"});
  Run({"SADD", "dst", "c"});

  EXPECT_EQ(Run({"SMOVE", "src", "dst", "a"}), ":1\r\n");

  EXPECT_EQ(Run({"SISMEMBER", "src", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"SISMEMBER", "dst", "a"}), ":1\r\n");
}

TEST_F(SetCommandsTest, SmoveOfLastMemberRemovesSourceAndCreatesDestination) {
  Run({"SADD", "src", "a"});

  EXPECT_EQ(Run({"SMOVE", "src", "dst", "a"}), ":1\r\n");

  EXPECT_EQ(Run({"EXISTS", "src"}), ":0\r\n");
  EXPECT_EQ(Run({"SMEMBERS", "dst"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(SetCommandsTest, SmoveOfMissingMemberIsZero) {
  Run({"SADD", "src", "a"});

  EXPECT_EQ(Run({"SMOVE", "src", "dst", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "dst"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SmoveFromMissingKeyIsZeroEvenToWrongType) {
  Run({"SET", "str", "v"});

  EXPECT_EQ(Run({"SMOVE", "nokey", "str", "a"}), ":0\r\n");
}

TEST_F(SetCommandsTest, SmoveToWrongTypeFailsAndKeepsMember) {
  Run({"SADD", "src", "a"});
  Run({"SET", "str", "v"});

  EXPECT_EQ(Run({"SMOVE", "src", "str", "a"}), kWrongType);
  EXPECT_EQ(Run({"SISMEMBER", "src", "a"}), ":1\r\n");
}

TEST_F(SetCommandsTest, SmoveToSameKeyAnswersMembership) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"SMOVE", "s", "s", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"SMOVE", "s", "s", "x"}), ":0\r\n");
  EXPECT_EQ(Run({"SCARD", "s"}), ":1\r\n");
}

// SINTER, SUNION, SDIFF and their STORE forms

TEST_F(SetCommandsTest, SinterOfIntsets) {
  Run({"SADD", "a", "1", "2", "3"});
  Run({"SADD", "b", "2", "3", "4"});

  EXPECT_EQ(Run({"SINTER", "a", "b"}), "*2\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SinterIsASetInResp3) {
  Run({"SADD", "a", "1", "2"});
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"SINTER", "a"}), "~2\r\n$1\r\n1\r\n$1\r\n2\r\n");
}

TEST_F(SetCommandsTest, SinterWithMissingKeyIsEmpty) {
  Run({"SADD", "a", "1"});

  EXPECT_EQ(Run({"SINTER", "a", "nokey"}), "*0\r\n");
}

TEST_F(SetCommandsTest, SinterChecksTypeAfterMissingKey) {
  Run({"SET", "str", "v"});

  EXPECT_EQ(Run({"SINTER", "nokey", "str"}), kWrongType);
}

TEST_F(SetCommandsTest, SunionOfIntsetsIsAscending) {
  Run({"SADD", "a", "5", "1"});
  Run({"SADD", "b", "3", "1"});

  EXPECT_EQ(Run({"SUNION", "a", "b", "nokey"}), "*3\r\n$1\r\n1\r\n$1\r\n3\r\n$1\r\n5\r\n");
}

TEST_F(SetCommandsTest, SunionOfTextSetsHasEveryMember) {
  Run({"SADD", "a", "x", "y"});
  Run({"SADD", "b", "y", "z"});

  EXPECT_EQ(MembersIn(Run({"SUNION", "a", "b"})), (std::multiset<std::string>{"x", "y", "z"}));
}

TEST_F(SetCommandsTest, SdiffRemovesLaterSets) {
  Run({"SADD", "a", "1", "2", "3", "4"});
  Run({"SADD", "b", "2"});
  Run({"SADD", "c", "4"});

  EXPECT_EQ(Run({"SDIFF", "a", "b", "nokey", "c"}), "*2\r\n$1\r\n1\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SdiffOfMissingFirstKeyIsEmpty) {
  Run({"SADD", "b", "1"});

  EXPECT_EQ(Run({"SDIFF", "nokey", "b"}), "*0\r\n");
}

TEST_F(SetCommandsTest, SinterstoreStoresResultAndCount) {
  Run({"SADD", "a", "1", "2", "3"});
  Run({"SADD", "b", "3", "2"});

  EXPECT_EQ(Run({"SINTERSTORE", "dst", "a", "b"}), ":2\r\n");

  EXPECT_EQ(Run({"SMEMBERS", "dst"}), "*2\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, StoreReplacesDestinationOfAnyTypeAndItsTtl) {
  Run({"SADD", "a", "1"});
  Run({"SET", "dst", "v", "PX", "30000"});

  EXPECT_EQ(Run({"SUNIONSTORE", "dst", "a"}), ":1\r\n");

  EXPECT_EQ(Run({"TYPE", "dst"}), "+set\r\n");
  EXPECT_EQ(Run({"PTTL", "dst"}), ":-1\r\n");
}

TEST_F(SetCommandsTest, StoreOfEmptyResultDeletesDestination) {
  Run({"SADD", "a", "1"});
  Run({"SADD", "dst", "x"});

  EXPECT_EQ(Run({"SDIFFSTORE", "dst", "a", "a"}), ":0\r\n");

  EXPECT_EQ(Run({"EXISTS", "dst"}), ":0\r\n");
}

TEST_F(SetCommandsTest, StoreMayNameASourceAsDestination) {
  Run({"SADD", "a", "1", "2"});
  Run({"SADD", "b", "2", "3"});

  EXPECT_EQ(Run({"SUNIONSTORE", "a", "a", "b"}), ":3\r\n");

  EXPECT_EQ(Run({"SMEMBERS", "a"}), "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n");
}

TEST_F(SetCommandsTest, SintercardCountsAndStopsAtLimit) {
  Run({"SADD", "a", "1", "2", "3"});
  Run({"SADD", "b", "1", "2", "3", "4"});

  EXPECT_EQ(Run({"SINTERCARD", "2", "a", "b"}), ":3\r\n");
  EXPECT_EQ(Run({"SINTERCARD", "2", "a", "b", "LIMIT", "2"}), ":2\r\n");
  EXPECT_EQ(Run({"SINTERCARD", "2", "a", "b", "LIMIT", "0"}), ":3\r\n");
}

TEST_F(SetCommandsTest, SintercardErrors) {
  EXPECT_EQ(Run({"SINTERCARD", "0", "a"}), "-ERR numkeys should be greater than 0\r\n");
  EXPECT_EQ(Run({"SINTERCARD", "3", "a", "b"}),
            "-ERR Number of keys can't be greater than number of args\r\n");
  EXPECT_EQ(Run({"SINTERCARD", "1", "a", "LIMIT", "-1"}), "-ERR LIMIT can't be negative\r\n");
  EXPECT_EQ(Run({"SINTERCARD", "1", "a", "OTHER"}), "-ERR syntax error\r\n");
}

// SSCAN

TEST_F(SetCommandsTest, SscanOfIntsetReturnsAllAtOnce) {
  Run({"SADD", "s", "2", "1"});

  EXPECT_EQ(Run({"SSCAN", "s", "0"}), "*2\r\n$1\r\n0\r\n*2\r\n$1\r\n1\r\n$1\r\n2\r\n");
}

TEST_F(SetCommandsTest, SscanOfMissingKeyIsEmpty) {
  EXPECT_EQ(Run({"SSCAN", "nokey", "0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

// WRONGTYPE, TYPE, encodings

TEST_F(SetCommandsTest, SetCommandsOnStringAreWrongType) {
  Run({"SET", "str", "v"});

  EXPECT_EQ(Run({"SADD", "str", "a"}), kWrongType);
  EXPECT_EQ(Run({"SREM", "str", "a"}), kWrongType);
  EXPECT_EQ(Run({"SMEMBERS", "str"}), kWrongType);
  EXPECT_EQ(Run({"SISMEMBER", "str", "a"}), kWrongType);
  EXPECT_EQ(Run({"SCARD", "str"}), kWrongType);
  EXPECT_EQ(Run({"SPOP", "str"}), kWrongType);
  EXPECT_EQ(Run({"SRANDMEMBER", "str", "2"}), kWrongType);
  EXPECT_EQ(Run({"SUNION", "str"}), kWrongType);
  EXPECT_EQ(Run({"SSCAN", "str", "0"}), kWrongType);
}

TEST_F(SetCommandsTest, HashCommandsOnSetAreWrongType) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"HGET", "s", "a"}), kWrongType);
  EXPECT_EQ(Run({"GET", "s"}), kWrongType);
}

TEST_F(SetCommandsTest, TypeOfSet) {
  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"TYPE", "s"}), "+set\r\n");
}

TEST_F(SetCommandsTest, IntegerSetIsIntset) {
  Run({"SADD", "s", "1", "-2"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$6\r\nintset\r\n");
}

TEST_F(SetCommandsTest, TextMemberMakesHashtable) {
  Run({"SADD", "s", "1"});

  Run({"SADD", "s", "a"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
}

TEST_F(SetCommandsTest, HashtableStaysHashtableAfterTextMemberGoes) {
  Run({"SADD", "s", "1", "a"});

  Run({"SREM", "s", "a"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
}

TEST_F(SetCommandsTest, ConfigSetIntsetLimitAppliesToNextWrite) {
  Run({"SADD", "s", "1", "2", "3"});

  EXPECT_EQ(Run({"CONFIG", "SET", "set-max-intset-entries", "3"}), "+OK\r\n");
  Run({"SADD", "s", "4"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
}

TEST_F(SetCommandsTest, SaddKeepsTtl) {
  Run({"SADD", "s", "1"});
  Run({"PEXPIRE", "s", "30000"});

  Run({"SADD", "s", "x"});

  EXPECT_EQ(Run({"PTTL", "s"}), ":30000\r\n");
}

TEST_F(SetCommandsTest, SetPastDeadlineIsGone) {
  Run({"SADD", "s", "1"});
  Run({"PEXPIRE", "s", "100"});
  clock_.AdvanceMs(101);

  EXPECT_EQ(Run({"SISMEMBER", "s", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(SetCommandsTest, ScanTypeSetListsOnlySets) {
  Run({"SADD", "set", "1"});
  Run({"HSET", "h", "a", "1"});
  Run({"SET", "s", "v"});

  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "set"}), "*2\r\n$1\r\n0\r\n*1\r\n$3\r\nset\r\n");
}

}  // namespace
}  // namespace warden::server
