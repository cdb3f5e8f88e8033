// The server driven by the real redis-cli, as a user or a script would: one-shot commands, the
// lesson transcript for a lock, bulk loading with --pipe, --scan, commands on stdin and RESP3.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "resp_reply.h"
#include "server_fixture.h"

namespace warden::testing {
namespace {

class RedisCliTest : public ServerFixture {
 protected:
  // Runs one command and returns what redis-cli printed; fails the test on a non-zero exit.
  std::string Run(const std::vector<std::string>& args) {
    const ProgramResult result = RedisCli(args);
    EXPECT_EQ(result.exit_code, 0) << "stderr: " << result.err;
    return result.out;
  }
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The transcript from shared/seeds (Example 1 and 2), in redis-cli's raw output (stdout is not
// a terminal): nil prints as an empty line.
TEST_P(RedisCliTest, SeedTranscriptAcquiresAndReleasesALock) {
  EXPECT_EQ(Run({"SET", "lock:order:1001", "token-abc123", "NX", "PX", "30000"}), "OK\n");
  EXPECT_EQ(Run({"SET", "lock:order:1001", "token-other", "NX", "PX", "30000"}), "\n");
  EXPECT_EQ(Run({"GET", "lock:order:1001"}), "token-abc123\n");
  // Each redis-cli run is a process start, a few hundred ms under sanitizers on a busy machine:
  // the TTL rounds to 30 or, past half a second, 29.
  EXPECT_THAT(Run({"TTL", "lock:order:1001"}), ::testing::AnyOf("30\n", "29\n"));
  EXPECT_EQ(Run({"DEL", "lock:order:1001"}), "1\n");
  EXPECT_EQ(Run({"TTL", "lock:order:1001"}), "-2\n");
}

// The same transcript as the lesson prints it, with --no-raw formatting.
TEST_P(RedisCliTest, SeedTranscriptInNoRawFormat) {
  EXPECT_EQ(Run({"--no-raw", "SET", "lock:order:1002", "clientA-token", "NX", "PX", "30000"}),
            "OK\n");
  EXPECT_EQ(Run({"--no-raw", "SET", "lock:order:1002", "clientB-token", "NX", "PX", "30000"}),
            "(nil)\n");
  EXPECT_EQ(Run({"--no-raw", "GET", "lock:order:1002"}), "\"clientA-token\"\n");
  EXPECT_THAT(Run({"--no-raw", "TTL", "lock:order:1002"}),
              ::testing::AnyOf("(integer) 30\n", "(integer) 29\n"));
  EXPECT_EQ(Run({"--no-raw", "EXPIRE", "lock:job:missing", "30"}), "(integer) 0\n");
  EXPECT_EQ(Run({"--no-raw", "SET", "lock:order:1002", "x", "EX", "0"}),
            "(error) ERR invalid expire time in 'set' command\n");
}

TEST_P(RedisCliTest, ScanPatternVisitsEveryMatchingKeyOnce) {
  constexpr int kLocks = 20000;
  constexpr int kOthers = 2000;
  std::string load;
  std::vector<std::string> expected;
  for (int i = 0; i < kLocks; ++i) {
    expected.push_back("lock:" + std::to_string(i));
    load += EncodeCommand({"SET", expected.back(), "token", "PX", "600000"});
  }
  for (int i = 0; i < kOthers; ++i) load += EncodeCommand({"SET", "job:" + std::to_string(i), "x"});

  const ProgramResult piped = RedisCli({"--pipe"}, load);
  ASSERT_EQ(piped.exit_code, 0) << piped.out << piped.err;
  EXPECT_NE(piped.out.find("errors: 0, replies: " + std::to_string(kLocks + kOthers)),
            std::string::npos)
      << piped.out;
  ASSERT_EQ(Run({"DBSIZE"}), std::to_string(kLocks + kOthers) + "\n");

  std::vector<std::string> scanned = Lines(Run({"--scan", "--pattern", "lock:*"}));
  std::sort(scanned.begin(), scanned.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(scanned.size(), expected.size()) << "some key was missed or returned twice";
  EXPECT_TRUE(scanned == expected);
}

// With no command arguments and stdin not a terminal, redis-cli runs one command per line.
TEST_P(RedisCliTest, CommandsPipedOnStdinRunInOrder) {
  const ProgramResult result = RedisCli(
      {}, "SET counter 1\nINCR counter\nINCRBY counter 10\nGET counter\nGET nokey\nPING\n");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "OK\n2\n12\n12\n\nPONG\n");
}

// -3 makes redis-cli send HELLO 3 first; nulls and maps then come back in RESP3.
TEST_P(RedisCliTest, Resp3RepliesAfterHello) {
  EXPECT_EQ(Run({"-3", "--no-raw", "GET", "nokey"}), "(nil)\n");
  EXPECT_EQ(Run({"-3", "--no-raw", "CONFIG", "GET", "maxmemory"}), "1# \"maxmemory\" => \"0\"\n");
  EXPECT_EQ(Run({"-3", "CONFIG", "GET", "maxmemory"}), "maxmemory 0\n");
  const std::vector<std::string> hello = Lines(Run({"-3", "--no-raw", "HELLO"}));
  ASSERT_EQ(hello.size(), 7u);
  EXPECT_EQ(hello[0], "1# \"server\" => \"redis\"");
  EXPECT_EQ(hello[1], "2# \"version\" => \"7.0.15\"");
  EXPECT_EQ(hello[2], "3# \"proto\" => (integer) 3");
  EXPECT_TRUE(hello[3].starts_with("4# \"id\" => (integer) ")) << hello[3];
  EXPECT_EQ(hello[6], "7# \"modules\" => (empty array)");
}

INSTANTIATE_TEST_SUITE_P(Servers, RedisCliTest, AllServers(), ServerKindName);

}  // namespace
}  // namespace warden::testing
