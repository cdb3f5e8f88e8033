#include "server_fixture.h"

#ifndef WARDEN_BINARY_PATH
#error "WARDEN_BINARY_PATH must be defined as the path of the warden binary"
#endif

namespace warden::testing {
namespace {

// redis-cli runs are short; this only bounds a hang.
constexpr int kRedisCliTimeoutMs = 30000;

}  // namespace

std::string ServerKindName(const ::testing::TestParamInfo<ServerKind>& info) {
  return info.param == ServerKind::kWarden ? "warden" : "redis_server";
}

void ServerFixture::SetUp() {
  redis_cli_ = FindExecutable("redis-cli");
  ASSERT_FALSE(redis_cli_.empty())
      << "redis-cli is not on PATH. The end-to-end tests drive servers with the real client: "
         "install it (Debian: apt-get install redis-tools).";
  std::string binary = WARDEN_BINARY_PATH;
  if (GetParam() == ServerKind::kRedis) {
    binary = FindExecutable("redis-server");
    ASSERT_FALSE(binary.empty())
        << "redis-server is not on PATH. Every end-to-end scenario also runs against Redis 7.0 "
           "to prove itself: install it (Debian: apt-get install redis-server).";
  }
  ASSERT_FALSE(FindExecutable(binary).empty())
      << "server binary not found at " << binary << ": build the warden target first.";
  std::string error;
  server_ = ServerProcess::Start(binary, error);
  ASSERT_NE(server_, nullptr) << error;
}

std::optional<RespClient> ServerFixture::Connect() {
  std::optional<RespClient> client = RespClient::Connect(port());
  if (!client) {
    ADD_FAILURE() << "cannot connect to port " << port() << "; server log:\n" << server_->LogTail();
  }
  return client;
}

ProgramResult ServerFixture::RedisCli(const std::vector<std::string>& args,
                                      std::string_view input) {
  std::vector<std::string> argv = {redis_cli_, "-h", "127.0.0.1", "-p", std::to_string(port())};
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramResult result = RunProgram(argv, input, kRedisCliTimeoutMs);
  EXPECT_FALSE(result.timed_out) << "redis-cli did not finish within " << kRedisCliTimeoutMs
                                 << " ms";
  return result;
}

}  // namespace warden::testing
