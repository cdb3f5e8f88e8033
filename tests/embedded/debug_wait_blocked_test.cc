// DEBUG WAIT-BLOCKED and the clock's effect on blocked and paused clients through real sockets
// and the real loop: the waiter is answered after the batch that blocked a worker, its
// pipelined requests go on afterwards, and its timeout is real time while the clock is frozen.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "resp_client.h"
#include "server/embedded_server.h"

namespace warden {
namespace {

using testing::ReadStatus;
using testing::RespClient;

class DebugWaitBlockedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = EmbeddedServer::Start({"--enable-debug-command", "yes"}, &error);
    ASSERT_NE(server_, nullptr) << error;
  }

  RespClient Connect() {
    auto client = RespClient::Connect(static_cast<std::uint16_t>(server_->port()));
    EXPECT_TRUE(client.has_value());
    return std::move(*client);
  }

  static std::string Read(RespClient& client) {
    const auto reply = client.ReadReply();
    EXPECT_EQ(reply.status, ReadStatus::kOk);
    return reply.bytes;
  }

  std::unique_ptr<EmbeddedServer> server_;
};

TEST_F(DebugWaitBlockedTest, AnswersOnceAWorkerBlocks) {
  RespClient tester = Connect();
  RespClient worker = Connect();
  ASSERT_TRUE(tester.Send({"DEBUG", "WAIT-BLOCKED", "1"}));
  ASSERT_EQ(tester.Command({"PING"}, 50).status, ReadStatus::kTimeout);

  ASSERT_TRUE(worker.Send({"BLPOP", "q", "0"}));

  EXPECT_EQ(Read(tester), ":1\r\n");
  EXPECT_EQ(Read(tester), "+PONG\r\n");
}

TEST_F(DebugWaitBlockedTest, PipelinedRequestsRunAfterTheAnswer) {
  RespClient tester = Connect();
  RespClient worker = Connect();
  ASSERT_TRUE(tester.SendRaw("DEBUG WAIT-BLOCKED 1\r\nRPUSH q job\r\n"));

  ASSERT_TRUE(worker.Send({"BLPOP", "q", "0"}));

  EXPECT_EQ(Read(tester), ":1\r\n");
  EXPECT_EQ(Read(tester), ":1\r\n");
  EXPECT_EQ(Read(worker), "*2\r\n$1\r\nq\r\n$3\r\njob\r\n");
}

TEST_F(DebugWaitBlockedTest, TimesOutInRealTimeWhileTheClockIsFrozen) {
  server_->FreezeClock();
  RespClient tester = Connect();
  RespClient worker = Connect();
  ASSERT_TRUE(worker.Send({"BLPOP", "q", "0"}));
  ASSERT_EQ(tester.Command({"DEBUG", "WAIT-BLOCKED", "1"}).bytes, ":1\r\n");

  EXPECT_EQ(tester.Command({"DEBUG", "WAIT-BLOCKED", "2", "50"}).bytes,
            "-ERR timed out waiting for 2 blocked clients (1 blocked)\r\n");
}

TEST_F(DebugWaitBlockedTest, AWaiterThatDisconnectsIsForgotten) {
  {
    RespClient gone = Connect();
    ASSERT_TRUE(gone.Send({"DEBUG", "WAIT-BLOCKED", "1"}));
    ASSERT_EQ(gone.Command({"PING"}, 50).status, ReadStatus::kTimeout);
  }
  RespClient worker = Connect();
  ASSERT_TRUE(worker.Send({"BLPOP", "q", "0"}));
  RespClient tester = Connect();

  EXPECT_EQ(tester.Command({"DEBUG", "WAIT-BLOCKED", "1"}).bytes, ":1\r\n");
}

TEST_F(DebugWaitBlockedTest, AdvancingByTheTimeoutRepliesToABlockedPop) {
  server_->FreezeClock();
  RespClient tester = Connect();
  RespClient worker = Connect();
  ASSERT_TRUE(worker.Send({"BLPOP", "q", "1"}));
  ASSERT_EQ(tester.Command({"DEBUG", "WAIT-BLOCKED", "1"}).bytes, ":1\r\n");

  server_->AdvanceClockMs(1000);

  EXPECT_EQ(Read(worker), "*-1\r\n");
}

TEST_F(DebugWaitBlockedTest, AdvancingByThePauseEndsIt) {
  server_->FreezeClock();
  RespClient tester = Connect();
  RespClient writer = Connect();
  ASSERT_EQ(tester.Command({"CLIENT", "PAUSE", "1000", "WRITE"}).bytes, "+OK\r\n");
  ASSERT_EQ(writer.Command({"SET", "k", "v"}, 50).status, ReadStatus::kTimeout);

  server_->AdvanceClockMs(1000);

  EXPECT_EQ(Read(writer), "+OK\r\n");
}

}  // namespace
}  // namespace warden
