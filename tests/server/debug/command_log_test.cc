// The command log: its ring on its own, then DEBUG COMMAND-LOG through the dispatcher.
#include "server/debug/command_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/command_table.h"
#include "server/debug/debug_controls.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

const CommandSpec& SetSpec() { return *FindTopLevelCommand("set"); }

void AppendSet(CommandLog& log, std::string_view key) {
  const std::string_view args[] = {"SET", key, "v"};
  log.Append(SetSpec(), args, 1000, 7, "app", 0, CommandOrigin::kClient);
}

std::vector<std::string> Keys(const CommandLog& log) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < log.size(); ++i) keys.emplace_back(log.At(i).arg(1));
  return keys;
}

TEST(CommandLogTest, KeepsArgumentsInOrder) {
  CommandLog log;
  log.Start(10);
  const std::string_view args[] = {"SET", "k", "", "NX"};

  log.Append(SetSpec(), args, 1234, 7, "app", 3, CommandOrigin::kScript);

  ASSERT_EQ(log.size(), 1u);
  const CommandLog::Entry& e = log.At(0);
  EXPECT_EQ(e.seq, 1u);
  EXPECT_EQ(e.time_ms, 1234);
  EXPECT_EQ(e.client_id, 7u);
  EXPECT_EQ(e.client_name, "app");
  EXPECT_EQ(e.db, 3);
  EXPECT_EQ(e.origin, CommandOrigin::kScript);
  ASSERT_EQ(e.argc(), 4u);
  EXPECT_EQ(e.arg(0), "SET");
  EXPECT_EQ(e.arg(1), "k");
  EXPECT_EQ(e.arg(2), "");
  EXPECT_EQ(e.arg(3), "NX");
}

TEST(CommandLogTest, LongArgumentsAndLongCommandsAreCut) {
  CommandLog log;
  log.Start(10);
  const std::string big(CommandLog::kMaxArgBytes + 100, 'x');
  const std::string_view set[] = {"SET", "k", big};
  log.Append(SetSpec(), set, 0, 1, "", 0, CommandOrigin::kClient);
  EXPECT_EQ(log.At(0).arg(2), std::string(CommandLog::kMaxArgBytes, 'x') + "... (100 more bytes)");

  // 100 arguments of 100 bytes: the entry stops taking them past its byte budget.
  std::vector<std::string> words(100, std::string(100, 'k'));
  std::vector<std::string_view> mset = {"MSET"};
  mset.insert(mset.end(), words.begin(), words.end());
  log.Append(*FindTopLevelCommand("mset"), mset, 0, 1, "", 0, CommandOrigin::kClient);
  const CommandLog::Entry& e = log.At(1);
  const std::size_t kept = 1 + (CommandLog::kMaxEntryBytes - 4 + 99) / 100;
  ASSERT_EQ(e.argc(), kept + 1);
  EXPECT_EQ(e.arg(kept), "... (" + std::to_string(101 - kept) + " more arguments)");
  EXPECT_LT(e.data.size(), CommandLog::kMaxEntryBytes + 100);
}

TEST(CommandLogTest, FullLogDropsOldest) {
  CommandLog log;
  log.Start(3);

  for (const char* key : {"a", "b", "c", "d", "e"}) AppendSet(log, key);

  EXPECT_EQ(Keys(log), (std::vector<std::string>{"c", "d", "e"}));
  EXPECT_EQ(log.dropped(), 2u);
  EXPECT_EQ(log.At(0).seq, 3u);
}

TEST(CommandLogTest, SmallerBoundKeepsNewest) {
  CommandLog log;
  log.Start(4);
  for (const char* key : {"a", "b", "c", "d", "e", "f"}) AppendSet(log, key);

  log.Start(2);
  AppendSet(log, "g");

  EXPECT_EQ(Keys(log), (std::vector<std::string>{"f", "g"}));
  EXPECT_EQ(log.dropped(), 5u);
}

TEST(CommandLogTest, LargerBoundKeepsEverything) {
  CommandLog log;
  log.Start(2);
  for (const char* key : {"a", "b", "c"}) AppendSet(log, key);

  log.Start(3);
  AppendSet(log, "d");

  EXPECT_EQ(Keys(log), (std::vector<std::string>{"b", "c", "d"}));
}

TEST(CommandLogTest, ResetEmptiesButSequenceContinues) {
  CommandLog log;
  log.Start(2);
  for (const char* key : {"a", "b", "c"}) AppendSet(log, key);

  log.Reset();
  AppendSet(log, "d");

  EXPECT_EQ(Keys(log), (std::vector<std::string>{"d"}));
  EXPECT_EQ(log.At(0).seq, 4u);
  EXPECT_EQ(log.dropped(), 0u);
}

TEST(CommandLogTest, PasswordsAreRedacted) {
  CommandLog log;
  log.Start(2);
  const std::string_view args[] = {"AUTH", "user", "secret"};

  log.Append(*FindTopLevelCommand("auth"), args, 0, 1, "", 0, CommandOrigin::kClient);

  EXPECT_EQ(log.At(0).arg(1), "(redacted)");
  EXPECT_EQ(log.At(0).arg(2), "(redacted)");
}

Config DebugConfig() {
  Config config = TestConfig();
  config.enable_debug_command = DebugCommandPolicy::kYes;
  config.command_log_max_entries = 100;
  return config;
}

std::string Array(std::initializer_list<std::string> items) {
  std::string out = "*" + std::to_string(items.size()) + "\r\n";
  for (const std::string& item : items) out += item;
  return out;
}

std::string Int(std::int64_t n) { return ":" + std::to_string(n) + "\r\n"; }

class DebugCommandLogTest : public CommandTest {
 protected:
  DebugCommandLogTest() : CommandTest(DebugConfig()) {
    clock_.SetMs(1'700'000'000'000);
    session_.name = "app";
  }

  // One entry of DEBUG COMMAND-LOG GET, by this test's client in db 0 unless told.
  std::string Entry(std::int64_t seq, std::initializer_list<std::string_view> args,
                    std::string_view origin = "client", int db = 0) {
    std::string out = "*7\r\n" + Int(seq) + Int(now_ms()) + Int(session_.id) + BulkReply("app") +
                      Int(db) + "*" + std::to_string(args.size()) + "\r\n";
    for (std::string_view arg : args) out += BulkReply(arg);
    return out + BulkReply(origin);
  }
};

TEST_F(DebugCommandLogTest, OffByDefault) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}), "*0\r\n");
  EXPECT_FALSE(state_.debug->command_log.on());
}

TEST_F(DebugCommandLogTest, LogsCommandsButNotItsOwn) {
  ASSERT_EQ(Run({"DEBUG", "COMMAND-LOG", "ON"}), "+OK\r\n");

  Run({"SET", "k", "v", "NX"});
  Run({"GET", "k"});
  Run({"DEBUG", "COMMAND-LOG", "STATUS"});

  EXPECT_EQ(Run({"debug", "command-log", "get"}),
            Array({Entry(1, {"SET", "k", "v", "NX"}), Entry(2, {"GET", "k"})}));
}

TEST_F(DebugCommandLogTest, GetCountReturnsNewestOldestFirst) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});
  Run({"INCR", "a"});
  Run({"INCR", "b"});
  Run({"INCR", "c"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET", "2"}),
            Array({Entry(2, {"INCR", "b"}), Entry(3, {"INCR", "c"})}));
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET", "-1"}),
            Array({Entry(1, {"INCR", "a"}), Entry(2, {"INCR", "b"}), Entry(3, {"INCR", "c"})}));
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET", "-2"}),
            "-ERR count should be greater than or equal to -1\r\n");
}

TEST_F(DebugCommandLogTest, EntryCarriesClockAndDatabase) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});
  Run({"SELECT", "5"});
  clock_.AdvanceMs(250);
  Run({"DEL", "k"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET", "1"}),
            Array({Entry(2, {"DEL", "k"}, "client", 5)}));
}

TEST_F(DebugCommandLogTest, ScriptCommandsAreMarkedAndFollowTheirScript) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});

  Run({"EVAL", "redis.call('SET', KEYS[1], 'x') return redis.call('GET', KEYS[1])", "1", "s"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}),
            Array({Entry(1, {"EVAL",
                             "redis.call('SET', KEYS[1], 'x') return redis.call('GET', "
                             "KEYS[1])",
                             "1", "s"}),
                   Entry(2, {"SET", "s", "x"}, "script"), Entry(3, {"GET", "s"}, "script")}));
}

TEST_F(DebugCommandLogTest, ExecRunsQueuedCommandsMarked) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});

  Run({"MULTI"});
  Run({"SET", "a", "1"});
  Run({"INCR", "a"});
  Run({"EXEC"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}),
            Array({Entry(1, {"MULTI"}), Entry(2, {"EXEC"}), Entry(3, {"SET", "a", "1"}, "exec"),
                   Entry(4, {"INCR", "a"}, "exec")}));
}

TEST_F(DebugCommandLogTest, RefusedCommandsAreNotLogged) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});

  Run({"NOSUCH"});
  Run({"GET"});
  Run({"MULTI"});
  Run({"GET", "a", "b"});
  Run({"DISCARD"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}),
            Array({Entry(1, {"MULTI"}), Entry(2, {"DISCARD"})}));
}

TEST_F(DebugCommandLogTest, OffStopsLoggingAndKeepsEntries) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});
  Run({"PING"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "OFF"}), "+OK\r\n");
  Run({"ECHO", "x"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}), Array({Entry(1, {"PING"})}));
}

TEST_F(DebugCommandLogTest, ResetEmptiesTheLog) {
  Run({"DEBUG", "COMMAND-LOG", "ON"});
  Run({"PING"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "RESET"}), "+OK\r\n");
  Run({"ECHO", "x"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}), Array({Entry(2, {"ECHO", "x"})}));
}

TEST_F(DebugCommandLogTest, MaxEntriesBoundsTheLog) {
  Run({"DEBUG", "COMMAND-LOG", "ON", "2"});
  Run({"INCR", "a"});
  Run({"INCR", "b"});
  Run({"INCR", "c"});

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "GET"}),
            Array({Entry(2, {"INCR", "b"}), Entry(3, {"INCR", "c"})}));
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "STATUS"}),
            Array({BulkReply("state"), BulkReply("on"), BulkReply("max-entries"), Int(2),
                   BulkReply("entries"), Int(2), BulkReply("dropped"), Int(1),
                   BulkReply("next-seq"), Int(4)}));
}

TEST_F(DebugCommandLogTest, MaxEntriesPastTheCapIsRefused) {
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "ON", "101"}),
            "-ERR max-entries must be between 1 and 100 (command-log-max-entries)\r\n");
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "ON", "0"}),
            "-ERR max-entries must be between 1 and 100 (command-log-max-entries)\r\n");
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "ON", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_FALSE(state_.debug->command_log.on());
}

TEST_F(DebugCommandLogTest, BadActionIsASyntaxError) {
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "MAYBE"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "OFF", "1"}), "-ERR syntax error\r\n");
}

TEST_F(DebugCommandLogTest, RefusedWithoutEnableDebugCommand) {
  state_.config.enable_debug_command = DebugCommandPolicy::kNo;

  EXPECT_EQ(Run({"DEBUG", "COMMAND-LOG", "ON"}).substr(0, 30), "-ERR DEBUG command not allowed");
  EXPECT_FALSE(state_.debug->command_log.on());
}

}  // namespace
}  // namespace warden::server
