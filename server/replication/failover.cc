// FAILOVER (Redis 7.0's coordinated failover, replication.c's failoverCommand and
// updateFailoverStatus): the master holds writes, waits until a replica has acknowledged every
// byte of the stream, then becomes a replica of it with `PSYNC <replid> <offset> FAILOVER`, which
// makes that replica promote itself and continue. And REPLICAOF's ending of blocked clients.
#include <charconv>
#include <limits>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/log.h"
#include "server/replication/replica_link.h"
#include "server/replication/replication.h"
#include "server/server_state.h"

namespace warden::server {
ReplicaPeer* Replication::FindPeer(std::string_view host, std::int64_t port) {
  for (const auto& peer : replicas_) {
    if (peer->phase == ReplicaPeer::Phase::kHandshake || peer->listening_port != port) continue;
    if (PeerIp(*peer) == host) return peer.get();
  }
  return nullptr;
}

void Replication::FailoverCommand(std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply) {
  if (args.size() == 2 && ArgIs(args[1], "abort")) {
    if (failover_ == FailoverState::kNone) {
      reply.Error("ERR No failover in progress.");
      return;
    }
    AbortFailover("Failover manually aborted");
    reply.Ok();
    return;
  }
  std::int64_t timeout_ms = 0;
  bool force = false;
  std::int64_t port = 0;
  std::string host;
  bool has_host = false;
  for (std::size_t j = 1; j < args.size(); ++j) {
    if (ArgIs(args[j], "timeout") && j + 1 < args.size() && timeout_ms == 0) {
      if (!protocol::ParseStrictInt64(args[j + 1], timeout_ms)) {
        reply.Error("ERR value is not an integer or out of range");
        return;
      }
      if (timeout_ms <= 0) {
        reply.Error("ERR FAILOVER timeout must be greater than 0");
        return;
      }
      ++j;
    } else if (ArgIs(args[j], "to") && j + 2 < args.size() && !has_host) {
      if (!protocol::ParseStrictInt64(args[j + 2], port)) {
        reply.Error("ERR value is not an integer or out of range");
        return;
      }
      host.assign(args[j + 1]);
      has_host = true;
      j += 2;
    } else if (ArgIs(args[j], "force") && !force) {
      force = true;
    } else {
      reply.Error("ERR syntax error");
      return;
    }
  }
  if (failover_ != FailoverState::kNone) {
    reply.Error("ERR FAILOVER already in progress.");
    return;
  }
  if (is_replica()) {
    reply.Error("ERR FAILOVER is not valid when server is a replica.");
    return;
  }
  std::size_t replicas = 0;
  for (const auto& peer : replicas_) {
    if (peer->phase != ReplicaPeer::Phase::kHandshake) ++replicas;
  }
  if (replicas == 0) {
    reply.Error("ERR FAILOVER requires connected replicas.");
    return;
  }
  if (force && (timeout_ms == 0 || !has_host)) {
    reply.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
    return;
  }
  Logger* log = server_.log;
  if (has_host) {
    const ReplicaPeer* target = FindPeer(host, port);
    if (target == nullptr) {
      reply.Error("ERR FAILOVER target HOST and PORT is not a replica.");
      return;
    }
    if (target->phase != ReplicaPeer::Phase::kOnline) {
      reply.Error("ERR FAILOVER target replica is not online.");
      return;
    }
    failover_host_ = host;
    failover_port_ = static_cast<int>(port);
    if (log != nullptr) {
      log->Log(LogLevel::kNotice, "FAILOVER requested to %s:%lld.", host.c_str(),
               static_cast<long long>(port));
    }
  } else {
    failover_host_.clear();
    failover_port_ = 0;
    if (log != nullptr) log->Log(LogLevel::kNotice, "FAILOVER requested to any replica.");
  }
  failover_end_ms_ = timeout_ms > 0 ? MonotonicMs() + timeout_ms : 0;
  failover_force_ = force;
  failover_ = FailoverState::kWaitForSync;
  // Writes wait from here until the failover ends (Redis's PAUSE_DURING_FAILOVER).
  server_.pause.Pause(PausePurpose::kFailover, PauseMode::kWrite,
                      std::numeric_limits<std::int64_t>::max(), server_.clock.NowMs());
  getack_due_ = true;
  reply.Ok();
}

void Replication::UpdateFailoverStatus() {
  if (failover_rejected_) {
    failover_rejected_ = false;
    AbortFailover("Failover target rejected psync request");
    return;
  }
  if (failover_ != FailoverState::kWaitForSync) return;
  Logger* log = server_.log;
  if (failover_end_ms_ > 0 && MonotonicMs() >= failover_end_ms_) {
    if (!failover_force_) {
      AbortFailover("Replica never caught up before timeout");
      return;
    }
    if (log != nullptr) {
      log->Log(LogLevel::kNotice, "FAILOVER to %s:%d time out exceeded, failing over.",
               failover_host_.c_str(), failover_port_);
    }
    failover_ = FailoverState::kInProgress;
    BecomeReplicaOf(failover_host_, failover_port_);
    return;
  }
  const ReplicaPeer* synced = nullptr;
  if (!failover_host_.empty()) {
    const ReplicaPeer* target = FindPeer(failover_host_, failover_port_);
    if (target != nullptr && target->ack_offset == master_repl_offset_) synced = target;
  } else {
    for (const auto& peer : replicas_) {
      if (peer->phase == ReplicaPeer::Phase::kOnline && peer->ack_offset == master_repl_offset_) {
        synced = peer.get();
        failover_host_ = PeerIp(*peer);
        failover_port_ = peer->listening_port;
        break;
      }
    }
  }
  if (synced == nullptr) {
    getack_due_ = true;
    return;
  }
  failover_ = FailoverState::kInProgress;
  if (log != nullptr) {
    log->Log(LogLevel::kNotice, "Failover target %s:%d is synced, failing over.",
             failover_host_.c_str(), failover_port_);
  }
  BecomeReplicaOf(failover_host_, failover_port_);
}

void Replication::FailoverAnswered(bool accepted) {
  if (failover_ != FailoverState::kInProgress) return;
  if (accepted) {
    ClearFailover();
  } else {
    // The link that heard the refusal is dropped by the cron, not from inside it.
    failover_rejected_ = true;
  }
}

void Replication::AbortFailover(const char* why) {
  if (failover_ == FailoverState::kNone) return;
  if (server_.log != nullptr) {
    if (!failover_host_.empty()) {
      server_.log->Log(LogLevel::kNotice, "FAILOVER to %s:%d aborted: %s", failover_host_.c_str(),
                       failover_port_, why);
    } else {
      server_.log->Log(LogLevel::kNotice, "FAILOVER to any replica aborted: %s", why);
    }
  }
  if (failover_ == FailoverState::kInProgress) PromoteToMaster();
  ClearFailover();
}

void Replication::ClearFailover() {
  failover_ = FailoverState::kNone;
  failover_host_.clear();
  failover_port_ = 0;
  failover_end_ms_ = 0;
  failover_force_ = false;
  server_.pause.Unpause(PausePurpose::kFailover);
}

void Replication::DisconnectBlockedClients() {
  static constexpr std::string_view kUnblocked =
      "UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
      "replica?)";
  server_.blocking.DisconnectAll(kUnblocked);
  // WAIT's clients too: a replica has no replicas to wait for.
  std::vector<WaitingClient> waiting;
  waiting.swap(waiting_);
  for (const WaitingClient& w : waiting) {
    BlockedClientHost* host = w.session->host;
    protocol::ReplyWriter writer(&host->reply_buffer(), w.session->resp);
    writer.Error(kUnblocked);
    w.session->blocked = false;
    w.session->close_after_reply = true;
    host->Unblocked();
  }
}

}  // namespace warden::server
