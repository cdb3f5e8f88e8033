// The sixteen databases through the dispatcher, checked against redis-server 7.0.15: SELECT,
// FLUSHDB against FLUSHALL, DBSIZE and INFO keyspace per database, SWAPDB as the selected
// client sees it, and scripts running in their caller's database.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class DatabaseCommandsTest : public CommandTest {
 protected:
  // Sets `key` to `value` in database `db` and goes back to database 0.
  void PutIn(std::string_view db, std::string_view key, std::string_view value) {
    Run({"SELECT", db});
    Run({"SET", key, value});
    Run({"SELECT", "0"});
  }
};

TEST_F(DatabaseCommandsTest, SelectSwitchesDatabase) {
  Run({"SET", "k", "zero"});

  EXPECT_EQ(Run({"SELECT", "1"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  Run({"SET", "k", "one"});
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"GET", "k"}), "$4\r\nzero\r\n");
}

TEST_F(DatabaseCommandsTest, SelectOfLastDatabase) {
  EXPECT_EQ(Run({"SELECT", "15"}), "+OK\r\n");
  EXPECT_EQ(session_.db, 15);
}

TEST_F(DatabaseCommandsTest, SelectErrors) {
  EXPECT_EQ(Run({"SELECT", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "-1"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "x"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "99999999999"}),
            "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
  EXPECT_EQ(session_.db, 0);
}

TEST_F(DatabaseCommandsTest, ConfigGetDatabasesIsSixteen) {
  EXPECT_EQ(Run({"CONFIG", "GET", "databases"}), "*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n");
}

TEST_F(DatabaseCommandsTest, ResetGoesBackToDatabaseZero) {
  Run({"SET", "k", "zero"});
  Run({"SELECT", "5"});

  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$4\r\nzero\r\n");
}

TEST_F(DatabaseCommandsTest, DbsizeCountsSelectedDatabase) {
  Run({"SET", "a", "1"});
  PutIn("4", "b", "2");
  PutIn("4", "c", "3");

  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  Run({"SELECT", "4"});
  EXPECT_EQ(Run({"DBSIZE"}), ":2\r\n");
}

TEST_F(DatabaseCommandsTest, KeysAndScanSeeOnlySelectedDatabase) {
  Run({"SET", "a", "1"});
  PutIn("1", "b", "2");

  EXPECT_EQ(Run({"KEYS", "*"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(Run({"SCAN", "0"}), "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n");
}

TEST_F(DatabaseCommandsTest, DelAndExistsSeeOnlySelectedDatabase) {
  PutIn("1", "k", "v");

  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
  EXPECT_EQ(Run({"DEL", "k"}), ":0\r\n");
  Run({"SELECT", "1"});
  EXPECT_EQ(Run({"EXISTS", "k"}), ":1\r\n");
}

TEST_F(DatabaseCommandsTest, TtlsAreKeptPerDatabase) {
  Run({"SET", "k", "v", "PX", "1000"});
  Run({"SELECT", "1"});
  Run({"SET", "k", "v", "PX", "5000"});

  clock_.AdvanceMs(1001);

  EXPECT_EQ(Run({"PTTL", "k"}), ":3999\r\n");
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(DatabaseCommandsTest, FlushdbEmptiesOnlySelectedDatabase) {
  Run({"SET", "a", "1"});
  PutIn("1", "b", "2");
  Run({"SELECT", "1"});

  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");

  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"GET", "a"}), "$1\r\n1\r\n");
}

TEST_F(DatabaseCommandsTest, FlushallEmptiesEveryDatabase) {
  Run({"SET", "a", "1"});
  PutIn("1", "b", "2");
  PutIn("15", "c", "3");

  EXPECT_EQ(Run({"FLUSHALL"}), "+OK\r\n");

  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(state_.dbs.total_keys(), 0u);
}

TEST_F(DatabaseCommandsTest, FlushdbAsyncAndSync) {
  Run({"SET", "a", "1"});

  EXPECT_EQ(Run({"FLUSHDB", "ASYNC"}), "+OK\r\n");
  Run({"SET", "a", "1"});
  EXPECT_EQ(Run({"FLUSHDB", "sync"}), "+OK\r\n");
  EXPECT_EQ(Run({"FLUSHDB", "other"}), "-ERR syntax error\r\n");
}

TEST_F(DatabaseCommandsTest, LargeFlushdbEmptiesAtOnceAndIsReclaimedLater) {
  Run({"SELECT", "2"});
  for (int i = 0; i < 5000; ++i) Run({"SET", "key:" + std::to_string(i), "v"});

  EXPECT_EQ(Run({"FLUSHDB"}), "+OK\r\n");

  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "key:1"}), "$-1\r\n");
  EXPECT_FALSE(state_.dbs.reclaimer().idle());
}

// INFO's lazyfreed_objects counts from the last CONFIG RESETSTAT, as Redis's lazyfreeResetStats
// (tests/unit/lazyfree.tcl).
TEST_F(DatabaseCommandsTest, LazyfreedObjectsCountSinceResetstat) {
  for (int i = 0; i < 200; ++i) Run({"SADD", "big", "member:" + std::to_string(i)});
  EXPECT_EQ(Run({"UNLINK", "big"}), ":1\r\n");
  state_.dbs.reclaimer().Drain();
  EXPECT_NE(Run({"INFO", "memory"}).find("\r\nlazyfreed_objects:1\r\n"), std::string::npos);

  EXPECT_EQ(Run({"CONFIG", "RESETSTAT"}), "+OK\r\n");

  EXPECT_NE(Run({"INFO", "memory"}).find("\r\nlazyfreed_objects:0\r\n"), std::string::npos);
}

TEST_F(DatabaseCommandsTest, InfoKeyspaceHasALinePerNonEmptyDatabase) {
  Run({"SET", "a", "1"});
  PutIn("3", "b", "2");
  Run({"SELECT", "3"});
  Run({"SET", "c", "3", "PX", "100000"});

  EXPECT_EQ(Run({"INFO", "keyspace"}), BulkReply("# Keyspace\r\n"
                                                 "db0:keys=1,expires=0,avg_ttl=0\r\n"
                                                 "db3:keys=2,expires=1,avg_ttl=0\r\n"));
}

TEST_F(DatabaseCommandsTest, InfoKeyspaceLeavesOutEmptiedDatabase) {
  PutIn("3", "b", "2");
  Run({"SET", "a", "1"});
  Run({"SELECT", "3"});
  Run({"FLUSHDB"});

  EXPECT_EQ(Run({"INFO", "keyspace"}),
            BulkReply("# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"));
}

TEST_F(DatabaseCommandsTest, SwapdbIsSeenByTheSelectedClient) {
  Run({"SET", "k", "zero"});
  PutIn("1", "k", "one");

  Run({"SWAPDB", "0", "1"});

  EXPECT_EQ(Run({"GET", "k"}), "$3\r\none\r\n");
  Run({"SELECT", "1"});
  EXPECT_EQ(Run({"GET", "k"}), "$4\r\nzero\r\n");
}

TEST_F(DatabaseCommandsTest, SwapdbCarriesTtls) {
  Run({"SET", "k", "v", "PX", "30000"});

  Run({"SWAPDB", "0", "7"});

  Run({"SELECT", "7"});
  EXPECT_EQ(Run({"PTTL", "k"}), ":30000\r\n");
}

TEST_F(DatabaseCommandsTest, InfoKeyspaceFollowsSwapdb) {
  Run({"SET", "a", "1"});

  Run({"SWAPDB", "0", "9"});

  EXPECT_EQ(Run({"INFO", "keyspace"}),
            BulkReply("# Keyspace\r\ndb9:keys=1,expires=0,avg_ttl=0\r\n"));
}

TEST_F(DatabaseCommandsTest, ScriptRunsInCallersDatabase) {
  Run({"SET", "k", "zero"});
  PutIn("2", "k", "two");
  Run({"SELECT", "2"});

  EXPECT_EQ(Run({"EVAL", "return redis.call('get', KEYS[1])", "1", "k"}), "$3\r\ntwo\r\n");
}

TEST_F(DatabaseCommandsTest, ScriptWritesGoToCallersDatabase) {
  Run({"SELECT", "4"});

  Run({"EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "k"});

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

// Since Redis 7.0 a script's SELECT changes only the script's database.
TEST_F(DatabaseCommandsTest, SelectInScriptDoesNotChangeCallersDatabase) {
  Run({"EVAL", "redis.call('select', 3); return redis.call('set', KEYS[1], 'y')", "1", "x"});

  EXPECT_EQ(Run({"GET", "x"}), "$-1\r\n");
  EXPECT_EQ(session_.db, 0);
  Run({"SELECT", "3"});
  EXPECT_EQ(Run({"GET", "x"}), "$1\r\ny\r\n");
}

TEST_F(DatabaseCommandsTest, SelectInScriptOfMissingDatabaseFails) {
  EXPECT_EQ(Run({"EVAL", "return redis.pcall('select', 16)", "0"}),
            "-ERR DB index is out of range\r\n");
}

TEST_F(DatabaseCommandsTest, NextScriptStartsInCallersDatabaseAgain) {
  Run({"SET", "k", "zero"});
  PutIn("3", "k", "three");
  Run({"EVAL", "return redis.call('select', 3)", "0"});

  EXPECT_EQ(Run({"EVAL", "return redis.call('get', 'k')", "0"}), "$4\r\nzero\r\n");
}

TEST_F(DatabaseCommandsTest, ClientListShowsSelectedDatabase) {
  Run({"SELECT", "6"});

  EXPECT_NE(Run({"CLIENT", "INFO"}).find(" db=6 "), std::string::npos);
}

}  // namespace
}  // namespace warden::server
