// The GoogleTest example for EmbeddedServer: a warden on a thread of the test process, on a
// free port, with a clock the test moves instead of sleeping.
#include "server/embedded_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
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

namespace warden {
namespace {

// Reads one line-terminated reply from a unix-socket connection, with a deadline.
std::string RoundTripUnix(const std::string& path, std::string_view request) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return "connect failed";
  }
  std::string reply;
  if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    pollfd p{fd, POLLIN, 0};
    char buf[256];
    while (reply.find("\r\n") == std::string::npos && poll(&p, 1, 5000) == 1) {
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  return reply;
}

TEST(EmbeddedServerUnixSocketTest, ServesTheUnixSocketToo) {
  char dir_template[] = "/tmp/warden-unix-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/warden.sock";
  std::string error;
  auto server = EmbeddedServer::Start({"--unixsocket", path}, &error);
  ASSERT_NE(server, nullptr) << error;
  EXPECT_EQ(RoundTripUnix(path, "PING\r\n"), "+PONG\r\n");
  EXPECT_EQ(RoundTripUnix(path, "SET lock t NX PX 1000\r\n"), "+OK\r\n");
  server->Stop();
  // The socket file goes with the server.
  EXPECT_NE(access(path.c_str(), F_OK), 0);
  rmdir(dir_template);
}

}  // namespace
}  // namespace warden
