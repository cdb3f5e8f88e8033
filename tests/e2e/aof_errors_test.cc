// The append-only file when things go wrong around it: BGREWRITEAOF with the file off (on both
// servers), and a disk that stops taking writes. The full disk is a file-size limit set on the
// running server (prlimit), which warden meets as EFBIG or a short write, never as SIGXFSZ.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "deadline.h"
#include "resp_client.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

namespace fs = std::filesystem;
using namespace aof;  // NOLINT(google-build-using-namespace)

class AofOffTest : public ::testing::TestWithParam<ServerKind> {};

// With the file off, BGREWRITEAOF still writes the data set as a base file that the manifest
// names alone; a later start with appendonly yes begins from it.
TEST_P(AofOffTest, BgrewriteaofWritesABaseALaterStartLoads) {
  TempDir dir;
  {
    std::string error;
    auto server = ServerProcess::Start(Binary(GetParam()), error,
                                       {"--dir", dir.path(), "--aof-use-rdb-preamble", "no"});
    ASSERT_TRUE(server) << error;
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    ASSERT_EQ(Send(*c, {"SET", "lock", "token", "PX", "600000"}), "+OK\r\n");
    ASSERT_EQ(Send(*c, {"HSET", "h", "f", "v"}), ":1\r\n");
    ASSERT_EQ(Send(*c, {"RPUSH", "jobs", "a", "b"}), ":2\r\n");
    EXPECT_EQ(Send(*c, {"BGREWRITEAOF"}), "+Background append only file rewriting started\r\n");
    ASSERT_TRUE(WaitForRewrites(*c, 1));
    EXPECT_EQ(Send(*c, {"CONFIG", "GET", "appendonly"}), "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
    ASSERT_EQ(Send(*c, {"SET", "after", "x"}), "+OK\r\n");
    EXPECT_EQ(ReadFile(dir.path() + "/appendonlydir/appendonly.aof.manifest"),
              "file appendonly.aof.1.base.aof seq 1 type b\n");
    EXPECT_EQ(server->Stop(), 0);
  }
  auto server = StartWith(GetParam(), dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Send(*c, {"GET", "lock"}), "$5\r\ntoken\r\n");
  const std::string pttl = Send(*c, {"PTTL", "lock"});
  ASSERT_EQ(pttl.front(), ':');
  EXPECT_GT(std::stoll(pttl.substr(1)), 500000);
  EXPECT_EQ(Send(*c, {"HGET", "h", "f"}), "$1\r\nv\r\n");
  EXPECT_EQ(Send(*c, {"LRANGE", "jobs", "0", "-1"}), "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(Send(*c, {"EXISTS", "after"}), ":0\r\n");
}

INSTANTIATE_TEST_SUITE_P(BothServers, AofOffTest,
                         ::testing::Values(ServerKind::kWarden, ServerKind::kRedis),
                         [](const auto& info) {
                           return info.param == ServerKind::kWarden ? "Warden" : "Redis";
                         });

// Sets the running server's file-size limit (the soft one: raising it back needs no privilege).
bool LimitFileSize(pid_t pid, rlim_t bytes) {
  rlimit old{};
  if (prlimit(pid, RLIMIT_FSIZE, nullptr, &old) != 0) return false;
  rlimit limit = old;
  limit.rlim_cur = bytes;
  return prlimit(pid, RLIMIT_FSIZE, &limit, nullptr) == 0;
}

bool IsDiskError(const std::string& reply) {
  return reply == "-MISCONF Errors writing to the AOF file: No space left on device\r\n" ||
         reply == "-MISCONF Errors writing to the AOF file: File too large\r\n";
}

// Writes until one is refused; the keys acknowledged before it go in `acknowledged`.
std::string WriteUntilRefused(RespClient& c, std::vector<std::string>& acknowledged) {
  const std::string value(1000, 'v');
  for (int i = 0; i < 1000; ++i) {
    const std::string key = "k:" + std::to_string(i);
    const std::string reply = Send(c, {"SET", key, value});
    if (reply != "+OK\r\n") return reply;
    acknowledged.push_back(key);
  }
  return "";
}

// appendfsync everysec on a disk that fills: Redis's MISCONF for writes and PING, reads still
// served, and writes taken again once the disk has room; nothing acknowledged is lost.
TEST(WardenAofErrorsTest, AFullDiskRefusesWritesUntilItHasRoom) {
  TempDir dir;
  std::vector<std::string> acknowledged;
  {
    auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendfsync", "everysec"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    ASSERT_TRUE(LimitFileSize(server->pid(), 64 * 1024));
    const std::string refused = WriteUntilRefused(*c, acknowledged);
    EXPECT_TRUE(IsDiskError(refused)) << refused;
    ASSERT_FALSE(acknowledged.empty());
    const std::string error = refused.substr(1, refused.size() - 3);
    // Reads go on; whatever writes, and PING, is refused.
    EXPECT_EQ(Send(*c, {"EXISTS", acknowledged.back()}), ":1\r\n");
    EXPECT_EQ(Send(*c, {"PING"}), refused);
    EXPECT_EQ(Send(*c, {"DEL", acknowledged.front()}), refused);
    EXPECT_EQ(Send(*c, {"MULTI"}), "+OK\r\n");
    EXPECT_EQ(Send(*c, {"INCR", "n"}), refused);
    EXPECT_EQ(Send(*c, {"EXEC"}),
              "-EXECABORT Transaction discarded because of previous errors.\r\n");
    EXPECT_EQ(Send(*c, {"EVAL", "return redis.call('get', KEYS[1])", "1", "missing"}), "$-1\r\n");
    const std::string script =
        Send(*c, {"EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "from-script"});
    EXPECT_NE(script.find(error), std::string::npos) << script;
    // A script that declares it may write is a write command (Redis's evalGetCommandFlags),
    // refused before it runs; one that declares no-writes runs.
    EXPECT_EQ(Send(*c, {"EVAL", "#!lua\nreturn redis.call('set', KEYS[1], 'x')", "1", "s"}),
              refused);
    EXPECT_EQ(
        Send(*c, {"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "s"}),
        "$-1\r\n");
    EXPECT_NE(Send(*c, {"INFO", "persistence"}).find("aof_last_write_status:err\r\n"),
              std::string::npos);
    // Room again: the kept buffer is written on a later turn and writes are taken.
    ASSERT_TRUE(LimitFileSize(server->pid(), RLIM_INFINITY));
    std::string pong;
    for (const Deadline deadline(10000); !deadline.Expired() && pong != "+PONG\r\n";) {
      pong = Send(*c, {"PING"});
    }
    ASSERT_EQ(pong, "+PONG\r\n");
    EXPECT_NE(Send(*c, {"INFO", "persistence"}).find("aof_last_write_status:ok\r\n"),
              std::string::npos);
    ASSERT_EQ(Send(*c, {"SET", "after", "room"}), "+OK\r\n");
    EXPECT_EQ(server->Stop(), 0);
  }
  auto server = StartWith(ServerKind::kWarden, dir.path(), {});
  ASSERT_TRUE(server) << "the file must load after a short write was cut off";
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  for (const std::string& key : acknowledged) {
    ASSERT_EQ(Send(*c, {"STRLEN", key}), ":1000\r\n") << key;
  }
  EXPECT_EQ(Send(*c, {"GET", "after"}), "$4\r\nroom\r\n");
  EXPECT_EQ(Send(*c, {"EXISTS", "from-script"}), ":0\r\n");
}

// appendfsync always promises that whatever a client saw is on disk: a write that fails ends
// the process (Redis's choice), and what was acknowledged before loads on the next start.
TEST(WardenAofErrorsTest, AFailedWriteUnderAlwaysStopsTheServer) {
  TempDir dir;
  std::vector<std::string> acknowledged;
  {
    auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendfsync", "always"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    ASSERT_TRUE(LimitFileSize(server->pid(), 64 * 1024));
    EXPECT_EQ(WriteUntilRefused(*c, acknowledged), "");  // the connection closed unanswered
    const std::optional<int> status = server->WaitForExit(10000);
    ASSERT_TRUE(status);
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1) << *status;
    EXPECT_NE(server->LogTail().find("Can't recover from AOF write error when the AOF fsync "
                                     "policy is 'always'. Exiting..."),
              std::string::npos)
        << server->LogTail();
  }
  auto server = StartWith(ServerKind::kWarden, dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Send(*c, {"DBSIZE"}), ":" + std::to_string(acknowledged.size()) + "\r\n");
}

}  // namespace
}  // namespace warden::testing
