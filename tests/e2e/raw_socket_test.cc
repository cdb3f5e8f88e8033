// The server over raw sockets: pipelining, requests split across reads, protocol errors and
// closes, large payloads, many clients racing for one lock, and active expiry. Every byte
// expected here is what redis-server 7.0 sends, which the redis_server instantiation proves.
#include <gtest/gtest.h>
#include <poll.h>

#include <optional>
#include <string>
#include <vector>

#include "deadline.h"
#include "resp_reply.h"
#include "server_fixture.h"

namespace warden::testing {
namespace {

using RawSocketTest = ServerFixture;

TEST_P(RawSocketTest, TenThousandPipelinedPingsInOneWriteAreAllAnswered) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  std::string pings;
  for (int i = 0; i < 10000; ++i) pings += "PING\r\n";
  ASSERT_TRUE(client->SendRaw(pings));
  for (int i = 0; i < 10000; ++i) {
    const ReadResult reply = client->ReadReply();
    ASSERT_EQ(reply.bytes, "+PONG\r\n") << "reply " << i << " " << ReadStatusName(reply.status);
  }
  EXPECT_EQ(client->Command({"ECHO", "after"}).bytes, "$5\r\nafter\r\n");
}

TEST_P(RawSocketTest, PipelinedRepliesKeepRequestOrder) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  std::string requests;
  for (int i = 0; i < 10000; ++i) {
    requests += i % 2 == 0 ? "ECHO " + std::to_string(i) + "\r\n"
                           : EncodeCommand({"ECHO", std::to_string(i)});
  }
  ASSERT_TRUE(client->SendRaw(requests));
  for (int i = 0; i < 10000; ++i) {
    const std::string expected = std::to_string(i);
    ASSERT_EQ(client->ReadReply().bytes,
              "$" + std::to_string(expected.size()) + "\r\n" + expected + "\r\n");
  }
}

TEST_P(RawSocketTest, RequestSplitByteByByteRunsOnce) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  const std::string request = EncodeCommand({"INCRBY", "split", "5"}) + "INCRBY split 7\r\n";
  for (const char byte : request) ASSERT_TRUE(client->SendRaw(std::string(1, byte)));
  EXPECT_EQ(client->ReadReply().bytes, ":5\r\n");
  EXPECT_EQ(client->ReadReply().bytes, ":12\r\n");
  EXPECT_EQ(client->Command({"GET", "split"}).bytes, "$2\r\n12\r\n");
}

TEST_P(RawSocketTest, ProtocolErrorIsSentAfterEarlierRepliesThenCloses) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  client->SendRaw("PING\r\n*abc\r\nSET after 1\r\n");
  const ReadResult received = client->ReadUntilClose();
  EXPECT_EQ(received.status, ReadStatus::kClosed);
  EXPECT_EQ(received.bytes, "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n");
  std::optional<RespClient> other = Connect();
  ASSERT_TRUE(other);
  EXPECT_EQ(other->Command({"EXISTS", "after"}).bytes, ":0\r\n");
}

TEST_P(RawSocketTest, QuitRepliesOkThenCloses) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  client->SendRaw("PING\r\nQUIT\r\nPING\r\n");
  const ReadResult received = client->ReadUntilClose();
  EXPECT_EQ(received.status, ReadStatus::kClosed);
  EXPECT_EQ(received.bytes, "+PONG\r\n+OK\r\n");
}

TEST_P(RawSocketTest, HttpPostClosesSilently) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  client->SendRaw("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
  const ReadResult received = client->ReadUntilClose();
  EXPECT_EQ(received.status, ReadStatus::kClosed);
  EXPECT_EQ(received.bytes, "");
}

TEST_P(RawSocketTest, InlineRequestOver64KibWithoutNewlineCloses) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  client->SendRaw(std::string(70000, 'a'));
  const ReadResult received = client->ReadUntilClose();
  EXPECT_EQ(received.status, ReadStatus::kClosed);
  EXPECT_EQ(received.bytes, "-ERR Protocol error: too big inline request\r\n");
}

// Redis's "Protocol desync regression" tests: a NUL byte before the line end hides every later
// newline from Redis's C-string search, so the 64 KiB limit closes the connection instead of
// garbage being run as commands.
TEST_P(RawSocketTest, NulBytesBeforeTheLineEndHitTheSizeLimit) {
  const struct {
    std::string prefix;
    std::string error;
  } cases[] = {
      {std::string("\0", 1), "-ERR Protocol error: too big inline request\r\n"},
      {std::string("*\0", 2), "-ERR Protocol error: too big mbulk count string\r\n"},
      {std::string("$\0", 2), "-ERR Protocol error: too big inline request\r\n"},
  };
  std::string filler;
  while (filler.size() < 70000) filler += std::string(99, 'A') + "\n";
  for (const auto& test_case : cases) {
    SCOPED_TRACE(EscapeBytes(test_case.prefix));
    std::optional<RespClient> client = Connect();
    ASSERT_TRUE(client);
    client->SendRaw(test_case.prefix + filler);
    const ReadResult received = client->ReadUntilClose();
    EXPECT_EQ(received.status, ReadStatus::kClosed);
    EXPECT_EQ(received.bytes, test_case.error);
  }
}

TEST_P(RawSocketTest, LargeValueRoundTrips) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  std::string value(4 << 20, 'v');
  for (std::size_t i = 0; i < value.size(); i += 4096) value[i] = static_cast<char>('a' + i % 26);
  ASSERT_EQ(client->Command({"SET", "big", value}).bytes, "+OK\r\n");
  const ReadResult reply = client->Command({"GET", "big"});
  ASSERT_EQ(reply.status, ReadStatus::kOk);
  EXPECT_TRUE(reply.bytes == "$" + std::to_string(value.size()) + "\r\n" + value + "\r\n");
}

TEST_P(RawSocketTest, OnlyOneOfManyClientsAcquiresTheLock) {
  constexpr int kClients = 50;
  std::vector<RespClient> clients;
  for (int i = 0; i < kClients; ++i) {
    std::optional<RespClient> client = Connect();
    ASSERT_TRUE(client);
    clients.push_back(std::move(*client));
  }
  // Every request is on the wire before any reply is read.
  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(clients[i].Send(
        {"SET", "lock:contended", "token-" + std::to_string(i), "NX", "PX", "30000"}));
  }
  int winner = -1;
  for (int i = 0; i < kClients; ++i) {
    const ReadResult reply = clients[i].ReadReply();
    if (reply.bytes == "+OK\r\n") {
      EXPECT_EQ(winner, -1) << "clients " << winner << " and " << i << " both acquired the lock";
      winner = i;
    } else {
      EXPECT_EQ(reply.bytes, "$-1\r\n");
    }
  }
  ASSERT_NE(winner, -1) << "no client acquired the lock";
  EXPECT_EQ(clients[0].Command({"GET", "lock:contended"}).bytes,
            "$" + std::to_string(6 + std::to_string(winner).size()) + "\r\ntoken-" +
                std::to_string(winner) + "\r\n");
}

INSTANTIATE_TEST_SUITE_P(Servers, RawSocketTest, AllServers(), ServerKindName);

using ActiveExpiryTest = ServerFixture;

// A crashed holder's lock must go away even if nobody touches it again.
TEST_P(ActiveExpiryTest, ExpiredKeysDisappearWithoutBeingAccessed) {
  std::optional<RespClient> client = Connect();
  ASSERT_TRUE(client);
  for (const char* key : {"lock:a", "lock:b", "lock:c"}) {
    ASSERT_EQ(client->Command({"SET", key, "token", "PX", "100"}).bytes, "+OK\r\n");
  }
  ASSERT_EQ(client->Command({"SET", "lock:kept", "token", "PX", "600000"}).bytes, "+OK\r\n");
  // DBSIZE counts expired keys until they are removed, so it shows active expiry at work.
  const Deadline deadline(5000);
  std::string size;
  while (!deadline.Expired()) {
    size = client->Command({"DBSIZE"}).bytes;
    if (size == ":1\r\n") break;
    poll(nullptr, 0, 20);  // between samples; the loop ends on the condition or the deadline
  }
  EXPECT_EQ(size, ":1\r\n") << "expired keys were still counted after 5 s";
}

INSTANTIATE_TEST_SUITE_P(Servers, ActiveExpiryTest, AllServers(), ServerKindName);

}  // namespace
}  // namespace warden::testing
