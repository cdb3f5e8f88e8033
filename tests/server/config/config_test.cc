// Configuration parsing: directives, the redis.conf-style file, and the command line.
#include "server/config/config.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "server/config/config_options.h"
#include "server/config/config_values.h"

namespace warden::server {
namespace {

std::optional<ConfigError> Apply(Config& config, std::string name, std::vector<std::string> args) {
  return ApplyDirective(config, ConfigDirective{std::move(name), std::move(args), 0, {}});
}

TEST(ApplyDirectiveTest, Port) {
  Config config;

  EXPECT_FALSE(Apply(config, "port", {"7000"}).has_value());

  EXPECT_EQ(config.port, 7000);
}

TEST(ApplyDirectiveTest, ClientOutputBufferLimitTakesGroupsOfFour) {
  Config config;

  EXPECT_FALSE(Apply(config, "client-output-buffer-limit",
                     {"normal", "1mb", "512kb", "10", "pubsub", "0", "0", "0"})
                   .has_value());

  EXPECT_EQ(config.output_limit_normal.hard_bytes, 1024 * 1024);
  EXPECT_EQ(config.output_limit_normal.soft_bytes, 512 * 1024);
  EXPECT_EQ(config.output_limit_normal.soft_seconds, 10);
  EXPECT_EQ(config.output_limit_pubsub.hard_bytes, 0);
  EXPECT_EQ(config.output_limit_replica.hard_bytes, 256LL * 1024 * 1024);
}

TEST(ApplyDirectiveTest, ClientOutputBufferLimitAlsoTakesOneQuotedArgument) {
  Config config;

  EXPECT_FALSE(Apply(config, "client-output-buffer-limit", {"replica 1gb 2mb 30"}).has_value());

  EXPECT_EQ(config.output_limit_replica.hard_bytes, 1024LL * 1024 * 1024);
  EXPECT_EQ(config.output_limit_replica.soft_bytes, 2 * 1024 * 1024);
  EXPECT_EQ(config.output_limit_replica.soft_seconds, 30);
}

TEST(ApplyDirectiveTest, ABadGroupLeavesEveryLimitAsItWas) {
  Config config;

  const auto error = Apply(config, "client-output-buffer-limit",
                           {"normal", "1mb", "0", "0", "pubsub", "1x", "0", "0"});

  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("Error in hard, soft or soft_seconds setting"), std::string::npos);
  EXPECT_EQ(config.output_limit_normal.hard_bytes, 0);
}

TEST(ApplyDirectiveTest, NamesAreCaseInsensitive) {
  Config config;

  EXPECT_FALSE(Apply(config, "PORT", {"7001"}).has_value());

  EXPECT_EQ(config.port, 7001);
}

TEST(ApplyDirectiveTest, BindTakesSeveralAddresses) {
  Config config;

  EXPECT_FALSE(Apply(config, "bind", {"127.0.0.1", "::1"}).has_value());

  EXPECT_EQ(config.bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
}

TEST(ApplyDirectiveTest, StringOptions) {
  Config config;

  ASSERT_FALSE(Apply(config, "requirepass", {"secret"}).has_value());
  ASSERT_FALSE(Apply(config, "unixsocket", {"/tmp/warden.sock"}).has_value());
  ASSERT_FALSE(Apply(config, "logfile", {"/tmp/warden.log"}).has_value());
  ASSERT_FALSE(Apply(config, "dir", {"/tmp"}).has_value());
  ASSERT_FALSE(Apply(config, "port-file", {"/tmp/port"}).has_value());

  EXPECT_EQ(config.requirepass, "secret");
  EXPECT_EQ(config.unixsocket, "/tmp/warden.sock");
  EXPECT_EQ(config.logfile, "/tmp/warden.log");
  EXPECT_EQ(config.dir, "/tmp");
  EXPECT_EQ(config.port_file, "/tmp/port");
}

TEST(ApplyDirectiveTest, IntegerOptions) {
  Config config;

  ASSERT_FALSE(Apply(config, "hz", {"100"}).has_value());
  ASSERT_FALSE(Apply(config, "maxclients", {"50"}).has_value());
  ASSERT_FALSE(Apply(config, "timeout", {"30"}).has_value());
  ASSERT_FALSE(Apply(config, "tcp-keepalive", {"60"}).has_value());
  ASSERT_FALSE(Apply(config, "tcp-backlog", {"128"}).has_value());
  ASSERT_FALSE(Apply(config, "active-expire-effort", {"10"}).has_value());
  ASSERT_FALSE(Apply(config, "databases", {"1"}).has_value());

  EXPECT_EQ(config.hz, 100);
  EXPECT_EQ(config.maxclients, 50);
  EXPECT_EQ(config.timeout_s, 30);
  EXPECT_EQ(config.tcp_keepalive_s, 60);
  EXPECT_EQ(config.tcp_backlog, 128);
  EXPECT_EQ(config.active_expire_effort, 10);
  EXPECT_EQ(config.databases, 1);
}

TEST(ApplyDirectiveTest, BusyReplyThresholdAndItsAlias) {
  Config config;

  ASSERT_FALSE(Apply(config, "busy-reply-threshold", {"200"}).has_value());
  EXPECT_EQ(config.busy_reply_threshold_ms, 200);

  ASSERT_FALSE(Apply(config, "lua-time-limit", {"300"}).has_value());
  EXPECT_EQ(config.busy_reply_threshold_ms, 300);
}

TEST(ApplyDirectiveTest, MemoryOptionsTakeUnits) {
  Config config;

  ASSERT_FALSE(Apply(config, "proto-max-bulk-len", {"1mb"}).has_value());
  ASSERT_FALSE(Apply(config, "client-query-buffer-limit", {"2GB"}).has_value());

  EXPECT_EQ(config.proto_max_bulk_len, 1024 * 1024);
  EXPECT_EQ(config.client_query_buffer_limit, 2LL * 1024 * 1024 * 1024);
}

TEST(ApplyDirectiveTest, YesNoOptions) {
  Config config;

  ASSERT_FALSE(Apply(config, "protected-mode", {"NO"}).has_value());
  ASSERT_FALSE(Apply(config, "appendonly", {"no"}).has_value());
  ASSERT_FALSE(Apply(config, "daemonize", {"no"}).has_value());

  EXPECT_FALSE(config.protected_mode);
}

struct PolicyCase {
  const char* value;
  DebugCommandPolicy policy;
};

class EnableDebugCommandTest : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(EnableDebugCommandTest, SetsPolicy) {
  Config config;

  EXPECT_FALSE(Apply(config, "enable-debug-command", {GetParam().value}).has_value());

  EXPECT_EQ(config.enable_debug_command, GetParam().policy);
}

INSTANTIATE_TEST_SUITE_P(Values, EnableDebugCommandTest,
                         ::testing::Values(PolicyCase{"yes", DebugCommandPolicy::kYes},
                                           PolicyCase{"no", DebugCommandPolicy::kNo},
                                           PolicyCase{"local", DebugCommandPolicy::kLocal},
                                           PolicyCase{"LOCAL", DebugCommandPolicy::kLocal}));

TEST(ApplyDirectiveTest, LoglevelIsLowerCased) {
  Config config;

  ASSERT_FALSE(Apply(config, "loglevel", {"WARNING"}).has_value());

  EXPECT_EQ(config.loglevel, "warning");
}

TEST(ApplyDirectiveTest, Seed) {
  Config config;

  ASSERT_FALSE(Apply(config, "seed", {"18446744073709551615"}).has_value());

  EXPECT_EQ(config.seed, std::optional<std::uint64_t>(UINT64_MAX));
}

TEST(ApplyDirectiveTest, UnixSocketPermIsOctal) {
  Config config;

  ASSERT_FALSE(Apply(config, "unixsocketperm", {"700"}).has_value());

  EXPECT_EQ(config.unixsocketperm, 0700);
}

TEST(ApplyDirectiveTest, SaveLinesReplaceTheDefaultsThenAddUp) {
  Config config;
  using Points = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(config.save_points, (Points{{3600, 1}, {300, 100}, {60, 10000}}));

  // As Redis reads a config file: the first save line replaces the defaults, later ones add.
  ASSERT_FALSE(Apply(config, "save", {"900 1"}).has_value());
  ASSERT_FALSE(Apply(config, "save", {"300", "10"}).has_value());
  EXPECT_EQ(config.save_points, (Points{{900, 1}, {300, 10}}));
  ASSERT_FALSE(Apply(config, "save", {""}).has_value());
  EXPECT_TRUE(config.save_points.empty());
  ASSERT_FALSE(Apply(config, "save", {"60", "1", "10", "5"}).has_value());
  EXPECT_EQ(config.save_points, (Points{{60, 1}, {10, 5}}));

  EXPECT_TRUE(Apply(config, "save", {"60"}).has_value());
  EXPECT_TRUE(Apply(config, "save", {"0 1"}).has_value());
  EXPECT_TRUE(Apply(config, "save", {"60 -1"}).has_value());
  EXPECT_TRUE(Apply(config, "save", {"60 x"}).has_value());
  EXPECT_EQ(config.save_points, (Points{{60, 1}, {10, 5}}));
}

TEST(ApplyDirectiveTest, RenameCommandLinesApplyInOrder) {
  Config config;
  using Renames = std::vector<std::pair<std::string, std::string>>;

  // The second line may take the name the first one freed.
  ASSERT_FALSE(Apply(config, "rename-command", {"set", "myset"}).has_value());
  ASSERT_FALSE(Apply(config, "rename-command", {"get", "set"}).has_value());

  EXPECT_EQ(config.rename_commands, (Renames{{"set", "myset"}, {"get", "set"}}));
}

TEST(ApplyDirectiveTest, RenameCommandRefusalsAreRedisServers) {
  Config config;
  ASSERT_FALSE(Apply(config, "rename-command", {"flushall", ""}).has_value());

  EXPECT_EQ(Apply(config, "rename-command", {"set"})->message,
            "Bad directive or wrong number of arguments");
  EXPECT_EQ(Apply(config, "rename-command", {"flushall", "x"})->message,
            "No such command in rename-command");
  EXPECT_EQ(Apply(config, "rename-command", {"set", "GET"})->message,
            "Target command name already exists");
  EXPECT_EQ(config.rename_commands.size(), 1u);
}

TEST(ApplyDirectiveTest, UnknownOption) {
  Config config;

  const std::optional<ConfigError> error = Apply(config, "nosuch", {"1"});

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "Bad directive or wrong number of arguments");
}

TEST(ApplyDirectiveTest, BadValuesSayWhyAsConfigSetDoes) {
  Config config;

  const std::optional<ConfigError> error = Apply(config, "port", {"abc"});
  const std::optional<ConfigError> range = Apply(config, "port", {"65536"});

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "argument couldn't be parsed into an integer");
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->message, "argument must be between 0 and 65535 inclusive");
  EXPECT_EQ(config.port, 6379);
}

TEST(ApplyDirectiveTest, HzIsKeptWithinOneToFiveHundredAsRedisKeepsIt) {
  Config config;

  ASSERT_FALSE(Apply(config, "hz", {"0"}).has_value());
  EXPECT_EQ(config.hz, 1);
  ASSERT_FALSE(Apply(config, "hz", {"501"}).has_value());
  EXPECT_EQ(config.hz, 500);
}

TEST(ApplyDirectiveTest, AnEmptyBindListensNowhereElse) {
  Config config;

  // As Redis's setConfigBindOption: no address, or one empty one, is none.
  ASSERT_FALSE(Apply(config, "bind", {""}).has_value());
  EXPECT_TRUE(config.bind.empty());
}

TEST(ApplyDirectiveTest, BadMemoryValue) {
  Config config;

  const std::optional<ConfigError> error = Apply(config, "proto-max-bulk-len", {"lots"});

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "argument must be a memory value");
}

struct BadValueCase {
  const char* name;
  std::vector<std::string> args;
};

class BadDirectiveTest : public ::testing::TestWithParam<BadValueCase> {};

TEST_P(BadDirectiveTest, IsAnErrorAndChangesNothing) {
  Config config;
  const Config before = config;

  EXPECT_TRUE(Apply(config, GetParam().name, GetParam().args).has_value());

  EXPECT_EQ(config.port, before.port);
  EXPECT_EQ(config.hz, before.hz);
  EXPECT_EQ(config.proto_max_bulk_len, before.proto_max_bulk_len);
  EXPECT_EQ(config.enable_debug_command, before.enable_debug_command);
}

INSTANTIATE_TEST_SUITE_P(
    Values, BadDirectiveTest,
    ::testing::Values(
        BadValueCase{"port", {"65536"}}, BadValueCase{"port", {"-1"}}, BadValueCase{"port", {"+1"}},
        BadValueCase{"port", {"7000", "7001"}}, BadValueCase{"port", {}},
        BadValueCase{"maxclients", {"0"}}, BadValueCase{"active-expire-effort", {"11"}},
        BadValueCase{"databases", {"0"}}, BadValueCase{"proto-max-bulk-len", {"1kb"}},
        BadValueCase{"proto-max-bulk-len", {"1tb"}},
        BadValueCase{"client-query-buffer-limit", {"1.5gb"}},
        BadValueCase{"lua-time-limit", {"-1"}}, BadValueCase{"protected-mode", {"maybe"}},
        BadValueCase{"enable-debug-command", {"sometimes"}},
        BadValueCase{"enable-debug-command", {}}, BadValueCase{"loglevel", {"loud"}},
        BadValueCase{"seed", {"-1"}}, BadValueCase{"seed", {"abc"}},
        BadValueCase{"unixsocketperm", {"800"}}, BadValueCase{"unixsocketperm", {"1777"}},
        BadValueCase{"appendfsync", {"sometimes"}}, BadValueCase{"appendonly", {"maybe"}},
        BadValueCase{"appendfilename", {"dir/file"}}, BadValueCase{"appenddirname", {""}},
        BadValueCase{"daemonize", {"maybe"}}, BadValueCase{"requirepass", {}},
        BadValueCase{"client-output-buffer-limit", {"normal", "1mb", "0"}},
        BadValueCase{"client-output-buffer-limit", {"master", "1mb", "0", "0"}},
        BadValueCase{"client-output-buffer-limit", {"normal", "-1", "0", "0"}},
        BadValueCase{"client-output-buffer-limit", {"normal", "0", "0", "x"}},
        BadValueCase{"shutdown-timeout", {"-1"}}, BadValueCase{"", {"x"}}));

struct MemoryCase {
  const char* text;
  bool ok;
  std::int64_t bytes;
};

class ParseMemoryTest : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(ParseMemoryTest, MatchesMemtoll) {
  std::int64_t bytes = -12345;

  EXPECT_EQ(ParseMemory(GetParam().text, bytes), GetParam().ok);

  if (GetParam().ok) {
    EXPECT_EQ(bytes, GetParam().bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Units, ParseMemoryTest,
    ::testing::Values(
        MemoryCase{"0", true, 0}, MemoryCase{"100", true, 100}, MemoryCase{"1b", true, 1},
        MemoryCase{"1k", true, 1000}, MemoryCase{"1kb", true, 1024}, MemoryCase{"1KB", true, 1024},
        MemoryCase{"2m", true, 2'000'000}, MemoryCase{"2mb", true, 2 * 1024 * 1024},
        MemoryCase{"3g", true, 3'000'000'000}, MemoryCase{"1Gb", true, 1024LL * 1024 * 1024},
        MemoryCase{"512mb", true, 512LL * 1024 * 1024}, MemoryCase{"-1", true, -1},
        MemoryCase{"9223372036854775807", true, INT64_MAX},
        MemoryCase{"9223372036854775807kb", false, 0}, MemoryCase{"", false, 0},
        MemoryCase{"mb", false, 0}, MemoryCase{"abc", false, 0}, MemoryCase{"1tb", false, 0},
        MemoryCase{"1.5mb", false, 0}, MemoryCase{"1 mb", false, 0}, MemoryCase{"1mbx", false, 0}));

TEST(ParseConfigTextTest, ReadsDirectivesSkippingCommentsAndBlankLines) {
  std::vector<ConfigDirective> directives;

  const auto error = ParseConfigText(
      "# a comment\n\nport 7000\n   # indented comment\nbind 127.0.0.1 ::1\n", directives);

  ASSERT_FALSE(error.has_value());
  ASSERT_EQ(directives.size(), 2u);
  EXPECT_EQ(directives[0].name, "port");
  EXPECT_EQ(directives[0].args, (std::vector<std::string>{"7000"}));
  EXPECT_EQ(directives[1].name, "bind");
  EXPECT_EQ(directives[1].args, (std::vector<std::string>{"127.0.0.1", "::1"}));
}

TEST(ParseConfigTextTest, QuotesAndCrLf) {
  std::vector<ConfigDirective> directives;

  const auto error = ParseConfigText("requirepass \"a b\"\r\n\tsave ''\r\nhz 20", directives);

  ASSERT_FALSE(error.has_value());
  ASSERT_EQ(directives.size(), 3u);
  EXPECT_EQ(directives[0].args, (std::vector<std::string>{"a b"}));
  EXPECT_EQ(directives[1].name, "save");
  EXPECT_EQ(directives[1].args, (std::vector<std::string>{""}));
  EXPECT_EQ(directives[2].args, (std::vector<std::string>{"20"}));
}

TEST(ParseConfigTextTest, UnbalancedQuotesNameTheLine) {
  std::vector<ConfigDirective> directives;

  const auto error = ParseConfigText("port 7000\nrequirepass \"oops\n", directives);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'requirepass \"oops'\n"
            "Unbalanced quotes in configuration line");
}

TEST(ParseConfigTextTest, EmptyTextHasNoDirectives) {
  std::vector<ConfigDirective> directives;

  EXPECT_FALSE(ParseConfigText("", directives).has_value());
  EXPECT_TRUE(directives.empty());
}

// Runs ParseCommandLine over `args` (argv[0] first).
std::optional<ConfigError> ParseArgs(std::vector<std::string> args, Config& config) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseCommandLine(argv, config);
}

TEST(ParseCommandLineTest, RedisServerStyleOptions) {
  Config config;

  const auto error =
      ParseArgs({"warden", "--port", "7000", "--save", "", "--appendonly", "no",
                 "--enable-debug-command", "yes", "--databases", "1", "--bind", "127.0.0.1", "::1"},
                config);

  ASSERT_FALSE(error.has_value()) << error->message;
  EXPECT_EQ(config.port, 7000);
  EXPECT_EQ(config.enable_debug_command, DebugCommandPolicy::kYes);
  EXPECT_EQ(config.bind, (std::vector<std::string>{"127.0.0.1", "::1"}));
}

TEST(ParseCommandLineTest, OptionWithoutValue) {
  Config config;

  EXPECT_FALSE(ParseArgs({"warden", "--save", "--port", "7000"}, config).has_value());

  EXPECT_EQ(config.port, 7000);
}

TEST(ParseCommandLineTest, NoArguments) {
  Config config;

  EXPECT_FALSE(ParseArgs({"warden"}, config).has_value());

  EXPECT_EQ(config.port, 6379);
}

TEST(ParseCommandLineTest, UnknownOption) {
  Config config;

  const auto error = ParseArgs({"warden", "--nosuch", "1"}, config);

  ASSERT_TRUE(error.has_value());
  // Redis's numbering: the command line's options follow an empty first line.
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'nosuch \"1\"'\n"
            "Bad directive or wrong number of arguments");
}

TEST(ParseCommandLineTest, BadValue) {
  Config config;

  const auto error = ParseArgs({"warden", "--port", "7000", "--hz", "fast"}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 3\n"
            ">>> 'hz \"fast\"'\n"
            "argument couldn't be parsed into an integer");
}

TEST(ParseCommandLineTest, BareDoubleDash) {
  Config config;

  const auto error = ParseArgs({"warden", "--port", "7000", "--"}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "unexpected argument '--' (options start with --)");
}

TEST(ParseCommandLineTest, MissingConfigFile) {
  Config config;

  const auto error = ParseArgs({"warden", "/nonexistent/warden.conf"}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->log);
  EXPECT_EQ(error->message,
            "Fatal error, can't open config file '/nonexistent/warden.conf': No such file or "
            "directory");
}

TEST(ParseCommandLineTest, ADirectoryIsNoConfigFile) {
  Config config;

  const auto error = ParseArgs({"warden", "/"}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "Fatal error, can't open config file '/': Is a directory");
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "warden_config_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".conf";
  }
  void TearDown() override { std::remove(path_.c_str()); }

  void Write(const std::string& text) {
    std::ofstream out(path_);
    out << text;
  }

  std::string path_;
};

TEST_F(ConfigFileTest, CommandLineAppliesAfterFile) {
  Write("port 7001\nhz 20\n");
  Config config;

  const auto error = ParseArgs({"warden", path_, "--port", "7002"}, config);

  ASSERT_FALSE(error.has_value()) << error->message;
  EXPECT_EQ(config.port, 7002);
  EXPECT_EQ(config.hz, 20);
  EXPECT_EQ(config.config_file, path_);
}

TEST_F(ConfigFileTest, ErrorInFileNamesFileAndLine) {
  Write("hz 20\nrequirepass \"x\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'requirepass \"x'\n"
            "Unbalanced quotes in configuration line");
}

TEST_F(ConfigFileTest, BadDirectiveInFile) {
  Write("appendfsync sometimes\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 1\n"
            ">>> 'appendfsync sometimes'\n"
            "argument(s) must be one of the following: everysec, always, no");
}

TEST_F(ConfigFileTest, StrayArgumentAfterFile) {
  Write("hz 20\n");
  Config config;

  const auto error = ParseArgs({"warden", path_, "stray"}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "unexpected argument 'stray' (options start with --)");
}

TEST_F(ConfigFileTest, CommandLineLinesAreNumberedAfterTheFile) {
  Write("port 7001\n\n# a comment\nhz 20\n");
  Config config;

  const auto error = ParseArgs({"warden", path_, "--port", "7002", "--maxmemroy", "1mb"}, config);

  ASSERT_TRUE(error.has_value());
  // Four lines of file, the newline Redis adds, then one line per option.
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 7\n"
            ">>> 'maxmemroy \"1mb\"'\n"
            "Bad directive or wrong number of arguments");
}

TEST_F(ConfigFileTest, AKnownDirectiveWithoutItsValue) {
  Write("port\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 1\n"
            ">>> 'port'\n"
            "wrong number of arguments");
}

TEST_F(ConfigFileTest, IncludeAppliesTheOtherFileWhereItStands) {
  const std::string other = path_ + ".included";
  {
    std::ofstream out(other);
    out << "hz 30\nport 7100\n";
  }
  Write("port 7001\ninclude " + other + "\nhz 40\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);
  std::remove(other.c_str());

  ASSERT_FALSE(error.has_value()) << error->message;
  EXPECT_EQ(config.port, 7100);
  EXPECT_EQ(config.hz, 40);
}

TEST_F(ConfigFileTest, AnErrorInAnIncludedFileQuotesItsLine) {
  const std::string other = path_ + ".included";
  {
    std::ofstream out(other);
    out << "# included\nappendonly maybe\n";
  }
  Write("port 7001\ninclude " + other + "\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);
  std::remove(other.c_str());

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message,
            "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"
            "Reading the configuration file, at line 2\n"
            ">>> 'appendonly maybe'\n"
            "argument must be 'yes' or 'no'");
}

TEST_F(ConfigFileTest, AFileThatIncludesItselfFails) {
  Write("include " + path_ + "\n");
  Config config;

  const auto error = ParseArgs({"warden", path_}, config);

  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->log);
}

std::string ValueOf(const Config& config, std::string_view name) {
  for (const ConfigValue& v : ConfigValues(config)) {
    if (v.name == name) return v.value;
  }
  return "(missing)";
}

TEST(InertOptionsTest, RedisOptionsWithoutEffectKeepTheirValues) {
  Config config;
  EXPECT_EQ(ValueOf(config, "io-threads"), "1");
  EXPECT_EQ(ValueOf(config, "active-defrag-ignore-bytes"), "104857600");
  EXPECT_TRUE(InertOptionsSet(config).empty());

  EXPECT_FALSE(Apply(config, "io-threads", {"4"}).has_value());
  EXPECT_FALSE(Apply(config, "active-defrag-ignore-bytes", {"200mb"}).has_value());
  EXPECT_FALSE(Apply(config, "maxmemory-clients", {"10%"}).has_value());
  EXPECT_FALSE(Apply(config, "cluster-slave-no-failover", {"yes"}).has_value());

  EXPECT_EQ(ValueOf(config, "io-threads"), "4");
  EXPECT_EQ(ValueOf(config, "active-defrag-ignore-bytes"), "209715200");
  EXPECT_EQ(ValueOf(config, "maxmemory-clients"), "10%");
  EXPECT_EQ(ValueOf(config, "cluster-replica-no-failover"), "yes");
  EXPECT_EQ(InertOptionsSet(config).size(), 4U);
}

// SHUTDOWN's flags for a signal, named in table order as Redis's CONFIG GET names them.
TEST(ApplyDirectiveTest, ShutdownOnSignalTakesShutdownsFlags) {
  Config config;
  EXPECT_EQ(ValueOf(config, "shutdown-on-sigterm"), "default");

  ASSERT_FALSE(Apply(config, "shutdown-on-sigterm", {"now", "NOSAVE"}).has_value());
  ASSERT_FALSE(Apply(config, "shutdown-on-sigint", {"force", "save"}).has_value());

  EXPECT_EQ(ValueOf(config, "shutdown-on-sigterm"), "nosave now");
  EXPECT_EQ(ValueOf(config, "shutdown-on-sigint"), "save force");
  const config_values::ShutdownFlags term =
      config_values::ParseShutdownFlags(config.shutdown_on_sigterm);
  EXPECT_TRUE(term.nosave && term.now && !term.save && !term.force);
  EXPECT_TRUE(InertOptionsSet(config).empty());
}

TEST(ApplyDirectiveTest, OomScoreAdjAndItsValues) {
  Config config;
  EXPECT_EQ(ValueOf(config, "oom-score-adj-values"), "0 200 800");

  ASSERT_FALSE(Apply(config, "oom-score-adj", {"RELATIVE"}).has_value());
  ASSERT_FALSE(Apply(config, "oom-score-adj-values", {"0", "-100", "2000"}).has_value());

  EXPECT_EQ(config.oom_score_adj, OomScoreAdj::kRelative);
  EXPECT_EQ(ValueOf(config, "oom-score-adj"), "yes");  // Redis names the value's first name
  EXPECT_EQ(ValueOf(config, "oom-score-adj-values"), "0 -100 2000");
  EXPECT_TRUE(InertOptionsSet(config).empty());
}

TEST(ApplyDirectiveTest, OomScoreAdjValuesAreReadAsStrtollReadsThem) {
  Config config;

  ASSERT_FALSE(Apply(config, "oom-score-adj-values", {"+5", "", "7"}).has_value());
  EXPECT_EQ(config.oom_score_adj_values, (std::array<int, 3>{5, 0, 7}));

  EXPECT_EQ(Apply(config, "oom-score-adj-values", {"1", "2"})->message,
            "wrong number of arguments");
  EXPECT_EQ(Apply(config, "oom-score-adj-values", {"1", "2", "2001"})->message,
            "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
  EXPECT_EQ(Apply(config, "oom-score-adj", {"maybe"})->message,
            "argument(s) must be one of the following: no, yes, relative, absolute");
}

TEST(ApplyDirectiveTest, SyslogOptions) {
  Config config;
  EXPECT_EQ(ValueOf(config, "syslog-ident"), "redis");
  EXPECT_EQ(ValueOf(config, "syslog-facility"), "local0");

  ASSERT_FALSE(Apply(config, "syslog-enabled", {"yes"}).has_value());
  ASSERT_FALSE(Apply(config, "syslog-ident", {"lockd"}).has_value());
  ASSERT_FALSE(Apply(config, "syslog-facility", {"LOCAL3"}).has_value());

  EXPECT_TRUE(config.syslog_enabled);
  EXPECT_EQ(config.syslog_ident, "lockd");
  EXPECT_EQ(config.syslog_facility, "local3");
  EXPECT_EQ(Apply(config, "syslog-facility", {"kern"})->message,
            "argument(s) must be one of the following: user, local0, local1, local2, local3, "
            "local4, local5, local6, local7");
}

TEST(InertOptionsTest, BadValuesGetRedisReasons) {
  Config config;
  ASSERT_TRUE(Apply(config, "io-threads", {"0"}).has_value());
  EXPECT_EQ(Apply(config, "io-threads", {"0"})->message,
            "argument must be between 1 and 128 inclusive");
  EXPECT_EQ(Apply(config, "oom-score-adj-values", {"0", "1"})->message,
            "wrong number of arguments");
  EXPECT_EQ(Apply(config, "oom-score-adj-values", {"0", "1", "3000"})->message,
            "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
  EXPECT_EQ(Apply(config, "shutdown-on-sigint", {"save", "nosave"})->message,
            "shutdown options SAVE and NOSAVE can't be used simultaneously");
  EXPECT_EQ(Apply(config, "syslog-facility", {"local9"})->message,
            "argument(s) must be one of the following: user, local0, local1, local2, local3, "
            "local4, local5, local6, local7");
  EXPECT_EQ(ValueOf(config, "io-threads"), "1");
}

TEST(ServiceOptionsTest, DaemonizePidfileAndSupervised) {
  Config config;
  EXPECT_FALSE(Apply(config, "daemonize", {"yes"}).has_value());
  EXPECT_FALSE(Apply(config, "pidfile", {"/run/x.pid"}).has_value());
  EXPECT_FALSE(Apply(config, "supervised", {"SYSTEMD"}).has_value());
  EXPECT_TRUE(config.daemonize);
  EXPECT_EQ(config.pidfile, "/run/x.pid");
  EXPECT_EQ(config.supervised, "systemd");
  EXPECT_EQ(Apply(config, "supervised", {"launchd"})->message,
            "argument(s) must be one of the following: upstart, systemd, auto, no");
}

TEST(ConfigValuesTest, AliasFollowsThreshold) {
  Config config;
  config.busy_reply_threshold_ms = 1234;
  config.unixsocketperm = 0700;

  std::string lua_time_limit;
  std::string perm;
  for (const ConfigValue& v : ConfigValues(config)) {
    if (v.name == "lua-time-limit") lua_time_limit = v.value;
    if (v.name == "unixsocketperm") perm = v.value;
  }

  EXPECT_EQ(lua_time_limit, "1234");
  EXPECT_EQ(perm, "700");
}

}  // namespace
}  // namespace warden::server
