// `expired` notifications when a test moves the embedded server's clock: a subscriber receives
// the expiries AdvanceClockMs causes, as it would have had the time really passed.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "resp_client.h"
#include "server/embedded_server.h"

namespace warden {
namespace {

using testing::ReadStatus;
using testing::RespClient;

class ExpiredEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    server_ = EmbeddedServer::Start({"--notify-keyspace-events", "Ex"}, &error);
    ASSERT_NE(server_, nullptr) << error;
    client_.emplace(Connect());
    subscriber_.emplace(Connect());
    ASSERT_EQ(subscriber_->Command({"SUBSCRIBE", "__keyevent@0__:expired"}).status,
              ReadStatus::kOk);
  }

  RespClient Connect() {
    auto client = RespClient::Connect(static_cast<std::uint16_t>(server_->port()));
    EXPECT_TRUE(client.has_value());
    return std::move(*client);
  }

  std::string Run(const std::vector<std::string>& argv) {
    const auto reply = client_->Command(argv);
    EXPECT_EQ(reply.status, ReadStatus::kOk) << argv[0];
    return reply.bytes;
  }

  static std::string Expired(const std::string& key) {
    return "*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:expired\r\n$" +
           std::to_string(key.size()) + "\r\n" + key + "\r\n";
  }

  std::unique_ptr<EmbeddedServer> server_;
  std::optional<RespClient> client_;
  std::optional<RespClient> subscriber_;
};

TEST_F(ExpiredEventsTest, AdvancingPastALeasePublishesItsExpiry) {
  server_->FreezeClock();
  ASSERT_EQ(Run({"SET", "lease", "me", "PX", "30000"}), "+OK\r\n");
  ASSERT_EQ(Run({"SET", "later", "me", "PX", "60000"}), "+OK\r\n");

  server_->AdvanceClockMs(30'000);

  const auto message = subscriber_->ReadReply();
  ASSERT_EQ(message.status, ReadStatus::kOk);
  EXPECT_EQ(message.bytes, Expired("lease"));
}

TEST_F(ExpiredEventsTest, NothingIsPublishedBeforeTheDeadline) {
  server_->FreezeClock();
  ASSERT_EQ(Run({"SET", "lease", "me", "PX", "30000"}), "+OK\r\n");

  server_->AdvanceClockMs(29'999);
  // PUBLISH goes through the same subscriber connection after any expiry would have.
  ASSERT_EQ(Run({"PUBLISH", "__keyevent@0__:expired", "marker"}), ":1\r\n");

  const auto message = subscriber_->ReadReply();
  ASSERT_EQ(message.status, ReadStatus::kOk);
  EXPECT_EQ(message.bytes, Expired("marker"));
}

}  // namespace
}  // namespace warden
