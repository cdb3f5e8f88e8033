// One client's burst against everyone else's turn. warden runs at most a fixed budget of one
// client's requests per loop turn (connection.cc, kTurnBytes) and lets the others go between
// slices; what a client sees of its own pipeline (order, MULTI/EXEC and scripts run whole) must
// not change. The order-and-atomicity scenarios run on warden and redis-server 7.0; the slice
// itself is warden's (Redis runs a woken client's whole buffered pipeline at once).
//
// Waits are bounded reads or polls of the server's own counters, never fixed sleeps.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

constexpr int kWaitMs = 20000;

std::string Repeat(const std::string& one, int n) {
  std::string all;
  all.reserve(one.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all += one;
  return all;
}

std::string Integer(std::int64_t n) { return ":" + std::to_string(n) + "\r\n"; }

using FairnessTest = ServerFixture;

// A pipeline many budgets long, with a transaction and a script straddling where the slices
// fall, while a second client works in between: every reply in order, the transaction's
// increments consecutive, and the other client's writes land whole.
TEST_P(FairnessTest, LongPipelineKeepsOrderAndAtomicityAcrossSlices) {
  std::optional<RespClient> burst = Connect();
  std::optional<RespClient> other = Connect();
  ASSERT_TRUE(burst && other);
  const std::string incr = EncodeCommand({"INCR", "c"});
  constexpr int kBefore = 5000;  // about 100 KB: past the budget before MULTI
  constexpr int kInTransaction = 3000;
  constexpr int kAfter = 5000;
  std::string pipeline = Repeat(incr, kBefore);
  pipeline += EncodeCommand({"MULTI"});
  pipeline += Repeat(incr, kInTransaction);
  pipeline += EncodeCommand({"EXEC"});
  pipeline += EncodeCommand(
      {"EVAL", "local a = redis.call('INCR', KEYS[1]) return redis.call('INCR', KEYS[1]) - a", "1",
       "c"});
  pipeline += Repeat(incr, kAfter);
  ASSERT_TRUE(burst->SendRaw(pipeline));
  // The other client's increments go between the burst's slices (on warden) or not; either way
  // each reply is one more than a value no other reply of its own has had.
  constexpr int kOther = 200;
  ASSERT_TRUE(other->SendRaw(Repeat(EncodeCommand({"INCRBY", "c", "1000000"}), kOther)));
  std::int64_t seen = 0;
  for (int i = 0; i < kOther; ++i) {
    const ReadResult reply = other->ReadReply(kWaitMs);
    ASSERT_EQ(reply.status, ReadStatus::kOk) << "other reply " << i;
    const std::int64_t value = std::stoll(reply.bytes.substr(1));
    ASSERT_GT(value, seen + 999999) << "other reply " << i;
    seen = value;
  }

  std::int64_t last = 0;
  const auto expect_increment = [&](const std::string& bytes, const std::string& where) {
    ASSERT_EQ(bytes[0], ':') << where << ": " << bytes;
    const std::int64_t value = std::stoll(bytes.substr(1));
    ASSERT_GT(value, last) << where;
    ASSERT_EQ((value - last) % 1000000, 1) << where << ": only the other client's INCRBYs between";
    last = value;
  };
  for (int i = 0; i < kBefore; ++i) {
    const ReadResult reply = burst->ReadReply(kWaitMs);
    ASSERT_EQ(reply.status, ReadStatus::kOk) << "reply " << i;
    expect_increment(reply.bytes, "reply " + std::to_string(i));
  }
  ASSERT_EQ(burst->ReadReply(kWaitMs).bytes, "+OK\r\n");
  for (int i = 0; i < kInTransaction; ++i) {
    ASSERT_EQ(burst->ReadReply(kWaitMs).bytes, "+QUEUED\r\n") << "queued " << i;
  }
  const ReadResult exec = burst->ReadReply(kWaitMs);
  ASSERT_EQ(exec.status, ReadStatus::kOk);
  const ParseResult results = ParseReply(exec.bytes);
  ASSERT_EQ(results.status, ParseStatus::kComplete);
  ASSERT_EQ(results.reply.elements.size(), std::size_t{kInTransaction})
      << EscapeBytes(exec.bytes, 80);
  const std::int64_t first = std::stoll(results.reply.elements[0].text);
  for (int i = 0; i < kInTransaction; ++i) {
    ASSERT_EQ(std::stoll(results.reply.elements[static_cast<std::size_t>(i)].text), first + i)
        << "EXEC result " << i << ": nothing runs inside a transaction";
  }
  last = first + kInTransaction - 1;
  EXPECT_EQ(burst->ReadReply(kWaitMs).bytes, Integer(1)) << "nothing runs inside a script";
  last += 2;
  for (int i = 0; i < kAfter; ++i) {
    const ReadResult reply = burst->ReadReply(kWaitMs);
    ASSERT_EQ(reply.status, ReadStatus::kOk) << "after reply " << i;
    expect_increment(reply.bytes, "after reply " + std::to_string(i));
  }
  const std::string total =
      std::to_string(kBefore + kInTransaction + 2 + kAfter + std::int64_t{kOther} * 1000000);
  EXPECT_EQ(burst->Command({"GET", "c"}).bytes,
            "$" + std::to_string(total.size()) + "\r\n" + total + "\r\n");
}

// A client closing its connection at the end of a pipeline longer than a slice still has every
// request run and answered first; QUIT stops what comes after it.
TEST_P(FairnessTest, QuitAfterManySlicesAnswersEverythingBeforeIt) {
  std::optional<RespClient> burst = Connect();
  std::optional<RespClient> check = Connect();
  ASSERT_TRUE(burst && check);
  constexpr int kIncrs = 20000;
  std::string pipeline = Repeat(EncodeCommand({"INCR", "q"}), kIncrs);
  pipeline += EncodeCommand({"QUIT"});
  pipeline += EncodeCommand({"SET", "after-quit", "1"});
  ASSERT_TRUE(burst->SendRaw(pipeline));
  const ReadResult all = burst->ReadUntilClose(kWaitMs);
  ASSERT_EQ(all.status, ReadStatus::kClosed);
  std::string expected;
  for (int i = 1; i <= kIncrs; ++i) expected += Integer(i);
  expected += "+OK\r\n";
  EXPECT_EQ(all.bytes, expected);
  EXPECT_EQ(check->Command({"EXISTS", "after-quit"}).bytes, ":0\r\n");
}

INSTANTIATE_TEST_SUITE_P(Servers, FairnessTest, AllServers(), ServerKindName);

std::int64_t InfoField(RespClient& admin, const std::string& section, const std::string& field,
                       std::size_t& bytes_sent) {
  const std::string request = EncodeCommand({"INFO", section});
  bytes_sent += request.size();
  const ReadResult info = admin.Command({"INFO", section});
  const std::size_t at = info.bytes.find(field + ":");
  return at == std::string::npos ? -1 : std::stoll(info.bytes.substr(at + field.size() + 1));
}

// Two clients woken by one command: the first has a long pipeline buffered behind its BLPOP.
// It runs one slice, and the second client's GET comes before the rest of it.
TEST(WardenFairnessTest, WokenPipelineRunsOneSliceThenTheNextClient) {
  std::string error;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(WARDEN_BINARY_PATH, error, {});
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> admin = RespClient::Connect(server->port());
  std::optional<RespClient> burst = RespClient::Connect(server->port());
  std::optional<RespClient> reader = RespClient::Connect(server->port());
  ASSERT_TRUE(admin && burst && reader);

  std::size_t admin_bytes = 0;
  const std::int64_t input_before =
      InfoField(*admin, "stats", "total_net_input_bytes", admin_bytes);
  admin_bytes = 0;
  constexpr int kIncrs = 50000;  // about 1 MB, some 30 budgets
  const std::string incr = EncodeCommand({"INCR", "c"});
  const std::string pipeline = EncodeCommand({"BLPOP", "wake-burst", "0"}) + Repeat(incr, kIncrs);
  ASSERT_TRUE(burst->SendRaw(pipeline));
  const std::string reader_requests =
      EncodeCommand({"BLPOP", "wake-reader", "0"}) + EncodeCommand({"GET", "c"});
  ASSERT_TRUE(reader->SendRaw(reader_requests));
  // Both blocked, and every byte of the burst read into the server: then the wake-up decides.
  const std::int64_t want_input = input_before + static_cast<std::int64_t>(pipeline.size()) +
                                  static_cast<std::int64_t>(reader_requests.size());
  const Deadline deadline(kWaitMs);
  bool ready = false;
  while (!ready && !deadline.Expired()) {
    const std::int64_t blocked = InfoField(*admin, "clients", "blocked_clients", admin_bytes);
    const std::int64_t input = InfoField(*admin, "stats", "total_net_input_bytes", admin_bytes);
    ready = blocked == 2 && input >= want_input + static_cast<std::int64_t>(admin_bytes);
  }
  ASSERT_TRUE(ready) << "the burst was not read whole while blocked";

  // One transaction wakes both in one loop turn, the burst first.
  ASSERT_EQ(admin->Command({"MULTI"}).bytes, "+OK\r\n");
  ASSERT_EQ(admin->Command({"RPUSH", "wake-burst", "x"}).bytes, "+QUEUED\r\n");
  ASSERT_EQ(admin->Command({"RPUSH", "wake-reader", "y"}).bytes, "+QUEUED\r\n");
  ASSERT_EQ(admin->Command({"EXEC"}).bytes, "*2\r\n:1\r\n:1\r\n");

  EXPECT_EQ(reader->ReadReply(kWaitMs).bytes, "*2\r\n$11\r\nwake-reader\r\n$1\r\ny\r\n");
  const ReadResult seen = reader->ReadReply(kWaitMs);
  ASSERT_EQ(seen.status, ReadStatus::kOk);
  ASSERT_EQ(seen.bytes[0], '$') << seen.bytes;
  const std::int64_t value = std::stoll(seen.bytes.substr(seen.bytes.find("\r\n") + 2));
  // One 32 KB slice is 1,561 of these 21-byte INCRs; before the budget the burst ran whole.
  EXPECT_GT(value, 0);
  EXPECT_LT(value, kIncrs / 10) << "the burst ran more than a slice before the reader's GET";

  EXPECT_EQ(burst->ReadReply(kWaitMs).bytes, "*2\r\n$10\r\nwake-burst\r\n$1\r\nx\r\n");
  for (int i = 1; i <= kIncrs; ++i) {
    const ReadResult reply = burst->ReadReply(kWaitMs);
    ASSERT_EQ(reply.bytes, Integer(i)) << "reply " << i;
  }
}

}  // namespace
}  // namespace warden::testing
