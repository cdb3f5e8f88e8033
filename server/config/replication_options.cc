// The replication rows, with Redis 7.0's names, aliases, bounds and defaults (config.c).
#include <array>
#include <charconv>

#include "server/command_context.h"
#include "server/config/config_options.h"
#include "server/config/option_rows.h"
#include "server/replication/replication.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

using namespace config_values;  // NOLINT(build/namespaces): the table is built from them
using namespace option_rows;    // NOLINT(build/namespaces)

template <auto M>
using R = SubField<&Config::repl, M>;

constexpr std::array<std::string_view, 3> kDisklessLoad = {"disabled", "on-empty-db", "swapdb"};

// replicaof <host> <port> | no one (Redis's setConfigReplicaOfOption): read at start only.
ConfigSetResult SetReplicaof(Config& c, Words w) {
  if (w.size() != 2) return std::string("wrong number of arguments");
  if (EqualsNoCase(w[0], "no") && EqualsNoCase(w[1], "one")) {
    c.repl.master_host.clear();
    c.repl.master_port = 0;
    return std::nullopt;
  }
  int port = 0;
  const auto [end, ec] = std::from_chars(w[1].data(), w[1].data() + w[1].size(), port);
  if (ec != std::errc() || end != w[1].data() + w[1].size() || port < 0 || port > 65535) {
    return std::string("Invalid master port");
  }
  c.repl.master_host.assign(w[0]);
  c.repl.master_port = port;
  return std::nullopt;
}

std::string GetReplicaof(const Config& c) {
  if (c.repl.master_host.empty()) return std::string();
  return c.repl.master_host + " " + std::to_string(c.repl.master_port);
}

ConfigSetResult ApplyReadOnly(ServerState& s) {
  s.replication.UpdateFeeding();
  return std::nullopt;
}

ConfigSetResult ApplyBacklogSize(ServerState& s) {
  s.replication.ResizeBacklog();
  return std::nullopt;
}

const ConfigOption kReplicationOptions[] = {
    Special("replicaof", kConfigImmutable | kConfigMultiWord,
            "<host> <port>: start as a replica of this master", SetReplicaof, GetReplicaof,
            GetReplicaof, nullptr, "slaveof"),
    String<R<&ReplicationConfig::masterauth>>("masterauth", kConfigSensitive,
                                              "password for the master"),
    String<R<&ReplicationConfig::masteruser>>("masteruser", 0, "ACL user for the master"),
    String<R<&ReplicationConfig::announce_ip>>(
        "replica-announce-ip", 0, "address the master is told", nullptr, "slave-announce-ip"),
    Int<R<&ReplicationConfig::announce_port>, 0, 65535>("replica-announce-port", 0,
                                                        "port the master is told (0: port)",
                                                        nullptr, "slave-announce-port"),
    Bool<R<&ReplicationConfig::serve_stale_data>>("replica-serve-stale-data", 0,
                                                  "serve data while the master link is down",
                                                  nullptr, "slave-serve-stale-data"),
    Bool<R<&ReplicationConfig::read_only>>("replica-read-only", 0, "refuse writes on a replica",
                                           ApplyReadOnly, "slave-read-only"),
    Int<R<&ReplicationConfig::priority>, 0, kIntMax>(
        "replica-priority", 0, "Sentinel's promotion order (0: never)", nullptr, "slave-priority"),
    Bool<R<&ReplicationConfig::announced>>("replica-announced", 0, "listed by Sentinel"),
    Bool<R<&ReplicationConfig::ignore_maxmemory>>("replica-ignore-maxmemory", 0,
                                                  "accepted; a replica evicts nothing itself",
                                                  nullptr, "slave-ignore-maxmemory"),
    Bool<R<&ReplicationConfig::ignore_disk_write_errors>>(
        "replica-ignore-disk-write-errors", 0, "apply the master's writes despite MISCONF"),
    Bool<R<&ReplicationConfig::lazy_flush>>("replica-lazy-flush", 0,
                                            "free the old data set in the background on sync",
                                            nullptr, "slave-lazy-flush"),
    Memory<R<&ReplicationConfig::backlog_size>, 1, kLongMax>(
        "repl-backlog-size", 0, "history kept for partial resyncs", ApplyBacklogSize),
    Int<R<&ReplicationConfig::backlog_ttl_s>, 0, kIntMax>(
        "repl-backlog-ttl", 0, "seconds without replicas before the backlog is freed"),
    Bool<R<&ReplicationConfig::diskless_sync>>("repl-diskless-sync", 0,
                                               "send full syncs straight to the socket"),
    Int<R<&ReplicationConfig::diskless_sync_delay_s>, 0, kIntMax>(
        "repl-diskless-sync-delay", 0, "seconds to wait for more replicas"),
    Int<R<&ReplicationConfig::diskless_sync_max_replicas>, 0, kIntMax>(
        "repl-diskless-sync-max-replicas", 0, "start at once with this many waiting"),
    Enum<R<&ReplicationConfig::diskless_load>, kDisklessLoad>(
        "repl-diskless-load", 0, "accepted: warden loads a sync from memory"),
    Int<R<&ReplicationConfig::ping_period_s>, 1, kIntMax>("repl-ping-replica-period", 0,
                                                          "seconds between pings to replicas",
                                                          nullptr, "repl-ping-slave-period"),
    Int<R<&ReplicationConfig::timeout_s>, 1, kIntMax>("repl-timeout", 0,
                                                      "seconds a silent link lasts"),
    Bool<R<&ReplicationConfig::disable_tcp_nodelay>>("repl-disable-tcp-nodelay", 0,
                                                     "accepted; replicas are written at once"),
    Int<R<&ReplicationConfig::min_replicas_to_write>, 0, kIntMax>(
        "min-replicas-to-write", 0, "refuse writes with fewer good replicas", nullptr,
        "min-slaves-to-write"),
    Int<R<&ReplicationConfig::min_replicas_max_lag_s>, 0, kIntMax>(
        "min-replicas-max-lag", 0, "seconds since its ACK for a replica to count", nullptr,
        "min-slaves-max-lag"),
};

}  // namespace

std::span<const ConfigOption> ReplicationConfigOptions() { return kReplicationOptions; }

}  // namespace warden::server
