// Replication as Redis 7.0 speaks it (replication.c), both roles.
//
// Master: a client that sends PSYNC (or SYNC) becomes a replica. If it asks for a stream this
// server still holds in its backlog it gets +CONTINUE and the missing bytes; otherwise a forked
// child writes the data set as an RDB, to a pipe read by the loop and sent on as `$EOF:<mark>`
// (repl-diskless-sync, replicas with capa eof) or to a file sent as `$<size>` afterwards, and
// everything fed meanwhile waits in the replica's buffer behind the payload. The stream is what
// the append-only file is fed (propagation.h): one path, with this target's own SELECT tracking,
// and bytes counted as Redis counts them (master_repl_offset).
//
// Replica: REPLICAOF starts a link (replica_link.h) that runs Redis's handshake, loads the
// payload and then applies the master's stream as a client whose replies go nowhere, counting
// its bytes; those bytes go verbatim to this server's own backlog and replicas (chained).
//
// The libuv side (the pipe, the outgoing link) is reached through the loop given by Attach();
// without one (command tests) there is no replication, only its state.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/replication/backlog.h"

struct uv_loop_s;
struct uv_timer_s;

namespace warden::protocol {
class ReplyWriter;
}

namespace warden::server {

class ServerState;
class BlockedClientHost;
class ConnectionRegistry;
class ReplicaLink;
struct Session;
class SyncJob;

// What the master knows of one replica (Redis keeps it on the client). Created by the first
// REPLCONF or SYNC/PSYNC of a client and owned by Replication.
struct ReplicaPeer {
  enum class Phase {
    kHandshake,  // REPLCONF only so far
    kWaitStart,  // full sync asked for, waiting for a child to start
    kWaitEnd,    // the child writes the snapshot; the stream collects in `pending`
    kSendBulk,   // the payload is going out
    kOnline,
  };
  Session* session = nullptr;
  Phase phase = Phase::kHandshake;
  int listening_port = 0;
  std::string announced_ip;
  bool capa_eof = false;
  bool capa_psync2 = false;
  // redis-cli --rdb: closed once the payload is sent; `functions_only` (rdb-filter-only
  // functions) and `filter_all` (rdb-filter-only "") shape the payload.
  bool rdb_only = false;
  bool filter_set = false;
  bool functions_only = false;
  bool psync = false;  // SYNC clients get no +FULLRESYNC and send no ACKs
  // An EOF-marked payload was sent: the stream starts at the first ACK (Redis's
  // repl_start_cmd_stream_on_ack).
  bool stream_on_ack = false;
  bool acked_payload = false;  // that ACK came before the job was seen to finish
  std::int64_t ack_offset = 0;
  // Warden's clock, as Redis's unixtime: a test that moves it passes repl-timeout.
  std::int64_t ack_time_ms = 0;
  std::int64_t wait_since_ms = 0;    // monotonic, for repl-diskless-sync-delay
  std::int64_t last_newline_ms = 0;  // monotonic: the keepalive while waiting
  std::int64_t sync_offset = 0;      // master_repl_offset the snapshot was taken at
  std::string pending;
  bool closing = false;
};

// The address a replica is listed and found under (INFO, ROLE, FAILOVER TO): what it
// announced (REPLCONF ip-address), or its peer address.
std::string PeerIp(const ReplicaPeer& peer);

// A client blocked in WAIT.
struct WaitingClient {
  Session* session;
  std::int64_t offset;
  std::int64_t replicas;
  std::int64_t deadline_ms;  // monotonic; 0: none
};

class Replication {
 public:
  explicit Replication(ServerState& server);
  ~Replication();
  Replication(const Replication&) = delete;
  Replication& operator=(const Replication&) = delete;

  // The loop and the connection list, from the Server at start; starts the link if the
  // configuration names a master.
  void Attach(uv_loop_s* loop, ConnectionRegistry* connections);
  // Shutdown: the link closed, a sync child killed.
  void Detach();

  // ---- The stream (master side).
  // Whether changes are fed to replicas: a backlog exists and this server is not a replica.
  bool feeding() const { return backlog_.active() && !is_replica(); }
  // The bytes the backlog holds (INFO's mem_replication_backlog).
  std::size_t backlog_bytes() const { return backlog_.histlen(); }
  // A command already encoded as RESP, run in database `db`.
  void Feed(int db, std::string_view encoded);
  // A command not recorded by propagation (PUBLISH): encoded, then fed.
  void FeedCommand(int db, std::span<const std::string_view> argv);
  // Bytes as they are, no SELECT (the master's own pings and GETACKs, a replica's relay).
  void FeedRaw(std::string_view bytes);

  // ---- Commands.
  void ReplconfCommand(Session& session, std::span<const std::string_view> args,
                       protocol::ReplyWriter& reply);
  void SyncCommand(Session& session, std::span<const std::string_view> args,
                   protocol::ReplyWriter& reply);
  void ReplicaofCommand(Session& session, std::span<const std::string_view> args,
                        protocol::ReplyWriter& reply);
  void RoleCommand(protocol::ReplyWriter& reply) const;
  void FailoverCommand(std::span<const std::string_view> args, protocol::ReplyWriter& reply);
  // The old master's PSYNC ... FAILOVER was answered: done, or refused (handled by the cron,
  // outside the link).
  void FailoverAnswered(bool accepted);
  void WaitCommand(Session& session, std::int64_t replicas, std::int64_t timeout_ms,
                   protocol::ReplyWriter& reply);
  // INFO replication's lines.
  void AppendInfo(std::string& out) const;
  // The client is going away (ForgetSession).
  void ForgetSession(Session& session);
  // CONFIG SET repl-backlog-size.
  void ResizeBacklog() const;
  // The role or replica-read-only changed: propagation, the keyspaces' lazy expiry and the
  // log's role letter follow.
  void UpdateFeeding();

  // ---- Role.
  bool is_replica() const { return link_ != nullptr; }
  // The old master of a FAILOVER under way appends FAILOVER to its PSYNC.
  bool failing_over() const { return failover_ == FailoverState::kInProgress; }
  // The master's client on a replica (CLIENT LIST shows it), or null.
  const Session* master_session() const;
  // CLIENT KILL TYPE master: the link drops and is tried again.
  void DropMasterLink();
  // DEBUG REPLICA-LINK DOWN|STALL|UP; false on a master.
  bool HoldLink(std::string_view how);
  // A command from `session` may write: not a read-only replica's ordinary client.
  bool RefusesWrite(const Session& session) const;
  // A replica whose link is down with replica-serve-stale-data no (MASTERDOWN).
  bool RefusesStale(const Session& session) const;
  // min-replicas-to-write not met (NOREPLICAS).
  bool TooFewReplicas() const;
  std::int64_t master_repl_offset() const { return master_repl_offset_; }
  // The stream from `offset` as the backlog holds it; false if it does not (tests).
  bool CopyStream(std::int64_t offset, std::string& out) const {
    if (!backlog_.Covers(offset)) return false;
    backlog_.CopyFrom(offset, out);
    return true;
  }
  const std::string& replid() const { return replid_; }
  std::size_t replica_count() const { return replicas_.size(); }
  // For RDB aux fields: whether a replication id and offset should be written (Redis's
  // rdbPopulateSaveInfo), and the stream's database.
  bool HasSaveInfo() const;
  int stream_db() const { return stream_db_ < 0 ? 0 : stream_db_; }
  // A restart's RDB named these (repl-id, repl-offset): a replica resyncs from them partially.
  void RestoreFromRdb(const std::string& replid, std::int64_t offset);

  // From the server cron (about hz times a second).
  void Cron();
  // A replica's connection wrote out its buffer: the payload can go on.
  void Drained();
  // Before the loop polls: the GETACK that WAIT asked for, once for all waiters.
  void BeforeSleep();
  // INFO stats.
  std::uint64_t sync_full() const { return sync_full_; }
  std::uint64_t sync_partial_ok() const { return sync_partial_ok_; }
  std::uint64_t sync_partial_err() const { return sync_partial_err_; }

  // ---- Used by the link (replica side).
  ServerState& server() { return server_; }
  ConnectionRegistry* connections() { return connections_; }
  uv_loop_s* loop() { return loop_; }
  // A full sync's payload was loaded: adopt the master's replication id and offset.
  void AdoptMasterStream(const std::string& replid, std::int64_t offset);
  // +CONTINUE with a new id: the old one becomes replid2.
  void ContinueWithNewId(const std::string& replid);
  // The master's stream applied this many bytes.
  void AppliedFromMaster(std::string_view bytes);
  // Closes every replica (sub-replicas after a full sync of this one, REPLICAOF elsewhere).
  void DisconnectReplicas();
  void SetNewReplid();

 private:
  friend class SyncJob;
  ReplicaPeer* PeerOf(Session& session);
  void CreateBacklog();
  void ShiftReplid();
  bool TryPartialResync(ReplicaPeer& peer, std::string_view id, std::string_view offset_arg,
                        protocol::ReplyWriter& reply);
  void StartSyncIfDue();
  void ReplicaOnline(ReplicaPeer& peer);
  void CloseReplica(ReplicaPeer& peer);
  void SendToReplica(ReplicaPeer& peer, std::string_view bytes);
  void ServeWaiters();
  // The timer that ends the next WAIT whose timeout runs out first (null without a loop).
  void ArmWaitTimer();
  void SendGetack();
  std::int64_t MonotonicMs() const;
  std::size_t GoodReplicas() const;
  void StartLink(const std::string& host, int port);
  void PromoteToMaster();
  void BecomeReplicaOf(const std::string& host, int port);
  // REPLICAOF on a server with clients blocked on keys: they end with UNBLOCKED and are closed
  // (Redis's disconnectAllBlockedClients).
  void DisconnectBlockedClients();
  ReplicaPeer* FindPeer(std::string_view host, std::int64_t port);
  void UpdateFailoverStatus();
  void AbortFailover(const char* why);
  void ClearFailover();
  void StopLink();

  ServerState& server_;
  uv_loop_s* loop_ = nullptr;
  ConnectionRegistry* connections_ = nullptr;
  std::string replid_;
  std::string replid2_ = std::string(40, '0');
  std::int64_t second_replid_offset_ = -1;
  std::int64_t master_repl_offset_ = 0;
  ReplBacklog backlog_;
  int stream_db_ = -1;  // the database the stream last SELECTed (Redis's slaveseldb)
  std::vector<std::unique_ptr<ReplicaPeer>> replicas_;
  std::unique_ptr<SyncJob> sync_;
  std::vector<WaitingClient> waiting_;
  uv_timer_s* wait_timer_ = nullptr;
  bool getack_due_ = false;
  std::int64_t last_ping_ms_ = 0;
  std::int64_t no_replicas_since_ms_ = 0;
  std::unique_ptr<ReplicaLink> link_;
  std::string scratch_;
  enum class FailoverState { kNone, kWaitForSync, kInProgress };
  FailoverState failover_ = FailoverState::kNone;
  std::string failover_host_;
  int failover_port_ = 0;
  std::int64_t failover_end_ms_ = 0;  // monotonic; 0: none
  bool failover_force_ = false;
  bool failover_rejected_ = false;
  std::uint64_t sync_full_ = 0;
  std::uint64_t sync_partial_ok_ = 0;
  std::uint64_t sync_partial_err_ = 0;
};

}  // namespace warden::server
