// The append-only file on real server processes: warden restarts with what it acknowledged,
// redis-server 7.0 loads a directory warden wrote and warden loads one redis-server wrote (every
// type, deadlines, several databases, transactions and scripts written as their effects),
// redis-check-aof accepts warden's files, and a truncated or corrupt file is handled as Redis
// handles it, with the file and offset named.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "aof_support.h"
#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

namespace fs = std::filesystem;
using namespace aof;  // NOLINT(google-build-using-namespace)

// Writes of every kind a lock server and its neighbours make, including the ones written as
// their effects: relative deadlines, a transaction, scripts, a blocking pop served by a push.
void WriteEverything(RespClient& c) {
  const std::vector<std::vector<std::string>> commands = {
      {"SET", "lock:a", "token-1", "NX", "PX", "600000"},
      {"SET", "plain", "v"},
      {"SETEX", "lease", "900", "x"},
      {"SET", "counter", "10"},
      {"INCRBY", "counter", "5"},
      {"INCRBYFLOAT", "float", "1.5"},
      {"APPEND", "plain", "-more"},
      {"HSET", "h", "f1", "v1", "f2", "v2"},
      {"HINCRBY", "h", "n", "3"},
      {"SADD", "s", "a", "b", "c", "1", "2"},
      {"SREM", "s", "b"},
      {"ZADD", "z", "1.5", "one", "2", "two", "-3", "minus"},
      {"ZINCRBY", "z", "10", "one"},
      {"RPUSH", "l", "a", "b", "c", "d"},
      {"LPOP", "l"},
      {"EXPIRE", "h", "1000"},
      {"PEXPIRE", "z", "500000"},
      {"SET", "gone", "x"},
      {"DEL", "gone"},
      {"SET", "soon", "x", "PX", "1"},
      {"GETEX", "plain", "EX", "700"},
      {"SELECT", "1"},
      {"SET", "in-db1", "yes"},
      {"SADD", "big", "m1", "m2", "m3"},
      {"SELECT", "2"},
      {"HSET", "db2hash", "k", "v"},
      {"SELECT", "0"},
      {"MULTI"},
      {"INCR", "counter"},
      {"SET", "in-multi", "1", "EX", "800"},
      {"EXEC"},
      {"EVAL",
       "redis.call('set', KEYS[1], ARGV[1], 'PX', 300000); return redis.call('incr', KEYS[2])", "2",
       "lock:b", "counter", "tok"},
      {"EVAL",
       "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else "
       "return 0 end",
       "1", "lock:a", "token-1"},
      {"RPUSH", "queue", "job1", "job2"},
      {"BLPOP", "queue", "0"},
      {"SPOP", "s"},
      // Streams: entries (one id generated, so written with the id it got), trims, deletions,
      // a group read into a PEL (written as XCLAIMs), acknowledgements, a claim, a NOACK read
      // (written as XGROUP SETID), a consumer with nothing pending, and a stream emptied.
      {"XADD", "events", "1-1", "type", "created", "job", "7"},
      {"XADD", "events", "*", "type", "started", "job", "7"},
      {"XADD", "events", "MAXLEN", "~", "1000", "*", "type", "done", "job", "7"},
      {"XADD", "events", "*", "other", "fields"},
      {"XGROUP", "CREATE", "events", "workers", "0"},
      {"XREADGROUP", "GROUP", "workers", "alice", "COUNT", "3", "STREAMS", "events", ">"},
      {"XACK", "events", "workers", "1-1"},
      {"XCLAIM", "events", "workers", "bob", "0", "1-1"},
      {"XGROUP", "CREATE", "events", "audit", "$", "ENTRIESREAD", "4"},
      {"XGROUP", "CREATECONSUMER", "events", "audit", "idle-one"},
      {"XGROUP", "CREATE", "events", "tail", "0"},
      {"XREADGROUP", "GROUP", "tail", "carol", "NOACK", "COUNT", "2", "STREAMS", "events", ">"},
      {"XADD", "trimmed", "1-0", "f", "1"},
      {"XADD", "trimmed", "2-0", "f", "2"},
      {"XADD", "trimmed", "3-0", "f", "3"},
      {"XTRIM", "trimmed", "MAXLEN", "2"},
      {"XDEL", "trimmed", "3-0"},
      {"XADD", "emptied", "5-5", "f", "v"},
      {"XDEL", "emptied", "5-5"},
      {"XSETID", "emptied", "9-9", "ENTRIESADDED", "12", "MAXDELETEDID", "5-5"},
      // Functions: libraries loaded, replaced, deleted and flushed, and FCALLs written as
      // their effects.
      {"FUNCTION", "LOAD", "#!lua name=flushed\nredis.register_function('fl', function() end)"},
      {"FUNCTION", "FLUSH"},
      {"FUNCTION", "LOAD",
       "#!lua name=locks\nredis.register_function('acquire', function(keys, args)\n"
       "  return redis.call('set', keys[1], args[1], 'NX', 'PX', args[2])\nend)"},
      {"FUNCTION", "LOAD", "#!lua name=deleted\nredis.register_function('del_me', function() end)"},
      {"FUNCTION", "DELETE", "deleted"},
      {"FUNCTION", "LOAD",
       "#!lua name=counters\nredis.register_function('bump', function(keys)\n"
       "  return redis.call('incr', keys[1])\nend)"},
      {"FUNCTION", "LOAD", "REPLACE",
       "#!lua name=counters\nredis.register_function{function_name='bump', "
       "callback=function(keys) return redis.call('incrby', keys[1], 2) end, "
       "description='by two'}"},
      {"FCALL", "acquire", "1", "lock:f", "tok-f", "400000"},
      {"FCALL", "bump", "1", "counter"},
  };
  for (const auto& command : commands) {
    const std::string reply = Send(c, command);
    ASSERT_FALSE(reply.empty() || reply[0] == '-') << command[0] << ": " << reply;
  }
  // The 1 ms lease is over before the data set is read (bounded polling; its expiry is written
  // to the file as a DEL).
  for (const Deadline deadline(5000); !deadline.Expired();) {
    if (Send(c, {"EXISTS", "soon"}) == ":0\r\n") break;
  }
  ASSERT_EQ(Send(c, {"EXISTS", "soon"}), ":0\r\n");
  // Many keys, so the files are more than a handful of commands.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(Send(c, {"SET", "k:" + std::to_string(i), std::string(i % 50, 'x')}), "+OK\r\n");
  }
}

class AofTest : public ::testing::TestWithParam<ServerKind> {};

// A restart on the same directory brings back exactly what was acknowledged; the key whose
// deadline passed is gone.
TEST_P(AofTest, RestartBringsBackTheDataSet) {
  TempDir dir;
  std::string before;
  {
    auto server = StartWith(GetParam(), dir.path(), {"--appendfsync", "always"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEverything(*c);
    before = DataSet(*c);
    EXPECT_EQ(server->Stop(), 0);
  }
  EXPECT_EQ(before.find(" soon "), std::string::npos);
  // The libraries as last loaded; the deleted and the flushed ones are gone.
  EXPECT_NE(before.find("$8\r\ncounters\r\n"), std::string::npos) << before;
  EXPECT_NE(before.find("by two"), std::string::npos);
  EXPECT_NE(before.find("$5\r\nlocks\r\n"), std::string::npos);
  EXPECT_EQ(before.find("del_me"), std::string::npos);
  EXPECT_EQ(before.find("name=flushed"), std::string::npos);
  auto server = StartWith(GetParam(), dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(DataSet(*c), before);
  const std::string info = Send(*c, {"INFO", "persistence"});
  EXPECT_NE(info.find("aof_enabled:1\r\n"), std::string::npos);
}

// Each server loads the directory the other wrote, and holds the same data set; redis-check-aof
// accepts both.
TEST_P(AofTest, TheOtherServerLoadsTheDirectory) {
  const ServerKind writer = GetParam();
  const ServerKind reader =
      writer == ServerKind::kWarden ? ServerKind::kRedis : ServerKind::kWarden;
  TempDir dir;
  std::string written;
  {
    auto server = StartWith(writer, dir.path(), {"--appendfsync", "everysec"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEverything(*c);
    written = DataSet(*c);
    EXPECT_EQ(server->Stop(), 0);
  }
  const std::string manifest = dir.path() + "/appendonlydir/appendonly.aof.manifest";
  const ProgramResult check = RunProgram({"redis-check-aof", manifest}, "", 20000);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("is valid"), std::string::npos) << check.out;
  auto server = StartWith(reader, dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(DataSet(*c), written);
}

// A command cut short at the end of the last file (a crash mid-write) is dropped with a
// warning, and the file truncated there; with aof-load-truncated no the start fails, naming
// the file and the offset.
TEST_P(AofTest, ATruncatedLastCommandIsCutOff) {
  TempDir dir;
  {
    auto server = StartWith(GetParam(), dir.path(), {"--appendfsync", "always"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    ASSERT_EQ(Send(*c, {"SET", "kept", "1"}), "+OK\r\n");
    EXPECT_EQ(server->Stop(), 0);
  }
  const std::string incr = dir.path() + "/appendonlydir/appendonly.aof.1.incr.aof";
  const auto whole = static_cast<std::size_t>(fs::file_size(incr));
  { std::ofstream(incr, std::ios::app | std::ios::binary) << "*3\r\n$3\r\nSET\r\n$4\r\nlost"; }
  std::string error;
  auto refused = StartWith(GetParam(), dir.path(), {"--aof-load-truncated", "no"}, &error);
  EXPECT_FALSE(refused);
  EXPECT_NE(error.find("appendonly.aof.1.incr.aof"), std::string::npos) << error;
  auto server = StartWith(GetParam(), dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Send(*c, {"GET", "kept"}), "$1\r\n1\r\n");
  EXPECT_EQ(fs::file_size(incr), whole);
  ASSERT_EQ(Send(*c, {"SET", "after", "2"}), "+OK\r\n");
}

TEST_P(AofTest, ACorruptFileStopsTheStart) {
  TempDir dir;
  {
    auto server = StartWith(GetParam(), dir.path(), {});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    ASSERT_EQ(Send(*c, {"SET", "k", "1"}), "+OK\r\n");
    EXPECT_EQ(server->Stop(), 0);
  }
  const std::string incr = dir.path() + "/appendonlydir/appendonly.aof.1.incr.aof";
  { std::ofstream(incr, std::ios::app | std::ios::binary) << "garbage\r\n*1\r\n$4\r\nPING\r\n"; }
  std::string error;
  EXPECT_FALSE(StartWith(GetParam(), dir.path(), {}, &error));
  EXPECT_NE(error.find("Bad file format reading the append only file"), std::string::npos) << error;
  EXPECT_NE(error.find("appendonly.aof.1.incr.aof"), std::string::npos) << error;
}

// A lease renewed twice: in the file, the first renewal's deadline has passed by the time the
// server starts, the second's has not. Loading keeps the lock with its latest deadline (a past
// deadline met while loading is kept, not acted on), on both servers.
TEST_P(AofTest, ARenewalWhoseDeadlinePassedDoesNotDeleteALaterOne) {
  TempDir dir;
  const std::string base = dir.path() + "/appendonlydir/";
  fs::create_directories(base);
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto command = [](const std::vector<std::string>& argv) { return EncodeCommand(argv); };
  std::ofstream(base + "appendonly.aof.manifest")
      << "file appendonly.aof.1.base.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type "
         "i\n";
  std::ofstream(base + "appendonly.aof.1.base.aof");
  std::ofstream(base + "appendonly.aof.1.incr.aof", std::ios::binary)
      << command({"SELECT", "0"})
      << command({"SET", "lock", "tok", "PXAT", std::to_string(now_ms - 2000)})
      << command({"PEXPIREAT", "lock", std::to_string(now_ms - 1000)})
      << command({"PEXPIREAT", "lock", std::to_string(now_ms + 600000)});
  auto server = StartWith(GetParam(), dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Send(*c, {"GET", "lock"}), "$3\r\ntok\r\n");
  EXPECT_EQ(Send(*c, {"PEXPIRETIME", "lock"}), ":" + std::to_string(now_ms + 600000) + "\r\n");
}

INSTANTIATE_TEST_SUITE_P(Servers, AofTest, AllServers(), ServerKindName);

// What warden writes: Redis's layout and manifest, deadlines as absolute PXAT and PEXPIREAT,
// a script's calls and no EVAL, a transaction wrapped in MULTI/EXEC.
TEST(WardenAofTest, TheFilesAreRedisSevenLayoutWithEffects) {
  TempDir dir;
  auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendfsync", "always"});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  ASSERT_EQ(Send(*c, {"SET", "lock", "t", "NX", "PX", "30000"}), "+OK\r\n");
  ASSERT_EQ(Send(*c, {"EVAL", "return redis.call('pexpire', KEYS[1], 60000)", "1", "lock"}),
            ":1\r\n");
  ASSERT_EQ(Send(*c, {"MULTI"}), "+OK\r\n");
  ASSERT_EQ(Send(*c, {"SET", "a", "1"}), "+QUEUED\r\n");
  ASSERT_EQ(Send(*c, {"SET", "b", "2"}), "+QUEUED\r\n");
  ASSERT_EQ(Send(*c, {"EXEC"}), "*2\r\n+OK\r\n+OK\r\n");
  ASSERT_EQ(Send(*c, {"GET", "a"}), "$1\r\n1\r\n");
  const std::string base = dir.path() + "/appendonlydir/";
  EXPECT_EQ(ReadFile(base + "appendonly.aof.manifest"),
            "file appendonly.aof.1.base.aof seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n");
  EXPECT_EQ(ReadFile(base + "appendonly.aof.1.base.aof"), "");
  const std::string incr = ReadFile(base + "appendonly.aof.1.incr.aof");
  EXPECT_EQ(
      incr.rfind("*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*5\r\n$3\r\nSET\r\n$4\r\nlock\r\n$1\r\nt\r\n"
                 "$4\r\nPXAT\r\n$13\r\n",
                 0),
      0u)
      << incr;
  EXPECT_NE(incr.find("*3\r\n$9\r\nPEXPIREAT\r\n$4\r\nlock\r\n$13\r\n"), std::string::npos);
  EXPECT_EQ(incr.find("EVAL"), std::string::npos);
  EXPECT_EQ(incr.find("GET"), std::string::npos);
  EXPECT_NE(
      incr.find("*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET"
                "\r\n$1\r\nb\r\n$1\r\n2\r\n*1\r\n$4\r\nEXEC\r\n"),
      std::string::npos)
      << incr;
}

// BGREWRITEAOF writes the data set into a new base file by a forked child while writes go on
// into a new increment file; the manifest then names those two alone and the old files go. A
// restart, and redis-server, load the result.
TEST(WardenAofTest, BgrewriteaofCompactsTheFiles) {
  TempDir dir;
  std::string before;
  const std::string base = dir.path() + "/appendonlydir/";
  {
    auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendfsync", "everysec"});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEverything(*c);
    for (int i = 0; i < 300; ++i) {
      ASSERT_EQ(Send(*c, {"SET", "overwritten", std::to_string(i)}), "+OK\r\n");
      ASSERT_EQ(Send(*c, {"HSET", "wide", "f" + std::to_string(i), std::to_string(i)}), ":1\r\n");
      ASSERT_EQ(Send(*c, {"ZADD", "scores", std::to_string(i) + ".25", "m" + std::to_string(i)}),
                ":1\r\n");
    }
    const auto grown = fs::file_size(base + "appendonly.aof.1.incr.aof");
    ASSERT_EQ(Send(*c, {"BGREWRITEAOF"}), "+Background append only file rewriting started\r\n");
    ASSERT_EQ(Send(*c, {"SET", "during", "rewrite"}), "+OK\r\n");
    ASSERT_TRUE(WaitForRewrites(*c, 1));
    ASSERT_EQ(Send(*c, {"SET", "after", "rewrite"}), "+OK\r\n");
    EXPECT_EQ(ReadFile(base + "appendonly.aof.manifest"),
              "file appendonly.aof.2.base.aof seq 2 type b\n"
              "file appendonly.aof.2.incr.aof seq 2 type i\n");
    EXPECT_FALSE(fs::exists(base + "appendonly.aof.1.incr.aof"));
    EXPECT_FALSE(fs::exists(base + "appendonly.aof.1.base.aof"));
    EXPECT_LT(fs::file_size(base + "appendonly.aof.2.base.aof"), grown);
    before = DataSet(*c);
    EXPECT_EQ(Send(*c, {"DEBUG", "LOADAOF"}), "+OK\r\n");
    EXPECT_EQ(DataSet(*c), before);
    EXPECT_EQ(server->Stop(), 0);
  }
  const ProgramResult check =
      RunProgram({"redis-check-aof", base + "appendonly.aof.manifest"}, "", 20000);
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  for (ServerKind kind : {ServerKind::kWarden, ServerKind::kRedis}) {
    auto server = StartWith(kind, dir.path(), {});
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    EXPECT_EQ(DataSet(*c), before) << (kind == ServerKind::kWarden ? "warden" : "redis-server");
    EXPECT_EQ(server->Stop(), 0);
  }
}

// With the file off, DEBUG LOADAOF loads what the directory's manifest names, as Redis's does
// (Redis's tests/unit/other.tcl: a BGREWRITEAOF, then DEBUG LOADAOF, the same DEBUG DIGEST).
TEST(WardenAofTest, LoadaofWithTheFileOffLoadsTheDirectory) {
  for (ServerKind kind : {ServerKind::kWarden, ServerKind::kRedis}) {
    const char* name = kind == ServerKind::kWarden ? "warden" : "redis-server";
    TempDir dir;
    auto server = StartWith(kind, dir.path(), {"--appendonly", "no"});
    ASSERT_TRUE(server) << name;
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEverything(*c);
    ASSERT_EQ(Send(*c, {"BGREWRITEAOF"}), "+Background append only file rewriting started\r\n");
    ASSERT_TRUE(WaitForRewrites(*c, 1)) << name;
    const std::string digest = Send(*c, {"DEBUG", "DIGEST"});
    ASSERT_EQ(Send(*c, {"SET", "not-in-the-file", "x"}), "+OK\r\n");

    EXPECT_EQ(Send(*c, {"DEBUG", "LOADAOF"}), "+OK\r\n") << name;

    EXPECT_EQ(Send(*c, {"DEBUG", "DIGEST"}), digest) << name;
    EXPECT_EQ(Send(*c, {"EXISTS", "not-in-the-file"}), ":0\r\n") << name;
    EXPECT_EQ(server->Stop(), 0);
  }
  // With nothing to load Redis exits; warden refuses and keeps its data.
  TempDir dir;
  auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendonly", "no"});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  ASSERT_EQ(Send(*c, {"SET", "k", "v"}), "+OK\r\n");
  EXPECT_EQ(Send(*c, {"DEBUG", "LOADAOF"}),
            "-ERR DEBUG LOADAOF found no append-only file to load\r\n");
  EXPECT_EQ(Send(*c, {"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(server->Stop(), 0);
}

// Past auto-aof-rewrite-min-size, a file grown by auto-aof-rewrite-percentage since the last
// rewrite is rewritten by the cron without being asked.
TEST(WardenAofTest, TheFileIsRewrittenWhenItHasGrown) {
  TempDir dir;
  auto server =
      StartWith(ServerKind::kWarden, dir.path(),
                {"--auto-aof-rewrite-min-size", "64kb", "--auto-aof-rewrite-percentage", "100"});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  // About 78 KB of commands: past the minimum once, and never twice however the cron's ticks
  // fall among the writes (after a rewrite the base is tiny and the minimum rules again), so
  // the count of rewrites to wait for is exactly one.
  constexpr int kWrites = 600;
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_EQ(Send(*c, {"SET", "same", std::string(100, 'a' + i % 26)}), "+OK\r\n");
  }
  ASSERT_TRUE(WaitForRewrites(*c, 1));
  EXPECT_LT(fs::file_size(dir.path() + "/appendonlydir/appendonly.aof.2.base.aof"), 1000u);
  EXPECT_EQ(Send(*c, {"GET", "same"}),
            "$100\r\n" + std::string(100, 'a' + (kWrites - 1) % 26) + "\r\n");
}

// CONFIG SET appendonly yes on a running server: the data set so far is rewritten into a base
// file while new writes go to an increment file, and a restart finds both.
TEST(WardenAofTest, TurningTheFileOnAtRunTimeKeepsTheDataSet) {
  TempDir dir;
  std::string before;
  {
    std::string error;
    auto server = ServerProcess::Start(Binary(ServerKind::kWarden), error,
                                       {"--dir", dir.path(), "--databases", "16"});
    ASSERT_TRUE(server) << error;
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEverything(*c);
    EXPECT_EQ(Send(*c, {"CONFIG", "SET", "appendonly", "yes"}), "+OK\r\n");
    ASSERT_EQ(Send(*c, {"SET", "after-on", "1"}), "+OK\r\n");
    ASSERT_TRUE(WaitForRewrites(*c, 1));
    EXPECT_EQ(Send(*c, {"CONFIG", "GET", "appendonly"}),
              "*2\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n");
    before = DataSet(*c);
    EXPECT_EQ(server->Stop(), 0);
  }
  auto server = StartWith(ServerKind::kWarden, dir.path(), {});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(DataSet(*c), before);
  EXPECT_EQ(Send(*c, {"GET", "after-on"}), "$1\r\n1\r\n");
}

// appendfsync always: every acknowledged write survives a kill -9.
TEST(WardenAofTest, AcknowledgedWritesSurviveKillNine) {
  TempDir dir;
  auto server = StartWith(ServerKind::kWarden, dir.path(), {"--appendfsync", "always"});
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(Send(*c, {"SET", "lock:" + std::to_string(i), "t", "NX", "PX", "600000"}), "+OK\r\n");
  }
  ASSERT_EQ(kill(server->pid(), SIGKILL), 0);
  server->Stop();
  auto again = StartWith(ServerKind::kWarden, dir.path(), {});
  ASSERT_TRUE(again);
  std::optional<RespClient> d = RespClient::Connect(again->port());
  ASSERT_TRUE(d);
  EXPECT_EQ(Send(*d, {"DBSIZE"}), ":200\r\n");
  const std::string pttl = Send(*d, {"PTTL", "lock:199"});
  ASSERT_EQ(pttl.front(), ':');
  EXPECT_GT(std::stoll(pttl.substr(1)), 500000);
}

}  // namespace
}  // namespace warden::testing
