// Eviction under maxmemory on a real server process: every policy keeps used memory near the
// limit while writes go on, the volatile policies touch only keys with a deadline (and refuse
// writes, as noeviction does, once none is left), volatile-ttl takes the nearest deadlines,
// LFU and LRU keep a hot set that is read, and each eviction is published as an `evicted`
// event. Run against warden and redis-server 7.0 alike, except where warden's movable clock
// stands in for waiting seconds (LRU's idle times are whole seconds).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "resp_client.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

constexpr std::string_view kOom = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";
constexpr std::int64_t kLimit = 4 * 1024 * 1024;

std::unique_ptr<ServerProcess> StartServer(ServerKind kind, std::vector<std::string> args) {
  const std::string binary =
      kind == ServerKind::kWarden ? WARDEN_BINARY_PATH : FindExecutable("redis-server");
  args.insert(args.end(), {"--maxmemory", std::to_string(kLimit)});
  std::string error;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(binary, error, args);
  EXPECT_NE(server, nullptr) << error;
  return server;
}

// Sends the commands in batches of 100 and returns every reply, in order.
std::vector<std::string> Pipeline(RespClient& client,
                                  const std::vector<std::vector<std::string>>& commands) {
  std::vector<std::string> replies;
  for (std::size_t start = 0; start < commands.size(); start += 100) {
    const std::size_t end = std::min(commands.size(), start + 100);
    for (std::size_t i = start; i < end; ++i) EXPECT_TRUE(client.Send(commands[i]));
    for (std::size_t i = start; i < end; ++i) replies.push_back(client.ReadReply().bytes);
  }
  return replies;
}

// Writes `count` keys named prefix + i of 1000 bytes (with EX ttl + i when ttl > 0); returns
// how many were refused.
int Fill(RespClient& client, const std::string& prefix, int count, int ttl = 0) {
  const std::string value(1000, 'v');
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < count; ++i) {
    commands.push_back({"SET", prefix + std::to_string(i), value});
    if (ttl > 0) commands.back().insert(commands.back().end(), {"EX", std::to_string(ttl + i)});
  }
  int refused = 0;
  for (const std::string& reply : Pipeline(client, commands)) {
    if (reply != "+OK\r\n") {
      EXPECT_EQ(reply, kOom);
      ++refused;
    }
  }
  return refused;
}

// How many of prefix + 0 .. count-1 still exist.
int Surviving(RespClient& client, const std::string& prefix, int count, int from = 0) {
  std::vector<std::vector<std::string>> commands;
  for (int i = from; i < count; ++i) commands.push_back({"EXISTS", prefix + std::to_string(i)});
  int alive = 0;
  for (const std::string& reply : Pipeline(client, commands)) alive += reply == ":1\r\n" ? 1 : 0;
  return alive;
}

std::int64_t InfoInteger(RespClient& client, const std::string& section, const std::string& field) {
  const std::string info = client.Command({"INFO", section}).bytes;
  const std::size_t at = info.find("\r\n" + field + ":");
  if (at == std::string::npos) return -1;
  return std::stoll(info.substr(at + field.size() + 3));
}

class EvictionTest : public ::testing::TestWithParam<ServerKind> {};

TEST_P(EvictionTest, EveryAllkeysPolicyKeepsUsedMemoryNearTheLimit) {
  for (const char* policy : {"allkeys-lru", "allkeys-lfu", "allkeys-random"}) {
    SCOPED_TRACE(policy);
    auto server = StartServer(GetParam(), {"--maxmemory-policy", policy});
    ASSERT_TRUE(server);
    std::optional<RespClient> client = RespClient::Connect(server->port());
    ASSERT_TRUE(client);
    // Five times the limit, written without a refusal.
    EXPECT_EQ(Fill(*client, "k", 20000), 0);
    const std::int64_t used = InfoInteger(*client, "memory", "used_memory");
    EXPECT_LE(used, kLimit + 64 * 1024);
    EXPECT_GT(used, kLimit / 2);
    // DBSIZE and INFO allocate little, but a read may evict too: the sum is near, not exact.
    const std::string dbsize = client->Command({"DBSIZE"}).bytes;
    const std::int64_t evicted = InfoInteger(*client, "stats", "evicted_keys");
    EXPECT_GT(evicted, 15000);
    EXPECT_NEAR(evicted + std::stoll(dbsize.substr(1)), 20000, 50);
    EXPECT_EQ(client->Command({"CONFIG", "RESETSTAT"}).bytes, "+OK\r\n");
    EXPECT_EQ(InfoInteger(*client, "stats", "evicted_keys"), 0);
  }
}

TEST_P(EvictionTest, VolatilePoliciesEvictOnlyKeysWithADeadlineThenRefuse) {
  for (const char* policy : {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}) {
    SCOPED_TRACE(policy);
    auto server = StartServer(GetParam(), {"--maxmemory-policy", policy});
    ASSERT_TRUE(server);
    std::optional<RespClient> client = RespClient::Connect(server->port());
    ASSERT_TRUE(client);
    EXPECT_EQ(Fill(*client, "keep", 1500), 0);
    EXPECT_EQ(Fill(*client, "lease", 10000, 1000), 0);
    EXPECT_EQ(Surviving(*client, "keep", 1500), 1500);
    EXPECT_GT(InfoInteger(*client, "stats", "evicted_keys"), 5000);
    // Keys without a deadline cannot make room: once the leases are gone, writes are refused.
    EXPECT_GT(Fill(*client, "more", 5000), 0);
    EXPECT_EQ(Surviving(*client, "keep", 1500), 1500);
    EXPECT_EQ(client->Command({"GET", "keep0"}).bytes,
              "$1000\r\n" + std::string(1000, 'v') + "\r\n");
  }
}

TEST_P(EvictionTest, VolatileTtlEvictsTheNearestDeadlinesFirst) {
  auto server = StartServer(GetParam(), {"--maxmemory-policy", "volatile-ttl"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  ASSERT_TRUE(client);
  EXPECT_EQ(Fill(*client, "lease", 8000, 1000), 0);
  const int late = Surviving(*client, "lease", 8000, 6000);
  const int early = Surviving(*client, "lease", 2000);
  EXPECT_GT(late, 1500);
  EXPECT_LT(early, late / 4);
}

// LFU counts reads: keys read a few times outrank keys written once, whatever their age.
TEST_P(EvictionTest, LfuKeepsAHotSetThatIsRead) {
  auto server = StartServer(GetParam(), {"--maxmemory-policy", "allkeys-lfu"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  ASSERT_TRUE(client);
  ASSERT_EQ(Fill(*client, "hot", 500), 0);
  std::vector<std::vector<std::string>> reads;
  for (int i = 0; i < 500; ++i) reads.push_back({"GET", "hot" + std::to_string(i)});
  for (int round = 0; round < 20; ++round) {
    Pipeline(*client, reads);
    ASSERT_EQ(Fill(*client, "cold" + std::to_string(round) + ":", 1000), 0);
  }
  EXPECT_GE(Surviving(*client, "hot", 500), 490);
  EXPECT_GT(InfoInteger(*client, "stats", "evicted_keys"), 15000);
}

TEST_P(EvictionTest, EachEvictionIsPublished) {
  auto server = StartServer(
      GetParam(), {"--maxmemory-policy", "allkeys-random", "--notify-keyspace-events", "Ee"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  std::optional<RespClient> listener = RespClient::Connect(server->port());
  ASSERT_TRUE(client && listener);
  ASSERT_EQ(listener->Command({"SUBSCRIBE", "__keyevent@0__:evicted"}).bytes,
            "*3\r\n$9\r\nsubscribe\r\n$22\r\n__keyevent@0__:evicted\r\n:1\r\n");
  ASSERT_EQ(Fill(*client, "k", 6000), 0);
  const std::int64_t evicted = InfoInteger(*client, "stats", "evicted_keys");
  ASSERT_GT(evicted, 0);
  for (std::int64_t i = 0; i < evicted; ++i) {
    const std::string message = listener->ReadReply().bytes;
    ASSERT_EQ(message.rfind("*3\r\n$7\r\nmessage\r\n$22\r\n__keyevent@0__:evicted\r\n$", 0), 0u)
        << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Servers, EvictionTest, AllServers(), ServerKindName);

// LRU idle times are whole seconds, so a hot set can only outlast cold keys across seconds;
// warden's frozen clock moves them without waiting. The hot set is read as soon as the clock
// has moved, before the round's cold keys push others out: read after them, it would share its
// idle time with the previous round's cold keys, and eviction would pick among equals.
TEST(WardenEvictionTest, LruKeepsAHotSetThatIsRead) {
  auto server = StartServer(ServerKind::kWarden,
                            {"--maxmemory-policy", "allkeys-lru", "--enable-debug-command", "yes"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  ASSERT_TRUE(client);
  ASSERT_EQ(client->Command({"DEBUG", "CLOCK", "FREEZE"}).bytes, "+OK\r\n");
  ASSERT_EQ(Fill(*client, "hot", 500), 0);
  std::vector<std::vector<std::string>> reads;
  for (int i = 0; i < 500; ++i) reads.push_back({"GET", "hot" + std::to_string(i)});
  for (int round = 0; round < 20; ++round) {
    ASSERT_EQ(client->Command({"DEBUG", "CLOCK", "ADVANCE", "2000"}).bytes, "+OK\r\n");
    Pipeline(*client, reads);
    ASSERT_EQ(Fill(*client, "cold" + std::to_string(round) + ":", 1000), 0);
  }
  EXPECT_GE(Surviving(*client, "hot", 500), 490);
  // The cold keys that are left are mostly the newest.
  EXPECT_GT(Surviving(*client, "cold19:", 1000), Surviving(*client, "cold16:", 1000));
}

// An LFU policy answers OBJECT FREQ with the key's counter, which reads raise.
TEST(WardenEvictionTest, ObjectFreqCountsReads) {
  auto server = StartServer(ServerKind::kWarden, {"--maxmemory-policy", "allkeys-lfu"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  ASSERT_TRUE(client);
  ASSERT_EQ(client->Command({"SET", "k", "v"}).bytes, "+OK\r\n");
  EXPECT_EQ(client->Command({"OBJECT", "FREQ", "k"}).bytes, ":5\r\n");
  for (int i = 0; i < 200; ++i) client->Command({"GET", "k"});
  const std::string freq = client->Command({"OBJECT", "FREQ", "k"}).bytes;
  ASSERT_EQ(freq.front(), ':');
  EXPECT_GT(std::stoi(freq.substr(1)), 7);
}

}  // namespace
}  // namespace warden::testing
