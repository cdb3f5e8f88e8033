// CONFIG GET and CONFIG HELP through the dispatcher (Redis 7.0's config.c, checked against
// redis-server 7.0.15).
#include <gtest/gtest.h>

#include <string>

#include "server/config/config_options.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ConfigCommandsTest : public CommandTest {};

TEST_F(ConfigCommandsTest, GetOneOption) {
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory"}), "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
}

TEST_F(ConfigCommandsTest, GetIsAMapInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory"}), "%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
}

TEST_F(ConfigCommandsTest, ExactNameIsRepliedAsTyped) {
  EXPECT_EQ(Run({"CONFIG", "GET", "MAXMEMORY"}), "*2\r\n$9\r\nMAXMEMORY\r\n$1\r\n0\r\n");
}

TEST_F(ConfigCommandsTest, HiddenOptionsAnswerOnlyToTheirExactName) {
  // Redis's HIDDEN_CONFIG test hooks: a pattern never lists them.
  EXPECT_EQ(Run({"CONFIG", "GET", "key-load-delay"}), "*2\r\n$14\r\nkey-load-delay\r\n$1\r\n0\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "key-load-*"}), "*0\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "rdb-key-save-*"}), "*0\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "key-load-delay", "-5"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "KEY-LOAD-DELAY"}),
            "*2\r\n$14\r\nKEY-LOAD-DELAY\r\n$2\r\n-5\r\n");
}

TEST_F(ConfigCommandsTest, APercentageAbove100IsRefusedAsRedisRefusesIt) {
  EXPECT_EQ(Run({"CONFIG", "SET", "maxmemory-clients", "101%"}),
            "-ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - "
            "percentage argument must be less or equal to 100\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "maxmemory-clients", "10%"}), "+OK\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory-clients"}),
            "*2\r\n$17\r\nmaxmemory-clients\r\n$3\r\n10%\r\n");
}

TEST_F(ConfigCommandsTest, PatternRepliesCanonicalNames) {
  EXPECT_EQ(Run({"CONFIG", "GET", "MAXMEM*RY"}), "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
}

TEST_F(ConfigCommandsTest, ExactNameTakesNoEscapes) {
  EXPECT_EQ(Run({"CONFIG", "GET", "max\\memory"}), "*0\r\n");
}

TEST_F(ConfigCommandsTest, AliasAnswersUnderItsOwnName) {
  EXPECT_EQ(Run({"CONFIG", "GET", "lua-time-limit"}),
            "*2\r\n$14\r\nlua-time-limit\r\n$4\r\n5000\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "busy-reply-threshold"}),
            "*2\r\n$20\r\nbusy-reply-threshold\r\n$4\r\n5000\r\n");
}

TEST_F(ConfigCommandsTest, GlobSelectsMatchingNames) {
  EXPECT_EQ(Run({"CONFIG", "GET", "*time-limit"}), "*2\r\n$14\r\nlua-time-limit\r\n$4\r\n5000\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory-p*"}),
            "*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "lfu-*-time"}), "*2\r\n$14\r\nlfu-decay-time\r\n$1\r\n1\r\n");
}

TEST_F(ConfigCommandsTest, ReplyIsTheUnionWithoutDuplicates) {
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory", "MAXMEMORY", "max*ory"}),
            "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
}

TEST_F(ConfigCommandsTest, UnknownNameIsAbsent) {
  EXPECT_EQ(Run({"CONFIG", "GET", "nosuch"}), "*0\r\n");
}

TEST_F(ConfigCommandsTest, ClassRulesOfConfigGetGlob) {
  EXPECT_EQ(Run({"CONFIG", "GET", "M[A-A]XMEMORY"}), "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "m[\\A]xmemory"}), "*0\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "m[Z-a]xmemory"}), "*0\r\n");
}

TEST_F(ConfigCommandsTest, DefaultsClientsRead) {
  EXPECT_EQ(Run({"CONFIG", "GET", "maxmemory-policy"}),
            "*2\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "databases"}), "*2\r\n$9\r\ndatabases\r\n$2\r\n16\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "appendonly"}), "*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n");
  // Redis's default save points.
  EXPECT_EQ(Run({"CONFIG", "GET", "save"}),
            "*2\r\n$4\r\nsave\r\n$23\r\n3600 1 300 100 60 10000\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "proto-max-bulk-len"}),
            "*2\r\n$18\r\nproto-max-bulk-len\r\n$9\r\n536870912\r\n");
}

TEST_F(ConfigCommandsTest, GetArity) {
  EXPECT_EQ(Run({"CONFIG", "GET"}), "-ERR wrong number of arguments for 'config|get' command\r\n");
}

TEST_F(ConfigCommandsTest, ContainerErrors) {
  EXPECT_EQ(Run({"CONFIG"}), "-ERR wrong number of arguments for 'config' command\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET_XX"}), "-ERR unknown subcommand 'GET_XX'. Try CONFIG HELP.\r\n");
}

TEST_F(ConfigCommandsTest, Help) {
  EXPECT_EQ(Run({"CONFIG", "HELP"}),
            "*11\r\n"
            "+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+GET <pattern>\r\n"
            "+    Return parameters matching the glob-like <pattern> and their values.\r\n"
            "+SET <directive> <value>\r\n"
            "+    Set the configuration <directive> to <value>.\r\n"
            "+RESETSTAT\r\n"
            "+    Reset statistics reported by the INFO command.\r\n"
            "+REWRITE\r\n"
            "+    Rewrite the configuration file.\r\n"
            "+HELP\r\n"
            "+    Prints this help.\r\n");
}

Config TunedConfig() {
  Config config = TestConfig();
  config.hz = 50;
  config.busy_reply_threshold_ms = 200;
  return config;
}

class TunedConfigCommandsTest : public CommandTest {
 protected:
  TunedConfigCommandsTest() : CommandTest(TunedConfig()) {}
};

TEST_F(TunedConfigCommandsTest, GetShowsConfiguredValues) {
  EXPECT_EQ(Run({"CONFIG", "GET", "hz"}), "*2\r\n$2\r\nhz\r\n$2\r\n50\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "lua-time-limit"}),
            "*2\r\n$14\r\nlua-time-limit\r\n$3\r\n200\r\n");
}

Config RandomSeedConfig() {
  Config config = TestConfig();
  config.seed.reset();
  return config;
}

class RandomSeedConfigCommandsTest : public CommandTest {
 protected:
  RandomSeedConfigCommandsTest() : CommandTest(RandomSeedConfig()) {}
};

TEST_F(RandomSeedConfigCommandsTest, GetShowsTheSeedDrawnAtStart) {
  const std::string seed = std::to_string(state_.seed);

  EXPECT_EQ(Run({"CONFIG", "GET", "seed"}),
            "*2\r\n$4\r\nseed\r\n$" + std::to_string(seed.size()) + "\r\n" + seed + "\r\n");
}

TEST_F(RandomSeedConfigCommandsTest, RewriteKeepsTheSeedRandom) {
  const std::string text = RewriteConfigText("seed random\n", state_.config);

  EXPECT_EQ(text.rfind("seed random\n", 0), 0u) << text;
  EXPECT_EQ(RewriteConfigText("", state_.config).find("seed"), std::string::npos);
}

}  // namespace
}  // namespace warden::server
