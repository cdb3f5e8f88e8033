// The GoogleTest example for EmbeddedServer: a warden on a thread of the test process, on a
// free port, with a clock the test moves instead of sleeping.
#include "server/embedded_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "resp_client.h"

namespace warden {
namespace {

using testing::ReadStatus;
using testing::RespClient;

class EmbeddedServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = EmbeddedServer::Start({}, &error);
    ASSERT_NE(server_, nullptr) << error;
    auto client = RespClient::Connect(static_cast<std::uint16_t>(server_->port()));
    ASSERT_TRUE(client.has_value());
    client_.emplace(std::move(*client));
  }

  std::string Run(const std::vector<std::string>& argv) {
    const auto reply = client_->Command(argv);
    EXPECT_EQ(reply.status, ReadStatus::kOk);
    return reply.bytes;
  }

  std::unique_ptr<EmbeddedServer> server_;
  std::optional<RespClient> client_;
};

TEST_F(EmbeddedServerTest, ListensOnAFreePort) {
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(EmbeddedServerTest, FrozenClockKeepsTheLeaseExact) {
  server_->FreezeClock();
  EXPECT_EQ(Run({"SET", "lock", "me", "NX", "PX", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
}

TEST_F(EmbeddedServerTest, AdvancingPastTheLeaseFreesTheLock) {
  server_->FreezeClock();
  ASSERT_EQ(Run({"SET", "lock", "a", "NX", "PX", "30000"}), "+OK\r\n");
  server_->AdvanceClockMs(29'999);
  EXPECT_EQ(Run({"SET", "lock", "b", "NX", "PX", "30000"}), "$-1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":1\r\n");
  server_->AdvanceClockMs(1);
  EXPECT_EQ(Run({"SET", "lock", "b", "NX", "PX", "30000"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$1\r\nb\r\n");
}

TEST_F(EmbeddedServerTest, AdvanceMovesARealClockToo) {
  ASSERT_EQ(Run({"SET", "lock", "a", "PX", "60000"}), "+OK\r\n");
  const std::int64_t before = server_->NowMs();
  server_->AdvanceClockMs(60'000);
  EXPECT_GE(server_->NowMs(), before + 60'000);
  EXPECT_EQ(Run({"EXISTS", "lock"}), ":0\r\n");
}

TEST_F(EmbeddedServerTest, RealClockEndsTheFreeze) {
  server_->FreezeClock(1'000'000);
  EXPECT_EQ(server_->NowMs(), 1'000'000);
  server_->RealClock();
  EXPECT_GT(server_->NowMs(), 1'600'000'000'000);
}

TEST(EmbeddedServerStartTest, BadOptionIsAnError) {
  std::string error;
  EXPECT_EQ(EmbeddedServer::Start({"--no-such-option", "1"}, &error), nullptr);
  EXPECT_NE(error.find("no-such-option"), std::string::npos) << error;
}

TEST(EmbeddedServerStartTest, TwoServersRunSideBySide) {
  std::string error;
  auto a = EmbeddedServer::Start({}, &error);
  ASSERT_NE(a, nullptr) << error;
  auto b = EmbeddedServer::Start({}, &error);
  ASSERT_NE(b, nullptr) << error;
  EXPECT_NE(a->port(), b->port());
  a->FreezeClock(5'000);
  b->FreezeClock(9'000);
  EXPECT_EQ(a->NowMs(), 5'000);
  EXPECT_EQ(b->NowMs(), 9'000);
  a->Stop();
  auto client = RespClient::Connect(static_cast<std::uint16_t>(b->port()));
  ASSERT_TRUE(client.has_value());
  EXPECT_EQ(client->Command({"PING"}).bytes, "+PONG\r\n");
}

}  // namespace
}  // namespace warden
