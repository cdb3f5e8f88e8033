// SORT and SORT_RO through the dispatcher, checked against redis-server 7.0.15: the orders
// (numeric ties by bytes, ALPHA up to a NUL or, with STORE, all bytes, pqsort's order of ties
// under a LIMIT), BY and GET patterns, LIMIT's clamps, STORE, every error, RESP3 nulls,
// scripts sorting sets anyway, ACL refusals of BY and GET, keyspace events and propagation.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_reader.h"
#include "server/persistence/aof.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using namespace std::string_view_literals;

// An array reply of bulk strings.
std::string Array(std::initializer_list<std::string_view> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string_view item : items) out += BulkReply(item);
  return out;
}

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr std::string_view kSyntax = "-ERR syntax error\r\n";
constexpr std::string_view kNotDouble =
    "-ERR One or more scores can't be converted into double\r\n";

class SortCommandTest : public CommandTest {
 protected:
  // ids 1..8 with weights in w_N (w_7 missing) and hashes h_N.
  void PutIds() {
    Run({"RPUSH", "ids", "1", "2", "3", "4", "5", "6", "7", "8"});
    Run({"MSET", "w_1", "30", "w_2", "10", "w_3", "20", "w_4", "10", "w_5", "-1", "w_6", "2.5",
         "w_8", "0"});
    Run({"HSET", "h_1", "f", "3", "g", "b"});
    Run({"HSET", "h_2", "f", "1", "g", "a"});
  }
};

// Numbers

TEST_F(SortCommandTest, ListSortsNumericallyWithTiesByBytes) {
  Run({"RPUSH", "l", "3", "1.0", "10", "1", "-5", "01", "inf"});

  EXPECT_EQ(Run({"SORT", "l"}), Array({"-5", "01", "1", "1.0", "3", "10", "inf"}));
  EXPECT_EQ(Run({"SORT", "l", "DESC"}), Array({"inf", "10", "3", "1.0", "1", "01", "-5"}));
}

TEST_F(SortCommandTest, ScoresAreReadAsStrtodReadsThem) {
  Run({"RPUSH", "l", "5", "", " 7", "0x10", "12\0junk"sv, "-inf", "1e2"});

  EXPECT_EQ(Run({"SORT", "l"}), Array({"-inf", "", "5", " 7", "12\0junk"sv, "0x10", "1e2"}));
}

TEST_F(SortCommandTest, AnElementThatIsNotANumberIsAnError) {
  Run({"RPUSH", "l", "1", "x"});
  Run({"RPUSH", "space", "7 "});
  Run({"RPUSH", "nan", "nan"});
  Run({"RPUSH", "huge", "1e400"});
  Run({"RPUSH", "tiny", "1e-320"});

  EXPECT_EQ(Run({"SORT", "l"}), kNotDouble);
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "0", "0"}), kNotDouble);
  EXPECT_EQ(Run({"SORT", "space"}), kNotDouble);
  EXPECT_EQ(Run({"SORT", "nan"}), kNotDouble);
  EXPECT_EQ(Run({"SORT", "huge"}), kNotDouble);
  EXPECT_EQ(Run({"SORT", "tiny"}), kNotDouble);
}

TEST_F(SortCommandTest, ABadScoreStoresNothing) {
  Run({"RPUSH", "l", "1", "x"});

  EXPECT_EQ(Run({"SORT", "l", "STORE", "out"}), kNotDouble);
  EXPECT_EQ(Run({"EXISTS", "out"}), ":0\r\n");
}

// ALPHA

TEST_F(SortCommandTest, AlphaComparesBytesUpToTheFirstNul) {
  Run({"RPUSH", "l", "b", "a\0c"sv, "B", "a\0b"sv, "a", "\xff"});

  // strcoll sees a\0c, a\0b and a as equal: they keep the list's order.
  EXPECT_EQ(Run({"SORT", "l", "ALPHA"}), Array({"B", "a\0c"sv, "a\0b"sv, "a", "b", "\xff"}));
  EXPECT_EQ(Run({"SORT", "l", "ALPHA", "DESC"}),
            Array({"\xff", "b", "a\0c"sv, "a\0b"sv, "a", "B"}));
}

TEST_F(SortCommandTest, AlphaWithStoreComparesEveryByte) {
  Run({"RPUSH", "l", "b", "a\0c"sv, "a\0b"sv, "a"});

  EXPECT_EQ(Run({"SORT", "l", "ALPHA", "STORE", "out"}), ":4\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "-1"}), Array({"a", "a\0b"sv, "a\0c"sv, "b"}));
}

TEST_F(SortCommandTest, AlphaOfIntegersIsByText) {
  Run({"RPUSH", "l", "2", "1", "3", "10"});

  EXPECT_EQ(Run({"SORT", "l", "ALPHA"}), Array({"1", "10", "2", "3"}));
}

// LIMIT

TEST_F(SortCommandTest, LimitClampsAsRedisDoes) {
  Run({"RPUSH", "l", "5", "4", "3", "2", "1"});

  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "1", "2"}), Array({"2", "3"}));
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "-3", "2"}), Array({"1", "2"}));
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "3", "-1"}), Array({"4", "5"}));
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "3", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "5", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "4", "9223372036854775807"}), Array({"5"}));
  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "-9223372036854775808", "1"}), Array({"1"}));
}

// BY

TEST_F(SortCommandTest, ByWeightsWithMissingOnesAsZero) {
  PutIds();

  EXPECT_EQ(Run({"SORT", "ids", "BY", "w_*"}), Array({"5", "7", "8", "6", "2", "4", "3", "1"}));
  EXPECT_EQ(Run({"SORT", "ids", "BY", "w_*", "DESC", "LIMIT", "0", "3"}), Array({"1", "3", "4"}));
}

TEST_F(SortCommandTest, ByHashField) {
  PutIds();

  EXPECT_EQ(Run({"SORT", "ids", "BY", "h_*->f", "LIMIT", "5", "3"}), Array({"8", "2", "1"}));
  EXPECT_EQ(Run({"SORT", "ids", "BY", "h_*->g", "ALPHA", "DESC", "LIMIT", "0", "2"}),
            Array({"1", "2"}));
}

TEST_F(SortCommandTest, AnArrowAtTheEndIsPartOfTheKey) {
  Run({"RPUSH", "l", "a"});
  Run({"SET", "x:a->", "100"});

  EXPECT_EQ(Run({"SORT", "l", "BY", "num", "GET", "x:*->"}), Array({"100"}));
}

TEST_F(SortCommandTest, ByConstantKeepsTheListOrder) {
  Run({"RPUSH", "l", "2", "1", "4", "3", "5"});

  EXPECT_EQ(Run({"SORT", "l", "BY", "nosort"}), Array({"2", "1", "4", "3", "5"}));
  EXPECT_EQ(Run({"SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"}), Array({"3", "4"}));
  EXPECT_EQ(Run({"SORT", "l", "BY", "nosort", "LIMIT", "4", "9"}), Array({"5"}));
}

TEST_F(SortCommandTest, AConstantByStaysEvenAfterARealOne) {
  PutIds();

  EXPECT_EQ(Run({"SORT", "ids", "BY", "nosort", "BY", "w_*", "LIMIT", "0", "2"}),
            Array({"1", "2"}));
  // A '*' after a NUL is not seen (strchr).
  EXPECT_EQ(Run({"SORT", "ids", "BY", "w_\0*"sv, "LIMIT", "0", "2"}), Array({"1", "2"}));
}

TEST_F(SortCommandTest, AlphaTiesUnderALimitComeInPqsortsOrder) {
  Run({"RPUSH", "eight", "1", "2", "3", "4", "5", "6", "7", "8"});
  Run({"MSET", "g_1", "b", "g_2", "c", "g_3", "a", "g_4", "b", "g_5", "c", "g_6", "a", "g_8", "c"});

  // A full sort keeps ties in the list's order; pqsort does not.
  EXPECT_EQ(Run({"SORT", "eight", "BY", "g_*", "ALPHA"}),
            Array({"7", "3", "6", "1", "4", "2", "5", "8"}));
  EXPECT_EQ(Run({"SORT", "eight", "BY", "g_*", "ALPHA", "LIMIT", "2", "3"}),
            Array({"3", "1", "4"}));
  EXPECT_EQ(Run({"SORT", "eight", "BY", "g_*", "ALPHA", "DESC", "LIMIT", "2", "3"}),
            Array({"5", "4", "1"}));
}

TEST_F(SortCommandTest, AlphaTiesInALongListComeInPqsortsOrder) {
  Run({"EVAL",
       "for i = 1, 50 do redis.call('rpush', 'many', i) if i % 7 ~= 0 then "
       "redis.call('set', 'g_' .. i, string.char(97 + (i * 13) % 3)) end end",
       "0"});

  // Past 40 elements pqsort takes its pivot as a median of medians.
  EXPECT_EQ(Run({"SORT", "many", "BY", "g_*", "ALPHA", "LIMIT", "5", "12"}),
            Array({"21", "42", "18", "12", "39", "45", "15", "48", "6", "36", "24", "9"}));
}

// GET

TEST_F(SortCommandTest, GetPatternsPerElement) {
  PutIds();

  EXPECT_EQ(Run({"SORT", "ids", "BY", "w_*", "LIMIT", "0", "2", "GET", "#", "GET", "w_*", "GET",
                 "h_*->f"}),
            "*6\r\n$1\r\n5\r\n$2\r\n-1\r\n$-1\r\n$1\r\n7\r\n$-1\r\n$-1\r\n");
  EXPECT_EQ(Run({"SORT", "ids", "LIMIT", "0", "2", "GET", "nokey", "GET", "#\0x"sv}),
            "*4\r\n$-1\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n");
}

TEST_F(SortCommandTest, MissingGetsAreNullsInResp3) {
  PutIds();
  session_.resp = 3;

  EXPECT_EQ(Run({"SORT", "ids", "LIMIT", "6", "2", "GET", "w_*"}), "*2\r\n_\r\n$1\r\n0\r\n");
}

// Sets and sorted sets

TEST_F(SortCommandTest, AnIntsetByConstantIsAscending) {
  Run({"SADD", "s", "5", "-3", "12", "0"});

  EXPECT_EQ(Run({"SORT", "s", "BY", "nosort"}), Array({"-3", "0", "5", "12"}));
  EXPECT_EQ(Run({"SORT", "s", "DESC"}), Array({"12", "5", "0", "-3"}));
}

TEST_F(SortCommandTest, ASetStoredOrScriptedIsSortedAnyway) {
  Run({"SADD", "s", "b", "c", "a", "10", "9"});

  EXPECT_EQ(Run({"SORT", "s", "BY", "nosort", "DESC", "LIMIT", "0", "3", "STORE", "out"}),
            ":3\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "-1"}), Array({"c", "b", "a"}));
  EXPECT_EQ(Run({"EVAL", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "s"}),
            Array({"10", "9", "a", "b", "c"}));
}

TEST_F(SortCommandTest, ASortedSetByConstantKeepsTheScoreOrder) {
  Run({"ZADD", "z", "1", "a", "5", "b", "2", "c", "10", "d", "3", "e"});

  EXPECT_EQ(Run({"SORT", "z", "BY", "nosort"}), Array({"a", "c", "e", "b", "d"}));
  EXPECT_EQ(Run({"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "0", "2"}), Array({"d", "b"}));
  EXPECT_EQ(Run({"SORT", "z", "BY", "nosort", "LIMIT", "1", "2"}), Array({"c", "e"}));
  EXPECT_EQ(Run({"SORT", "z", "ALPHA", "DESC"}), Array({"e", "d", "c", "b", "a"}));
}

TEST_F(SortCommandTest, ALargeSortedSetByConstantReadsTheRange) {
  Run({"EVAL", "for i = 1, 200 do redis.call('zadd', KEYS[1], i, 'm' .. i) end", "1", "z"});
  ASSERT_EQ(Run({"OBJECT", "ENCODING", "z"}), "$8\r\nskiplist\r\n");

  EXPECT_EQ(Run({"SORT", "z", "BY", "nosort", "LIMIT", "150", "2"}), Array({"m151", "m152"}));
  EXPECT_EQ(Run({"SORT", "z", "BY", "nosort", "DESC", "LIMIT", "198", "5"}), Array({"m2", "m1"}));
}

// STORE

TEST_F(SortCommandTest, StoreReplacesAnyTypeAndItsTtl) {
  Run({"RPUSH", "l", "3", "1", "2"});
  Run({"SET", "out", "v", "EX", "100"});

  EXPECT_EQ(Run({"SORT", "l", "STORE", "out"}), ":3\r\n");

  EXPECT_EQ(Run({"TYPE", "out"}), "+list\r\n");
  EXPECT_EQ(Run({"TTL", "out"}), ":-1\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "-1"}), Array({"1", "2", "3"}));
}

TEST_F(SortCommandTest, StoreOfGetsStoresEmptyStringsForMissingValues) {
  PutIds();

  EXPECT_EQ(Run({"SORT", "ids", "LIMIT", "0", "2", "GET", "#", "GET", "h_*->g", "GET", "x", "STORE",
                 "out"}),
            ":6\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "-1"}), Array({"1", "b", "", "2", "a", ""}));
}

TEST_F(SortCommandTest, AnEmptyResultDeletesTheDestination) {
  Run({"RPUSH", "l", "1"});
  Run({"HSET", "out", "f", "v"});

  EXPECT_EQ(Run({"SORT", "l", "LIMIT", "5", "5", "STORE", "out"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "out"}), ":0\r\n");
  EXPECT_EQ(Run({"SORT", "nokey", "STORE", "out"}), ":0\r\n");
}

TEST_F(SortCommandTest, AKeyCanBeItsOwnDestination) {
  Run({"RPUSH", "l", "3", "1", "2"});

  EXPECT_EQ(Run({"SORT", "l", "DESC", "GET", "#", "GET", "#", "STORE", "l"}), ":6\r\n");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), Array({"3", "3", "2", "2", "1", "1"}));
}

TEST_F(SortCommandTest, ALongResultIsStoredAsAList) {
  Run({"EVAL", "for i = 1, 300 do redis.call('rpush', KEYS[1], i) end", "1", "l"});

  EXPECT_EQ(Run({"SORT", "l", "DESC", "STORE", "out"}), ":300\r\n");

  EXPECT_EQ(Run({"LLEN", "out"}), ":300\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "1"}), Array({"300", "299"}));
  EXPECT_EQ(Run({"LINDEX", "out", "-1"}), BulkReply("1"));
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "out"}), "$9\r\nquicklist\r\n");
}

// Errors

TEST_F(SortCommandTest, OptionErrorsComeBeforeTheKeysType) {
  Run({"SET", "str", "v"});

  EXPECT_EQ(Run({"SORT", "str", "FOO"}), kSyntax);
  EXPECT_EQ(Run({"SORT", "str", "LIMIT", "1"}), kSyntax);
  EXPECT_EQ(Run({"SORT", "str", "BY"}), kSyntax);
  EXPECT_EQ(Run({"SORT", "str", "LIMIT", "x", "1"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SORT", "str", "LIMIT", "1", "1.5"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SORT", "str"}), kWrongType);
}

TEST_F(SortCommandTest, OtherTypesAreWrongType) {
  Run({"HSET", "h", "f", "v"});
  Run({"XADD", "x", "1-1", "f", "v"});

  EXPECT_EQ(Run({"SORT", "h"}), kWrongType);
  EXPECT_EQ(Run({"SORT_RO", "x", "BY", "nosort"}), kWrongType);
}

TEST_F(SortCommandTest, AMissingKeyIsEmpty) {
  EXPECT_EQ(Run({"SORT", "nokey", "GET", "#"}), "*0\r\n");
  EXPECT_EQ(Run({"SORT_RO", "nokey", "ALPHA"}), "*0\r\n");
}

TEST_F(SortCommandTest, SortRoHasNoStore) {
  Run({"RPUSH", "l", "2", "1"});

  EXPECT_EQ(Run({"SORT_RO", "l", "STORE", "out"}), kSyntax);
  EXPECT_EQ(Run({"SORT_RO", "l", "BY", "nosort", "GET", "#"}), Array({"2", "1"}));
}

// ACL

TEST_F(SortCommandTest, PatternsNeedReadAccessToEveryKey) {
  PutIds();
  Run({"ACL", "SETUSER", "some", "on", "nopass", "~ids", "~w_*", "+@all"});
  Run({"ACL", "SETUSER", "all", "on", "nopass", "%R~*", "+@all"});
  ASSERT_EQ(Run({"AUTH", "some", "x"}), "+OK\r\n");

  EXPECT_EQ(Run({"SORT", "ids", "BY", "w_*"}),
            "-ERR BY option of SORT denied due to insufficient ACL permissions.\r\n");
  EXPECT_EQ(Run({"SORT", "ids", "BY", "nosort", "GET", "#"}),
            "-ERR GET option of SORT denied due to insufficient ACL permissions.\r\n");
  EXPECT_EQ(Run({"SORT", "ids", "BY", "nosort", "LIMIT", "0", "1"}), Array({"1"}));

  ASSERT_EQ(Run({"AUTH", "all", "x"}), "+OK\r\n");
  EXPECT_EQ(Run({"SORT_RO", "ids", "BY", "w_*", "LIMIT", "0", "1", "GET", "#"}), Array({"5"}));
}

// Events and propagation

class FakeConnection final : public BlockedClientHost {
 public:
  std::string& reply_buffer() override { return out; }
  void Unblocked() override {}
  void ScheduleFlush() override {}
  std::string out;
};

class SortEventsTest : public SortCommandTest {
 protected:
  // A RESP2 subscriber to every key event, with every class of event on.
  void Subscribe() {
    subscriber_.id = state_.NewClientId();
    subscriber_.host = &connection_;
    Run({"CONFIG", "SET", "notify-keyspace-events", "KEAmn"});
    const std::string_view args[] = {"PSUBSCRIBE", "__keyevent@0__:*"};
    protocol::ReplyWriter writer(&connection_.out, 2);
    Dispatch(state_, subscriber_, args, writer);
    connection_.out.clear();
  }
  // The events received since the last call, as "event key".
  std::vector<std::string> Events() {
    std::vector<std::string> events;
    std::string_view rest = connection_.out;
    constexpr std::string_view kPrefix = "__keyevent@0__:";
    while (!rest.empty()) {
      protocol::Reply message;  // pmessage, pattern, channel, key
      const std::optional<std::size_t> used = protocol::ReadReply(rest, message);
      if (!used.has_value() || message.elements.size() != 4) break;
      events.push_back(std::string(message.elements[2].text.substr(kPrefix.size())) + " " +
                       std::string(message.elements[3].text));
      rest.remove_prefix(*used);
    }
    connection_.out.clear();
    return events;
  }

  Session subscriber_;
  FakeConnection connection_;
};

TEST_F(SortEventsTest, StorePublishesNewThenSortstore) {
  Run({"RPUSH", "l", "1"});
  Subscribe();

  Run({"SORT", "l", "STORE", "out"});
  EXPECT_EQ(Events(), (std::vector<std::string>{"new out", "sortstore out"}));
  Run({"SORT", "l", "STORE", "out"});
  EXPECT_EQ(Events(), (std::vector<std::string>{"sortstore out"}));
}

TEST_F(SortEventsTest, AnEmptyResultPublishesDelOnlyWhenItDeleted) {
  Run({"RPUSH", "out", "1"});
  Subscribe();

  Run({"SORT", "nokey", "STORE", "out"});
  EXPECT_EQ(Events(), (std::vector<std::string>{"keymiss nokey", "del out"}));
  Run({"SORT", "nokey", "STORE", "out"});
  EXPECT_EQ(Events(), (std::vector<std::string>{"keymiss nokey"}));
}

TEST_F(SortEventsTest, MissingPatternKeysPublishKeymiss) {
  Run({"RPUSH", "l", "1", "2"});
  Run({"SET", "w_2", "5"});
  Subscribe();

  Run({"SORT", "l", "BY", "w_*", "GET", "x_*", "GET", "nokey", "GET", "#"});
  EXPECT_EQ(Events(), (std::vector<std::string>{"keymiss w_1", "keymiss x_1", "keymiss x_2"}));
}

TEST_F(SortEventsTest, AStoreWakesAClientBlockedOnTheDestination) {
  Run({"RPUSH", "l", "2", "1"});
  Session waiter;
  waiter.id = state_.NewClientId();
  waiter.host = &connection_;
  const std::string_view blpop[] = {"BLPOP", "out", "0"};
  protocol::ReplyWriter writer(&connection_.out, 2);
  Dispatch(state_, waiter, blpop, writer);
  ASSERT_TRUE(waiter.blocked);

  EXPECT_EQ(Run({"SORT", "l", "STORE", "out"}), ":2\r\n");

  EXPECT_EQ(connection_.out, "*2\r\n$3\r\nout\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"LRANGE", "out", "0", "-1"}), Array({"2"}));
}

class SortPropagationTest : public SortCommandTest {};

TEST_F(SortPropagationTest, OnlyAStoreThatChangedSomethingIsFed) {
  Run({"RPUSH", "l", "2", "1"});
  StartFeeding();

  Run({"SORT", "l"});
  Run({"SORT", "nokey", "STORE", "out"});
  Run({"SORT", "l", "STORE", "out"});

  EXPECT_EQ(FedStream(),
            EncodeCommand({"SELECT", "0"}) + EncodeCommand({"SORT", "l", "STORE", "out"}));
}

}  // namespace
}  // namespace warden::server
