// The option table itself (config_options.h): every row is consistent with itself, so that the
// config file, the command line, CONFIG GET, CONFIG SET, CONFIG REWRITE and --help, which all
// read it, agree with one another.
#include "server/config/config_options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/config/config.h"
#include "server/config/config_values.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

// A rewrite value ("512mb", "\"text\"", several '\n'-separated lines) as a config file line's
// words after the name.
std::vector<std::vector<std::string>> FileLines(const std::string& rewritten) {
  std::vector<std::vector<std::string>> lines;
  std::size_t at = 0;
  while (at <= rewritten.size()) {
    const std::size_t end = std::min(rewritten.find('\n', at), rewritten.size());
    std::string storage;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    EXPECT_TRUE(protocol::SplitInlineArgs(rewritten.substr(at, end - at), storage, spans));
    std::vector<std::string> words;
    for (const auto& [from, len] : spans) words.push_back(storage.substr(from, len));
    lines.push_back(std::move(words));
    at = end + 1;
  }
  return lines;
}

TEST(ConfigOptionsTest, NamesAndAliasesAreUniqueAndLowerCase) {
  std::set<std::string_view> seen;
  for (const ConfigOption& o : ConfigOptions()) {
    for (std::string_view name : {o.name, o.alias}) {
      if (name.empty()) continue;
      EXPECT_TRUE(seen.insert(name).second) << name;
      for (char c : name) EXPECT_FALSE(c >= 'A' && c <= 'Z') << name;
    }
    EXPECT_NE(o.set, nullptr) << o.name;
    EXPECT_FALSE(o.help.empty()) << o.name;
  }
}

TEST(ConfigOptionsTest, EveryDefaultWrittenByRewriteReadsBackFromAFile) {
  const Config defaults;
  for (const ConfigOption& o : ConfigOptions()) {
    if (o.rewrite == nullptr || o.get == nullptr) continue;
    // No line at all (replicaof on a master).
    if (o.name == "replicaof") continue;
    Config config;
    for (const std::vector<std::string>& words : FileLines(o.rewrite(defaults))) {
      const std::optional<ConfigError> error =
          ApplyDirective(config, ConfigDirective{std::string(o.name), words, 0, {}});
      EXPECT_FALSE(error.has_value()) << o.name << ": " << error->message;
    }
    EXPECT_EQ(o.get(config), o.get(defaults)) << o.name;
  }
}

class ConfigOptionsCommandTest : public CommandTest {};

TEST_F(ConfigOptionsCommandTest, EverySettableOptionTakesItsOwnValueBack) {
  // Redis's "CONFIG sanity" test (tests/unit/introspection.tcl): CONFIG SET of what CONFIG GET
  // says changes nothing. The listeners' options are left out: there are no sockets here.
  for (const ConfigOption& o : ConfigOptions()) {
    if (!o.settable() || o.get == nullptr || (o.flags & kConfigFileOnly) != 0) continue;
    const std::string value = o.get(state_.config);
    EXPECT_EQ(Run({"CONFIG", "SET", o.name, value}), "+OK\r\n") << o.name << " " << value;
    EXPECT_EQ(o.get(state_.config), value) << o.name;
  }
}

// warden's own immutable options take their own value back too (Redis's test skips only
// Redis's immutable options), however it is spelled, and refuse any other.
TEST_F(ConfigOptionsCommandTest, WardensImmutableOptionsTakeOnlyTheirOwnValueBack) {
  for (const ConfigOption& o : ConfigOptions()) {
    if ((o.flags & kConfigImmutable) == 0 || (o.flags & kConfigWarden) == 0) continue;
    const std::string value = o.get(state_.config);
    EXPECT_EQ(Run({"CONFIG", "SET", o.name, value}), "+OK\r\n") << o.name << " " << value;
    EXPECT_EQ(o.get(state_.config), value) << o.name;
  }
  EXPECT_EQ(Run({"CONFIG", "SET", "script-memory-limit", "256mb", "SEED", "1"}), "+OK\r\n");

  EXPECT_EQ(Run({"CONFIG", "SET", "script-memory-limit", "1mb"}),
            "-ERR CONFIG SET failed (possibly related to argument 'script-memory-limit') - can't "
            "set immutable config\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "seed", "random"}),
            "-ERR CONFIG SET failed (possibly related to argument 'seed') - can't set immutable "
            "config\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "preload", "x"}),
            "-ERR CONFIG SET failed (possibly related to argument 'preload') - can't set "
            "immutable config\r\n");
}

// Redis's own immutable options refuse even the value they have, as Redis does.
TEST_F(ConfigOptionsCommandTest, RedisImmutableOptionsRefuseTheirOwnValue) {
  EXPECT_EQ(Run({"CONFIG", "SET", "databases", "16"}),
            "-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "daemonize", "no"}),
            "-ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set "
            "immutable config\r\n");
}

TEST_F(ConfigOptionsCommandTest, ImmutableAndProtectedOptionsSayWhy) {
  EXPECT_EQ(Run({"CONFIG", "SET", "databases", "4"}),
            "-ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config\r\n");
  EXPECT_EQ(Run({"CONFIG", "SET", "dir", "/tmp"}),
            "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected "
            "config\r\n");
  // A file-only directive is no CONFIG option, as Redis's `user` is not.
  EXPECT_EQ(Run({"CONFIG", "SET", "user", "x"}),
            "-ERR Unknown option or number of arguments for CONFIG SET - 'user'\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "user"}), "*0\r\n");
}

TEST_F(ConfigOptionsCommandTest, WardensOwnOptionsAreShownToo) {
  EXPECT_EQ(Run({"CONFIG", "GET", "seed"}), "*2\r\n$4\r\nseed\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "port-file"}), "*2\r\n$9\r\nport-file\r\n$0\r\n\r\n");
  EXPECT_EQ(Run({"CONFIG", "GET", "script-memory-limit"}),
            "*2\r\n$19\r\nscript-memory-limit\r\n$9\r\n268435456\r\n");
}

TEST_F(ConfigOptionsCommandTest, ASensitiveValueIsRedactedInTheSlowLog) {
  ASSERT_EQ(Run({"CONFIG", "SET", "slowlog-log-slower-than", "0"}), "+OK\r\n");
  ASSERT_EQ(Run({"CONFIG", "SET", "tls-key-file-pass", "hunter2", "timeout", "0"}), "+OK\r\n");

  const std::string log = Run({"SLOWLOG", "GET", "1"});

  EXPECT_NE(log.find("$10\r\n(redacted)\r\n$7\r\ntimeout\r\n$1\r\n0\r\n"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("hunter2"), std::string::npos);
}

TEST(ConfigOptionsHelpTest, ListsEveryOptionWithItsDefault) {
  const std::string help = OptionsHelp();
  for (const ConfigOption& o : ConfigOptions()) {
    EXPECT_NE(help.find("  --" + std::string(o.name) + " "), std::string::npos) << o.name;
  }
  EXPECT_NE(help.find("--maxmemory-policy volatile-lru|volatile-lfu|"), std::string::npos);
  EXPECT_NE(help.find("(default 512mb)"), std::string::npos) << help;
}

// Redis's config file may load modules; none can load here, so the start stops and says why
// rather than run without the commands the module would add.
TEST(ConfigOptionsTest, LoadmoduleStopsTheStartWithAReason) {
  Config config;
  ConfigDirective directive;
  directive.name = "loadmodule";
  directive.args = {"/usr/lib/redis/modules/redisbloom.so", "INITIAL_SIZE", "400"};

  const std::optional<ConfigError> error = ApplyDirective(config, directive);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "warden loads no modules");
  EXPECT_EQ(FindConfigOption("loadmodule"), nullptr);  // not a CONFIG parameter, as in Redis
}

// Every name CONFIG GET * answers is in --help, as an option or an alias, and under a group.
TEST(ConfigOptionsHelpTest, CoversConfigGetByGroup) {
  const std::string help = OptionsHelp();
  for (const ConfigValue& v : ConfigValues(Config())) {
    const std::string name(v.name);
    EXPECT_TRUE(help.find("  --" + name + " ") != std::string::npos ||
                help.find("; alias " + name + "\n") != std::string::npos)
        << name;
  }
  EXPECT_EQ(help.rfind("Network and clients:\n  --port N ", 0), 0u) << help.substr(0, 60);
  for (const char* group : {"\nSecurity:\n", "\nTLS:\n", "\nMemory:\n", "\nPersistence:\n",
                            "\nReplication:\n", "\nRunning as a service:\n"}) {
    EXPECT_NE(help.find(group), std::string::npos) << group;
  }
}

}  // namespace
}  // namespace warden::server
