// INFO, TIME, WAIT and DEBUG through the dispatcher (Redis 7.0's server.c and debug.c).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/debug/debug_controls.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using ::testing::HasSubstr;

// The "# Name" header lines of an INFO reply, in order.
std::vector<std::string> SectionsOf(std::string_view reply) {
  std::vector<std::string> sections;
  std::size_t start = 0;
  while (start < reply.size()) {
    std::size_t end = reply.find("\r\n", start);
    if (end == std::string_view::npos) end = reply.size();
    const std::string_view line = reply.substr(start, end - start);
    if (line.starts_with("# ")) sections.emplace_back(line);
    start = end + 2;
  }
  return sections;
}

class AdminCommandsTest : public CommandTest {};

TEST_F(AdminCommandsTest, InfoKeyspaceOfEmptyKeyspace) {
  EXPECT_EQ(Run({"INFO", "keyspace"}), "$12\r\n# Keyspace\r\n\r\n");
}

TEST_F(AdminCommandsTest, InfoKeyspaceCountsKeysAndExpires) {
  Run({"SET", "a", "1", "EX", "100"});
  Run({"SET", "b", "1"});

  EXPECT_EQ(Run({"INFO", "KEYSPACE"}),
            "$44\r\n# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\n\r\n");
}

TEST_F(AdminCommandsTest, InfoKeyspaceHasALinePerDatabaseInUse) {
  Run({"SET", "a", "1"});
  Run({"SELECT", "3"});
  Run({"HSET", "h", "f", "v"});
  Run({"SADD", "s", "m"});

  EXPECT_EQ(Run({"INFO", "keyspace"}),
            "$76\r\n# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n"
            "db3:keys=2,expires=0,avg_ttl=0\r\n\r\n");
}

TEST_F(AdminCommandsTest, InfoMemoryCountsCachedScripts) {
  Run({"SCRIPT", "LOAD", "return 1"});
  Run({"SCRIPT", "LOAD", "return 2"});

  const std::string info = Run({"INFO", "memory"});
  EXPECT_NE(info.find("\r\nnumber_of_cached_scripts:2\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("\r\nnumber_of_functions:0\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("\r\nlazyfree_pending_objects:0\r\n"), std::string::npos) << info;
}

TEST_F(AdminCommandsTest, InfoUnknownSectionIsEmptyBulk) {
  EXPECT_EQ(Run({"INFO", "nosuchsection"}), "$0\r\n\r\n");
}

TEST_F(AdminCommandsTest, InfoDefaultSectionsInRedisOrder) {
  EXPECT_EQ(SectionsOf(Run({"INFO"})),
            (std::vector<std::string>{"# Server", "# Clients", "# Memory", "# Persistence",
                                      "# Stats", "# Replication", "# CPU", "# Modules",
                                      "# Errorstats", "# Cluster", "# Keyspace"}));
}

TEST_F(AdminCommandsTest, InfoAllAndEverythingAddCommandAndLatencyStatsToDefault) {
  const std::vector<std::string> all = {
      "# Server",       "# Clients", "# Memory",  "# Persistence",  "# Stats",
      "# Replication",  "# CPU",     "# Modules", "# Commandstats", "# Errorstats",
      "# Latencystats", "# Cluster", "# Keyspace"};
  std::vector<std::string> defaults = all;
  std::erase(defaults, "# Commandstats");
  std::erase(defaults, "# Latencystats");

  EXPECT_EQ(SectionsOf(Run({"INFO", "all"})), all);
  EXPECT_EQ(SectionsOf(Run({"INFO", "everything"})), all);
  EXPECT_EQ(SectionsOf(Run({"INFO", "default"})), defaults);
  EXPECT_EQ(SectionsOf(Run({"INFO"})), defaults);
}

TEST_F(AdminCommandsTest, InfoSectionsComeInFixedOrder) {
  const std::vector<std::string> expected = {"# Server", "# Keyspace"};

  EXPECT_EQ(SectionsOf(Run({"INFO", "server", "keyspace"})), expected);
  EXPECT_EQ(SectionsOf(Run({"INFO", "KEYSPACE", "Server"})), expected);
}

TEST_F(AdminCommandsTest, InfoSeparatesSectionsWithBlankLine) {
  EXPECT_THAT(Run({"INFO", "cluster", "keyspace"}),
              HasSubstr("# Cluster\r\ncluster_enabled:0\r\n\r\n# Keyspace\r\n"));
}

TEST_F(AdminCommandsTest, InfoServerReportsRedisVersion) {
  const std::string reply = Run({"INFO", "server"});

  EXPECT_THAT(reply, HasSubstr("\r\nredis_version:7.0.15\r\n"));
  EXPECT_THAT(reply, HasSubstr("\r\nredis_mode:standalone\r\n"));
}

TEST_F(AdminCommandsTest, InfoPersistenceSaysNotLoading) {
  EXPECT_THAT(Run({"INFO", "persistence"}), HasSubstr("# Persistence\r\nloading:0\r\n"));
}

TEST_F(AdminCommandsTest, InfoStatsCountsExpiredKeysAndHits) {
  Run({"SET", "a", "1", "PX", "1"});
  Run({"SET", "b", "1"});
  clock_.AdvanceMs(2);
  Run({"GET", "a"});
  Run({"GET", "b"});

  const std::string reply = Run({"INFO", "stats"});

  EXPECT_THAT(reply, HasSubstr("\r\nexpired_keys:1\r\n"));
  EXPECT_THAT(reply, HasSubstr("\r\nkeyspace_hits:1\r\n"));
  EXPECT_THAT(reply, HasSubstr("\r\nkeyspace_misses:1\r\n"));
}

TEST_F(AdminCommandsTest, InfoIsVerbatimInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"INFO", "keyspace"}), "=16\r\ntxt:# Keyspace\r\n\r\n");
}

TEST_F(AdminCommandsTest, TimeFollowsTheClock) {
  EXPECT_EQ(Run({"TIME"}), "*2\r\n$10\r\n1700000000\r\n$1\r\n0\r\n");

  clock_.AdvanceMs(1234);

  EXPECT_EQ(Run({"TIME"}), "*2\r\n$10\r\n1700000001\r\n$6\r\n234000\r\n");
}

TEST_F(AdminCommandsTest, TimeArity) {
  EXPECT_EQ(Run({"TIME", "x"}), "-ERR wrong number of arguments for 'time' command\r\n");
}

TEST_F(AdminCommandsTest, WaitHasNoReplicasToWaitFor) {
  EXPECT_EQ(Run({"WAIT", "0", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "1", "100"}), ":0\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "9223372036854775807"}), ":0\r\n");
}

TEST_F(AdminCommandsTest, WaitErrors) {
  EXPECT_EQ(Run({"WAIT", "x", "0"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "x"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"WAIT", "1", "0.5"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"WAIT", "0", "-1"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(Run({"WAIT", "0"}), "-ERR wrong number of arguments for 'wait' command\r\n");
}

// DEBUG is refused unless enable-debug-command allows it.

constexpr std::string_view kDebugNotAllowed =
    "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.\r\n";

TEST_F(AdminCommandsTest, DebugIsRefusedByDefault) {
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}), kDebugNotAllowed);
  EXPECT_EQ(Run({"DEBUG", "NOSUCH"}), kDebugNotAllowed);
}

TEST_F(AdminCommandsTest, DebugArityComesBeforeRefusal) {
  EXPECT_EQ(Run({"DEBUG"}), "-ERR wrong number of arguments for 'debug' command\r\n");
}

TEST_F(AdminCommandsTest, RefusedDebugDoesNotRun) {
  Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});

  EXPECT_TRUE(state_.debug->active_expire_enabled);
}

Config DebugConfig(DebugCommandPolicy policy) {
  Config config = TestConfig();
  config.enable_debug_command = policy;
  return config;
}

class LocalDebugTest : public CommandTest {
 protected:
  LocalDebugTest() : CommandTest(DebugConfig(DebugCommandPolicy::kLocal)) {}
};

TEST_F(LocalDebugTest, AllowedFromLocalConnection) {
  session_.local = true;

  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}), "+OK\r\n");
}

TEST_F(LocalDebugTest, RefusedFromRemoteConnection) {
  session_.local = false;

  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}), kDebugNotAllowed);
}

class DebugTest : public CommandTest {
 protected:
  DebugTest() : CommandTest(DebugConfig(DebugCommandPolicy::kYes)) {}
};

TEST_F(DebugTest, SetActiveExpireSwitchesActiveExpiry) {
  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"}), "+OK\r\n");
  EXPECT_FALSE(state_.debug->active_expire_enabled);

  EXPECT_EQ(Run({"debug", "set-active-expire", "1"}), "+OK\r\n");
  EXPECT_TRUE(state_.debug->active_expire_enabled);
}

// Redis reads the flag with atoi(): any text is accepted, and non-numbers mean 0.
TEST_F(DebugTest, SetActiveExpireReadsFlagLikeAtoi) {
  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "abc"}), "+OK\r\n");
  EXPECT_FALSE(state_.debug->active_expire_enabled);

  EXPECT_EQ(Run({"DEBUG", "SET-ACTIVE-EXPIRE", "2x"}), "+OK\r\n");
  EXPECT_TRUE(state_.debug->active_expire_enabled);
}

TEST_F(DebugTest, ObjectDescribesValue) {
  Run({"SET", "s", "hello"});

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "s"}),
              ::testing::MatchesRegex("\\+Value at:0x[0-9a-f]+ refcount:1 encoding:embstr "
                                      "serializedlength:6 lru:[0-9]+ lru_seconds_idle:0\r\n"));
}

TEST_F(DebugTest, ObjectEncodings) {
  Run({"SET", "n", "12345"});
  Run({"SET", "r", std::string(45, 'x')});

  EXPECT_THAT(Run({"DEBUG", "OBJECT", "n"}), HasSubstr(" encoding:int "));
  EXPECT_THAT(Run({"DEBUG", "OBJECT", "r"}), HasSubstr(" encoding:raw "));
}

TEST_F(DebugTest, ObjectOfMissingKey) {
  EXPECT_EQ(Run({"DEBUG", "OBJECT", "nokey"}), "-ERR no such key\r\n");
}

TEST_F(DebugTest, SleepZero) { EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}), "+OK\r\n"); }

TEST_F(DebugTest, SleepOfTextSleepsZero) { EXPECT_EQ(Run({"DEBUG", "SLEEP", "abc"}), "+OK\r\n"); }

TEST_F(DebugTest, Log) { EXPECT_EQ(Run({"DEBUG", "LOG", "hello world"}), "+OK\r\n"); }

TEST_F(DebugTest, SetDisableDenyScripts) {
  EXPECT_EQ(Run({"DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"}), "+OK\r\n");
}

TEST_F(DebugTest, UnknownSubcommandOrArity) {
  EXPECT_EQ(Run({"DEBUG", "FOO"}),
            "-ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP.\r\n");
  EXPECT_EQ(Run({"DEBUG", "sleep"}),
            "-ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG "
            "HELP.\r\n");
  EXPECT_EQ(Run({"DEBUG", "HELP", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'HELP'. Try DEBUG HELP.\r\n");
  EXPECT_EQ(Run({"DEBUG", "set-active-expire", "1", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'set-active-expire'. Try "
            "DEBUG HELP.\r\n");
}

TEST_F(DebugTest, UnknownSubcommandTextStopsAtNul) {
  EXPECT_EQ(Run({"DEBUG", std::string_view("a\0b", 3)}),
            "-ERR unknown subcommand or wrong number of arguments for 'a'. Try DEBUG HELP.\r\n");
}

TEST_F(DebugTest, Help) {
  EXPECT_EQ(Run({"DEBUG", "HELP"}),
            "*53\r\n"
            "+DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+ACTIVE-EXPIRE-CYCLE\r\n"
            "+    Run active expiry now until no expired key is found; returns how many were "
            "removed.\r\n"
            "+CLOCK [FREEZE [<unix-ms>]|ADVANCE <ms>|REAL]\r\n"
            "+    Show, stop, move forward or release the server clock.\r\n"
            "+COMMAND-LOG ON [<max-entries>]|OFF|RESET|GET [<count>]|STATUS\r\n"
            "+    Record the commands run (oldest dropped past <max-entries>); GET the newest "
            "<count>.\r\n"
            "+DIGEST\r\n"
            "+    Output a hex signature representing the current DB content.\r\n"
            "+DIGEST-VALUE <key> [<key> ...]\r\n"
            "+    Output a hex signature of the values of all the specified keys.\r\n"
            "+DROP-CLIENTS\r\n"
            "+    Close every other client connection.\r\n"
            "+FAIL-NEXT <count> <error> [COMMAND <name>]\r\n"
            "+    Answer the next <count> commands (or those named <name>) with <error>. 0 "
            "clears.\r\n"
            "+FAULT ADD [COMMAND <name>] [KEY <glob>] [CLIENT-NAME <glob>] [AFTER <n>] [TIMES <n>] "
            "[PROBABILITY <p>] ERROR <text>|DELAY <ms> [JITTER <ms>]|DROP|DROP-AFTER\r\n"
            "+    Fail, delay or drop the matching commands; returns the rule's id.\r\n"
            "+FAULT LIST|DEL <id>|CLEAR\r\n"
            "+    Show, remove one or remove every fault rule.\r\n"
            "+LOADAOF\r\n"
            "+    Write and sync the append-only file, empty every database and load the file "
            "again.\r\n"
            "+LOG <message>\r\n"
            "+    Write <message> to the server log.\r\n"
            "+OBJECT <key>\r\n"
            "+    Show low-level info about the <key> and associated value.\r\n"
            "+PAUSE-CRON <0|1>\r\n"
            "+    Stop periodic cron job processing.\r\n"
            "+PROTOCOL <type>\r\n"
            "+    Reply with a test value of the specified type. <type> can be: string,\r\n"
            "+    integer, double, bignum, null, array, set, map, attrib, push, verbatim,\r\n"
            "+    true, false.\r\n"
            "+REPLICA-LINK DOWN|STALL|UP\r\n"
            "+    On a replica: drop the link to the master and keep it down, or keep it open but "
            "read\r\n"
            "+    and acknowledge nothing (a replica that lags), until UP.\r\n"
            "+REPLY-DELAY <ms>\r\n"
            "+    Hold the reply of every command but DEBUG <ms> milliseconds. 0 clears.\r\n"
            "+SET-ACTIVE-EXPIRE <0|1>\r\n"
            "+    Setting it to 0 disables expiring keys in background when they are not "
            "accessed.\r\n"
            "+SET-DISABLE-DENY-SCRIPTS <0|1>\r\n"
            "+    Let scripts call DEBUG.\r\n"
            "+SIMULATE-RESTART\r\n"
            "+    Lose every key and script and drop every connection, as a restart without "
            "persistence.\r\n"
            "+SLEEP <seconds>\r\n"
            "+    Stop the server for <seconds>. Decimals allowed.\r\n"
            "+SNAPSHOT SAVE|LOAD|DROP <name> | LIST\r\n"
            "+    Save a copy of every database, replace the data with one, drop one, or list "
            "them.\r\n"
            "+UNSUPPORTED\r\n"
            "+    Commands and subcommands answered as unknown since start or CONFIG RESETSTAT, "
            "counted.\r\n"
            "+WAIT-BLOCKED <count> [<timeout-ms>]\r\n"
            "+    Wait until <count> clients are blocked in blocking commands (real-time "
            "timeout,\r\n"
            "+    default 5000, 0 for none); returns how many are.\r\n"
            "+HELP\r\n"
            "+    Prints this help.\r\n");
}

}  // namespace
}  // namespace warden::server
