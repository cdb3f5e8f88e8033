// DEBUG SNAPSHOT through the dispatcher (what LOAD does to WATCH, the caps and their errors,
// LIST) and --preload's runner on fixture texts.
#include <gtest/gtest.h>

#include "server/debug/debug_controls.h"
#include "server/debug/preload.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

Config SnapshotConfig() {
  Config config = TestConfig();
  config.enable_debug_command = DebugCommandPolicy::kYes;
  return config;
}

class DebugSnapshotTest : public CommandTest {
 protected:
  DebugSnapshotTest() : CommandTest(SnapshotConfig()) {}
};

TEST_F(DebugSnapshotTest, LoadPutsBackWhatSaveSaw) {
  Run({"SET", "s", "v"});
  Run({"HSET", "h", "f", "1"});
  Run({"SELECT", "2"});
  Run({"RPUSH", "l", "a", "b"});
  Run({"SELECT", "0"});
  ASSERT_EQ(Run({"DEBUG", "SNAPSHOT", "SAVE", "base"}), "+OK\r\n");
  Run({"SET", "s", "changed"});
  Run({"DEL", "h"});
  Run({"SET", "new", "x"});
  Run({"FLUSHDB"});

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LOAD", "base"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "s"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"HGET", "h", "f"}), "$1\r\n1\r\n");
  EXPECT_EQ(Run({"EXISTS", "new"}), ":0\r\n");
  Run({"SELECT", "2"});
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
}

TEST_F(DebugSnapshotTest, LoadKeepsRemainingTtl) {
  Run({"SET", "lease", "v", "PX", "30000"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "base"});
  clock_.AdvanceMs(10'000);

  Run({"DEBUG", "SNAPSHOT", "LOAD", "base"});

  EXPECT_EQ(Run({"PTTL", "lease"}), ":20000\r\n");
}

TEST_F(DebugSnapshotTest, LoadExpiresKeysWhoseDeadlinePassed) {
  Run({"SET", "lease", "v", "PX", "1000"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "base"});
  clock_.AdvanceMs(1'001);

  Run({"DEBUG", "SNAPSHOT", "LOAD", "base"});

  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(DebugSnapshotTest, LoadTouchesKeyPresentBefore) {
  Run({"SET", "k", "v"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "empty-of-other"});
  Run({"SET", "other", "v"});
  Run({"WATCH", "other"});
  Run({"DEBUG", "SNAPSHOT", "LOAD", "empty-of-other"});
  Run({"MULTI"});
  Run({"SET", "x", "1"});

  EXPECT_EQ(Run({"EXEC"}), "*-1\r\n");
}

TEST_F(DebugSnapshotTest, LoadTouchesKeyItBringsBack) {
  Run({"SET", "k", "v"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "base"});
  Run({"DEL", "k"});
  Run({"WATCH", "k"});
  Run({"DEBUG", "SNAPSHOT", "LOAD", "base"});
  Run({"MULTI"});
  Run({"SET", "x", "1"});

  EXPECT_EQ(Run({"EXEC"}), "*-1\r\n");
}

TEST_F(DebugSnapshotTest, LoadLeavesUnrelatedWatchAlone) {
  Run({"DEBUG", "SNAPSHOT", "SAVE", "base"});
  Run({"WATCH", "k"});
  Run({"DEBUG", "SNAPSHOT", "LOAD", "base"});
  Run({"MULTI"});
  Run({"SET", "x", "1"});

  EXPECT_EQ(Run({"EXEC"}), "*1\r\n+OK\r\n");
}

TEST_F(DebugSnapshotTest, LoadOfUnknownNameIsAnError) {
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LOAD", "nope"}), "-ERR no such snapshot 'nope'\r\n");
}

TEST_F(DebugSnapshotTest, DropAnswersWhetherItDropped) {
  Run({"DEBUG", "SNAPSHOT", "SAVE", "a"});

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "DROP", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "DROP", "a"}), ":0\r\n");
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LIST"}), "*0\r\n");
}

TEST_F(DebugSnapshotTest, ListShowsNameKeysBytesAndTime) {
  Run({"SET", "k", "v"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "a"});
  const std::string bytes = std::to_string(state_.debug->snapshots.at("a")->bytes());

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LIST"}),
            "*1\r\n*8\r\n$4\r\nname\r\n$1\r\na\r\n$4\r\nkeys\r\n:1\r\n$5\r\nbytes\r\n:" + bytes +
                "\r\n$7\r\ntime-ms\r\n:" + std::to_string(now_ms()) + "\r\n");
}

TEST_F(DebugSnapshotTest, CountCapRefusesNewName) {
  Run({"CONFIG", "SET", "snapshot-max-count", "1"});
  Run({"DEBUG", "SNAPSHOT", "SAVE", "a"});

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "SAVE", "b"}),
            "-ERR snapshot limit reached: 1 snapshots (snapshot-max-count); DROP one first\r\n");
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "SAVE", "a"}), "+OK\r\n");
}

TEST_F(DebugSnapshotTest, ByteCapRefusesLargeCopy) {
  for (int i = 0; i < 200; ++i) Run({"SET", "key:" + std::to_string(i), "value"});
  Run({"CONFIG", "SET", "snapshot-max-bytes", "1000"});

  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "SAVE", "a"}),
            "-ERR snapshot needs more than the 1000 bytes left of snapshot-max-bytes (1000)\r\n");
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LIST"}), "*0\r\n");
}

TEST_F(DebugSnapshotTest, UnknownActionIsSyntaxError) {
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "KEEP", "a"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LIST", "a"}), "-ERR syntax error\r\n");
}

class DebugSnapshotOffTest : public CommandTest {};

TEST_F(DebugSnapshotOffTest, RefusedWithoutEnableDebugCommand) {
  EXPECT_EQ(Run({"DEBUG", "SNAPSHOT", "LIST"}).substr(0, 30), "-ERR DEBUG command not allowed");
}

// --preload

class PreloadTest : public CommandTest {
 protected:
  PreloadResult Preload(std::string_view text) { return RunPreloadText(state_, "fx.txt", text); }
};

TEST_F(PreloadTest, RunsEachLineSkippingCommentsAndBlanks) {
  const PreloadResult r = Preload(
      "# fixtures\n"
      "\n"
      "SET greeting \"hello\\x20world\"\n"
      "  # indented comment\r\n"
      "HSET 'h' f 'it\\'s'\r\n"
      "SELECT 3\n"
      "SET in3 yes");

  ASSERT_FALSE(r.error) << *r.error;
  EXPECT_EQ(r.commands, 4u);
  EXPECT_EQ(Run({"GET", "greeting"}), "$11\r\nhello world\r\n");
  EXPECT_EQ(Run({"HGET", "h", "f"}), "$4\r\nit's\r\n");
  EXPECT_EQ(Run({"SELECT", "3"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "in3"}), "$3\r\nyes\r\n");
}

TEST_F(PreloadTest, ErrorReplyNamesFileAndLine) {
  const PreloadResult r = Preload("SET a 1\n\nINCR a b\nSET never 1\n");

  EXPECT_EQ(r.error, "fx.txt:3: ERR wrong number of arguments for 'incr' command");
  EXPECT_EQ(Run({"EXISTS", "never"}), ":0\r\n");
}

TEST_F(PreloadTest, UnbalancedQuotesNameFileAndLine) {
  EXPECT_EQ(Preload("SET a 1\nSET b \"open\n").error, "fx.txt:2: unbalanced quotes");
}

TEST_F(PreloadTest, UnfinishedMultiIsAnError) {
  EXPECT_EQ(Preload("MULTI\nSET a 1\n").error,
            "fx.txt:2: MULTI without EXEC at the end of the file");
}

TEST_F(PreloadTest, MissingFileIsAnError) {
  EXPECT_EQ(RunPreloadFile(state_, "/nonexistent/fx.txt").error,
            "/nonexistent/fx.txt: cannot open: No such file or directory");
}

}  // namespace
}  // namespace warden::server
