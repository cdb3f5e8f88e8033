// REPLCONF, SYNC/PSYNC, REPLICAOF, ROLE, WAIT and INFO replication, as Redis 7.0's
// replication.c answers them.
#include <charconv>
#include <cstdio>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/client_pause.h"
#include "server/command_context.h"
#include "server/log.h"
#include "server/replication/replica_link.h"
#include "server/replication/replication.h"
#include "server/replication/sync_job.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";

const char* PhaseName(ReplicaPeer::Phase phase) {
  switch (phase) {
    case ReplicaPeer::Phase::kWaitStart:
    case ReplicaPeer::Phase::kWaitEnd:
      return "wait_bgsave";
    case ReplicaPeer::Phase::kSendBulk:
      return "send_bulk";
    case ReplicaPeer::Phase::kOnline:
      return "online";
    case ReplicaPeer::Phase::kHandshake:
      break;
  }
  return "";
}

void Line(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void Line(std::string& out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof(buf), format, args);
  va_end(args);
  if (n > 0) out.append(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof(buf) - 1));
  out.append("\r\n");
}

}  // namespace

std::string PeerIp(const ReplicaPeer& peer) {
  if (!peer.announced_ip.empty()) return peer.announced_ip;
  const std::string& addr = peer.session->addr;
  const std::size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

void Replication::ReplconfCommand(Session& session, std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply) {
  if (args.size() % 2 == 0) {
    reply.Error("ERR syntax error");
    return;
  }
  for (std::size_t j = 1; j < args.size(); j += 2) {
    const std::string_view option = args[j];
    const std::string_view value = args[j + 1];
    if (ArgIs(option, "listening-port")) {
      std::int64_t port = 0;
      if (!protocol::ParseStrictInt64(value, port)) {
        reply.Error(kNotInteger);
        return;
      }
      PeerOf(session)->listening_port = static_cast<int>(port);
    } else if (ArgIs(option, "ip-address")) {
      if (value.size() >= 256) {
        reply.Error({"ERR REPLCONF ip-address provided by replica instance is too long: ",
                     std::to_string(value.size()), " bytes"});
        return;
      }
      PeerOf(session)->announced_ip.assign(value);
    } else if (ArgIs(option, "capa")) {
      if (ArgIs(value, "eof")) PeerOf(session)->capa_eof = true;
      if (ArgIs(value, "psync2")) PeerOf(session)->capa_psync2 = true;
    } else if (ArgIs(option, "ack")) {
      // No reply, as in Redis; only from a replica.
      ReplicaPeer* peer = session.replica;
      if (peer == nullptr || peer->phase == ReplicaPeer::Phase::kHandshake) return;
      std::int64_t offset = 0;
      if (!protocol::ParseStrictInt64(value, offset)) return;
      if (offset > peer->ack_offset) peer->ack_offset = offset;
      peer->ack_time_ms = server_.clock.NowMs();
      if (sync_) sync_->Cron();
      // Its payload loaded before the child was seen to end: the stream starts at Finish.
      if (peer->phase == ReplicaPeer::Phase::kWaitEnd) peer->acked_payload = true;
      if (peer->stream_on_ack && peer->phase == ReplicaPeer::Phase::kOnline) {
        peer->stream_on_ack = false;
        if (!peer->pending.empty()) SendToReplica(*peer, peer->pending);
        std::string().swap(peer->pending);
      }
      ServeWaiters();
      return;
    } else if (ArgIs(option, "getack")) {
      if (session.is_master && link_) link_->SendAck();
      return;
    } else if (ArgIs(option, "rdb-only")) {
      std::int64_t on = 0;
      if (!protocol::ParseStrictInt64(value, on)) {
        reply.Error(kNotInteger);
        return;
      }
      if (on < 0 || on > 1) {
        reply.Error("ERR value is out of range, value must between 0 and 1");
        return;
      }
      PeerOf(session)->rdb_only = on == 1;
    } else if (ArgIs(option, "rdb-filter-only")) {
      ReplicaPeer* peer = PeerOf(session);
      peer->filter_set = true;
      peer->functions_only = false;
      std::size_t pos = 0;
      while (pos < value.size()) {
        while (pos < value.size() && value[pos] == ' ') ++pos;
        const std::size_t end = std::min(value.find(' ', pos), value.size());
        const std::string_view filter = value.substr(pos, end - pos);
        pos = end;
        if (filter.empty()) continue;
        if (!ArgIs(filter, "functions")) {
          reply.Error({"ERR Unsupported rdb-filter-only option: ", filter});
          return;
        }
        peer->functions_only = true;
      }
    } else {
      reply.Error({"ERR Unrecognized REPLCONF option: ", option});
      return;
    }
  }
  reply.Ok();
}

bool Replication::TryPartialResync(ReplicaPeer& peer, std::string_view id,
                                   std::string_view offset_arg, protocol::ReplyWriter& reply) {
  std::int64_t offset = 0;
  protocol::ParseStrictInt64(offset_arg, offset);
  const bool ours = id == replid_ || (id == replid2_ && offset <= second_replid_offset_);
  Logger* log = server_.log;
  if (!ours) {
    if (log != nullptr && id != "?") {
      if (id != replid2_) {
        log->Log(LogLevel::kNotice,
                 "Partial resynchronization not accepted: Replication ID mismatch (Replica asked "
                 "for '%.*s', my replication IDs are '%s' and '%s')",
                 static_cast<int>(id.size()), id.data(), replid_.c_str(), replid2_.c_str());
      } else {
        log->Log(LogLevel::kNotice,
                 "Partial resynchronization not accepted: Requested offset for second ID was "
                 "%lld, but I can reply up to %lld",
                 static_cast<long long>(offset), static_cast<long long>(second_replid_offset_));
      }
    }
    return false;
  }
  if (!backlog_.Covers(offset)) {
    if (log != nullptr) {
      log->Log(LogLevel::kNotice,
               "Unable to partial resync with replica %s for lack of backlog (Replica request "
               "was: %lld).",
               peer.session->addr.c_str(), static_cast<long long>(offset));
    }
    return false;
  }
  peer.phase = ReplicaPeer::Phase::kOnline;
  peer.ack_time_ms = server_.clock.NowMs();
  peer.session->is_replica = true;
  if (peer.capa_psync2) {
    reply.Raw("+CONTINUE " + replid_ + "\r\n");
  } else {
    reply.Raw("+CONTINUE\r\n");
  }
  std::string missing;
  backlog_.CopyFrom(offset, missing);
  reply.Raw(missing);
  if (log != nullptr) {
    log->Log(LogLevel::kNotice,
             "Partial resynchronization request from %s accepted. Sending %zu bytes of backlog "
             "starting from offset %lld.",
             peer.session->addr.c_str(), missing.size(), static_cast<long long>(offset));
  }
  return true;
}

void Replication::SyncCommand(Session& session, std::span<const std::string_view> args,
                              protocol::ReplyWriter& reply) {
  if (session.replica != nullptr && session.replica->phase != ReplicaPeer::Phase::kHandshake) {
    return;
  }
  if (session.monitoring()) return;
  const bool psync = ArgIs(args[0], "psync");
  if (psync && args.size() > 3 && ArgIs(args[3], "failover")) {
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kWarning, "Failover request received for replid %.*s.",
                       static_cast<int>(args[1].size()), args[1].data());
    }
    if (!is_replica()) {
      reply.Error("ERR PSYNC FAILOVER can't be sent to a master.");
      return;
    }
    if (args[1] != replid_) {
      reply.Error("ERR PSYNC FAILOVER replid must match my replid.");
      return;
    }
    PromoteToMaster();
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kNotice,
                       "MASTER MODE enabled (failover request from 'id=%llu addr=%s')",
                       static_cast<unsigned long long>(session.id), session.addr.c_str());
    }
  }
  if (failover_ != FailoverState::kNone) {
    reply.Error("NOMASTERLINK Can't SYNC while failing over");
    return;
  }
  if (is_replica() && !link_->up()) {
    reply.Error("NOMASTERLINK Can't SYNC while not connected with my master");
    return;
  }
  if (loop_ == nullptr) {
    reply.Error("ERR replication is not available in this process");
    return;
  }
  ReplicaPeer* peer = PeerOf(session);
  if (peer->filter_set && !peer->capa_eof) {
    reply.Error("ERR Filtered replica requires EOF capability");
    return;
  }
  Logger* log = server_.log;
  if (log != nullptr) {
    log->Log(LogLevel::kNotice, "Replica %s asks for synchronization", session.addr.c_str());
  }
  if (psync) {
    std::int64_t offset = 0;
    if (!protocol::ParseStrictInt64(args[2], offset)) {
      reply.Error(kNotInteger);
      return;
    }
    peer->psync = true;
    if (TryPartialResync(*peer, args[1], args[2], reply)) {
      ++sync_partial_ok_;
      return;
    }
    if (args[1] != "?") ++sync_partial_err_;
  }
  ++sync_full_;
  session.is_replica = true;
  peer->phase = ReplicaPeer::Phase::kWaitStart;
  peer->wait_since_ms = MonotonicMs();
  peer->last_newline_ms = peer->wait_since_ms;
  if (!backlog_.active() && !is_replica()) {
    SetNewReplid();
    replid2_.assign(40, '0');
    second_replid_offset_ = -1;
    CreateBacklog();
    if (log != nullptr) {
      log->Log(LogLevel::kNotice,
               "Replication backlog created, my new replication IDs are '%s' and '%s'",
               replid_.c_str(), replid2_.c_str());
    }
  }
  StartSyncIfDue();
}

void Replication::StartSyncIfDue() {
  if (sync_ && sync_->done()) sync_.reset();
  if (sync_ || loop_ == nullptr) return;
  const ReplicationConfig& c = server_.config.repl;
  std::vector<ReplicaPeer*> waiting;
  std::int64_t oldest = MonotonicMs();
  for (const auto& peer : replicas_) {
    if (peer->phase != ReplicaPeer::Phase::kWaitStart) continue;
    waiting.push_back(peer.get());
    oldest = std::min(oldest, peer->wait_since_ms);
  }
  if (waiting.empty()) return;
  // A socket target needs every waiting replica to take an EOF-marked payload; a filtered
  // one always goes by socket.
  bool to_socket = c.diskless_sync;
  for (const ReplicaPeer* peer : waiting) {
    if (!peer->capa_eof) to_socket = false;
  }
  for (const ReplicaPeer* peer : waiting) {
    if (peer->filter_set) to_socket = true;
  }
  if (to_socket) {
    const bool full = c.diskless_sync_max_replicas > 0 &&
                      static_cast<std::int64_t>(waiting.size()) >= c.diskless_sync_max_replicas;
    if (!full && MonotonicMs() - oldest < c.diskless_sync_delay_s * 1000) return;
  }
  // One payload per job: those that asked for a different filter wait for the next.
  std::vector<ReplicaPeer*> targets;
  for (ReplicaPeer* peer : waiting) {
    if (!to_socket && !peer->capa_eof && peer->filter_set) continue;
    if (peer->filter_set != waiting.front()->filter_set ||
        peer->functions_only != waiting.front()->functions_only) {
      continue;
    }
    targets.push_back(peer);
  }
  for (ReplicaPeer* peer : targets) {
    peer->sync_offset = master_repl_offset_;
    if (peer->psync) {
      const std::string line =
          "+FULLRESYNC " + replid_ + " " + std::to_string(master_repl_offset_) + "\r\n";
      SendToReplica(*peer, line);
    }
  }
  sync_ = SyncJob::Start(*this, to_socket, targets);
  if (!sync_) {
    for (ReplicaPeer* peer : targets) CloseReplica(*peer);
    return;
  }
  // The stream after the snapshot starts with a SELECT.
  stream_db_ = -1;
  for (ReplicaPeer* peer : targets) peer->phase = ReplicaPeer::Phase::kWaitEnd;
}

void Replication::StartLink(const std::string& host, int port) {
  link_ = std::make_unique<ReplicaLink>(*this, host, port);
  UpdateFeeding();
}

void Replication::PromoteToMaster() {
  // Redis's replicationUnsetMaster: the data stays; the history so far stays valid as replid2,
  // so the other replicas of the old master can continue partially with this one.
  link_.reset();
  server_.config.repl.master_host.clear();
  server_.config.repl.master_port = 0;
  if (!backlog_.active()) CreateBacklog();
  ShiftReplid();
  DisconnectReplicas();
  stream_db_ = -1;
  // repl-backlog-ttl counts from the promotion (Redis's replicationUnsetMaster).
  no_replicas_since_ms_ = MonotonicMs();
  UpdateFeeding();
  server_.AdjustOomScore();
}

void Replication::BecomeReplicaOf(const std::string& host, int port) {
  // A former master offers its own history: the new master continues it if it can.
  const std::string cached_id = replid_;
  const std::int64_t cached_offset = master_repl_offset_;
  link_.reset();
  server_.config.repl.master_host = host;
  server_.config.repl.master_port = port;
  StartLink(host, port);
  link_->CacheMaster(cached_id, cached_offset);
  DisconnectBlockedClients();
  server_.AdjustOomScore();
}

void Replication::ReplicaofCommand(Session& session, std::span<const std::string_view> args,
                                   protocol::ReplyWriter& reply) {
  Logger* log = server_.log;
  if (failover_ != FailoverState::kNone) {
    reply.Error("ERR REPLICAOF not allowed while failing over.");
    return;
  }
  if (ArgIs(args[1], "no") && ArgIs(args[2], "one")) {
    if (is_replica()) {
      PromoteToMaster();
      if (log != nullptr) {
        log->Log(LogLevel::kNotice, "MASTER MODE enabled (user request from 'id=%llu addr=%s')",
                 static_cast<unsigned long long>(session.id), session.addr.c_str());
      }
    }
    reply.Ok();
    return;
  }
  if (session.replica != nullptr && session.replica->phase != ReplicaPeer::Phase::kHandshake) {
    reply.Error("ERR Command is not valid when client is a replica.");
    return;
  }
  std::int64_t port = 0;
  if (!protocol::ParseStrictInt64(args[2], port) || port < 0 || port > 65535) {
    reply.Error("ERR Invalid master port");
    return;
  }
  const std::string host(args[1]);
  if (is_replica() && link_->host() == host && link_->port() == port) {
    if (log != nullptr) {
      log->Log(LogLevel::kNotice,
               "REPLICAOF would result into synchronization with the master we are already "
               "connected with. No operation performed.");
    }
    reply.Raw("+OK Already connected to specified master\r\n");
    return;
  }
  BecomeReplicaOf(host, static_cast<int>(port));
  if (log != nullptr) {
    log->Log(LogLevel::kNotice, "REPLICAOF %s:%d enabled (user request from 'id=%llu addr=%s')",
             host.c_str(), static_cast<int>(port), static_cast<unsigned long long>(session.id),
             session.addr.c_str());
  }
  reply.Ok();
}

void Replication::RoleCommand(protocol::ReplyWriter& reply) const {
  if (!is_replica()) {
    reply.ArrayHeader(3);
    reply.Bulk("master");
    reply.Integer(master_repl_offset_);
    std::size_t online = 0;
    for (const auto& peer : replicas_) {
      if (peer->phase == ReplicaPeer::Phase::kOnline) ++online;
    }
    reply.ArrayHeader(online);
    for (const auto& peer : replicas_) {
      if (peer->phase != ReplicaPeer::Phase::kOnline) continue;
      reply.ArrayHeader(3);
      reply.Bulk(PeerIp(*peer));
      reply.Bulk(std::to_string(peer->listening_port));
      reply.Bulk(std::to_string(peer->ack_offset));
    }
    return;
  }
  reply.ArrayHeader(5);
  reply.Bulk("slave");
  reply.Bulk(link_->host());
  reply.Integer(link_->port());
  const char* state = "connect";
  switch (link_->state()) {
    case ReplicaLink::State::kConnect:
      state = "connect";
      break;
    case ReplicaLink::State::kConnecting:
      state = "connecting";
      break;
    case ReplicaLink::State::kHandshake:
      state = "handshake";
      break;
    case ReplicaLink::State::kTransfer:
      state = "sync";
      break;
    case ReplicaLink::State::kConnected:
      state = "connected";
      break;
  }
  reply.Bulk(state);
  reply.Integer(link_->up() ? link_->offset() : -1);
}

void Replication::WaitCommand(Session& session, std::int64_t replicas, std::int64_t timeout_ms,
                              protocol::ReplyWriter& reply) {
  if (is_replica()) {
    reply.Error(
        "ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 "
        "if a replica is configured to be writable (which is not the default) writes to "
        "replicas are just local and are not propagated.");
    return;
  }
  const std::int64_t offset = session.repl_offset;
  std::int64_t acked = 0;
  for (const auto& peer : replicas_) {
    if (peer->phase == ReplicaPeer::Phase::kOnline && peer->ack_offset >= offset) ++acked;
  }
  // Inside a transaction (or where the client cannot wait) the count is the answer.
  if (acked >= replicas || server_.call.depth > 1 || session.host == nullptr) {
    reply.Integer(acked);
    return;
  }
  const std::int64_t deadline = timeout_ms > 0 ? MonotonicMs() + timeout_ms : 0;
  waiting_.push_back({&session, offset, replicas, deadline});
  session.blocked = true;
  getack_due_ = true;
  if (deadline > 0) ArmWaitTimer();
}

void Replication::ServeWaiters() {
  if (waiting_.empty()) return;
  const std::int64_t now = MonotonicMs();
  std::vector<WaitingClient> still;
  std::vector<std::pair<Session*, std::int64_t>> done;
  for (const WaitingClient& w : waiting_) {
    std::int64_t acked = 0;
    for (const auto& peer : replicas_) {
      if (peer->phase == ReplicaPeer::Phase::kOnline && peer->ack_offset >= w.offset) ++acked;
    }
    if (acked >= w.replicas || (w.deadline_ms > 0 && now >= w.deadline_ms)) {
      done.emplace_back(w.session, acked);
    } else {
      still.push_back(w);
    }
  }
  waiting_.swap(still);
  if (!done.empty()) ArmWaitTimer();
  for (const auto& [session, acked] : done) {
    BlockedClientHost* host = session->host;
    protocol::ReplyWriter writer(&host->reply_buffer(), session->resp);
    writer.Integer(acked);
    session->blocked = false;
    host->Unblocked();
  }
}

void Replication::AppendInfo(std::string& out) const {
  out.append("# Replication\r\n");
  Line(out, "role:%s", is_replica() ? "slave" : "master");
  if (is_replica()) {
    const ReplicaLink& l = *link_;
    const std::int64_t offset = l.offset() >= 0 ? l.offset() : 1;
    const std::int64_t read_offset = l.read_offset() >= 0 ? l.read_offset() : 1;
    Line(out, "master_host:%s", l.host().c_str());
    Line(out, "master_port:%d", l.port());
    Line(out, "master_link_status:%s", l.up() ? "up" : "down");
    Line(out, "master_last_io_seconds_ago:%d", l.up() ? static_cast<int>(l.last_io_seconds()) : -1);
    Line(out, "master_sync_in_progress:%d", l.state() == ReplicaLink::State::kTransfer ? 1 : 0);
    Line(out, "slave_read_repl_offset:%lld", static_cast<long long>(read_offset));
    Line(out, "slave_repl_offset:%lld", static_cast<long long>(offset));
    if (l.state() == ReplicaLink::State::kTransfer) {
      const std::int64_t total = std::max<std::int64_t>(l.transfer_size(), 0);
      const std::int64_t read = l.transfer_read();
      Line(out, "master_sync_total_bytes:%lld", static_cast<long long>(total));
      Line(out, "master_sync_read_bytes:%lld", static_cast<long long>(read));
      Line(out, "master_sync_left_bytes:%lld", static_cast<long long>(total - read));
      Line(out, "master_sync_perc:%.2f",
           total > 0 ? static_cast<double>(read) / static_cast<double>(total) * 100 : 0.0);
      Line(out, "master_sync_last_io_seconds_ago:%d", static_cast<int>(l.last_io_seconds()));
    }
    if (!l.up()) {
      Line(out, "master_link_down_since_seconds:%lld", static_cast<long long>(l.down_seconds()));
    }
    const ReplicationConfig& c = server_.config.repl;
    Line(out, "slave_priority:%lld", static_cast<long long>(c.priority));
    Line(out, "slave_read_only:%d", c.read_only ? 1 : 0);
    Line(out, "replica_announced:%d", c.announced ? 1 : 0);
  }
  std::size_t connected = 0;
  for (const auto& peer : replicas_) {
    if (peer->phase != ReplicaPeer::Phase::kHandshake) ++connected;
  }
  Line(out, "connected_slaves:%zu", connected);
  const ReplicationConfig& c = server_.config.repl;
  if (c.min_replicas_to_write > 0 && c.min_replicas_max_lag_s > 0) {
    Line(out, "min_slaves_good_slaves:%zu", GoodReplicas());
  }
  int id = 0;
  const std::int64_t now = server_.clock.NowMs();
  for (const auto& peer : replicas_) {
    const char* state = PhaseName(peer->phase);
    if (state[0] == '\0') continue;
    const long lag = peer->phase == ReplicaPeer::Phase::kOnline
                         ? static_cast<long>((now - peer->ack_time_ms) / 1000)
                         : 0;
    Line(out, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%ld", id++, PeerIp(*peer).c_str(),
         peer->listening_port, state, static_cast<long long>(peer->ack_offset), lag);
  }
  Line(out, "master_failover_state:%s",
       failover_ == FailoverState::kNone          ? "no-failover"
       : failover_ == FailoverState::kWaitForSync ? "waiting-for-sync"
                                                  : "failover-in-progress");
  Line(out, "master_replid:%s", replid_.c_str());
  Line(out, "master_replid2:%s", replid2_.c_str());
  Line(out, "master_repl_offset:%lld", static_cast<long long>(master_repl_offset_));
  Line(out, "second_repl_offset:%lld", static_cast<long long>(second_replid_offset_));
  Line(out, "repl_backlog_active:%d", backlog_.active() ? 1 : 0);
  Line(out, "repl_backlog_size:%lld", static_cast<long long>(c.backlog_size));
  Line(out, "repl_backlog_first_byte_offset:%lld",
       static_cast<long long>(backlog_.active() ? backlog_.first_byte_offset() : 0));
  Line(out, "repl_backlog_histlen:%lld", static_cast<long long>(backlog_.histlen()));
  out.append("\r\n");
}

}  // namespace warden::server
