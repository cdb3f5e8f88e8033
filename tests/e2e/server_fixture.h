// The fixture every end-to-end test shares: a fresh server on a free loopback port for each test,
// parameterized over the binary, so that each scenario runs against warden and against
// redis-server 7.0 and proves itself on Redis too.
#ifndef WARDEN_TESTS_E2E_SERVER_FIXTURE_H_
#define WARDEN_TESTS_E2E_SERVER_FIXTURE_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "child_process.h"
#include "resp_client.h"
#include "server_process.h"

namespace warden::testing {

// Which server a test runs against. The value is also the test-name suffix.
enum class ServerKind { kWarden, kRedis };

std::string ServerKindName(const ::testing::TestParamInfo<ServerKind>& info);

class ServerFixture : public ::testing::TestWithParam<ServerKind> {
 protected:
  // Starts the server; fails the test (not skips) if it or redis-server is missing.
  void SetUp() override;

  std::uint16_t port() const { return server_->port(); }
  // A new connection to the server; nullopt (and a test failure) if none can be made.
  std::optional<RespClient> Connect();
  // Runs `redis-cli -h 127.0.0.1 -p <port> args...` with `input` on its stdin.
  ProgramResult RedisCli(const std::vector<std::string>& args, std::string_view input = "");

 private:
  std::unique_ptr<ServerProcess> server_;
  std::string redis_cli_;
};

// The parameters every suite is instantiated with:
// INSTANTIATE_TEST_SUITE_P(Servers, SomeTest, AllServers(), ServerKindName);
inline auto AllServers() { return ::testing::Values(ServerKind::kWarden, ServerKind::kRedis); }

}  // namespace warden::testing

#endif  // WARDEN_TESTS_E2E_SERVER_FIXTURE_H_
