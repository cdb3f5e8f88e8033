// RDB snapshots between warden and redis-server 7.0, on real server processes: each loads the
// dump.rdb the other wrote (every type in each encoding, deadlines, databases 0-2, function
// libraries), redis-check-rdb accepts warden's, each loads the other's append-only directory
// whose base is an RDB file, and DUMP payloads move both ways, byte for byte the same where the
// encoding fixes the order.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "child_process.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"
#include "snapshot_support.h"

namespace warden::testing {
namespace {

namespace fs = std::filesystem;
using aof::Parsed;
using aof::ReadFile;
using aof::Send;
using aof::TempDir;
using snapshot::Everything;
using snapshot::Info;
using snapshot::WriteEveryEncoding;

ServerKind Other(ServerKind kind) {
  return kind == ServerKind::kWarden ? ServerKind::kRedis : ServerKind::kWarden;
}

const char* Name(ServerKind kind) { return kind == ServerKind::kWarden ? "warden" : "redis"; }

ProgramResult RedisCheckRdb(const std::string& path) {
  return RunProgram({"redis-check-rdb", path}, "", 20000);
}

class SnapshotInteropTest : public ::testing::TestWithParam<ServerKind> {};

// SAVE writes dump.rdb; redis-check-rdb accepts it and the other server, started on it, holds the
// same data set with the same encodings, stream group counters and libraries. With
// rdbcompression no, strings are written as they are.
TEST_P(SnapshotInteropTest, TheOtherServerLoadsTheDumpFile) {
  const ServerKind writer = GetParam();
  for (const std::string compression : {"yes", "no"}) {
    SCOPED_TRACE("rdbcompression " + compression);
    TempDir dir;
    std::string written;
    std::size_t keys = 0;
    {
      std::vector<std::string> args = {"--rdbcompression", compression};
      // Redis can keep inner list nodes compressed (warden has no list-compress-depth), and
      // writes them as they are.
      if (writer == ServerKind::kRedis) args.insert(args.end(), {"--list-compress-depth", "1"});
      auto server = snapshot::Start(writer, dir.path(), "", args);
      ASSERT_TRUE(server);
      std::optional<RespClient> c = RespClient::Connect(server->port());
      ASSERT_TRUE(c);
      WriteEveryEncoding(*c);
      ASSERT_EQ(Send(*c, {"SAVE"}), "+OK\r\n");
      EXPECT_EQ(Info(*c, "rdb_changes_since_last_save"), "0");
      written = Everything(*c);
      keys = snapshot::Keys(*c).size();
      EXPECT_EQ(server->Stop(), 0);
    }
    const std::string file = ReadFile(snapshot::DumpPath(dir.path()));
    EXPECT_EQ(file.substr(0, 9), "REDIS0010");
    EXPECT_EQ(file.find("lock-token:0lock-token:1") != std::string::npos, compression == "no");
    const ProgramResult check = RedisCheckRdb(snapshot::DumpPath(dir.path()));
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("RDB looks OK"), std::string::npos) << check.out;
    for (const ServerKind reader : {Other(writer), writer}) {
      SCOPED_TRACE(std::string("read by ") + Name(reader));
      std::string error;
      auto server = snapshot::Start(reader, dir.path(), "", {}, &error);
      ASSERT_TRUE(server) << error;
      std::optional<RespClient> c = RespClient::Connect(server->port());
      ASSERT_TRUE(c);
      EXPECT_EQ(Everything(*c), written);
      EXPECT_EQ(Info(*c, "rdb_last_load_keys_loaded"), std::to_string(keys));
      EXPECT_EQ(Info(*c, "rdb_last_load_keys_expired"), "0");
    }
    // Database 2 is in the file: two databases are not enough.
    std::string error;
    EXPECT_FALSE(snapshot::Start(Other(writer), dir.path(), "", {"--databases", "2"}, &error));
    EXPECT_NE(error.find("FATAL: Data file was created with a Redis server configured to handle "
                         "more than 2 databases. Exiting"),
              std::string::npos)
        << error;
  }
}

// With aof-use-rdb-preamble yes, BGREWRITEAOF writes the base as an RDB file; the other server,
// started on a copy of the directory, loads the base and the increment after it.
TEST_P(SnapshotInteropTest, TheOtherServerLoadsAnAofWithAnRdbBase) {
  const ServerKind writer = GetParam();
  TempDir dir;
  const std::vector<std::string> preamble = {"--aof-use-rdb-preamble", "yes"};
  std::string written;
  {
    auto server = aof::StartWith(writer, dir.path(), preamble);
    ASSERT_TRUE(server);
    std::optional<RespClient> c = RespClient::Connect(server->port());
    ASSERT_TRUE(c);
    WriteEveryEncoding(*c);
    const int rewrites = std::stoi(Info(*c, "aof_rewrites"));
    ASSERT_EQ(Send(*c, {"BGREWRITEAOF"}), "+Background append only file rewriting started\r\n");
    ASSERT_TRUE(aof::WaitForRewrites(*c, rewrites + 1));
    ASSERT_EQ(Send(*c, {"SET", "after-rewrite", "in the increment"}), "+OK\r\n");
    ASSERT_EQ(Send(*c, {"HSET", "hash:small", "added", "later"}), ":1\r\n");
    written = Everything(*c);
    EXPECT_EQ(server->Stop(), 0);
  }
  const std::string base = dir.path() + "/appendonlydir/";
  EXPECT_EQ(ReadFile(base + "appendonly.aof.manifest"),
            "file appendonly.aof.2.base.rdb seq 2 type b\n"
            "file appendonly.aof.2.incr.aof seq 2 type i\n");
  EXPECT_EQ(ReadFile(base + "appendonly.aof.2.base.rdb").substr(0, 9), "REDIS0010");
  const ProgramResult check_rdb = RedisCheckRdb(base + "appendonly.aof.2.base.rdb");
  EXPECT_NE(check_rdb.out.find("RDB looks OK"), std::string::npos) << check_rdb.out;
  const ProgramResult check_aof =
      RunProgram({"redis-check-aof", base + "appendonly.aof.manifest"}, "", 20000);
  EXPECT_EQ(check_aof.exit_code, 0) << check_aof.out << check_aof.err;
  TempDir copy;
  fs::copy(dir.path(), copy.path(), fs::copy_options::recursive);
  auto server = aof::StartWith(Other(writer), copy.path(), preamble);
  ASSERT_TRUE(server);
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  EXPECT_EQ(Everything(*c), written);
}

INSTANTIATE_TEST_SUITE_P(Servers, SnapshotInteropTest, AllServers(), ServerKindName);

struct Running {
  TempDir dir;
  std::unique_ptr<ServerProcess> server;
  std::optional<RespClient> client;
};

// Starts `kind` on r's empty directory and connects; false (and a failure) if it cannot.
bool StartEmpty(ServerKind kind, Running& r) {
  std::string error;
  r.server = snapshot::Start(kind, r.dir.path(), "", {}, &error);
  if (!r.server) {
    ADD_FAILURE() << error;
    return false;
  }
  r.client = RespClient::Connect(r.server->port());
  if (!r.client) ADD_FAILURE() << "cannot connect to port " << r.server->port();
  return r.client.has_value();
}

// Every key of `from` into `to` by DUMP and RESTORE (with its deadline, ABSTTL), and the
// libraries by their code.
void CopyByDump(RespClient& from, RespClient& to) {
  for (const snapshot::Key& key : snapshot::Keys(from)) {
    const std::string db = std::to_string(key.db);
    ASSERT_EQ(Send(from, {"SELECT", db}), "+OK\r\n");
    ASSERT_EQ(Send(to, {"SELECT", db}), "+OK\r\n");
    const Reply payload = Parsed(from, {"DUMP", key.name});
    ASSERT_EQ(payload.type, '$') << key.name;
    const std::string deadline = Parsed(from, {"PEXPIRETIME", key.name}).text;
    std::vector<std::string> restore = {"RESTORE", key.name, "0", payload.text};
    if (deadline != "-1") restore = {"RESTORE", key.name, deadline, payload.text, "ABSTTL"};
    EXPECT_EQ(Send(to, restore), "+OK\r\n") << key.name;
  }
  Send(from, {"SELECT", "0"});
  Send(to, {"SELECT", "0"});
  for (const Reply& library : Parsed(from, {"FUNCTION", "LIST", "WITHCODE"}).elements) {
    for (std::size_t i = 0; i + 1 < library.elements.size(); i += 2) {
      if (library.elements[i].text != "library_code") continue;
      EXPECT_EQ(Send(to, {"FUNCTION", "LOAD", library.elements[i + 1].text}).front(), '$');
    }
  }
}

// The data set written alike on both servers: DUMP gives the same bytes on both wherever the
// encoding fixes the order (strings, intsets, listpacks, quicklists, skiplists, streams without
// groups: not hash tables, whose order is their seed's, nor groups, which hold delivery times).
// Every payload of each restores on the other, and the copy holds the same data set.
TEST(SnapshotDumpTest, PayloadsMoveBetweenServersAndMatchByteForByte) {
  Running warden, redis;
  ASSERT_TRUE(StartEmpty(ServerKind::kWarden, warden));
  ASSERT_TRUE(StartEmpty(ServerKind::kRedis, redis));
  WriteEveryEncoding(*warden.client);
  WriteEveryEncoding(*redis.client);
  const std::vector<snapshot::Key> keys = snapshot::Keys(*warden.client);
  ASSERT_EQ(keys.size(), snapshot::Keys(*redis.client).size());
  int compared = 0;
  for (const snapshot::Key& key : keys) {
    const std::string db = std::to_string(key.db);
    Send(*warden.client, {"SELECT", db});
    Send(*redis.client, {"SELECT", db});
    const std::string encoding = Parsed(*redis.client, {"OBJECT", "ENCODING", key.name}).text;
    if (encoding == "hashtable" ||
        (encoding == "stream" && Send(*redis.client, {"XINFO", "GROUPS", key.name}) != "*0\r\n")) {
      continue;
    }
    ++compared;
    EXPECT_EQ(EscapeBytes(Send(*warden.client, {"DUMP", key.name}), 100000),
              EscapeBytes(Send(*redis.client, {"DUMP", key.name}), 100000))
        << key.name << " (" << encoding << ")";
  }
  // All but four hash tables and the stream with groups.
  EXPECT_EQ(compared, static_cast<int>(keys.size()) - 5);
  Send(*warden.client, {"SELECT", "0"});
  Send(*redis.client, {"SELECT", "0"});

  // A payload whose checksum or RDB version is wrong is refused alike, as is an existing key.
  std::string payload = Parsed(*warden.client, {"DUMP", "list:small"}).text;
  std::string bad_crc = payload;
  bad_crc.back() ^= 1;
  std::string bad_version = payload;
  bad_version[payload.size() - 10] = 11;
  for (RespClient* c : {&*warden.client, &*redis.client}) {
    EXPECT_EQ(Send(*c, {"RESTORE", "new", "0", bad_crc}),
              "-ERR DUMP payload version or checksum are wrong\r\n");
    EXPECT_EQ(Send(*c, {"RESTORE", "new", "0", bad_version}),
              "-ERR DUMP payload version or checksum are wrong\r\n");
    EXPECT_EQ(Send(*c, {"RESTORE", "list:small", "0", payload}),
              "-BUSYKEY Target key name already exists.\r\n");
  }

  Running warden_copy, redis_copy;
  ASSERT_TRUE(StartEmpty(ServerKind::kWarden, warden_copy));
  ASSERT_TRUE(StartEmpty(ServerKind::kRedis, redis_copy));
  CopyByDump(*warden.client, *redis_copy.client);
  CopyByDump(*redis.client, *warden_copy.client);
  EXPECT_EQ(Everything(*redis_copy.client), Everything(*warden.client));
  EXPECT_EQ(Everything(*warden_copy.client), Everything(*redis.client));
}

// MIGRATE moves keys to the other server by RESTORE and deletes them here once the target took
// them: one key, several with KEYS, their deadlines with them; the target's error comes back as
// Redis words it; COPY keeps the key, REPLACE overwrites. The same replies each way.
TEST(SnapshotMigrateTest, KeysMoveBetweenServersBothWays) {
  Running warden, redis;
  ASSERT_TRUE(StartEmpty(ServerKind::kWarden, warden));
  ASSERT_TRUE(StartEmpty(ServerKind::kRedis, redis));
  for (const bool from_warden : {true, false}) {
    SCOPED_TRACE(from_warden ? "warden to redis-server" : "redis-server to warden");
    RespClient& from = from_warden ? *warden.client : *redis.client;
    RespClient& to = from_warden ? *redis.client : *warden.client;
    const std::string port = std::to_string((from_warden ? redis : warden).server->port());
    ASSERT_EQ(Send(from, {"SET", "a", "1"}), "+OK\r\n");
    ASSERT_EQ(Send(from, {"RPUSH", "l", "x", "y"}), ":2\r\n");
    ASSERT_EQ(Send(from, {"HSET", "h", "f", "v"}), ":1\r\n");
    ASSERT_EQ(Send(from, {"SET", "t", "v", "PX", "100000"}), "+OK\r\n");

    EXPECT_EQ(Send(from, {"MIGRATE", "127.0.0.1", port, "a", "0", "5000"}), "+OK\r\n");
    EXPECT_EQ(Send(from, {"EXISTS", "a"}), ":0\r\n");
    EXPECT_EQ(Send(to, {"GET", "a"}), "$1\r\n1\r\n");
    EXPECT_EQ(Send(from, {"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS", "l", "h", "t",
                          "missing"}),
              "+OK\r\n");
    EXPECT_EQ(Send(from, {"EXISTS", "l", "h", "t"}), ":0\r\n");
    EXPECT_EQ(Send(to, {"LRANGE", "l", "0", "-1"}), "*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
    EXPECT_EQ(Send(to, {"HGET", "h", "f"}), "$1\r\nv\r\n");
    const std::int64_t ttl = std::stoll(Parsed(to, {"PTTL", "t"}).text);
    EXPECT_GT(ttl, 90000);
    EXPECT_LE(ttl, 100000);

    ASSERT_EQ(Send(from, {"SET", "a", "2"}), "+OK\r\n");
    EXPECT_EQ(Send(from, {"MIGRATE", "127.0.0.1", port, "a", "0", "5000"}),
              "-ERR Target instance replied with error: BUSYKEY Target key name already "
              "exists.\r\n");
    EXPECT_EQ(Send(from, {"MIGRATE", "127.0.0.1", port, "a", "0", "5000", "COPY", "REPLACE"}),
              "+OK\r\n");
    EXPECT_EQ(Send(from, {"GET", "a"}), "$1\r\n2\r\n");
    EXPECT_EQ(Send(to, {"GET", "a"}), "$1\r\n2\r\n");
    EXPECT_EQ(Send(from, {"MIGRATE", "127.0.0.1", port, "missing", "0", "5000"}), "+NOKEY\r\n");
    ASSERT_EQ(Send(from, {"FLUSHALL"}), "+OK\r\n");
    ASSERT_EQ(Send(to, {"FLUSHALL"}), "+OK\r\n");
  }
}

}  // namespace
}  // namespace warden::testing
