// Saving RDB snapshots on real server processes, each scenario run on warden and on
// redis-server 7.0 alike: BGSAVE and its refusals while a child runs, a save killed or a server
// killed mid-save leaving the previous file whole, a failed save refusing writes (MISCONF), what
// a start does with a corrupt, truncated, unchecksummed or missing file or directory, the save
// points, the final save at SIGTERM and SHUTDOWN, and FLUSHALL's save of the empty data set.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"
#include "snapshot_support.h"

namespace warden::testing {
namespace {

namespace fs = std::filesystem;
using aof::ReadFile;
using aof::Send;
using aof::TempDir;
using snapshot::DumpPath;
using snapshot::Info;
using snapshot::Start;
using snapshot::WaitForBgsave;

constexpr char kMisconf[] =
    "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.\r\n";

// `n` keys key:0.. holding value-0..
void WriteKeys(RespClient& c, int n) {
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(Send(c, {"SET", "key:" + std::to_string(i), "value-" + std::to_string(i)}),
              "+OK\r\n");
  }
}

// Polls the server's log (bounded) until it holds `text`.
bool WaitForLog(ServerProcess& server, const std::string& text) {
  for (const Deadline deadline(30000); !deadline.Expired();) {
    if (server.LogTail(100000).find(text) != std::string::npos) return true;
    if (!server.IsRunning()) return server.LogTail(100000).find(text) != std::string::npos;
  }
  return false;
}

// The names of the files in `dir`, sorted, space-separated.
std::string Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

class SnapshotSaveTest : public ::testing::TestWithParam<ServerKind> {
 protected:
  // A server on dir_ with `save` points, and a client to it. False (and a failure) if either
  // cannot be had.
  [[nodiscard]] bool Open(const std::string& save, std::vector<std::string> args = {}) {
    client_.reset();
    server_ = Start(GetParam(), dir_.path(), save, std::move(args), &error_);
    if (!server_) {
      ADD_FAILURE() << error_;
      return false;
    }
    client_ = RespClient::Connect(server_->port());
    if (!client_) ADD_FAILURE() << "cannot connect to port " << server_->port();
    return client_.has_value();
  }
  RespClient& c() { return *client_; }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::optional<RespClient> client_;
  std::string error_;
};

// BGSAVE forks a child that writes the file while the server serves; INFO reports it done and
// LASTSAVE moves. While a save runs, BGSAVE (with or without SCHEDULE) and SAVE are refused.
TEST_P(SnapshotSaveTest, BgsaveWritesTheFileInTheBackground) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 200);
  const std::string before = Send(c(), {"LASTSAVE"});
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  EXPECT_EQ(WaitForBgsave(c()), "ok");
  EXPECT_EQ(Info(c(), "rdb_changes_since_last_save"), "0");
  const std::string after = Send(c(), {"LASTSAVE"});
  ASSERT_EQ(after.front(), ':');
  EXPECT_GE(std::stoll(after.substr(1)), std::stoll(before.substr(1)));
  EXPECT_EQ(Listing(dir_.path()), "dump.rdb");

  // 201 keys at 10 ms each: a save that runs for two seconds.
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "10000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"SET", "during", "1"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  EXPECT_EQ(Info(c(), "rdb_bgsave_in_progress"), "1");
  EXPECT_EQ(Send(c(), {"BGSAVE"}), "-ERR Background save already in progress\r\n");
  EXPECT_EQ(Send(c(), {"BGSAVE", "SCHEDULE"}), "-ERR Background save already in progress\r\n");
  EXPECT_EQ(Send(c(), {"SAVE"}), "-ERR Background save already in progress\r\n");
  EXPECT_EQ(Send(c(), {"BGSAVE", "NOW"}), "-ERR syntax error\r\n");
  ASSERT_EQ(Send(c(), {"SET", "after", "1"}), "+OK\r\n");  // the loop serves meanwhile
  EXPECT_EQ(WaitForBgsave(c()), "ok");
  EXPECT_EQ(Info(c(), "rdb_changes_since_last_save"), "1");  // "after" came after the fork
  server_->Stop();

  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":201\r\n");
  EXPECT_EQ(Send(c(), {"GET", "key:199"}), "$9\r\nvalue-199\r\n");
  EXPECT_EQ(Send(c(), {"GET", "after"}), "$-1\r\n");
}

// With an append-only rewrite's child running, BGSAVE is refused unless SCHEDULE asks to start
// it once that child is done; it then runs and writes the file.
TEST_P(SnapshotSaveTest, BgsaveScheduleWaitsForTheRewrite) {
  ASSERT_TRUE(Open("", {"--appendonly", "yes", "--aof-use-rdb-preamble", "yes"}));
  WriteKeys(c(), 200);
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "10000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGREWRITEAOF"}), "+Background append only file rewriting started\r\n");
  EXPECT_EQ(Send(c(), {"BGSAVE"}),
            "-ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
            "SCHEDULE in order to schedule a BGSAVE whenever possible.\r\n");
  EXPECT_EQ(Send(c(), {"BGSAVE", "SCHEDULE"}), "+Background saving scheduled\r\n");
  EXPECT_EQ(Send(c(), {"BGSAVE", "SCHEDULE"}), "+Background saving scheduled\r\n");
  EXPECT_EQ(Info(c(), "rdb_bgsave_in_progress"), "0");
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "0"}), "+OK\r\n");
  EXPECT_FALSE(fs::exists(DumpPath(dir_.path())));
  EXPECT_TRUE(WaitForLog(*server_, "Background saving terminated with success"))
      << server_->LogTail();
  EXPECT_EQ(Info(c(), "rdb_last_bgsave_status"), "ok");
  EXPECT_EQ(Info(c(), "aof_rewrite_in_progress"), "0");
  server_->Stop();
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":200\r\n");
}

// A background save killed (SIGKILL: a crash, not Redis's own SIGUSR1) fails: its temp file goes,
// the previous file stays byte for byte. A server killed mid-save (with its child, as a power
// loss would) leaves that file too, and it loads.
TEST_P(SnapshotSaveTest, ACrashMidSaveLeavesThePreviousFileWhole) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 200);
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  const std::string good = ReadFile(DumpPath(dir_.path()));
  ASSERT_EQ(Send(c(), {"SET", "unsaved", "1"}), "+OK\r\n");
  // 201 keys at 100 ms each: twenty seconds, far longer than the test takes to kill it.
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "100000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  const pid_t child = snapshot::WaitForChildOf(server_->pid());
  ASSERT_GT(child, 0);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  EXPECT_EQ(WaitForBgsave(c()), "err");
  EXPECT_NE(server_->LogTail().find("Background saving terminated by signal 9"), std::string::npos)
      << server_->LogTail();
  EXPECT_EQ(ReadFile(DumpPath(dir_.path())), good);
  EXPECT_EQ(Listing(dir_.path()), "dump.rdb");
  // No save points: nothing refuses writes for a failed save.
  EXPECT_EQ(Send(c(), {"SET", "still", "writable"}), "+OK\r\n");

  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  const pid_t second = snapshot::WaitForChildOf(server_->pid());
  ASSERT_GT(second, 0);
  ASSERT_EQ(kill(server_->pid(), SIGKILL), 0);
  ASSERT_EQ(kill(second, SIGKILL), 0);
  server_->Stop();
  EXPECT_EQ(ReadFile(DumpPath(dir_.path())), good);
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":200\r\n");
  EXPECT_EQ(Send(c(), {"GET", "unsaved"}), "$-1\r\n");
}

// A background save that fails, with save points set, refuses writes (and PING, and scripts that
// write) with MISCONF while reads go on, until stop-writes-on-bgsave-error is turned off. A
// SIGTERM whose final save fails does not stop the server; SHUTDOWN says so; SHUTDOWN FORCE
// stops it anyway.
TEST_P(SnapshotSaveTest, AFailedSaveRefusesWrites) {
  ASSERT_TRUE(Open("3600 1"));
  ASSERT_EQ(Send(c(), {"SET", "a", "1"}), "+OK\r\n");
  // The directory goes: the child cannot create its temp file there (permissions would not do:
  // the tests may run as root).
  fs::remove_all(dir_.path());
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  EXPECT_EQ(WaitForBgsave(c()), "err");
  EXPECT_EQ(Send(c(), {"SET", "b", "2"}), kMisconf);
  EXPECT_EQ(Send(c(), {"DEL", "a"}), kMisconf);
  EXPECT_EQ(Send(c(), {"PING"}), kMisconf);
  EXPECT_EQ(Send(c(), {"GET", "a"}), "$1\r\n1\r\n");
  EXPECT_EQ(Send(c(), {"PUBLISH", "channel", "m"}), ":0\r\n");
  EXPECT_EQ(Send(c(), {"SAVE"}), "-ERR\r\n");
  // A script's write is refused where it is made; a script that may write, up front.
  const std::string misconf = std::string(kMisconf).substr(0, sizeof(kMisconf) - 3);
  EXPECT_EQ(Send(c(), {"EVAL", "return redis.call('set', 'b', '2')", "0"}),
            misconf + " script: 99a7c53ba4bb6654c262b4401e3710bc06b00b31, on @user_script:1.\r\n");
  EXPECT_EQ(Send(c(), {"EVAL", "#!lua\nreturn redis.call('get', 'a')", "0"}), kMisconf);
  EXPECT_EQ(Send(c(), {"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'a')", "0"}),
            "$1\r\n1\r\n");
  ASSERT_EQ(Send(c(), {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Send(c(), {"SET", "b", "2"}), kMisconf);
  EXPECT_EQ(Send(c(), {"EXEC"}),
            "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(Send(c(), {"EXISTS", "b"}), ":0\r\n");
  EXPECT_EQ(Send(c(), {"CONFIG", "SET", "stop-writes-on-bgsave-error", "no"}), "+OK\r\n");
  EXPECT_EQ(Send(c(), {"SET", "b", "2"}), "+OK\r\n");
  EXPECT_EQ(Send(c(), {"PING"}), "+PONG\r\n");
  EXPECT_EQ(Send(c(), {"CONFIG", "SET", "stop-writes-on-bgsave-error", "yes"}), "+OK\r\n");
  EXPECT_EQ(Send(c(), {"SET", "c", "3"}), kMisconf);

  ASSERT_EQ(kill(server_->pid(), SIGTERM), 0);
  EXPECT_TRUE(WaitForLog(*server_, "Error trying to save the DB, can't exit."))
      << server_->LogTail();
  EXPECT_EQ(Send(c(), {"GET", "b"}), "$1\r\n2\r\n");
  EXPECT_EQ(Send(c(), {"SHUTDOWN"}), "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
  ASSERT_TRUE(c().Send({"SHUTDOWN", "FORCE"}));
  EXPECT_EQ(c().ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(server_->WaitForExit(10000), std::optional<int>(0));
  EXPECT_NE(server_->LogTail().find("Error trying to save the DB. Exit anyway."),
            std::string::npos);
}

// A file whose CRC does not match, or that ends early, stops the start with the problem named;
// a file saved with rdbchecksum no (a zero CRC) loads on both servers; no file starts empty.
TEST_P(SnapshotSaveTest, WhatAStartDoesWithTheFile) {
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":0\r\n");
  EXPECT_EQ(Info(c(), "rdb_last_load_keys_loaded"), "0");
  EXPECT_EQ(Listing(dir_.path()), "");
  WriteKeys(c(), 50);
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  server_->Stop();
  const std::string good = ReadFile(DumpPath(dir_.path()));
  auto start_on = [&](const std::string& bytes, std::string& error) {
    std::ofstream(DumpPath(dir_.path()), std::ios::binary | std::ios::trunc) << bytes;
    return Start(GetParam(), dir_.path(), "", {}, &error);
  };
  std::string flipped = good;
  const std::size_t value = flipped.find("value-25");
  ASSERT_NE(value, std::string::npos);
  flipped[value] = 'V';  // the file still parses: only the CRC tells
  std::string error;
  EXPECT_FALSE(start_on(flipped, error));
  EXPECT_NE(error.find("exited during start-up (exit code 1)"), std::string::npos) << error;
  EXPECT_NE(error.find("RDB CRC error"), std::string::npos) << error;
  EXPECT_FALSE(start_on(good.substr(0, good.size() / 2), error));
  EXPECT_NE(error.find("exited during start-up (exit code 1)"), std::string::npos) << error;
  EXPECT_NE(error.find("Short read or OOM loading DB. Unrecoverable error, aborting now."),
            std::string::npos)
      << error;
  auto server = start_on(good, error);
  ASSERT_TRUE(server) << error;
  server->Stop();

  for (const ServerKind reader :
       {GetParam(), GetParam() == ServerKind::kWarden ? ServerKind::kRedis : ServerKind::kWarden}) {
    fs::remove(DumpPath(dir_.path()));
    ASSERT_TRUE(Open("", {"--rdbchecksum", "no"}));
    WriteKeys(c(), 50);
    ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
    server_->Stop();
    const std::string unchecked = ReadFile(DumpPath(dir_.path()));
    EXPECT_EQ(unchecked.substr(unchecked.size() - 8), std::string(8, '\0'));
    auto loaded = Start(reader, dir_.path(), "", {}, &error);
    ASSERT_TRUE(loaded) << error;
    std::optional<RespClient> client = RespClient::Connect(loaded->port());
    ASSERT_TRUE(client);
    EXPECT_EQ(Send(*client, {"DBSIZE"}), ":50\r\n");
    EXPECT_NE(
        loaded->LogTail().find("RDB file was saved with checksum disabled: no check performed."),
        std::string::npos)
        << loaded->LogTail();
  }
}

// A save point ("1 1": a change and more than a second) starts a background save by itself.
TEST_P(SnapshotSaveTest, ASavePointSavesInTheBackground) {
  ASSERT_TRUE(Open("1 1"));
  ASSERT_EQ(Send(c(), {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_TRUE(snapshot::WaitForInfo(c(), "rdb_changes_since_last_save", "0"));
  EXPECT_EQ(WaitForBgsave(c()), "ok");
  EXPECT_TRUE(fs::exists(DumpPath(dir_.path())));
  EXPECT_NE(server_->LogTail().find("1 changes in 1 seconds. Saving..."), std::string::npos)
      << server_->LogTail();
  server_->Stop();
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"GET", "k"}), "$1\r\nv\r\n");
}

// With save points set, SIGTERM saves before exiting and SHUTDOWN NOSAVE does not; without
// them SIGTERM does not save and SHUTDOWN SAVE does.
TEST_P(SnapshotSaveTest, TheFinalSaveAtExit) {
  ASSERT_TRUE(Open("3600 1"));
  WriteKeys(c(), 10);
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_NE(server_->LogTail().find("Saving the final RDB snapshot before exiting."),
            std::string::npos);
  const std::string saved = ReadFile(DumpPath(dir_.path()));
  ASSERT_TRUE(Open("3600 1"));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":10\r\n");
  ASSERT_EQ(Send(c(), {"SET", "lost", "1"}), "+OK\r\n");
  ASSERT_TRUE(c().Send({"SHUTDOWN", "NOSAVE"}));
  EXPECT_EQ(c().ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(server_->WaitForExit(10000), std::optional<int>(0));
  EXPECT_EQ(ReadFile(DumpPath(dir_.path())), saved);

  fs::remove(DumpPath(dir_.path()));
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 3);
  EXPECT_EQ(server_->Stop(), 0);
  EXPECT_FALSE(fs::exists(DumpPath(dir_.path())));
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 3);
  ASSERT_TRUE(c().Send({"SHUTDOWN", "SAVE"}));
  EXPECT_EQ(c().ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(server_->WaitForExit(10000), std::optional<int>(0));
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":3\r\n");
}

// SHUTDOWN during a background save kills it (its temp file goes) and saves in the foreground.
TEST_P(SnapshotSaveTest, ShutdownKillsABackgroundSaveAndSaves) {
  ASSERT_TRUE(Open("3600 1"));
  WriteKeys(c(), 200);
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "100000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "0"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"SET", "last", "1"}), "+OK\r\n");
  ASSERT_TRUE(c().Send({"SHUTDOWN"}));
  EXPECT_EQ(c().ReadUntilClose().status, ReadStatus::kClosed);
  EXPECT_EQ(server_->WaitForExit(10000), std::optional<int>(0));
  EXPECT_NE(server_->LogTail().find("There is a child saving an .rdb. Killing it!"),
            std::string::npos)
      << server_->LogTail();
  EXPECT_EQ(Listing(dir_.path()), "dump.rdb");
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":201\r\n");
}

// BGSAVE inside a transaction is scheduled (no child may start within EXEC) and runs after.
TEST_P(SnapshotSaveTest, BgsaveInATransactionIsScheduled) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 20);
  ASSERT_EQ(Send(c(), {"MULTI"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+QUEUED\r\n");
  EXPECT_EQ(Send(c(), {"EXEC"}), "*1\r\n+Background saving scheduled\r\n");
  EXPECT_TRUE(snapshot::WaitForInfo(c(), "rdb_changes_since_last_save", "0"));
  EXPECT_EQ(WaitForBgsave(c()), "ok");
  server_->Stop();
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":20\r\n");
}

// A key whose deadline passed before the save (active expiry off) is in the file, and the load
// counts it as expired and drops it.
TEST_P(SnapshotSaveTest, AKeyExpiredInTheFileIsDroppedAtLoad) {
  ASSERT_TRUE(Open(""));
  ASSERT_EQ(Send(c(), {"DEBUG", "SET-ACTIVE-EXPIRE", "0"}), "+OK\r\n");
  WriteKeys(c(), 3);
  auto server_ms = [&] {
    const Reply time = aof::Parsed(c(), {"TIME"});
    return std::stoll(time.elements[0].text) * 1000 + std::stoll(time.elements[1].text) / 1000;
  };
  const std::int64_t deadline = server_ms() + 2;
  ASSERT_EQ(Send(c(), {"SET", "gone", "v", "PXAT", std::to_string(deadline)}), "+OK\r\n");
  // Bounded polling of the server's clock until the deadline is behind it (TIME touches no key).
  bool passed = false;
  for (const Deadline wait(5000); !passed && !wait.Expired();) passed = server_ms() > deadline;
  ASSERT_TRUE(passed);
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":4\r\n");
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  server_->Stop();
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":3\r\n");
  EXPECT_EQ(Info(c(), "rdb_last_load_keys_loaded"), "3");
  EXPECT_EQ(Info(c(), "rdb_last_load_keys_expired"), "1");
}

// FLUSHALL with save points set kills a background save under way and saves the empty data set
// at once (Redis's flushAllDataAndResetRDB), so a crash after it does not bring the keys back.
TEST_P(SnapshotSaveTest, FlushallSavesTheEmptyDataSet) {
  ASSERT_TRUE(Open("3600 1"));
  WriteKeys(c(), 200);
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "100000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  ASSERT_EQ(Send(c(), {"FLUSHALL"}), "+OK\r\n");
  EXPECT_EQ(WaitForBgsave(c()), "ok");  // killed on purpose: not a failure
  EXPECT_EQ(Listing(dir_.path()), "dump.rdb");
  ASSERT_EQ(kill(server_->pid(), SIGKILL), 0);
  server_->Stop();
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":0\r\n");
}

// A dir that does not exist stops the start, as Redis's chdir at start does.
TEST_P(SnapshotSaveTest, AMissingDirStopsTheStart) {
  std::string error;
  EXPECT_FALSE(Start(GetParam(), dir_.path() + "/missing", "", {}, &error));
  EXPECT_NE(error.find("exited during start-up (exit code 1)"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
}

// A file that ends early, wherever it ends (empty, within the header, within a value), is
// reported as Redis's rdbLoad reports it: "Unexpected EOF reading RDB file".
TEST_P(SnapshotSaveTest, AFileThatEndsEarlyIsAnUnexpectedEof) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 50);
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  server_->Stop();
  const std::string good = ReadFile(DumpPath(dir_.path()));
  for (const std::size_t size : {std::size_t{0}, std::size_t{5}, good.size() / 2}) {
    std::ofstream(DumpPath(dir_.path()), std::ios::binary | std::ios::trunc)
        << good.substr(0, size);
    std::string error;
    EXPECT_FALSE(Start(GetParam(), dir_.path(), "", {}, &error));
    EXPECT_NE(error.find("Unexpected EOF reading RDB file"), std::string::npos)
        << size << " bytes: " << error;
  }
}

// CONFIG SET appendonly yes while a background save runs schedules the rewrite for when that
// child is done (Redis's startAppendOnly): never two children at once, and one rewrite.
TEST_P(SnapshotSaveTest, TurningTheAofOnDuringASaveWaitsForIt) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 100);
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "20000"}), "+OK\r\n");
  ASSERT_EQ(Send(c(), {"BGSAVE"}), "+Background saving started\r\n");
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "appendonly", "yes"}), "+OK\r\n");
  EXPECT_EQ(Info(c(), "aof_rewrite_in_progress"), "0");
  EXPECT_EQ(Info(c(), "aof_rewrite_scheduled"), "1");
  EXPECT_EQ(Send(c(), {"BGREWRITEAOF"}), "+Background append only file rewriting scheduled\r\n");
  ASSERT_EQ(Send(c(), {"CONFIG", "SET", "rdb-key-save-delay", "0"}), "+OK\r\n");
  EXPECT_EQ(WaitForBgsave(c()), "ok");
  EXPECT_TRUE(aof::WaitForRewrites(c(), 1));
  EXPECT_EQ(Info(c(), "aof_rewrite_scheduled"), "0");
  EXPECT_EQ(aof::ReadFile(dir_.path() + "/appendonlydir/appendonly.aof.manifest"),
            "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 "
            "type i\n");
}

// A server killed while it loads its file (before it answers, or just after) changes nothing:
// loading only reads, and the next start loads the same data.
TEST_P(SnapshotSaveTest, ACrashDuringTheLoadLeavesTheFileWhole) {
  ASSERT_TRUE(Open(""));
  WriteKeys(c(), 200);
  ASSERT_EQ(Send(c(), {"EVAL", "for i = 1, 50000 do redis.call('SET', 'k' .. i, i) end", "0"}),
            "$-1\r\n");
  ASSERT_EQ(Send(c(), {"SAVE"}), "+OK\r\n");
  const std::string good = ReadFile(DumpPath(dir_.path()));
  client_.reset();
  server_->Stop();
  std::string error;
  const pid_t pid = SpawnChild({aof::Binary(GetParam()), "--port", "0", "--save", "", "--dir",
                                dir_.path(), "--appendonly", "no"},
                               {}, error);
  ASSERT_GT(pid, 0) << error;
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_TRUE(WaitForChild(pid, 10000).has_value());
  EXPECT_EQ(ReadFile(DumpPath(dir_.path())), good);
  ASSERT_TRUE(Open(""));
  EXPECT_EQ(Send(c(), {"DBSIZE"}), ":50200\r\n");
}

INSTANTIATE_TEST_SUITE_P(Servers, SnapshotSaveTest, AllServers(), ServerKindName);

}  // namespace
}  // namespace warden::testing
