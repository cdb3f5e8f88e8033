// The limits and access rules of a real server process: maxclients, the query buffer limit, the
// output buffer limit, idle timeout, protected mode, and what SIGTERM does to clients in the
// middle of a pipeline. The Redis-defined behaviours run against warden and redis-server 7.0;
// the ones Redis does not have (replies paused instead of buffered without bound, replies
// flushed on SIGTERM) run against warden alone.
//
// Waits are bounded reads or polls of the server's own state, never fixed sleeps.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

constexpr int kWaitMs = 20000;
constexpr std::string_view kDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no password "
    "is set for the default user. In this mode connections are only accepted from the loopback "
    "interface. If you want to connect from external computers to Redis you may adopt one of the "
    "following solutions: 1) Just disable protected mode sending the command 'CONFIG SET "
    "protected-mode no' from the loopback interface by connecting to Redis from the same host the "
    "server is running, however MAKE SURE Redis is not publicly accessible from internet if you do "
    "so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable "
    "the protected mode by editing the Redis configuration file, and setting the protected mode "
    "option to 'no', and then restarting the server. 3) If you started the server manually just "
    "for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication "
    "password for the default user. NOTE: You only need to do one of the above things in order for "
    "the server to start accepting connections from the outside.\r\n";

std::string BinaryFor(ServerKind kind) {
  return kind == ServerKind::kWarden ? WARDEN_BINARY_PATH : FindExecutable("redis-server");
}

std::unique_ptr<ServerProcess> StartServer(ServerKind kind, const std::vector<std::string>& args) {
  std::string error;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(BinaryFor(kind), error, args);
  EXPECT_NE(server, nullptr) << error;
  return server;
}

// The server's resident set, from /proc; 0 if unreadable.
std::int64_t ResidentKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

// The value of `field=` in the CLIENT LIST line of client `id`, or "?" if absent.
std::string ClientField(RespClient& admin, std::int64_t id, const std::string& field) {
  const std::string line = admin.Command({"CLIENT", "LIST", "ID", std::to_string(id)}).bytes;
  const std::size_t at = line.find(" " + field + "=");
  if (at == std::string::npos) return "?";
  const std::size_t start = at + field.size() + 2;
  return line.substr(start, line.find_first_of(" \n", start) - start);
}

std::int64_t ClientId(RespClient& client) {
  const ReadResult id = client.Command({"CLIENT", "ID"});
  return id.bytes.size() > 3 ? std::stoll(id.bytes.substr(1)) : -1;
}

// Polls CLIENT LIST until client `id` is paused: no longer read from (events has no "r") while
// a write waits for it to read. False at the deadline.
bool WaitUntilPaused(RespClient& admin, std::int64_t id) {
  const Deadline deadline(kWaitMs);
  while (!deadline.Expired()) {
    if (ClientField(admin, id, "events") == "w") return true;
  }
  return false;
}

// Polls until the server reports `count` connected clients. False at the deadline.
bool WaitForClientCount(RespClient& admin, int count) {
  const std::string want = "connected_clients:" + std::to_string(count) + "\r\n";
  const Deadline deadline(kWaitMs);
  while (!deadline.Expired()) {
    if (admin.Command({"INFO", "clients"}).bytes.find(want) != std::string::npos) return true;
  }
  return false;
}

std::string BulkOf(const std::string& value) {
  return "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
}

// `n` pipelined GETs of the key "big", in one string to send at once.
std::string PipelinedGets(int n) {
  const std::string one = EncodeCommand({"GET", "big"});
  std::string gets;
  gets.reserve(one.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) gets += one;
  return gets;
}

class LimitsTest : public ::testing::TestWithParam<ServerKind> {};

TEST_P(LimitsTest, ClientsPastMaxclientsAreToldAndClosed) {
  auto server = StartServer(GetParam(), {"--maxclients", "2"});
  ASSERT_TRUE(server);
  std::optional<RespClient> a = RespClient::Connect(server->port());
  std::optional<RespClient> b = RespClient::Connect(server->port());
  ASSERT_TRUE(a && b);
  ASSERT_EQ(b->Command({"PING"}).bytes, "+PONG\r\n");
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  const ReadResult refused = c->ReadUntilClose(kWaitMs);
  EXPECT_EQ(refused.status, ReadStatus::kClosed);
  EXPECT_EQ(refused.bytes, "-ERR max number of clients reached\r\n");
  EXPECT_NE(a->Command({"INFO", "stats"}).bytes.find("rejected_connections:1\r\n"),
            std::string::npos);
  // A slot freed is a slot taken.
  b.reset();
  ASSERT_TRUE(WaitForClientCount(*a, 1));
  std::optional<RespClient> d = RespClient::Connect(server->port());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->Command({"PING"}).bytes, "+PONG\r\n");
}

TEST_P(LimitsTest, QueryBufferPastTheLimitClosesTheClientAndNothingElse) {
  auto server = StartServer(GetParam(), {"--client-query-buffer-limit", "1mb"});
  ASSERT_TRUE(server);
  std::optional<RespClient> big = RespClient::Connect(server->port());
  std::optional<RespClient> other = RespClient::Connect(server->port());
  ASSERT_TRUE(big && other);
  // One argument declared at 4 MB (within proto-max-bulk-len), sent 2 MB of it: the buffered
  // request passes the 1 MB limit before it is complete.
  big->SendRaw("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$4194304\r\n" + std::string(2 << 20, 'x'), kWaitMs);
  const ReadResult closed = big->ReadUntilClose(kWaitMs);
  EXPECT_EQ(closed.status, ReadStatus::kClosed);
  EXPECT_EQ(closed.bytes, "");
  EXPECT_EQ(other->Command({"EXISTS", "k"}).bytes, ":0\r\n");
  EXPECT_EQ(other->Command({"PING"}).bytes, "+PONG\r\n");
}

TEST_P(LimitsTest, ClientPastTheHardOutputLimitIsClosed) {
  auto server = StartServer(GetParam(), {"--client-output-buffer-limit", "normal 1mb 0 0"});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> reader = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && reader);
  ASSERT_EQ(admin->Command({"SET", "big", std::string(100000, 'v')}).bytes, "+OK\r\n");
  // 200 replies of 100 kB in one pipeline: 20 MB owed at once, far past 1 MB.
  const std::string gets = PipelinedGets(200);
  ASSERT_TRUE(reader->SendRaw(gets));
  const ReadResult received = reader->ReadUntilClose(kWaitMs);
  EXPECT_EQ(received.status, ReadStatus::kClosed);
  EXPECT_LT(received.bytes.size(), 200u * 100000u);
  EXPECT_TRUE(WaitForClientCount(*admin, 1));
  EXPECT_EQ(admin->Command({"CONFIG", "GET", "client-output-buffer-limit"}).bytes,
            "*2\r\n$26\r\nclient-output-buffer-limit\r\n$73\r\nnormal 1048576 0 0 slave "
            "268435456 67108864 60 pubsub 33554432 8388608 60\r\n");
}

TEST_P(LimitsTest, IdleClientIsClosedAfterTimeout) {
  auto server = StartServer(GetParam(), {"--timeout", "1"});
  ASSERT_TRUE(server);
  std::optional<RespClient> idle = RespClient::Connect(server->port());
  ASSERT_TRUE(idle);
  ASSERT_EQ(idle->Command({"PING"}).bytes, "+PONG\r\n");
  const ReadResult closed = idle->ReadUntilClose(kWaitMs);
  EXPECT_EQ(closed.status, ReadStatus::kClosed);
  EXPECT_EQ(closed.bytes, "");
}

// Each cron tick looks at only some of the connections (connection count / hz, at least five,
// as Redis's clientsCron), walking on from where the last tick stopped; connections that leave
// mid-walk must not lose the place, and every idle one is still closed.
TEST_P(LimitsTest, ManyIdleClientsAreAllClosedAfterTimeout) {
  auto server = StartServer(GetParam(), {"--timeout", "1", "--hz", "50"});
  ASSERT_TRUE(server);
  std::vector<std::optional<RespClient>> clients;
  for (int i = 0; i < 60; ++i) {
    clients.push_back(RespClient::Connect(server->port()));
    ASSERT_TRUE(clients.back());
    ASSERT_EQ(clients.back()->Command({"PING"}).bytes, "+PONG\r\n");
  }
  for (std::size_t i = 0; i < clients.size(); i += 3) clients[i].reset();
  for (std::size_t i = 0; i < clients.size(); ++i) {
    if (!clients[i]) continue;
    const ReadResult closed = clients[i]->ReadUntilClose(kWaitMs);
    EXPECT_EQ(closed.status, ReadStatus::kClosed) << "client " << i;
    EXPECT_EQ(closed.bytes, "") << "client " << i;
  }
}

// maxmemory with noeviction: writes that grow memory are refused once used memory passes the
// limit, with Redis's text; reads and deletes still run, and deleting enough lets writes in
// again. Used memory stays within a value's size of the limit.
TEST_P(LimitsTest, WritesPastMaxmemoryAreRefusedAndDeletesMakeRoom) {
  auto server = StartServer(GetParam(), {"--maxmemory", "4mb"});
  ASSERT_TRUE(server);
  std::optional<RespClient> client = RespClient::Connect(server->port());
  ASSERT_TRUE(client);
  const std::string value(1000, 'v');
  int stored = 0;
  ReadResult last;
  for (; stored < 20000; ++stored) {
    last = client->Command({"SET", "k" + std::to_string(stored), value});
    if (last.bytes != "+OK\r\n") break;
  }
  EXPECT_EQ(last.bytes, "-OOM command not allowed when used memory > 'maxmemory'.\r\n");
  EXPECT_GT(stored, 1000);
  EXPECT_LT(stored, 4200);
  EXPECT_EQ(client->Command({"GET", "k0"}).bytes, BulkOf(value));
  EXPECT_EQ(client->Command({"LPUSH", "list", "x"}).bytes, last.bytes);
  EXPECT_EQ(client->Command({"DBSIZE"}).bytes, ":" + std::to_string(stored) + "\r\n");
  for (int i = 0; i < stored / 2; ++i) {
    ASSERT_EQ(client->Command({"DEL", "k" + std::to_string(i)}).bytes, ":1\r\n");
  }
  EXPECT_EQ(client->Command({"SET", "again", "1"}).bytes, "+OK\r\n");
}

TEST_P(LimitsTest, ProtectedModeRefusesNonLocalClientsWithoutAPassword) {
  auto server = StartServer(GetParam(), {"--bind", "127.0.0.1", "127.0.0.2"});
  ASSERT_TRUE(server);
  // 127.0.0.2 is loopback to the kernel, but only 127.0.0.1 and ::1 count as local.
  std::optional<RespClient> remote = RespClient::ConnectFrom("127.0.0.2", server->port());
  ASSERT_TRUE(remote);
  const ReadResult refused = remote->ReadUntilClose(kWaitMs);
  EXPECT_EQ(refused.status, ReadStatus::kClosed);
  EXPECT_EQ(refused.bytes, kDenied);
  std::optional<RespClient> local = RespClient::Connect(server->port());
  ASSERT_TRUE(local);
  EXPECT_EQ(local->Command({"PING"}).bytes, "+PONG\r\n");
  EXPECT_NE(local->Command({"INFO", "stats"}).bytes.find("rejected_connections:1\r\n"),
            std::string::npos);
}

TEST_P(LimitsTest, ProtectedModeOffAcceptsNonLocalClients) {
  auto server =
      StartServer(GetParam(), {"--bind", "127.0.0.1", "127.0.0.2", "--protected-mode", "no"});
  ASSERT_TRUE(server);
  std::optional<RespClient> remote = RespClient::ConnectFrom("127.0.0.2", server->port());
  ASSERT_TRUE(remote);
  EXPECT_EQ(remote->Command({"PING"}).bytes, "+PONG\r\n");
}

TEST_P(LimitsTest, APasswordLiftsProtectedModeButMustBeGiven) {
  auto server =
      StartServer(GetParam(), {"--bind", "127.0.0.1", "127.0.0.2", "--requirepass", "s3cret"});
  ASSERT_TRUE(server);
  std::optional<RespClient> remote = RespClient::ConnectFrom("127.0.0.2", server->port());
  ASSERT_TRUE(remote);
  EXPECT_EQ(remote->Command({"PING"}).bytes, "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(remote->Command({"AUTH", "wrong"}).bytes,
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(remote->Command({"AUTH", "s3cret"}).bytes, "+OK\r\n");
  EXPECT_EQ(remote->Command({"PING"}).bytes, "+PONG\r\n");
}

INSTANTIATE_TEST_SUITE_P(Servers, LimitsTest, AllServers(), ServerKindName);

// warden stops reading from a client whose replies pile up, where Redis (with its default of no
// output limit for normal clients) keeps buffering them.
TEST(WardenLimitsTest, ClientThatDoesNotReadIsPausedAndMemoryStaysBounded) {
  auto server = StartServer(ServerKind::kWarden, {});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> slow = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && slow);
  const std::string value(100000, 'v');
  ASSERT_EQ(admin->Command({"SET", "big", value}).bytes, "+OK\r\n");
  const std::int64_t slow_id = ClientId(*slow);
  const std::int64_t rss_before = ResidentKib(server->pid());
  // 3,000 replies of 100 kB: 300 MB owed to a client that reads none of it for now.
  constexpr int kGets = 3000;
  const std::string gets = PipelinedGets(kGets);
  ASSERT_TRUE(slow->SendRaw(gets));
  // Once the socket takes no more, the server stops reading from the client...
  ASSERT_TRUE(WaitUntilPaused(*admin, slow_id));
  // ...and leaves the rest of the pipeline unread until they drain.
  const std::int64_t rss_paused = ResidentKib(server->pid());
  EXPECT_LT(rss_paused - rss_before, 64 * 1024) << "KiB grown while the client was paused";
  EXPECT_EQ(admin->Command({"PING"}).bytes, "+PONG\r\n");
  for (int i = 0; i < kGets; ++i) {
    const ReadResult reply = slow->ReadReply(kWaitMs);
    ASSERT_EQ(reply.status, ReadStatus::kOk) << "reply " << i;
    ASSERT_EQ(reply.bytes, BulkOf(value)) << "reply " << i;
  }
}

TEST(WardenLimitsTest, SoftOutputLimitClosesAClientThatStaysOverIt) {
  auto server =
      StartServer(ServerKind::kWarden, {"--client-output-buffer-limit", "normal 0 100kb 1"});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> slow = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && slow);
  ASSERT_EQ(admin->Command({"SET", "big", std::string(100000, 'v')}).bytes, "+OK\r\n");
  const std::string gets = PipelinedGets(500);
  ASSERT_TRUE(slow->SendRaw(gets));
  // Over the soft limit from the first batch; closed once that has lasted a second.
  EXPECT_TRUE(WaitForClientCount(*admin, 1));
  EXPECT_NE(server->LogTail().find("scheduled to be closed ASAP for overcoming of output buffer "
                                   "limits."),
            std::string::npos);
}

// On SIGTERM every reply already computed reaches its client, which then sees the connection
// close after a whole reply, and the process exits 0.
TEST(WardenShutdownTest, SigtermMidPipelineFlushesComputedRepliesAndExitsZero) {
  auto server = StartServer(ServerKind::kWarden, {});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> slow = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && slow);
  const std::string value(100000, 'v');
  ASSERT_EQ(admin->Command({"SET", "big", value}).bytes, "+OK\r\n");
  const std::int64_t slow_id = ClientId(*slow);
  constexpr int kGets = 2000;
  const std::string gets = PipelinedGets(kGets);
  ASSERT_TRUE(slow->SendRaw(gets));
  ASSERT_TRUE(WaitUntilPaused(*admin, slow_id));
  ASSERT_EQ(kill(server->pid(), SIGTERM), 0);
  int received = 0;
  while (true) {
    const ReadResult reply = slow->ReadReply(kWaitMs);
    if (reply.status != ReadStatus::kOk) {
      EXPECT_EQ(reply.status, ReadStatus::kClosed);
      EXPECT_EQ(reply.bytes, "") << "a reply was cut short";
      break;
    }
    ASSERT_EQ(reply.bytes, BulkOf(value)) << "reply " << received;
    ++received;
  }
  // At least what was owed when the signal came; not the whole pipeline, which was still unread.
  EXPECT_GE(received, 10);
  EXPECT_LT(received, kGets);
  slow.reset();  // the server waits for a client it half-closed mid-pipeline to close its end
  const std::optional<int> status = server->WaitForExit(kWaitMs);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << DescribeWaitStatus(*status);
}

TEST(WardenShutdownTest, AClientThatNeverReadsDelaysExitOnlyUntilShutdownTimeout) {
  auto server = StartServer(ServerKind::kWarden, {"--shutdown-timeout", "1"});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> stuck = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && stuck);
  ASSERT_EQ(admin->Command({"SET", "big", std::string(100000, 'v')}).bytes, "+OK\r\n");
  const std::int64_t stuck_id = ClientId(*stuck);
  const std::string gets = PipelinedGets(500);
  ASSERT_TRUE(stuck->SendRaw(gets));
  ASSERT_TRUE(WaitUntilPaused(*admin, stuck_id));
  ASSERT_EQ(kill(server->pid(), SIGTERM), 0);
  const std::optional<int> status = server->WaitForExit(kWaitMs);
  ASSERT_TRUE(status.has_value()) << "still running; log:\n" << server->LogTail();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << DescribeWaitStatus(*status);
}

TEST(WardenShutdownTest, SigpipeFromAVanishedClientDoesNotKillTheServer) {
  auto server = StartServer(ServerKind::kWarden, {});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  ASSERT_TRUE(admin);
  ASSERT_EQ(admin->Command({"SET", "big", std::string(100000, 'v')}).bytes, "+OK\r\n");
  for (int round = 0; round < 20; ++round) {
    std::optional<RespClient> gone = RespClient::Connect(server->port());
    ASSERT_TRUE(gone);
    const std::string gets = PipelinedGets(100);
    ASSERT_TRUE(gone->SendRaw(gets));
    gone.reset();  // closed with replies still coming: the server's writes hit a dead socket
  }
  EXPECT_EQ(admin->Command({"PING"}).bytes, "+PONG\r\n");
  EXPECT_TRUE(server->IsRunning());
}

// Silent connections cost little: five hundred of them, none sending a byte.
TEST(WardenLimitsTest, SilentConnectionsCostLittleMemory) {
  auto server = StartServer(ServerKind::kWarden, {});
  ASSERT_TRUE(server);
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  ASSERT_TRUE(admin);
  const std::int64_t rss_before = ResidentKib(server->pid());
  std::vector<RespClient> silent;
  for (int i = 0; i < 500; ++i) {
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c) << i;
    silent.push_back(std::move(*c));
  }
  ASSERT_TRUE(WaitForClientCount(*admin, 501));
  const std::int64_t grown = ResidentKib(server->pid()) - rss_before;
  EXPECT_LT(grown, 4 * 1024) << "KiB for 500 silent connections";
}

}  // namespace
}  // namespace warden::testing
