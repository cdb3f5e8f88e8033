// Everything a command can see, apart from its own client: configuration, clock, keyspace,
// statistics and the list of clients. It knows nothing of libuv, so command tests build one
// with a ManualClock and run commands through the dispatcher without a socket.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "server/acl/acl.h"
#include "server/blocking.h"
#include "server/client_pause.h"
#include "server/command_names.h"
#include "server/config/config.h"
#include "server/eviction.h"
#include "server/monitor.h"
#include "server/oom_score_adj.h"
#include "server/persistence/aof.h"
#include "server/persistence/migrate_sockets.h"
#include "server/persistence/propagation.h"
#include "server/persistence/snapshots.h"
#include "server/pubsub.h"
#include "server/replication/replication.h"
#include "server/session.h"
#include "server/stats/command_stats.h"
#include "server/stats/info_metrics.h"
#include "server/stats/slowlog.h"
#include "server/tracking.h"
#include "server/watched_keys.h"
#include "storage/active_expiry.h"
#include "storage/clock.h"
#include "storage/databases.h"
#include "storage/random.h"

namespace warden::server {

class TlsContext;
struct DebugControls;

class Logger;
class ScriptEngine;

struct ServerStats {
  std::uint64_t total_connections = 0;
  std::uint64_t rejected_connections = 0;
  std::uint64_t total_commands = 0;
  std::uint64_t keyspace_hits = 0;
  std::uint64_t keyspace_misses = 0;
  std::uint64_t total_net_input_bytes = 0;
  std::uint64_t total_net_output_bytes = 0;
  // Bytes from this server's master and to its replicas, which Redis 7.0 counts apart.
  std::uint64_t total_net_repl_input_bytes = 0;
  std::uint64_t total_net_repl_output_bytes = 0;
  std::uint64_t unexpected_error_replies = 0;
  // Counted for ever where they happen (the keyspaces, eviction, the reclaimer); INFO shows the
  // counts since CONFIG RESETSTAT.
  std::uint64_t expired_keys_before_reset = 0;
  std::uint64_t evicted_keys_before_reset = 0;
  std::uint64_t lazyfreed_before_reset = 0;
  // fork() for a snapshot or a rewrite: how long the last took (the loop waits on it), and how
  // many there were.
  std::int64_t latest_fork_usec = 0;
  std::uint64_t total_forks = 0;
};

// What the network layer offers to commands that act on connections (CLIENT LIST, DEBUG
// faults). Implemented by Server; absent in command tests.
class ConnectionRegistry {
 public:
  virtual ~ConnectionRegistry() = default;
  // Closes every client connection except `keep` (DEBUG fault injection).
  virtual void DropClients(const Session* keep) = 0;
  virtual void ForEachSession(const std::function<void(const Session&)>& fn) const = 0;
  virtual std::size_t connected_clients() const = 0;
  // The connected client with this id (CLIENT TRACKING's REDIRECT), or null.
  virtual Session* FindSession(std::uint64_t id) const = 0;
  // CLIENT KILL: closes every client `match` accepts, except `keep`, at once (replies not yet
  // sent are dropped, as Redis's freeClient drops them). Returns how many it closed.
  virtual std::size_t KillClients(const std::function<bool(const Session&)>& match,
                                  const Session* keep) = 0;
  // SHUTDOWN: from the loop, once the current command is over, does what SIGTERM does.
  virtual void RequestShutdown() = 0;
  // CONFIG SET port/bind: replaces the TCP listeners by ones on config.bind and config.port.
  // Returns true if that failed (none of the new ones is kept; the cause is logged).
  virtual bool Relisten() = 0;
};

// What one command's way through the dispatcher sets and reads: scratch, not state.
struct CallState {
  // Command timing (dispatcher.cc's Call): within one read's batch of pipelined commands, the
  // clock reading that ends one command starts the next, and gives it its time (Clock::NowUsAt),
  // so a command reads the clock once. Set by the connection around its batch; -1 when the next
  // command must read the clock itself.
  bool timing_batch = false;
  std::int64_t next_start_us = -1;
  // How deep in commands run by commands (a script's, EXEC's) the current one is.
  int depth = 0;
  // Set while a script or EXEC runs: commands see this instead of the clock, so a key cannot
  // expire between two calls of one script.
  std::int64_t frozen_now_ms = -1;
  // Whether used memory was past maxmemory when the last top-level command was dispatched with
  // a limit set (Redis's pre_command_oom_state); read only while maxmemory is set, as Redis's
  // scriptVerifyOOM does (ScriptOomDenied).
  bool pre_command_oom = false;
};

class ServerState final : public storage::ExpiryListener {
 public:
  ServerState(Config config, storage::Clock& clock);
  ~ServerState();
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  // Publishes the `expired` notification of a key that lazy or active expiry removed
  // (notify.cc).
  void KeyExpired(int db, std::string_view key) override;

  // Keys past their deadline stay, reading as absent, while clients are paused (Redis keeps
  // the dataset still for a failover) and on a read-only replica (it waits for its master's
  // DELs). Called when either changes.
  void UpdateExpiryHold();
  // Clients blocked in a command, or held by a pause (Redis's BLOCKED_POSTPONE): INFO's
  // blocked_clients and what DEBUG WAIT-BLOCKED counts.
  std::size_t BlockedClients() const {
    return blocking.blocked_clients() + pause.postponed_clients();
  }

  Config config;
  // The names clients call commands by, after the configuration's rename-command lines.
  const CommandNames command_names;
  storage::Clock& clock;
  // The seed of every random choice: `seed` if given, else drawn at start (logged, so a run
  // can be repeated with --seed).
  std::uint64_t seed;
  storage::Random random;
  storage::Databases dbs;
  KeyObserverHub key_observers{dbs};
  WatchedKeys watched_keys{dbs, key_observers};
  Tracking tracking{*this, key_observers};
  storage::ActiveExpiry active_expiry;
  ServerStats stats;
  InfoMetrics info_metrics;
  CommandStats command_stats;
  Acl acl;
  Slowlog slowlog;
  LatencyMonitor latency;
  BlockingRegistry blocking{*this};
  ClientPause pause;
  PubSub pubsub;
  Monitors monitors;
  std::int64_t start_ms;
  std::int64_t start_monotonic_us;
  std::string run_id;
  std::uint64_t next_client_id = 1;
  ConnectionRegistry* connections = nullptr;
  Logger* log = nullptr;
  // The TLS context new TLS connections start from (tls.h); null while tls-port is 0.
  std::shared_ptr<TlsContext> tls;
  std::unique_ptr<ScriptEngine> scripts;
  // Per-command scratch (CallState), and the oom state a script's writes are checked against.
  CallState call;
  bool ScriptOomDenied() const { return config.maxmemory > 0 && call.pre_command_oom; }
  EvictionState eviction;
  // The append-only file; replication, both roles; and what feeds them (off unless
  // appendonly yes or replicas are fed).
  Aof aof{*this};
  Replication replication{*this};
  Propagation propagation{aof, replication};
  // RDB snapshots: SAVE, BGSAVE, the save points, the load at start.
  Snapshots snapshots{*this};
  // MIGRATE's connections, kept between calls as Redis keeps them.
  MigrateSockets migrate_sockets{random};
  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE takes payloads whatever their CRC (Redis's
  // server.skip_checksum_validation).
  bool skip_checksum_validation = false;
  // While the append-only file loads (Redis's server.loading): no eviction, no propagation.
  bool loading = false;
  // The OOM killer's score (oom-score-adj): set at start, on CONFIG SET, when the role changes
  // and in each forked child, through AdjustOomScore.
  OomScoreAdjuster oom_score;

  // What only a test double uses (server/debug/debug_controls.h). Declared last: its snapshots
  // go before the databases whose pool and reclaimer they use.
  std::unique_ptr<DebugControls> debug;

  std::int64_t NowMs() const {
    return call.frozen_now_ms >= 0 ? call.frozen_now_ms : clock.NowMs();
  }
  std::uint64_t NewClientId() { return next_client_id++; }
  // CONFIG RESETSTAT: what Redis's resetServerStats, resetCommandTableStats and
  // resetErrorTableStats clear. The slow log and the latency monitor's events stay.
  void ResetStats();
  // Redis's setOOMScoreAdj: the score for a forked child (`child`), else for a master or a
  // replica, as the role is now. A failure is logged; returns false then.
  bool AdjustOomScore(bool child = false);
  // A forked child's first step once it has closed what it does not need: its log lines are a
  // child's (syslog connected anew), and so is its OOM score.
  void EnterForkedChild();
};

}  // namespace warden::server
