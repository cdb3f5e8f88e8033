// Replication's command layer without sockets: ROLE, WAIT, REPLCONF and INFO replication on a
// lone master, and the stream the propagation feeds once there is a backlog (Redis 7.0's
// bytes: SELECT when the database changes, relative deadlines as absolute ones, a script's
// effects wrapped in MULTI/EXEC, PUBLISH), counted into master_repl_offset.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/persistence/aof.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ReplicationCommandsTest : public CommandTest {};

TEST_F(ReplicationCommandsTest, ALoneMasterHasNoReplicasToWaitFor) {
  EXPECT_EQ(Run({"ROLE"}), "*3\r\n$6\r\nmaster\r\n:0\r\n*0\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "1", "100"}), ":0\r\n");  // no loop here: it cannot block
  EXPECT_EQ(Run({"REPLCONF", "listening-port"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"REPLCONF", "listening-port", "6380", "capa", "eof"}), "+OK\r\n");
  EXPECT_EQ(Run({"REPLCONF", "nope", "1"}), "-ERR Unrecognized REPLCONF option: nope\r\n");
  EXPECT_EQ(Run({"REPLCONF", "rdb-only", "2"}),
            "-ERR value is out of range, value must between 0 and 1\r\n");
  EXPECT_EQ(Run({"REPLICAOF", "localhost", "65536"}), "-ERR Invalid master port\r\n");
  EXPECT_EQ(Run({"REPLICAOF", "NO", "ONE"}), "+OK\r\n");
  EXPECT_EQ(Run({"FAILOVER"}), "-ERR FAILOVER requires connected replicas.\r\n");
}

TEST_F(ReplicationCommandsTest, InfoReplicationOfALoneMaster) {
  std::string info = Run({"INFO", "replication"});
  const std::string id = state_.replication.replid();
  ASSERT_EQ(id.size(), 40u);
  const std::string text =
      "# Replication\r\n"
      "role:master\r\n"
      "connected_slaves:0\r\n"
      "master_failover_state:no-failover\r\n"
      "master_replid:" +
      id +
      "\r\n"
      "master_replid2:0000000000000000000000000000000000000000\r\n"
      "master_repl_offset:0\r\n"
      "second_repl_offset:-1\r\n"
      "repl_backlog_active:0\r\n"
      "repl_backlog_size:1048576\r\n"
      "repl_backlog_first_byte_offset:0\r\n"
      "repl_backlog_histlen:0\r\n";
  EXPECT_EQ(info, "$" + std::to_string(text.size()) + "\r\n" + text + "\r\n");
  Run({"CONFIG", "SET", "min-replicas-to-write", "1"});
  EXPECT_NE(Run({"INFO", "replication"}).find("\r\nmin_slaves_good_slaves:0\r\n"),
            std::string::npos);
  EXPECT_EQ(Run({"SET", "k", "v"}), "-NOREPLICAS Not enough good replicas to write.\r\n");
}

TEST_F(ReplicationCommandsTest, NothingIsFedWithoutABacklog) {
  EXPECT_FALSE(state_.propagation.active());
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(state_.replication.master_repl_offset(), 0);
}

TEST_F(ReplicationCommandsTest, TheStreamIsWhatRedisPropagates) {
  StartFeeding();
  EXPECT_TRUE(state_.propagation.active());
  EXPECT_EQ(Run({"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");  // reads are not fed
  EXPECT_EQ(Run({"SET", "lease", "t", "PX", "30000"}), "+OK\r\n");
  const std::string deadline = std::to_string(now_ms() + 30000);
  EXPECT_EQ(
      Run({"EVAL", "redis.call('incr', KEYS[1]); return redis.call('incr', KEYS[1])", "1", "n"}),
      ":2\r\n");
  EXPECT_EQ(Run({"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(Run({"PUBLISH", "ch", "hello"}), ":0\r\n");
  const std::string want =
      EncodeCommand({"SELECT", "0"}) + EncodeCommand({"SET", "k", "v"}) +
      EncodeCommand({"SET", "lease", "t", "PXAT", deadline}) + EncodeCommand({"MULTI"}) +
      EncodeCommand({"incr", "n"}) + EncodeCommand({"incr", "n"}) + EncodeCommand({"EXEC"}) +
      EncodeCommand({"SELECT", "3"}) + EncodeCommand({"PUBLISH", "ch", "hello"});
  EXPECT_EQ(FedStream(), want);
  EXPECT_EQ(state_.replication.master_repl_offset(), 100 + static_cast<std::int64_t>(want.size()));
  const std::string info = Run({"INFO", "replication"});
  EXPECT_NE(info.find("\r\nmaster_repl_offset:" + std::to_string(100 + want.size()) + "\r\n"),
            std::string::npos);
  EXPECT_NE(info.find("\r\nrepl_backlog_first_byte_offset:101\r\n"), std::string::npos);
  EXPECT_NE(info.find("\r\nrepl_backlog_histlen:" + std::to_string(want.size()) + "\r\n"),
            std::string::npos);
}

TEST_F(ReplicationCommandsTest, AKeyExpiredOnTheMasterIsFedAsADel) {
  StartFeeding();
  EXPECT_EQ(Run({"SET", "k", "v", "PX", "10"}), "+OK\r\n");
  clock_.AdvanceMs(20);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  const std::string deadline = std::to_string(now_ms() - 10);
  EXPECT_EQ(FedStream(), EncodeCommand({"SELECT", "0"}) +
                             EncodeCommand({"SET", "k", "v", "PXAT", deadline}) +
                             EncodeCommand({"DEL", "k"}));
}

// Redis 7.0's setGenericCommand writes any deadline as SET key value PXAT ms alone: a PXAT the
// client gave is rewritten too, and its NX and GET dropped (Redis's tests/unit/expire.tcl).
TEST_F(ReplicationCommandsTest, ASetWithADeadlineIsFedAsSetPxatAlone) {
  StartFeeding();
  const std::string at = std::to_string(now_ms() + 5000);
  EXPECT_EQ(Run({"set", "k", "v", "pxat", at, "NX", "GET"}), "$-1\r\n");
  EXPECT_EQ(Run({"set", "k", "w", "pxat", at}), "+OK\r\n");
  EXPECT_EQ(FedStream(), EncodeCommand({"SELECT", "0"}) +
                             EncodeCommand({"SET", "k", "v", "PXAT", at}) +
                             EncodeCommand({"SET", "k", "w", "PXAT", at}));
}

// Keys a command finds expired are fed as DELs at once, before the command's own effects and
// outside their MULTI/EXEC, as Redis 7.0's propagateNow (tests/unit/expire.tcl: "SCAN:
// Lazy-expire should not be wrapped in MULTI/EXEC").
TEST_F(ReplicationCommandsTest, LazyExpiriesAreFedAtOnceAndNeverWrapped) {
  EXPECT_EQ(Run({"SET", "a", "1", "PX", "10"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "b", "2", "PX", "10"}), "+OK\r\n");
  clock_.AdvanceMs(20);
  StartFeeding();
  EXPECT_EQ(Run({"EVAL",
                 "redis.call('del', 'a'); redis.call('del', 'b'); "
                 "redis.call('set', 'c', 1); return redis.call('set', 'd', 1)",
                 "0"}),
            "+OK\r\n");
  EXPECT_EQ(FedStream(), EncodeCommand({"SELECT", "0"}) + EncodeCommand({"DEL", "a"}) +
                             EncodeCommand({"DEL", "b"}) + EncodeCommand({"MULTI"}) +
                             EncodeCommand({"set", "c", "1"}) + EncodeCommand({"set", "d", "1"}) +
                             EncodeCommand({"EXEC"}));
}

}  // namespace
}  // namespace warden::server
