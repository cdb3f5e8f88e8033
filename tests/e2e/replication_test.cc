// Replication on real server processes, warden and redis-server 7.0 in every pairing but
// redis-server with itself: a replica started on a master holding every type in each encoding
// ends up with the same data set (encodings, stream group counters and libraries included), by
// diskless and by disk-based sync; the stream after it keeps them equal (scripts, transactions,
// relative deadlines, expiry) and WAIT counts the replica; a link killed on either side
// continues partially from the backlog. Under the sanitizer build this is where the replication
// code meets real sockets, forks and pipes.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aof_support.h"
#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"
#include "snapshot_support.h"

namespace warden::testing {
namespace {

using aof::Parsed;
using aof::Send;
using aof::TempDir;
using snapshot::Everything;
using snapshot::WriteEveryEncoding;

constexpr int kWaitMs = 20000;

struct Pairing {
  ServerKind master;
  ServerKind replica;
};

std::string PairingName(const ::testing::TestParamInfo<Pairing>& info) {
  const auto name = [](ServerKind k) { return k == ServerKind::kWarden ? "warden" : "redis"; };
  return std::string(name(info.param.master)) + "_to_" + name(info.param.replica);
}

// `field` of INFO `section`, "" if absent.
std::string InfoField(RespClient& c, const std::string& section, const std::string& field) {
  const std::string info = "\r\n" + Parsed(c, {"INFO", section}).text;
  const std::size_t at = info.find("\r\n" + field + ":");
  if (at == std::string::npos) return "";
  const std::size_t start = at + field.size() + 3;
  return info.substr(start, info.find("\r\n", start) - start);
}

// Polls (bounded) until the replica's link is up and no sync runs, and its offset is the
// master's: it has applied everything sent so far.
bool WaitCaughtUp(RespClient& master, RespClient& replica) {
  for (const Deadline deadline(kWaitMs); !deadline.Expired();) {
    if (InfoField(replica, "replication", "master_link_status") != "up") continue;
    if (InfoField(replica, "replication", "master_sync_in_progress") != "0") continue;
    const std::string want = InfoField(master, "replication", "master_repl_offset");
    if (InfoField(replica, "replication", "slave_repl_offset") == want) return true;
  }
  return false;
}

class ReplicationTest : public ::testing::TestWithParam<Pairing> {
 protected:
  // The master on its own directory, `args` after the shared ones.
  void StartMaster(const std::vector<std::string>& args) {
    std::string error;
    master_ = snapshot::Start(GetParam().master, master_dir_.path(), "", args, &error);
    ASSERT_TRUE(master_) << error;
    m_ = RespClient::Connect(master_->port());
    ASSERT_TRUE(m_);
  }
  void StartReplica() {
    std::string error;
    replica_ =
        snapshot::Start(GetParam().replica, replica_dir_.path(), "",
                        {"--replicaof", "127.0.0.1", std::to_string(master_->port())}, &error);
    ASSERT_TRUE(replica_) << error;
    r_ = RespClient::Connect(replica_->port());
    ASSERT_TRUE(r_);
    ASSERT_TRUE(WaitCaughtUp(*m_, *r_)) << replica_->LogTail();
  }

  TempDir master_dir_;
  TempDir replica_dir_;
  std::unique_ptr<ServerProcess> master_;
  std::unique_ptr<ServerProcess> replica_;
  std::optional<RespClient> m_;
  std::optional<RespClient> r_;
};

// Writes after the sync: a script's effects, a transaction, relative deadlines (sent as
// absolute ones), a key that expires on the master, other databases.
void WriteStream(RespClient& c) {
  EXPECT_EQ(Send(c, {"SET", "after:plain", "v"}), "+OK\r\n");
  EXPECT_EQ(Send(c, {"SET", "after:lease", "token", "PX", "600000"}), "+OK\r\n");
  EXPECT_EQ(Send(c, {"EXPIRE", "after:plain", "900"}), ":1\r\n");
  EXPECT_EQ(Send(c, {"EVAL", "redis.call('incr', KEYS[1]); return redis.call('incr', KEYS[1])", "1",
                     "after:counter"}),
            ":2\r\n");
  EXPECT_EQ(Send(c, {"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Send(c, {"RPUSH", "after:list", "a", "b", "c"}), "+QUEUED\r\n");
  EXPECT_EQ(Send(c, {"LPOP", "after:list"}), "+QUEUED\r\n");
  EXPECT_EQ(Send(c, {"EXEC"}), "*2\r\n:3\r\n$1\r\na\r\n");
  EXPECT_EQ(Send(c, {"SELECT", "5"}), "+OK\r\n");
  EXPECT_EQ(Send(c, {"HSET", "after:hash", "f", "v"}), ":1\r\n");
  EXPECT_EQ(Send(c, {"SELECT", "0"}), "+OK\r\n");
  // Gone on the master by the time the replica is compared: its DEL reaches the replica.
  EXPECT_EQ(Send(c, {"SET", "after:short", "v", "PX", "1"}), "+OK\r\n");
  for (const Deadline deadline(kWaitMs); !deadline.Expired();) {
    if (Send(c, {"EXISTS", "after:short"}) == ":0\r\n") break;
  }
}

TEST_P(ReplicationTest, FullSyncThenTheStreamKeepTheDataSetsEqual) {
  for (const std::string diskless : {"yes", "no"}) {
    SCOPED_TRACE("repl-diskless-sync " + diskless);
    StartMaster({"--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0"});
    WriteEveryEncoding(*m_);
    StartReplica();
    EXPECT_EQ(Everything(*r_), Everything(*m_));
    EXPECT_EQ(InfoField(*r_, "replication", "role"), "slave");
    EXPECT_EQ(Send(*r_, {"SET", "k", "v"}),
              "-READONLY You can't write against a read only replica.\r\n");
    WriteStream(*m_);
    EXPECT_EQ(Send(*m_, {"WAIT", "1", "10000"}), ":1\r\n");
    ASSERT_TRUE(WaitCaughtUp(*m_, *r_));
    EXPECT_EQ(Everything(*r_), Everything(*m_));
    EXPECT_EQ(InfoField(*m_, "replication", "connected_slaves"), "1");
    EXPECT_EQ(InfoField(*m_, "stats", "sync_full"), "1");
    EXPECT_EQ(replica_->Stop(), 0);
    EXPECT_EQ(master_->Stop(), 0);
  }
}

TEST_P(ReplicationTest, AKilledLinkContinuesFromTheBacklog) {
  StartMaster({"--repl-diskless-sync-delay", "0"});
  EXPECT_EQ(Send(*m_, {"SET", "before", "1"}), "+OK\r\n");
  StartReplica();
  // From the master's side, then from the replica's.
  for (const auto& [killer, type] : std::vector<std::pair<std::string, std::string>>{
           {"master", "replica"}, {"replica", "master"}}) {
    SCOPED_TRACE("killed by the " + killer);
    RespClient& c = killer == "master" ? *m_ : *r_;
    EXPECT_EQ(Send(c, {"CLIENT", "KILL", "TYPE", type}), ":1\r\n");
    EXPECT_EQ(Send(*m_, {"INCR", "during"}).substr(0, 1), ":");
    ASSERT_TRUE(WaitCaughtUp(*m_, *r_)) << replica_->LogTail();
    EXPECT_EQ(Send(*r_, {"GET", "during"}), Send(*m_, {"GET", "during"}));
  }
  EXPECT_EQ(InfoField(*m_, "stats", "sync_full"), "1");
  EXPECT_EQ(InfoField(*m_, "stats", "sync_partial_ok"), "2");
  EXPECT_EQ(Everything(*r_), Everything(*m_));
}

INSTANTIATE_TEST_SUITE_P(Pairings, ReplicationTest,
                         ::testing::Values(Pairing{ServerKind::kWarden, ServerKind::kWarden},
                                           Pairing{ServerKind::kWarden, ServerKind::kRedis},
                                           Pairing{ServerKind::kRedis, ServerKind::kWarden}),
                         PairingName);

}  // namespace
}  // namespace warden::testing
