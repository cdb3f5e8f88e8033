// CONFIG SET and CONFIG REWRITE through the dispatcher, and the rewrite of a config file's text
// (semantics-types 12; error texts checked against redis-server 7.0.15).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "server/config/config_options.h"
#include "server/config/config_values.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ConfigSetTest : public CommandTest {};

std::string PairReply(std::string_view name, std::string_view value) {
  return "*2\r\n" + BulkReply(name) + BulkReply(value);
}

TEST_F(ConfigSetTest, SetsSeveralOptionsAtOnce) {
  EXPECT_EQ(Run({"CONFIG", "SET", "timeout", "30", "maxclients", "50"}), "+OK\r\n");

  EXPECT_EQ(state_.config.timeout_s, 30);
  EXPECT_EQ(state_.config.maxclients, 50);
}

TEST_F(ConfigSetTest, OneBadValueChangesNothing) {
  EXPECT_EQ(Run({"CONFIG", "SET", "maxmemory-policy", "volatile-lfu", "hz", "abc"}),
            "-ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be "
            "parsed into an integer\r\n");

  EXPECT_EQ(state_.config.maxmemory_policy, "noeviction");
}

TEST_F(ConfigSetTest, ValueErrorNamesTheOptionInLowerCase) {
  EXPECT_EQ(Run({"CONFIG", "SET", "LUA-TIME-LIMIT", "-1"}),
            "-ERR CONFIG SET failed (possibly related to argument 'lua-time-limit') - "
            "argument must be between 0 and 9223372036854775807 inclusive\r\n");
}

TEST_F(ConfigSetTest, DuplicateNamesTheSecondSpelling) {
  EXPECT_EQ(Run({"CONFIG", "SET", "hz", "10", "HZ", "20"}),
            "-ERR CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter\r\n");
}

TEST_F(ConfigSetTest, AliasAndCanonicalNameAreNoDuplicate) {
  EXPECT_EQ(Run({"CONFIG", "SET", "lua-time-limit", "100", "busy-reply-threshold", "200"}),
            "+OK\r\n");

  EXPECT_EQ(state_.config.busy_reply_threshold_ms, 200);
}

TEST_F(ConfigSetTest, FirstProblemAmongNamesWins) {
  EXPECT_EQ(Run({"CONFIG", "SET", "databases", "1", "nosuch", "2"}),
            "-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "nosuch", "2", "databases", "1"}),
            "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "hz", "abc", "nosuch", "1"}),
            "-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n");
}

TEST_F(ConfigSetTest, ProtectedOption) {
  EXPECT_EQ(Run({"CONFIG", "SET", "dir", "/tmp"}),
            "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected "
            "config\r\n");
}

TEST_F(ConfigSetTest, OddArgumentCountIsASyntaxError) {
  EXPECT_EQ(Run({"CONFIG", "SET", "hz", "10", "timeout"}), "-ERR syntax error\r\n");
}

TEST_F(ConfigSetTest, PortIsAPortNumber) {
  EXPECT_EQ(Run({"CONFIG", "SET", "port", "70000"}),
            "-ERR CONFIG SET failed (possibly related to argument 'port') - argument must be "
            "between 0 and 65535 inclusive\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "port", "7000"}), "+OK\r\n");
  EXPECT_EQ(state_.config.port, 7000);
}

TEST_F(ConfigSetTest, BindTakesSeveralAddresses) {
  EXPECT_EQ(Run({"CONFIG", "SET", "bind", "127.0.0.1 -::1"}), "+OK\r\n");

  EXPECT_EQ(state_.config.bind, (std::vector<std::string>{"127.0.0.1", "-::1"}));
}

TEST_F(ConfigSetTest, HzIsClamped) {
  EXPECT_EQ(Run({"CONFIG", "SET", "hz", "1000"}), "+OK\r\n");
  EXPECT_EQ(state_.config.hz, 500);
  EXPECT_EQ(Run({"CONFIG", "SET", "hz", "0"}), "+OK\r\n");
  EXPECT_EQ(state_.config.hz, 1);
}

TEST_F(ConfigSetTest, MemoryUnits) {
  EXPECT_EQ(Run({"CONFIG", "SET", "client-query-buffer-limit", "1GB"}), "+OK\r\n");
  EXPECT_EQ(state_.config.client_query_buffer_limit, 1073741824);
  EXPECT_EQ(Run({"CONFIG", "SET", "client-query-buffer-limit", "2g"}), "+OK\r\n");
  EXPECT_EQ(state_.config.client_query_buffer_limit, 2000000000);
  EXPECT_EQ(Run({"CONFIG", "SET", "client-query-buffer-limit", "1.5mb"}),
            "-ERR CONFIG SET failed (possibly related to argument 'client-query-buffer-limit') - "
            "argument must be a memory value\r\n");
}

TEST_F(ConfigSetTest, OutputBufferLimitChangesOnlyTheNamedClasses) {
  EXPECT_EQ(Run({"CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 2 3"}), "+OK\r\n");

  EXPECT_EQ(Run({"CONFIG", "GET", "client-output-buffer-limit"}),
            PairReply("client-output-buffer-limit",
                      "normal 1048576 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"));
}

TEST_F(ConfigSetTest, EncodingLimitApplies) {
  Run({"CONFIG", "SET", "set-max-intset-entries", "2"});
  Run({"SADD", "s", "1", "2", "3"});

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "s"}), "$9\r\nhashtable\r\n");
}

TEST_F(ConfigSetTest, ActiveExpireEffortIsValidated) {
  EXPECT_EQ(Run({"CONFIG", "SET", "active-expire-effort", "11"}),
            "-ERR CONFIG SET failed (possibly related to argument 'active-expire-effort') - "
            "argument must be between 1 and 10 inclusive\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "active-expire-effort", "10"}), "+OK\r\n");
}

TEST_F(ConfigSetTest, ClearedPasswordLetsUnauthenticatedClientsIn) {
  Run({"CONFIG", "SET", "requirepass", "secret"});
  session_.authenticated = false;
  EXPECT_EQ(Run({"GET", "k"}), "-NOAUTH Authentication required.\r\n");

  Run({"AUTH", "secret"});
  Run({"CONFIG", "SET", "requirepass", ""});
  session_.authenticated = false;

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
}

TEST_F(ConfigSetTest, PersistenceSettings) {
  EXPECT_EQ(Run({"CONFIG", "SET", "save", ""}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "save", "1 2 3"}),
            "-ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save "
            "parameters\r\n");
  // Turning the file on at run time is tested on a real process (tests/e2e/aof_test.cc).
  EXPECT_EQ(Run({"CONFIG", "SET", "appendonly", "maybe"}),
            "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must "
            "be 'yes' or 'no'\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "appendonly", "no"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "appendfsync", "ALWAYS"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "appendfsync"}), "*2\r\n$11\r\nappendfsync\r\n$6\r\nalways\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "appendfilename", "x.aof"}),
            "-ERR CONFIG SET failed (possibly related to argument 'appendfilename') - can't set "
            "immutable config\r\n");
}

// Lines CONFIG REWRITE always writes, as Redis does.
const std::string kPercentilesLine = "latency-tracking-info-percentiles 50 99 99.9\n";
std::string DirLine() {
  char* real = ::realpath(".", nullptr);
  std::string line = std::string("dir \"") + real + "\"\n";
  std::free(real);
  return line;
}

TEST_F(ConfigSetTest, RewriteWithoutAFile) {
  EXPECT_EQ(Run({"CONFIG", "REWRITE"}), "-ERR The server is running without a config file\r\n");
}

TEST_F(ConfigSetTest, RewriteWritesTheFileItStartedWith) {
  char path[] = "/tmp/warden-rewrite-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string original = "# my server\nport 7000\nhz 20\n";
  ASSERT_EQ(write(fd, original.data(), original.size()), static_cast<ssize_t>(original.size()));
  close(fd);
  state_.config.config_file = path;
  state_.config.dir.clear();  // the fixture's: cleared, the rewrite writes the working directory
  Run({"CONFIG", "SET", "hz", "30", "timeout", "5", "save", "900 1 60 100"});

  EXPECT_EQ(Run({"CONFIG", "REWRITE"}), "+OK\r\n");

  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  // As Redis: the percentiles, the directory and the users are always written; and the
  // fixture's seed, as any option that differs from its default.
  EXPECT_EQ(text.str(),
            "# my server\nport 6379\nhz 30\n\n# Generated by CONFIG REWRITE\ntimeout 5\n" +
                kPercentilesLine + "save 900 1\nsave 60 100\n" + DirLine() +
                "seed 1\nuser default on nopass ~* &* +@all\n");
}

TEST(RewriteConfigTextTest, KeepsCommentsAndUnknownLinesUpdatesInPlace) {
  Config config;
  config.save_points.clear();
  config.hz = 25;
  config.seed = 42;
  const std::string old_text =
      "# comment\n"
      "  hz 10   \n"
      "seed 42\n"
      "\n"
      "\n"
      "hash-max-ziplist-entries 100\n"
      "hz 11\n";
  config.encoding.hash_max_listpack_entries = 100;

  EXPECT_EQ(RewriteConfigText(old_text, config),
            "# comment\n"
            "hz 25\n"
            "seed 42\n"
            "\n"
            "hash-max-listpack-entries 100\n"
            "\n"
            "# Generated by CONFIG REWRITE\n" +
                kPercentilesLine + "save \"\"\n" + DirLine());
}

TEST(RewriteConfigTextTest, AppendsAfterAnExistingSignature) {
  Config config;
  config.save_points.clear();
  config.timeout_s = 7;
  config.requirepass = "a \"b\"";
  config.output_limit_normal = {1024 * 1024, 0, 3};

  EXPECT_EQ(RewriteConfigText("# Generated by CONFIG REWRITE\nsave \"\"\n", config),
            "# Generated by CONFIG REWRITE\n"
            "save \"\"\n"
            "\n"
            "timeout 7\n"
            "client-output-buffer-limit normal 1mb 0 3\n"
            "requirepass \"a \\\"b\\\"\"\n" +
                kPercentilesLine + DirLine());
}

TEST(RewriteConfigTextTest, DuplicateLinesOfAnOptionAreBlanked) {
  Config config;
  config.save_points.clear();
  EXPECT_EQ(RewriteConfigText("timeout 1\n# x\ntimeout 2\nport 7000\n", config),
            "timeout 0\n# x\n\nport 6379\n\n# Generated by CONFIG REWRITE\n" + kPercentilesLine +
                "save \"\"\n" + DirLine());
}

TEST(RewriteConfigTextTest, UsersAreWrittenLastUnlessThereIsAnAclfile) {
  Config config;
  config.save_points.clear();
  const std::vector<std::string> users = {"user alice on nopass ~* +@all",
                                          "user default on nopass ~* &* +@all"};
  EXPECT_EQ(RewriteConfigText("user old off\nport 7000\n", config, users),
            "user alice on nopass ~* +@all\nport 6379\n\n# Generated by CONFIG REWRITE\n" +
                kPercentilesLine + "save \"\"\n" + DirLine() +
                "user default on nopass ~* &* +@all\n");
  config.aclfile = "users.acl";
  EXPECT_EQ(RewriteConfigText("user old off\nport 7000\n", config, users),
            // The dropped line stays as a blank one, as in Redis.
            "\nport 6379\n\n# Generated by CONFIG REWRITE\naclfile \"users.acl\"\n" +
                kPercentilesLine + "save \"\"\n" + DirLine());
}

TEST(FormatMemoryTest, UsesTheLargestExactUnit) {
  EXPECT_EQ(config_values::FormatMemory(0), "0");
  EXPECT_EQ(config_values::FormatMemory(1024), "1kb");
  EXPECT_EQ(config_values::FormatMemory(3 * 1024 * 1024), "3mb");
  EXPECT_EQ(config_values::FormatMemory(1073741824), "1gb");
  EXPECT_EQ(config_values::FormatMemory(1000), "1000");
}

}  // namespace
}  // namespace warden::server
