// INFO, TIME, WAIT and DEBUG.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/scripting/script_engine.h"
#include "server/stats/memory_meter.h"
#include "server/version.h"

namespace warden::server {
namespace {

std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  std::size_t resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::string HumanBytes(std::size_t n) {
  char buf[32];
  const double d = static_cast<double>(n);
  if (n < 1024) {
    std::snprintf(buf, sizeof(buf), "%zuB", n);
  } else if (n < 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < 1024ULL * 1024 * 1024) {
    std::snprintf(buf, sizeof(buf), "%.2fM", d / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof(buf), "%.2fG", d / (1024.0 * 1024 * 1024));
  }
  return buf;
}

// Appends "name:value\r\n".
void Field(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.push_back(':');
  out.append(value);
  out.append("\r\n");
}

void Field(std::string& out, std::string_view name, std::int64_t value) {
  Field(out, name, std::to_string(value));
}

struct InfoSection {
  std::string_view name;  // lower case
  bool in_default;
  void (*write)(const CommandContext& ctx, std::string& out);
};

void ServerSection(const CommandContext& ctx, std::string& out) {
  const ServerState& s = ctx.server;
  utsname uts{};
  uname(&uts);
  const std::int64_t uptime_s = (s.clock.MonotonicUs() - s.start_monotonic_us) / 1000000;
  out.append("# Server\r\n");
  Field(out, "redis_version", kRedisVersion);
  Field(out, "redis_git_sha1", "00000000");
  Field(out, "redis_git_dirty", "0");
  Field(out, "redis_build_id", "0");
  Field(out, "redis_mode", "standalone");
  Field(out, "warden_version", kWardenVersion);
  Field(out, "os", std::string(uts.sysname) + " " + uts.release + " " + uts.machine);
  Field(out, "arch_bits", "64");
  Field(out, "monotonic_clock", "POSIX clock_gettime");
  Field(out, "multiplexing_api", "epoll");
  Field(out, "process_id", static_cast<std::int64_t>(getpid()));
  Field(out, "process_supervised", "no");
  Field(out, "run_id", s.run_id);
  Field(out, "tcp_port", s.config.port);
  Field(out, "server_time_usec", s.clock.NowUs());
  Field(out, "uptime_in_seconds", uptime_s);
  Field(out, "uptime_in_days", uptime_s / 86400);
  Field(out, "hz", s.config.hz);
  Field(out, "configured_hz", s.config.hz);
  Field(out, "executable", "");
  Field(out, "config_file", s.config.config_file);
  Field(out, "io_threads_active", "0");
  out.append("\r\n");
}

void ClientsSection(const CommandContext& ctx, std::string& out) {
  const ServerState& s = ctx.server;
  const std::size_t clients = s.connections != nullptr ? s.connections->connected_clients() : 1;
  out.append("# Clients\r\n");
  Field(out, "connected_clients", static_cast<std::int64_t>(clients));
  Field(out, "cluster_connections", "0");
  Field(out, "maxclients", s.config.maxclients);
  Field(out, "client_recent_max_input_buffer", "0");
  Field(out, "client_recent_max_output_buffer", "0");
  Field(out, "blocked_clients", static_cast<std::int64_t>(s.blocking.blocked_clients()));
  Field(out, "tracking_clients", static_cast<std::int64_t>(s.tracking.clients()));
  Field(out, "clients_in_timeout_table",
        static_cast<std::int64_t>(s.blocking.clients_with_deadline()));
  out.append("\r\n");
}

void MemorySection(const CommandContext& ctx, std::string& out) {
  const std::size_t used = UsedMemory(ctx.server);
  const std::size_t rss = ResidentBytes();
  out.append("# Memory\r\n");
  Field(out, "used_memory", static_cast<std::int64_t>(used));
  Field(out, "used_memory_human", HumanBytes(used));
  Field(out, "used_memory_rss", static_cast<std::int64_t>(rss));
  Field(out, "used_memory_rss_human", HumanBytes(rss));
  Field(out, "used_memory_dataset", static_cast<std::int64_t>(ctx.server.dbs.memory_bytes()));
  // The script fields of Redis 7.0. Functions share EVAL's Lua state, so its memory is all
  // counted as eval's.
  const ScriptEngine& engine = *ctx.server.scripts;
  const auto lua = static_cast<std::int64_t>(engine.memory_bytes());
  const auto functions = static_cast<std::int64_t>(engine.functions_bytes());
  const auto scripts = static_cast<std::int64_t>(engine.scripts_bytes()) + functions;
  Field(out, "used_memory_lua", lua);
  Field(out, "used_memory_vm_eval", lua);
  Field(out, "used_memory_lua_human", HumanBytes(static_cast<std::size_t>(lua)));
  Field(out, "used_memory_scripts_eval", scripts - functions);
  Field(out, "number_of_cached_scripts",
        static_cast<std::int64_t>(ctx.server.scripts->cached_scripts()));
  Field(out, "number_of_functions", static_cast<std::int64_t>(engine.function_count()));
  Field(out, "number_of_libraries", static_cast<std::int64_t>(engine.libraries().size()));
  Field(out, "used_memory_vm_functions", "0");
  Field(out, "used_memory_vm_total", lua);
  Field(out, "used_memory_vm_total_human", HumanBytes(static_cast<std::size_t>(lua)));
  Field(out, "used_memory_functions", functions);
  Field(out, "used_memory_scripts", scripts);
  Field(out, "used_memory_scripts_human", HumanBytes(static_cast<std::size_t>(scripts)));
  const std::int64_t maxmemory = ctx.server.config.maxmemory;
  Field(out, "maxmemory", maxmemory);
  Field(out, "maxmemory_human", HumanBytes(static_cast<std::size_t>(maxmemory)));
  Field(out, "maxmemory_policy", ctx.server.config.maxmemory_policy);
  // Eviction counts all of used_memory (Redis leaves out replica buffers and the AOF buffer).
  Field(out, "mem_not_counted_for_evict", "0");
  Field(out, "mem_allocator", "libc");
  // Large values and flushed databases waiting for the reclaimer.
  Field(out, "lazyfree_pending_objects",
        static_cast<std::int64_t>(ctx.server.dbs.reclaimer().pending()));
  out.append("\r\n");
}

void PersistenceSection(const CommandContext& ctx, std::string& out) {
  const Aof& aof = ctx.server.aof;
  out.append("# Persistence\r\n");
  const Snapshots& snapshots = ctx.server.snapshots;
  Field(out, "loading", "0");
  Field(out, "async_loading", "0");
  Field(out, "current_cow_peak", "0");
  Field(out, "current_cow_size", "0");
  Field(out, "current_cow_size_age", "0");
  Field(out, "current_fork_perc", "0.00");
  Field(out, "current_save_keys_processed", "0");
  Field(out, "current_save_keys_total", "0");
  Field(out, "rdb_changes_since_last_save",
        static_cast<std::int64_t>(snapshots.changes_since_save()));
  Field(out, "rdb_bgsave_in_progress", snapshots.saving() ? "1" : "0");
  Field(out, "rdb_last_save_time", snapshots.last_save_time());
  Field(out, "rdb_last_bgsave_status", snapshots.last_bgsave_ok() ? "ok" : "err");
  Field(out, "rdb_last_bgsave_time_sec", snapshots.last_bgsave_seconds());
  Field(out, "rdb_current_bgsave_time_sec", snapshots.current_bgsave_seconds());
  Field(out, "rdb_saves", static_cast<std::int64_t>(snapshots.saves()));
  Field(out, "rdb_last_cow_size", "0");
  Field(out, "rdb_last_load_keys_expired",
        static_cast<std::int64_t>(snapshots.last_load_keys_expired()));
  Field(out, "rdb_last_load_keys_loaded",
        static_cast<std::int64_t>(snapshots.last_load_keys_loaded()));
  Field(out, "aof_enabled", aof.on() ? "1" : "0");
  Field(out, "aof_rewrite_in_progress", aof.rewriting() ? "1" : "0");
  Field(out, "aof_rewrite_scheduled", aof.rewrite_scheduled() ? "1" : "0");
  Field(out, "aof_last_rewrite_time_sec", aof.last_rewrite_seconds());
  Field(out, "aof_current_rewrite_time_sec",
        aof.rewriting() ? (ctx.server.clock.MonotonicUs() / 1000 - aof.rewrite_started_ms()) / 1000
                        : -1);
  Field(out, "aof_last_bgrewrite_status", aof.last_rewrite_ok() ? "ok" : "err");
  Field(out, "aof_rewrites", static_cast<std::int64_t>(aof.rewrites()));
  Field(out, "aof_rewrites_consecutive_failures", "0");
  Field(out, "aof_last_write_status", aof.last_write_ok() ? "ok" : "err");
  Field(out, "aof_last_cow_size", "0");
  Field(out, "module_fork_in_progress", "0");
  Field(out, "module_fork_last_cow_size", "0");
  if (aof.on()) {
    Field(out, "aof_current_size", static_cast<std::int64_t>(aof.current_size()));
    Field(out, "aof_base_size", static_cast<std::int64_t>(aof.base_size()));
    Field(out, "aof_pending_rewrite", "0");
    Field(out, "aof_buffer_length", static_cast<std::int64_t>(aof.buffer_bytes()));
    Field(out, "aof_pending_bio_fsync", "0");
    Field(out, "aof_delayed_fsync", static_cast<std::int64_t>(aof.delayed_fsyncs()));
  }
  out.append("\r\n");
}

void StatsSection(const CommandContext& ctx, std::string& out) {
  const ServerState& s = ctx.server;
  out.append("# Stats\r\n");
  Field(out, "total_connections_received", static_cast<std::int64_t>(s.stats.total_connections));
  Field(out, "total_commands_processed", static_cast<std::int64_t>(s.stats.total_commands));
  Field(out, "total_net_input_bytes", static_cast<std::int64_t>(s.stats.total_net_input_bytes));
  Field(out, "total_net_output_bytes", static_cast<std::int64_t>(s.stats.total_net_output_bytes));
  Field(out, "rejected_connections", static_cast<std::int64_t>(s.stats.rejected_connections));
  Field(out, "sync_full", static_cast<std::int64_t>(s.replication.sync_full()));
  Field(out, "sync_partial_ok", static_cast<std::int64_t>(s.replication.sync_partial_ok()));
  Field(out, "sync_partial_err", static_cast<std::int64_t>(s.replication.sync_partial_err()));
  Field(out, "expired_keys",
        static_cast<std::int64_t>(s.dbs.expired_keys() - s.stats.expired_keys_before_reset));
  char stale[32];
  std::snprintf(stale, sizeof(stale), "%.2f", s.active_expiry.stale_percent());
  Field(out, "expired_stale_perc", stale);
  Field(out, "evicted_keys",
        static_cast<std::int64_t>(s.eviction.evicted_keys - s.stats.evicted_keys_before_reset));
  Field(out, "keyspace_hits", static_cast<std::int64_t>(s.stats.keyspace_hits));
  Field(out, "keyspace_misses", static_cast<std::int64_t>(s.stats.keyspace_misses));
  // Counted here, in O(channels): INFO is rare.
  std::int64_t channels = 0;
  std::int64_t shard_channels = 0;
  s.pubsub.ForEachChannel(PubSub::Kind::kChannel, [&](std::string_view) { ++channels; });
  s.pubsub.ForEachChannel(PubSub::Kind::kShard, [&](std::string_view) { ++shard_channels; });
  Field(out, "pubsub_channels", channels);
  Field(out, "pubsub_patterns", static_cast<std::int64_t>(s.pubsub.pattern_count()));
  Field(out, "pubsubshard_channels", shard_channels);
  Field(out, "latest_fork_usec", s.stats.latest_fork_usec);
  Field(out, "total_forks", static_cast<std::int64_t>(s.stats.total_forks));
  // MIGRATE keeps no connection between calls.
  Field(out, "migrate_cached_sockets", "0");
  Field(out, "tracking_total_keys", static_cast<std::int64_t>(s.tracking.total_keys()));
  Field(out, "tracking_total_items", static_cast<std::int64_t>(s.tracking.total_items()));
  Field(out, "tracking_total_prefixes", static_cast<std::int64_t>(s.tracking.total_prefixes()));
  Field(out, "unexpected_error_replies",
        static_cast<std::int64_t>(s.stats.unexpected_error_replies));
  Field(out, "total_error_replies",
        static_cast<std::int64_t>(s.command_stats.total_error_replies()));
  Field(out, "active_expire_slices", static_cast<std::int64_t>(s.active_expiry.slices()));
  out.append("\r\n");
}

void ReplicationSection(const CommandContext& ctx, std::string& out) {
  ctx.server.replication.AppendInfo(out);
}

void CpuSection(const CommandContext&, std::string& out) {
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  char buf[32];
  out.append("# CPU\r\n");
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(self.ru_stime.tv_sec),
                static_cast<long>(self.ru_stime.tv_usec));
  Field(out, "used_cpu_sys", buf);
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(self.ru_utime.tv_sec),
                static_cast<long>(self.ru_utime.tv_usec));
  Field(out, "used_cpu_user", buf);
  out.append("\r\n");
}

void ModulesSection(const CommandContext&, std::string& out) { out.append("# Modules\r\n\r\n"); }

void CommandstatsSection(const CommandContext& ctx, std::string& out) {
  out.append("# Commandstats\r\n");
  AppendCommandStats(ctx.server.command_stats, out);
  out.append("\r\n");
}

void ErrorstatsSection(const CommandContext& ctx, std::string& out) {
  out.append("# Errorstats\r\n");
  AppendErrorStats(ctx.server.command_stats, out);
  out.append("\r\n");
}

void LatencystatsSection(const CommandContext& ctx, std::string& out) {
  out.append("# Latencystats\r\n");
  if (ctx.server.config.latency_tracking) {
    AppendLatencyStats(ctx.server.command_stats,
                       ctx.server.config.latency_tracking_info_percentiles, out);
  }
  out.append("\r\n");
}

void ClusterSection(const CommandContext&, std::string& out) {
  out.append("# Cluster\r\n");
  Field(out, "cluster_enabled", "0");
  out.append("\r\n");
}

void KeyspaceSection(const CommandContext& ctx, std::string& out) {
  out.append("# Keyspace\r\n");
  for (int i = 0; i < ctx.server.dbs.count(); ++i) {
    const storage::Keyspace& keyspace = ctx.server.dbs.db(i);
    if (keyspace.size() == 0) continue;
    char line[128];
    std::snprintf(line, sizeof(line), "db%d:keys=%zu,expires=%zu,avg_ttl=%" PRId64 "\r\n", i,
                  keyspace.size(), keyspace.volatile_size(),
                  ctx.server.active_expiry.average_ttl_ms());
    out.append(line);
  }
  out.append("\r\n");
}

constexpr InfoSection kSections[] = {
    {"server", true, ServerSection},
    {"clients", true, ClientsSection},
    {"memory", true, MemorySection},
    {"persistence", true, PersistenceSection},
    {"stats", true, StatsSection},
    {"replication", true, ReplicationSection},
    {"cpu", true, CpuSection},
    {"modules", true, ModulesSection},
    {"commandstats", false, CommandstatsSection},
    {"errorstats", true, ErrorstatsSection},
    {"latencystats", false, LatencystatsSection},
    {"cluster", true, ClusterSection},
    {"keyspace", true, KeyspaceSection},
};

}  // namespace

void InfoCommand(CommandContext& ctx) {
  std::string out;
  bool wanted[std::size(kSections)] = {};
  if (ctx.argc() == 1) {
    for (std::size_t i = 0; i < std::size(kSections); ++i) wanted[i] = kSections[i].in_default;
  }
  for (std::size_t j = 1; j < ctx.argc(); ++j) {
    const std::string_view arg = ctx.arg(j);
    const bool every = ArgIs(arg, "all") || ArgIs(arg, "everything");
    for (std::size_t i = 0; i < std::size(kSections); ++i) {
      if (every || (ArgIs(arg, "default") && kSections[i].in_default) ||
          ArgIs(arg, kSections[i].name)) {
        wanted[i] = true;
      }
    }
  }
  for (std::size_t i = 0; i < std::size(kSections); ++i) {
    if (wanted[i]) kSections[i].write(ctx, out);
  }
  // Sections end with a blank line, except the last one.
  if (out.size() >= 2) out.resize(out.size() - 2);
  ctx.reply.Verbatim(out);
}

void TimeCommand(CommandContext& ctx) {
  const std::int64_t now_us = ctx.server.clock.NowUs();
  ctx.reply.ArrayHeader(2);
  ctx.reply.BulkInteger(now_us / 1000000);
  ctx.reply.BulkInteger(now_us % 1000000);
}

void WaitCommand(CommandContext& ctx) {
  std::int64_t replicas = 0;
  std::int64_t timeout = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(1), replicas)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (!protocol::ParseStrictInt64(ctx.arg(2), timeout)) {
    ctx.reply.Error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return;
  }
  ctx.server.replication.WaitCommand(ctx.session, replicas, timeout, ctx.reply);
}

}  // namespace warden::server
