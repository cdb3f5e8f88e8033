#include "server/replication/replication.h"

#include <uv.h>

#include <algorithm>
#include <charconv>

#include "protocol/reply_writer.h"
#include "server/blocking.h"
#include "server/log.h"
#include "server/persistence/aof.h"
#include "server/replication/replica_link.h"
#include "server/replication/sync_job.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

Replication::Replication(ServerState& server) : server_(server) { SetNewReplid(); }

Replication::~Replication() = default;

void Replication::Attach(uv_loop_s* loop, ConnectionRegistry* connections) {
  loop_ = loop;
  connections_ = connections;
  last_ping_ms_ = MonotonicMs();
  const ReplicationConfig& c = server_.config.repl;
  if (!c.master_host.empty()) StartLink(c.master_host, c.master_port);
}

void Replication::Detach() {
  link_.reset();
  sync_.reset();
  if (wait_timer_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(wait_timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    wait_timer_ = nullptr;
  }
  loop_ = nullptr;
  UpdateFeeding();
}

const Session* Replication::master_session() const {
  if (!link_ || !link_->up()) return nullptr;
  return &link_->master_session();
}

bool Replication::HoldLink(std::string_view how) {
  if (!link_) return false;
  const bool down = how == "down" || how == "DOWN";
  const bool stall = how == "stall" || how == "STALL";
  link_->SetHold(down    ? ReplicaLink::Hold::kDown
                 : stall ? ReplicaLink::Hold::kStall
                         : ReplicaLink::Hold::kNone);
  return true;
}

void Replication::DropMasterLink() {
  if (link_) link_->Kill();
}

void Replication::ArmWaitTimer() {
  if (loop_ == nullptr) return;
  std::int64_t next = 0;
  for (const WaitingClient& w : waiting_) {
    if (w.deadline_ms > 0 && (next == 0 || w.deadline_ms < next)) next = w.deadline_ms;
  }
  if (wait_timer_ == nullptr) {
    wait_timer_ = new uv_timer_t;
    uv_timer_init(loop_, wait_timer_);
    wait_timer_->data = this;
  }
  if (next == 0) {
    uv_timer_stop(wait_timer_);
    return;
  }
  const std::int64_t delay = std::max<std::int64_t>(next - MonotonicMs(), 0);
  uv_timer_start(
      wait_timer_, [](uv_timer_t* t) { static_cast<Replication*>(t->data)->ServeWaiters(); },
      static_cast<std::uint64_t>(delay), 0);
}

std::int64_t Replication::MonotonicMs() const { return server_.clock.MonotonicUs() / 1000; }

void Replication::SetNewReplid() {
  replid_.resize(40);
  for (char& c : replid_) c = kHex[server_.random.Below(16)];
}

void Replication::ShiftReplid() {
  // Redis's shiftReplicationId: the old history stays valid up to here for replicas that
  // followed it, so they can continue partially with the new id.
  replid2_ = replid_;
  second_replid_offset_ = master_repl_offset_ + 1;
  SetNewReplid();
}

void Replication::CreateBacklog() {
  backlog_.Create(static_cast<std::size_t>(server_.config.repl.backlog_size),
                  master_repl_offset_ + 1);
  no_replicas_since_ms_ = MonotonicMs();
  UpdateFeeding();
}

void Replication::UpdateFeeding() {
  server_.propagation.set_replication(feeding());
  server_.UpdateExpiryHold();
  if (server_.log != nullptr) server_.log->set_role(is_replica() ? 'S' : 'M');
}

void Replication::ResizeBacklog() const {
  const_cast<ReplBacklog&>(backlog_).Resize(
      static_cast<std::size_t>(server_.config.repl.backlog_size));
}

bool Replication::HasSaveInfo() const {
  return (!is_replica() && backlog_.active()) || (is_replica() && link_->offset() >= 0);
}

void Replication::RestoreFromRdb(const std::string& replid, std::int64_t offset) {
  if (replid.size() != 40) return;
  if (is_replica()) {
    // A restarted replica continues from what its RDB held (Redis's loadDataFromDisk).
    replid_ = replid;
    master_repl_offset_ = offset;
    link_->CacheMaster(replid, offset);
    CreateBacklog();
  } else {
    // A restarted master keeps the old history as replid2, with an empty backlog from there, so
    // its replicas continue (Redis's loadDataFromDisk).
    replid2_ = replid;
    second_replid_offset_ = offset + 1;
    master_repl_offset_ = offset;
    CreateBacklog();
  }
}

ReplicaPeer* Replication::PeerOf(Session& session) {
  if (session.replica != nullptr) return session.replica;
  auto peer = std::make_unique<ReplicaPeer>();
  peer->session = &session;
  session.replica = peer.get();
  replicas_.push_back(std::move(peer));
  return session.replica;
}

void Replication::ForgetSession(Session& session) {
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(),
                                [&](const WaitingClient& w) { return w.session == &session; }),
                 waiting_.end());
  ReplicaPeer* peer = session.replica;
  if (peer == nullptr) return;
  session.replica = nullptr;
  if (sync_) sync_->Forget(peer);
  if (peer->phase != ReplicaPeer::Phase::kHandshake && server_.log != nullptr) {
    server_.log->Log(LogLevel::kNotice, "Connection with replica %s lost.", session.addr.c_str());
  }
  replicas_.erase(
      std::remove_if(replicas_.begin(), replicas_.end(),
                     [&](const std::unique_ptr<ReplicaPeer>& p) { return p.get() == peer; }),
      replicas_.end());
  if (replicas_.empty()) no_replicas_since_ms_ = MonotonicMs();
}

// ---- The stream.

void Replication::Feed(int db, std::string_view encoded) {
  if (!feeding()) return;
  if (db != stream_db_) {
    char digits[12];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), db);
    const std::string_view select[] = {"SELECT", std::string_view(digits, end - digits)};
    scratch_.clear();
    AppendCommand(scratch_, select);
    FeedRaw(scratch_);
    stream_db_ = db;
  }
  FeedRaw(encoded);
}

void Replication::FeedCommand(int db, std::span<const std::string_view> argv) {
  std::string encoded;
  AppendCommand(encoded, argv);
  Feed(db, encoded);
}

void Replication::FeedRaw(std::string_view bytes) {
  backlog_.Append(bytes);
  master_repl_offset_ += static_cast<std::int64_t>(bytes.size());
  for (const auto& peer : replicas_) {
    switch (peer->phase) {
      case ReplicaPeer::Phase::kHandshake:
      case ReplicaPeer::Phase::kWaitStart:
        break;
      case ReplicaPeer::Phase::kWaitEnd:
      case ReplicaPeer::Phase::kSendBulk:
        if (!peer->rdb_only) peer->pending.append(bytes);
        break;
      case ReplicaPeer::Phase::kOnline:
        if (peer->stream_on_ack) {
          peer->pending.append(bytes);
        } else {
          SendToReplica(*peer, bytes);
        }
        break;
    }
  }
}

void Replication::SendToReplica(ReplicaPeer& peer, std::string_view bytes) {
  BlockedClientHost* host = peer.session->host;
  if (host == nullptr || peer.closing) return;
  host->reply_buffer().append(bytes);
  host->ScheduleFlush();
}

void Replication::AppliedFromMaster(std::string_view bytes) {
  if (!backlog_.active()) CreateBacklog();
  FeedRaw(bytes);
}

void Replication::AdoptMasterStream(const std::string& replid, std::int64_t offset) {
  replid_ = replid;
  replid2_.assign(40, '0');
  second_replid_offset_ = -1;
  master_repl_offset_ = offset;
  CreateBacklog();
}

void Replication::ContinueWithNewId(const std::string& replid) {
  replid2_ = replid_;
  second_replid_offset_ = master_repl_offset_ + 1;
  replid_ = replid;
  // Sub-replicas must learn the new id: they reconnect and continue partially.
  DisconnectReplicas();
}

void Replication::DisconnectReplicas() {
  if (connections_ == nullptr) return;
  std::vector<const Session*> sessions;
  for (const auto& peer : replicas_) {
    if (peer->phase != ReplicaPeer::Phase::kHandshake) sessions.push_back(peer->session);
  }
  for (const Session* s : sessions) {
    connections_->KillClients([s](const Session& other) { return &other == s; }, nullptr);
  }
}

void Replication::CloseReplica(ReplicaPeer& peer) {
  if (connections_ == nullptr || peer.closing) return;
  peer.closing = true;
  const Session* s = peer.session;
  connections_->KillClients([s](const Session& other) { return &other == s; }, nullptr);
}

void Replication::ReplicaOnline(ReplicaPeer& peer) {
  peer.phase = ReplicaPeer::Phase::kOnline;
  peer.ack_time_ms = server_.clock.NowMs();
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kNotice, "Synchronization with replica %s succeeded",
                     peer.session->addr.c_str());
  }
  if (peer.stream_on_ack) return;
  if (!peer.pending.empty()) SendToReplica(peer, peer.pending);
  std::string().swap(peer.pending);
}

// ---- Role checks.

bool Replication::RefusesWrite(const Session& session) const {
  return is_replica() && server_.config.repl.read_only && !session.is_master;
}

bool Replication::RefusesStale(const Session& session) const {
  return is_replica() && !server_.config.repl.serve_stale_data && !link_->up() &&
         !session.is_master;
}

std::size_t Replication::GoodReplicas() const {
  const std::int64_t now = server_.clock.NowMs();
  std::size_t good = 0;
  for (const auto& peer : replicas_) {
    if (peer->phase == ReplicaPeer::Phase::kOnline &&
        now - peer->ack_time_ms <= server_.config.repl.min_replicas_max_lag_s * 1000) {
      ++good;
    }
  }
  return good;
}

bool Replication::TooFewReplicas() const {
  const ReplicationConfig& c = server_.config.repl;
  if (is_replica() || c.min_replicas_to_write == 0 || c.min_replicas_max_lag_s == 0) return false;
  return GoodReplicas() < static_cast<std::size_t>(c.min_replicas_to_write);
}

// ---- The cron.

void Replication::Cron() {
  UpdateFailoverStatus();
  if (link_) link_->Cron();
  const std::int64_t now = MonotonicMs();
  if (sync_) sync_->Cron();
  // A finished job makes way for the replicas that asked while it ran.
  StartSyncIfDue();
  const ReplicationConfig& c = server_.config.repl;
  std::vector<ReplicaPeer*> timed_out;
  for (const auto& peer : replicas_) {
    if (peer->phase == ReplicaPeer::Phase::kWaitStart) {
      // Redis's keepalive while a replica waits for its snapshot to start.
      if (now - peer->last_newline_ms >= 1000 && peer->session->host != nullptr) {
        SendToReplica(*peer, "\n");
        peer->last_newline_ms = now;
      }
    }
    if (peer->phase == ReplicaPeer::Phase::kOnline && !peer->rdb_only && peer->psync &&
        server_.clock.NowMs() - peer->ack_time_ms > c.timeout_s * 1000) {
      timed_out.push_back(peer.get());
    }
  }
  for (ReplicaPeer* peer : timed_out) {
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kWarning, "Disconnecting timedout replica (streaming sync): %s",
                       peer->session->addr.c_str());
    }
    CloseReplica(*peer);
  }
  // The pings keep one period from the start whether or not replicas are there, as Redis's
  // cron counts its loops: a replica that joins mid-period waits for the next one.
  if (now - last_ping_ms_ >= c.ping_period_s * 1000) {
    last_ping_ms_ = now;
    static constexpr std::string_view kPing = "*1\r\n$4\r\nping\r\n";
    if (!is_replica() && !replicas_.empty() && !server_.pause.active()) FeedRaw(kPing);
  }
  // A master without replicas for repl-backlog-ttl frees its backlog and starts a new history.
  if (!is_replica() && replicas_.empty() && backlog_.active() && c.backlog_ttl_s > 0 &&
      now - no_replicas_since_ms_ > c.backlog_ttl_s * 1000) {
    SetNewReplid();
    replid2_.assign(40, '0');
    second_replid_offset_ = -1;
    backlog_.Free();
    UpdateFeeding();
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kNotice,
                       "Replication backlog freed after %lld seconds without connected replicas.",
                       static_cast<long long>(c.backlog_ttl_s));
    }
  }
  ServeWaiters();
}

void Replication::BeforeSleep() {
  if (failover_ != FailoverState::kNone) UpdateFailoverStatus();
  if (!getack_due_) return;
  getack_due_ = false;
  if (is_replica() || server_.pause.active()) return;
  static constexpr std::string_view kGetack = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
  FeedRaw(kGetack);
}

void Replication::Drained() {
  if (sync_) sync_->Pump();
}

}  // namespace warden::server
