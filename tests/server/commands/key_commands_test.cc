// DEL, EXISTS, TYPE, KEYS, SCAN, RANDOMKEY, DBSIZE, FLUSHDB and FLUSHALL through the dispatcher
// (Redis 7.0's db.c, tests/unit/keyspace.tcl and scan.tcl).
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_reader.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using namespace std::string_view_literals;

// The keys of a KEYS reply, or of the key array of a SCAN reply.
std::multiset<std::string> KeysIn(const std::string& reply) {
  protocol::Reply parsed;
  const std::optional<std::size_t> n = protocol::ReadReply(reply, parsed);
  EXPECT_EQ(n, std::optional<std::size_t>(reply.size())) << reply;
  const protocol::Reply* array = &parsed;
  if (parsed.elements.size() == 2 && parsed.elements[1].type == protocol::ReplyType::kArray) {
    array = &parsed.elements[1];
  }
  std::multiset<std::string> keys;
  for (const protocol::Reply& e : array->elements) keys.emplace(e.text);
  return keys;
}

// The cursor of a SCAN reply.
std::string CursorOf(const std::string& reply) {
  protocol::Reply parsed;
  protocol::ReadReply(reply, parsed);
  return parsed.elements.empty() ? "" : std::string(parsed.elements[0].text);
}

class KeyCommandsTest : public CommandTest {
 protected:
  void PutKeys(std::string_view prefix, int n) {
    for (int i = 0; i < n; ++i) Run({"SET", std::string(prefix) + std::to_string(i), "v"});
  }
};

TEST_F(KeyCommandsTest, DelCountsEachKeyOnce) {
  Run({"SET", "foo", "1"});

  EXPECT_EQ(Run({"DEL", "foo", "foo", "nokey"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "foo"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, ExistsCountsDuplicates) {
  Run({"SET", "foo", "1"});

  EXPECT_EQ(Run({"EXISTS", "foo", "foo", "nokey"}), ":2\r\n");
}

TEST_F(KeyCommandsTest, UnlinkIsDel) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "1"});

  EXPECT_EQ(Run({"UNLINK", "a", "b", "a", "c"}), ":2\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, DelOfExpiredKeyIsZero) {
  Run({"SET", "b", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"DEL", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, ExistsOfExpiredKeyIsZero) {
  Run({"SET", "b", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"EXISTS", "b", "b"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, DelAndExistsArity) {
  EXPECT_EQ(Run({"DEL"}), "-ERR wrong number of arguments for 'del' command\r\n");
  EXPECT_EQ(Run({"EXISTS"}), "-ERR wrong number of arguments for 'exists' command\r\n");
  EXPECT_EQ(Run({"UNLINK"}), "-ERR wrong number of arguments for 'unlink' command\r\n");
}

TEST_F(KeyCommandsTest, TypeOfString) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"TYPE", "a"}), "+string\r\n");
}

TEST_F(KeyCommandsTest, TypeOfMissingOrExpiredKeyIsNone) {
  Run({"SET", "b", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"TYPE", "a"}), "+none\r\n");
  EXPECT_EQ(Run({"TYPE", "b"}), "+none\r\n");
}

TEST_F(KeyCommandsTest, KeysMatchesPattern) {
  for (const char* key : {"k1", "k2", "k10", "other"}) Run({"SET", key, "v"});

  EXPECT_EQ(KeysIn(Run({"KEYS", "k*"})), (std::multiset<std::string>{"k1", "k2", "k10"}));
  EXPECT_EQ(Run({"KEYS", "k1?"}), "*1\r\n$3\r\nk10\r\n");
  EXPECT_EQ(Run({"KEYS", "nomatch*"}), "*0\r\n");
}

TEST_F(KeyCommandsTest, KeysStarListsEveryKeyIncludingEmptyOne) {
  Run({"SET", "", "v"});
  Run({"SET", "a", "v"});

  EXPECT_EQ(KeysIn(Run({"KEYS", "*"})), (std::multiset<std::string>{"", "a"}));
}

TEST_F(KeyCommandsTest, KeysEmptyPatternMatchesOnlyEmptyKey) {
  Run({"SET", "a", "v"});
  EXPECT_EQ(Run({"KEYS", ""}), "*0\r\n");

  Run({"SET", "", "v"});
  EXPECT_EQ(Run({"KEYS", ""}), "*1\r\n$0\r\n\r\n");
}

TEST_F(KeyCommandsTest, KeysSkipsExpiredKeysWithoutDeleting) {
  for (const char* key : {"a", "b", "c"}) Run({"SET", key, "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"DBSIZE"}), ":3\r\n");
  EXPECT_EQ(Run({"KEYS", "*"}), "*0\r\n");
  EXPECT_EQ(Run({"KEYS", "a"}), "*0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":3\r\n");
}

TEST_F(KeyCommandsTest, LazyExpiryTranscript) {
  for (const char* key : {"a", "b", "c"}) Run({"SET", key, "1", "PX", "1"});
  clock_.AdvanceMs(10);

  EXPECT_EQ(Run({"DBSIZE"}), ":3\r\n");
  EXPECT_EQ(Run({"EXPIRE", "a", "100"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  EXPECT_EQ(Run({"DEL", "b"}), ":0\r\n");
  EXPECT_EQ(Run({"SET", "c", "2", "GET"}), "$-1\r\n");
  EXPECT_EQ(Run({"TTL", "c"}), ":-1\r\n");
}

TEST_F(KeyCommandsTest, KeysArity) {
  EXPECT_EQ(Run({"KEYS"}), "-ERR wrong number of arguments for 'keys' command\r\n");
}

// SCAN.

TEST_F(KeyCommandsTest, ScanOfEmptyKeyspace) {
  EXPECT_EQ(Run({"SCAN", "0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(KeyCommandsTest, ScanWithLargeCountReturnsEverythingAndCursorZero) {
  PutKeys("k", 20);

  const std::string reply = Run({"SCAN", "0", "COUNT", "100"});

  EXPECT_EQ(CursorOf(reply), "0");
  EXPECT_EQ(KeysIn(reply).size(), 20u);
}

TEST_F(KeyCommandsTest, ScanFullIterationReturnsEveryKey) {
  PutKeys("k", 100);
  std::multiset<std::string> seen;
  std::string cursor = "0";
  int calls = 0;

  do {
    const std::string reply = Run({"SCAN", cursor, "COUNT", "7"});
    for (const std::string& k : KeysIn(reply)) seen.insert(k);
    cursor = CursorOf(reply);
  } while (cursor != "0" && ++calls < 1000);

  EXPECT_EQ(cursor, "0");
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 100u);
}

TEST_F(KeyCommandsTest, ScanDefaultCountStopsEarly) {
  PutKeys("k", 100);

  const std::string reply = Run({"SCAN", "0"});

  EXPECT_NE(CursorOf(reply), "0");
  EXPECT_GE(KeysIn(reply).size(), 10u);
}

TEST_F(KeyCommandsTest, ScanMatchFilters) {
  for (const char* key : {"k1", "k2", "k10", "other"}) Run({"SET", key, "v"});

  const std::string reply = Run({"SCAN", "0", "MATCH", "k*", "COUNT", "1000"});

  EXPECT_EQ(CursorOf(reply), "0");
  EXPECT_EQ(KeysIn(reply), (std::multiset<std::string>{"k1", "k2", "k10"}));
}

TEST_F(KeyCommandsTest, ScanTypeStringIsCaseInsensitive) {
  for (const char* key : {"k1", "k2", "k10"}) Run({"SET", key, "v"});

  const std::string reply = Run({"SCAN", "0", "TYPE", "STRING", "COUNT", "1000", "MATCH", "k*"});

  EXPECT_EQ(KeysIn(reply), (std::multiset<std::string>{"k1", "k2", "k10"}));
}

TEST_F(KeyCommandsTest, ScanOtherTypeReturnsNothing) {
  PutKeys("k", 5);

  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "list", "COUNT", "1000"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(KeyCommandsTest, ScanUnknownTypeIsNotAnError) {
  PutKeys("k", 5);

  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "nosuchtype", "COUNT", "1000"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(KeyCommandsTest, ScanRemovesExpiredKeys) {
  Run({"SET", "a", "1", "PX", "1"});
  Run({"SET", "b", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"SCAN", "0", "COUNT", "100"}), "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nb\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

// Redis's TYPE filter looks each key up, which removes it if it has expired, even when the type
// does not match (checked against redis-server 7.0.15).
TEST_F(KeyCommandsTest, ScanTypeFilterRemovesExpiredKeys) {
  Run({"SET", "a", "1", "PX", "1"});
  Run({"SET", "b", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "list"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, ScanMatchFilterKeepsNonMatchingExpiredKeys) {
  Run({"SET", "a", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"SCAN", "0", "MATCH", "z*"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(KeyCommandsTest, ScanCursorQuirksOfStrtoul) {
  EXPECT_EQ(Run({"SCAN", "+5"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"SCAN", "-1"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"SCAN", ""}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(KeyCommandsTest, ScanEmptyCursorStartsAtZero) {
  PutKeys("k", 3);

  EXPECT_EQ(Run({"SCAN", "", "COUNT", "100"}), Run({"SCAN", "0", "COUNT", "100"}));
}

struct ScanErrorCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
};

const ScanErrorCase kScanErrors[] = {
    {"TextCursor", {"SCAN", "abc"}, "-ERR invalid cursor\r\n"},
    {"LeadingBlank", {"SCAN", " 1"}, "-ERR invalid cursor\r\n"},
    {"LeadingTab", {"SCAN", "\t1"}, "-ERR invalid cursor\r\n"},
    {"TrailingGarbage", {"SCAN", "1x"}, "-ERR invalid cursor\r\n"},
    {"Overflow", {"SCAN", "18446744073709551616"}, "-ERR invalid cursor\r\n"},
    {"CountZero", {"SCAN", "0", "COUNT", "0"}, "-ERR syntax error\r\n"},
    {"CountNegative", {"SCAN", "0", "COUNT", "-1"}, "-ERR syntax error\r\n"},
    {"CountText",
     {"SCAN", "0", "COUNT", "abc"},
     "-ERR value is not an integer or out of range\r\n"},
    {"CountFraction",
     {"SCAN", "0", "count", "1.5"},
     "-ERR value is not an integer or out of range\r\n"},
    {"CountOverflow",
     {"SCAN", "0", "COUNT", "9223372036854775808"},
     "-ERR value is not an integer or out of range\r\n"},
    {"CountWithoutValue", {"SCAN", "0", "COUNT"}, "-ERR syntax error\r\n"},
    {"MatchWithoutValue", {"SCAN", "0", "MATCH"}, "-ERR syntax error\r\n"},
    {"TypeWithoutValue", {"SCAN", "0", "type"}, "-ERR syntax error\r\n"},
    {"ValueMissingAfterOptions", {"SCAN", "0", "COUNT", "1", "MATCH"}, "-ERR syntax error\r\n"},
    {"UnknownOption", {"SCAN", "0", "FOO", "bar"}, "-ERR syntax error\r\n"},
    {"CursorBeforeOptions", {"SCAN", "abc", "FOO", "bar"}, "-ERR invalid cursor\r\n"},
    {"Arity", {"SCAN"}, "-ERR wrong number of arguments for 'scan' command\r\n"},
};

class ScanErrorTest : public CommandTest, public ::testing::WithParamInterface<ScanErrorCase> {};

TEST_P(ScanErrorTest, RepliesError) { EXPECT_EQ(RunView(GetParam().args), GetParam().reply); }

INSTANTIATE_TEST_SUITE_P(Table, ScanErrorTest, ::testing::ValuesIn(kScanErrors),
                         [](const ::testing::TestParamInfo<ScanErrorCase>& info) {
                           return std::string(info.param.name);
                         });

// RANDOMKEY, DBSIZE, FLUSHDB, FLUSHALL.

TEST_F(KeyCommandsTest, RandomkeyOfEmptyKeyspaceIsNull) {
  EXPECT_EQ(Run({"RANDOMKEY"}), "$-1\r\n");
}

TEST_F(KeyCommandsTest, RandomkeyReturnsTheOnlyKey) {
  Run({"SET", "only", "v"});

  EXPECT_EQ(Run({"RANDOMKEY"}), "$4\r\nonly\r\n");
}

TEST_F(KeyCommandsTest, RandomkeyReturnsNullWhenAllExpired) {
  PutKeys("k", 10);
  for (int i = 0; i < 10; ++i) Run({"PEXPIRE", "k" + std::to_string(i), "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"RANDOMKEY"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(KeyCommandsTest, RandomkeySkipsExpiredKeys) {
  PutKeys("k", 10);
  for (int i = 0; i < 10; ++i) Run({"PEXPIRE", "k" + std::to_string(i), "1"});
  Run({"SET", "live", "v"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"RANDOMKEY"}), "$4\r\nlive\r\n");
}

TEST_F(KeyCommandsTest, RandomkeyArity) {
  EXPECT_EQ(Run({"RANDOMKEY", "x"}), "-ERR wrong number of arguments for 'randomkey' command\r\n");
}

TEST_F(KeyCommandsTest, DbsizeCountsExpiredKeysUntilTouched) {
  Run({"SET", "a", "1"});
  Run({"SET", "f", "1", "PX", "1"});
  clock_.AdvanceMs(2);

  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
  EXPECT_EQ(Run({"GET", "f"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(KeyCommandsTest, DbsizeArity) {
  EXPECT_EQ(Run({"DBSIZE", "x"}), "-ERR wrong number of arguments for 'dbsize' command\r\n");
}

struct FlushCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
  int keys_left;
};

const FlushCase kFlushCases[] = {
    {"Flushdb", {"FLUSHDB"}, "+OK\r\n", 0},
    {"FlushdbAsync", {"FLUSHDB", "ASYNC"}, "+OK\r\n", 0},
    {"FlushdbSyncLowerCase", {"flushdb", "sync"}, "+OK\r\n", 0},
    {"Flushall", {"FLUSHALL"}, "+OK\r\n", 0},
    {"FlushallSync", {"FLUSHALL", "SYNC"}, "+OK\r\n", 0},
    {"FlushallAsync", {"FLUSHALL", "async"}, "+OK\r\n", 0},
    {"FlushdbUnknownArgument", {"FLUSHDB", "x"}, "-ERR syntax error\r\n", 3},
    {"FlushdbTwoArguments", {"FLUSHDB", "ASYNC", "x"}, "-ERR syntax error\r\n", 3},
    {"FlushallUnknownArgument", {"FLUSHALL", "now"}, "-ERR syntax error\r\n", 3},
};

class FlushTest : public CommandTest, public ::testing::WithParamInterface<FlushCase> {};

TEST_P(FlushTest, EmptiesOnlyOnValidArguments) {
  Run({"SET", "a", "1"});
  Run({"SET", "b", "1", "EX", "100"});
  Run({"SET", "c", "1"});

  EXPECT_EQ(RunView(GetParam().args), GetParam().reply);

  EXPECT_EQ(Run({"DBSIZE"}), ":" + std::to_string(GetParam().keys_left) + "\r\n");
}

INSTANTIATE_TEST_SUITE_P(Table, FlushTest, ::testing::ValuesIn(kFlushCases),
                         [](const ::testing::TestParamInfo<FlushCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(KeyCommandsTest, KeyspaceWorksAfterFlush) {
  PutKeys("k", 10);
  Run({"FLUSHALL"});

  EXPECT_EQ(Run({"SET", "k1", "v", "NX"}), "+OK\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

}  // namespace
}  // namespace warden::server

namespace warden::server {
namespace {

// Redis 7.0's type filter looks an expired key up, which removes it, and then reads its type as
// "none": so SCAN ... TYPE none returns the expired keys it removes, once.
class ScanTypeNoneTest : public CommandTest {};

TEST_F(ScanTypeNoneTest, ReturnsExpiredKeysItRemoves) {
  ASSERT_EQ(Run({"SET", "lock:a", "tok", "PX", "20"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "live", "v"}), "+OK\r\n");
  clock_.AdvanceMs(50);

  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "none", "COUNT", "100"}),
            "*2\r\n$1\r\n0\r\n*1\r\n$6\r\nlock:a\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"SCAN", "0", "TYPE", "none", "COUNT", "100"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

}  // namespace
}  // namespace warden::server
