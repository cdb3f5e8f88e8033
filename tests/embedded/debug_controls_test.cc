// The DEBUG test-double controls through a real socket: the clock, active expiry on demand and
// the faults a lock client's retry and lock-lost paths need.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "resp_client.h"
#include "server/embedded_server.h"

namespace warden {
namespace {

using testing::ReadStatus;
using testing::RespClient;

class DebugControlsTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({"--enable-debug-command", "yes"}); }

  void StartServer(const std::vector<std::string>& options) {
    std::string error;
    server_ = EmbeddedServer::Start(options, &error);
    ASSERT_NE(server_, nullptr) << error;
    client_.emplace(Connect());
  }

  RespClient Connect() {
    auto client = RespClient::Connect(static_cast<std::uint16_t>(server_->port()));
    EXPECT_TRUE(client.has_value());
    return std::move(*client);
  }

  std::string Run(const std::vector<std::string>& argv) { return Run(*client_, argv); }
  static std::string Run(RespClient& client, const std::vector<std::string>& argv) {
    const auto reply = client.Command(argv);
    EXPECT_EQ(reply.status, ReadStatus::kOk) << argv[0];
    return reply.bytes;
  }

  std::unique_ptr<EmbeddedServer> server_;
  std::optional<RespClient> client_;
};

TEST_F(DebugControlsTest, ClockReportsModeAndTime) {
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "FREEZE", "1700000000123"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "CLOCK"}), "*2\r\n$6\r\nfrozen\r\n:1700000000123\r\n");
  EXPECT_EQ(Run({"TIME"}), "*2\r\n$10\r\n1700000000\r\n$6\r\n123000\r\n");
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "REAL"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "CLOCK"}).substr(0, 14), "*2\r\n$4\r\nreal\r\n");
}

TEST_F(DebugControlsTest, FrozenLeaseReadsExactlyUntilMoved) {
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "FREEZE"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "lock", "t", "NX", "PX", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
  EXPECT_EQ(Run({"TTL", "lock"}), ":30\r\n");
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "12345"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":17655\r\n");
}

TEST_F(DebugControlsTest, AdvancingByTheLeaseFreesTheLockAtOnce) {
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "FREEZE"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "lock", "t", "NX", "PX", "30000"}), "+OK\r\n");
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "lock", "t2", "NX", "PX", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$2\r\nt2\r\n");
}

TEST_F(DebugControlsTest, ClockNeverMovesBackwards) {
  EXPECT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "-1"}), "-ERR time can only move forward\r\n");
  EXPECT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"DEBUG", "CLOCK", "SIDEWAYS"}), "-ERR syntax error\r\n");
}

TEST_F(DebugControlsTest, ScriptsSeeTheControlledClock) {
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "FREEZE", "1700000000000"}), "+OK\r\n");
  EXPECT_EQ(Run({"EVAL", "return redis.call('TIME')[1]", "0"}), "$10\r\n1700000000\r\n");
}

TEST_F(DebugControlsTest, ActiveExpireCycleRemovesUntouchedKeys) {
  ASSERT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}), "+OK\r\n");
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "FREEZE"}), "+OK\r\n");
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(Run({"SET", "k" + std::to_string(i), "v", "PX", "100"}), "+OK\r\n");
  }
  ASSERT_EQ(Run({"SET", "keep", "v"}), "+OK\r\n");
  // Moving the clock by less than the lease removes nothing; DBSIZE counts what is held.
  ASSERT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "50"}), "+OK\r\n");
  EXPECT_EQ(Run({"DEBUG", "ACTIVE-EXPIRE-CYCLE"}), ":0\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":51\r\n");
}

TEST_F(DebugControlsTest, FailNextAnswersTheChosenError) {
  ASSERT_EQ(Run({"DEBUG", "FAIL-NEXT", "2", "READONLY You can't write against a read only replica.",
                 "COMMAND", "set"}),
            "+OK\r\n");
  EXPECT_EQ(Run({"SET", "lock", "t", "NX", "PX", "1000"}),
            "-READONLY You can't write against a read only replica.\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "lock", "t", "NX", "PX", "1000"}),
            "-READONLY You can't write against a read only replica.\r\n");
  EXPECT_EQ(Run({"SET", "lock", "t", "NX", "PX", "1000"}), "+OK\r\n");
}

TEST_F(DebugControlsTest, FailNextWithoutCodeGetsErr) {
  ASSERT_EQ(Run({"DEBUG", "FAIL-NEXT", "1", "boom"}), "+OK\r\n");
  EXPECT_EQ(Run({"PING"}), "-ERR boom\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(DebugControlsTest, ReplyDelayHoldsRepliesInOrder) {
  ASSERT_EQ(Run({"DEBUG", "REPLY-DELAY", "50"}), "+OK\r\n");
  ASSERT_TRUE(client_->SendRaw("PING\r\nECHO a\r\n"));
  EXPECT_EQ(client_->ReadReply().bytes, "+PONG\r\n");
  EXPECT_EQ(client_->ReadReply().bytes, "$1\r\na\r\n");
  ASSERT_EQ(Run({"DEBUG", "REPLY-DELAY", "0"}), "+OK\r\n");
}

TEST_F(DebugControlsTest, DropClientsClosesEveryOtherConnection) {
  RespClient other = Connect();
  ASSERT_EQ(Run(other, {"PING"}), "+PONG\r\n");
  ASSERT_EQ(Run({"DEBUG", "DROP-CLIENTS"}), "+OK\r\n");
  EXPECT_EQ(other.ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(DebugControlsTest, SimulateRestartLosesKeysScriptsAndConnections) {
  ASSERT_EQ(Run({"SET", "lock", "t"}), "+OK\r\n");
  ASSERT_EQ(Run({"SCRIPT", "LOAD", "return 1"}),
            "$40\r\ne0e1f9fabfc9d4800c877a703b823ac0578ff8db\r\n");
  RespClient other = Connect();
  ASSERT_EQ(Run(other, {"PING"}), "+PONG\r\n");  // accepted by the server, not just the kernel
  ASSERT_TRUE(client_->Send({"DEBUG", "SIMULATE-RESTART"}));
  EXPECT_EQ(client_->ReadUntilClose().bytes, "+OK\r\n");
  EXPECT_EQ(other.ReadUntilClose().status, ReadStatus::kClosed);
  RespClient fresh = Connect();
  EXPECT_EQ(Run(fresh, {"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Run(fresh, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"}),
            "*1\r\n:0\r\n");
}

TEST(DebugGateTest, RefusedUnlessEnabled) {
  std::string error;
  auto server = EmbeddedServer::Start({}, &error);
  ASSERT_NE(server, nullptr) << error;
  auto client = RespClient::Connect(static_cast<std::uint16_t>(server->port()));
  ASSERT_TRUE(client.has_value());
  EXPECT_EQ(client->Command({"DEBUG", "CLOCK", "FREEZE"}).bytes,
            "-ERR DEBUG command not allowed. If the enable-debug-command option is set to "
            "\"local\", you can run it from a local connection, otherwise you need to set this "
            "option in the configuration file, and then restart the server.\r\n");
}

TEST(DebugGateTest, LocalAllowsLoopback) {
  std::string error;
  auto server = EmbeddedServer::Start({"--enable-debug-command", "local"}, &error);
  ASSERT_NE(server, nullptr) << error;
  auto client = RespClient::Connect(static_cast<std::uint16_t>(server->port()));
  ASSERT_TRUE(client.has_value());
  EXPECT_EQ(client->Command({"DEBUG", "CLOCK", "FREEZE"}).bytes, "+OK\r\n");
}

}  // namespace
}  // namespace warden

namespace warden {
namespace {

// --seed fixes every random choice: two servers given the same seed and the same commands give
// the same replies, SCAN order, RANDOMKEY and math.random included.
std::vector<std::string> SeededTranscript(const std::string& seed) {
  std::string error;
  auto server = EmbeddedServer::Start({"--seed", seed}, &error);
  EXPECT_NE(server, nullptr) << error;
  auto client = testing::RespClient::Connect(static_cast<std::uint16_t>(server->port()));
  EXPECT_TRUE(client.has_value());
  std::vector<std::string> replies;
  for (int i = 0; i < 200; ++i) {
    replies.push_back(client->Command({"SET", "lock:" + std::to_string(i), "t"}).bytes);
  }
  replies.push_back(client->Command({"SCAN", "0", "COUNT", "15"}).bytes);
  replies.push_back(client->Command({"KEYS", "lock:1*"}).bytes);
  for (int i = 0; i < 5; ++i) replies.push_back(client->Command({"RANDOMKEY"}).bytes);
  replies.push_back(client->Command({"EVAL", "return math.random(1000000)", "0"}).bytes);
  return replies;
}

TEST(SeedTest, SameSeedSameReplies) { EXPECT_EQ(SeededTranscript("7"), SeededTranscript("7")); }

TEST(SeedTest, OtherSeedOtherOrder) { EXPECT_NE(SeededTranscript("7"), SeededTranscript("8")); }

// The same controls as EmbeddedServer methods, for a C++ suite that holds the server object.
TEST_F(DebugControlsTest, EmbeddedSnapshotsRestoreTheData) {
  ASSERT_EQ(Run({"SET", "lock", "me"}), "+OK\r\n");
  EXPECT_EQ(server_->SaveSnapshot("clean"), "");
  ASSERT_EQ(Run({"FLUSHALL"}), "+OK\r\n");
  EXPECT_EQ(server_->LoadSnapshot("clean"), "");
  EXPECT_EQ(Run({"GET", "lock"}), "$2\r\nme\r\n");
  EXPECT_EQ(server_->DropSnapshot("clean"), "");
  EXPECT_EQ(server_->LoadSnapshot("clean"), "ERR no such snapshot 'clean'");
}

TEST_F(DebugControlsTest, EmbeddedFaultRuleFailsOneCommand) {
  EXPECT_EQ(server_->AddFault({"COMMAND", "get", "TIMES", "1", "ERROR", "LOADING not yet"}), 1);
  EXPECT_EQ(Run({"GET", "k"}), "-LOADING not yet\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  std::string error;
  EXPECT_EQ(server_->AddFault({"COMMAND", "nosuch", "DROP"}, &error), -1);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(server_->AddFault({"DROP"}), 2);
  EXPECT_EQ(server_->ClearFaults(), "");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(DebugControlsTest, EmbeddedCommandLogShowsWhatClientsSent) {
  server_->FreezeClock(1'700'000'000'000);
  ASSERT_EQ(server_->StartCommandLog(), "");
  ASSERT_EQ(Run({"CLIENT", "SETNAME", "worker"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "lock", "me", "NX", "PX", "30000"}), "+OK\r\n");
  ASSERT_EQ(Run({"EVAL", "return redis.call('GET', KEYS[1])", "1", "lock"}), "$2\r\nme\r\n");
  ASSERT_EQ(server_->StopCommandLog(), "");
  ASSERT_EQ(Run({"GET", "lock"}), "$2\r\nme\r\n");
  const auto log = server_->CommandLog();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[1].args, (std::vector<std::string>{"SET", "lock", "me", "NX", "PX", "30000"}));
  EXPECT_EQ(log[1].client_name, "worker");
  EXPECT_EQ(log[1].time_ms, 1'700'000'000'000);
  EXPECT_EQ(log[1].origin, "client");
  EXPECT_EQ(log[3].args, (std::vector<std::string>{"GET", "lock"}));
  EXPECT_EQ(log[3].origin, "script");
  EXPECT_EQ(log[3].client_id, log[1].client_id);
  EXPECT_LT(log[0].seq, log[3].seq);
}

TEST_F(DebugControlsTest, EmbeddedWaitBlockedSeesABlockedClient) {
  EXPECT_EQ(server_->WaitBlocked(1, 0), -1);
  RespClient waiter = Connect();
  ASSERT_TRUE(waiter.Send({"BLPOP", "jobs", "0"}));
  EXPECT_EQ(server_->WaitBlocked(1), 1);
  EXPECT_EQ(server_->WaitBlocked(2, 20), -1);
  ASSERT_EQ(Run({"RPUSH", "jobs", "a"}), ":1\r\n");
  EXPECT_EQ(waiter.ReadReply().bytes, "*2\r\n$4\r\njobs\r\n$1\r\na\r\n");
}

TEST_F(DebugControlsTest, EmbeddedControlClientRunsOnlySingleCommands) {
  EXPECT_EQ(server_->Command({"MULTI"}),
            "-ERR the control client runs single commands that answer at once\r\n");
  // Nothing was left queued: the next control runs at once.
  EXPECT_EQ(server_->SaveSnapshot("s"), "");
  // With no connection to wait on, a blocking command answers as from a script: at once.
  EXPECT_EQ(server_->Command({"BLPOP", "nothing", "0"}), "*-1\r\n");
  EXPECT_EQ(server_->WaitBlocked(1, 0), -1);
  EXPECT_EQ(server_->DropSnapshot("s"), "");
  EXPECT_EQ(server_->DropSnapshot("s"), "no such snapshot 's'");
}

TEST_F(DebugControlsTest, EmbeddedControlsReportDebugRefused) {
  server_.reset();
  StartServer({});
  EXPECT_EQ(server_->StartCommandLog(),
            "ERR DEBUG command not allowed. If the enable-debug-command option is set to "
            "\"local\", you can run it from a local connection, otherwise you need to set this "
            "option in the configuration file, and then restart the server.");
  EXPECT_FALSE(server_->SaveSnapshot("s").empty());
  EXPECT_FALSE(server_->ClearFaults().empty());
}

TEST_F(DebugControlsTest, EmbeddedControlsAfterAClientShutDownTheServer) {
  ASSERT_TRUE(client_->Send({"SHUTDOWN", "NOSAVE"}));
  // The server closes the connection once it is shutting down.
  client_->ReadUntilClose();
  // The controls neither hang nor touch a running loop: the server is stopped.
  server_->AdvanceClockMs(1000);
  EXPECT_EQ(server_->Command({"PING"}), "-ERR the server is stopped\r\n");
  EXPECT_EQ(server_->WaitBlocked(1, 10), -1);
  server_->Stop();
}

}  // namespace
}  // namespace warden
