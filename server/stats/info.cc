// INFO: Redis 7.0's default sections and their fields, by the same names and formats, so that
// dashboards and exporters written for redis-server read warden as they read it.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <climits>
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

// gcc_version: the compiler's version, as Redis prints __GNUC__.__GNUC_MINOR__.__GNUC_PATCHLEVEL__.
std::string CompilerVersion() {
#if defined(__GNUC__)
  return std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "0.0.0";
#endif
}

std::string Supervised(std::string_view mode) {
  if (mode == "auto") return std::getenv("NOTIFY_SOCKET") != nullptr ? "systemd" : "no";
  return std::string(mode);
}

// The running binary, absolute (Redis makes argv[0] absolute; /proc names the real file).
std::string Executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty()) return path;
  char* real = realpath(path.c_str(), nullptr);
  if (real == nullptr) return path;
  std::string out(real);
  std::free(real);
  return out;
}

std::size_t SystemMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

double Nonzero(std::size_t n) { return n == 0 ? 1.0 : static_cast<double>(n); }

std::string Percent(double p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f%%", p);
  return buf;
}

// "<name>_ratio:%.2f" and "<name>_bytes:%d", as Redis prints its fragmentation figures.
void Ratio(std::string& out, std::string_view name, std::size_t a, std::size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(a) / Nonzero(b));
  Field(out, std::string(name) + "_ratio", buf);
  Field(out, std::string(name) + "_bytes",
        static_cast<std::int64_t>(a) - static_cast<std::int64_t>(b));
}

void Kbps(std::string& out, std::string_view name, std::int64_t bytes_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(bytes_per_second) / 1024);
  Field(out, name, buf);
}

// What glibc's allocator holds (warden is built on libc malloc, not jemalloc): bytes in use,
// bytes of heap it has touched, and what is resident for the process.
struct AllocatorFigures {
  std::size_t allocated = 0;
  std::size_t active = 0;
  std::size_t resident = 0;
};

AllocatorFigures Allocator(std::size_t rss) {
  const struct mallinfo2 info = mallinfo2();
  AllocatorFigures f;
  f.allocated = info.uordblks + info.hblkhd;
  f.active = info.arena + info.hblkhd;
  f.resident = std::max(rss, f.active);
  return f;
}

// The clients' query and reply buffers (CLIENT LIST's tot-mem), replicas apart.
struct ClientMemory {
  std::size_t normal = 0;
  std::size_t replicas = 0;
};

ClientMemory ClientBuffers(const ServerState& s) {
  ClientMemory m;
  if (s.connections == nullptr) return m;
  s.connections->ForEachSession([&](const Session& session) {
    const std::size_t bytes =
        session.query_buffer_bytes + session.query_buffer_free + session.output_bytes;
    (session.is_replica ? m.replicas : m.normal) += bytes;
  });
  return m;
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
  Field(out, "atomicvar_api", "c11-builtin");
  Field(out, "gcc_version", CompilerVersion());
  Field(out, "process_id", static_cast<std::int64_t>(getpid()));
  Field(out, "process_supervised", Supervised(s.config.supervised));
  Field(out, "run_id", s.run_id);
  Field(out, "tcp_port", s.config.port);
  Field(out, "server_time_usec", s.clock.NowUs());
  Field(out, "uptime_in_seconds", uptime_s);
  Field(out, "uptime_in_days", uptime_s / 86400);
  Field(out, "hz", s.config.hz);
  Field(out, "configured_hz", s.config.hz);
  // Redis's LRU clock: seconds in 24 bits.
  Field(out, "lru_clock", (s.clock.NowMs() / 1000) & ((1 << 24) - 1));
  Field(out, "executable", Executable());
  Field(out, "config_file", AbsolutePath(s.config.config_file));
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
  Field(out, "blocked_clients", static_cast<std::int64_t>(s.BlockedClients()));
  Field(out, "tracking_clients", static_cast<std::int64_t>(s.tracking.clients()));
  Field(out, "clients_in_timeout_table",
        static_cast<std::int64_t>(s.blocking.clients_with_deadline()));
  out.append("\r\n");
}

void MemorySection(const CommandContext& ctx, std::string& out) {
  const ServerState& s = ctx.server;
  const std::size_t used = UsedMemory(s);
  const std::size_t rss = ResidentBytes();
  // Raised here too, so the peak shown is never below used_memory beside it.
  const std::size_t peak = s.info_metrics.NotePeak(used);
  const std::size_t startup = s.info_metrics.startup_bytes;
  const std::size_t dataset = std::min(s.dbs.memory_bytes(), used);
  const std::size_t net = used > startup ? used - startup : 1;
  const AllocatorFigures alloc = Allocator(rss);
  out.append("# Memory\r\n");
  Field(out, "used_memory", static_cast<std::int64_t>(used));
  Field(out, "used_memory_human", HumanBytes(used));
  Field(out, "used_memory_rss", static_cast<std::int64_t>(rss));
  Field(out, "used_memory_rss_human", HumanBytes(rss));
  Field(out, "used_memory_peak", static_cast<std::int64_t>(peak));
  Field(out, "used_memory_peak_human", HumanBytes(peak));
  Field(out, "used_memory_peak_perc", Percent(static_cast<double>(used) * 100 / Nonzero(peak)));
  Field(out, "used_memory_overhead", static_cast<std::int64_t>(used - dataset));
  Field(out, "used_memory_startup", static_cast<std::int64_t>(startup));
  Field(out, "used_memory_dataset", static_cast<std::int64_t>(dataset));
  Field(out, "used_memory_dataset_perc",
        Percent(static_cast<double>(dataset) * 100 / static_cast<double>(net)));
  Field(out, "allocator_allocated", static_cast<std::int64_t>(alloc.allocated));
  Field(out, "allocator_active", static_cast<std::int64_t>(alloc.active));
  Field(out, "allocator_resident", static_cast<std::int64_t>(alloc.resident));
  const std::size_t total_memory = SystemMemory();
  Field(out, "total_system_memory", static_cast<std::int64_t>(total_memory));
  Field(out, "total_system_memory_human", HumanBytes(total_memory));
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
  Ratio(out, "allocator_frag", alloc.active, alloc.allocated);
  Ratio(out, "allocator_rss", alloc.resident, alloc.active);
  Ratio(out, "rss_overhead", rss, alloc.resident);
  Ratio(out, "mem_fragmentation", rss, used);
  // Eviction counts all of used_memory (Redis leaves out replica buffers and the AOF buffer).
  Field(out, "mem_not_counted_for_evict", "0");
  const ClientMemory clients = ClientBuffers(s);
  const auto backlog = static_cast<std::int64_t>(s.replication.backlog_bytes());
  Field(out, "mem_replication_backlog", backlog);
  Field(out, "mem_total_replication_buffers", backlog);
  Field(out, "mem_clients_slaves", static_cast<std::int64_t>(clients.replicas));
  Field(out, "mem_clients_normal", static_cast<std::int64_t>(clients.normal));
  Field(out, "mem_cluster_links", "0");
  Field(out, "mem_aof_buffer", static_cast<std::int64_t>(s.aof.on() ? s.aof.buffer_bytes() : 0));
  Field(out, "mem_allocator", "libc");
  // warden's pool needs no defragmentation.
  Field(out, "active_defrag_running", "0");
  // Large values and flushed databases waiting for the reclaimer, and those it freed.
  Field(out, "lazyfree_pending_objects",
        static_cast<std::int64_t>(ctx.server.dbs.reclaimer().pending()));
  Field(out, "lazyfreed_objects",
        static_cast<std::int64_t>(ctx.server.dbs.reclaimer().freed() -
                                  ctx.server.stats.lazyfreed_before_reset));
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
  const InfoMetrics& m = s.info_metrics;
  Field(out, "instantaneous_ops_per_sec", m.PerSecond(InfoMetrics::kCommands));
  Field(out, "total_net_input_bytes", static_cast<std::int64_t>(s.stats.total_net_input_bytes));
  Field(out, "total_net_output_bytes", static_cast<std::int64_t>(s.stats.total_net_output_bytes));
  Field(out, "total_net_repl_input_bytes",
        static_cast<std::int64_t>(s.stats.total_net_repl_input_bytes));
  Field(out, "total_net_repl_output_bytes",
        static_cast<std::int64_t>(s.stats.total_net_repl_output_bytes));
  Kbps(out, "instantaneous_input_kbps", m.PerSecond(InfoMetrics::kNetInput));
  Kbps(out, "instantaneous_output_kbps", m.PerSecond(InfoMetrics::kNetOutput));
  Kbps(out, "instantaneous_input_repl_kbps", m.PerSecond(InfoMetrics::kReplInput));
  Kbps(out, "instantaneous_output_repl_kbps", m.PerSecond(InfoMetrics::kReplOutput));
  Field(out, "rejected_connections", static_cast<std::int64_t>(s.stats.rejected_connections));
  Field(out, "sync_full", static_cast<std::int64_t>(s.replication.sync_full()));
  Field(out, "sync_partial_ok", static_cast<std::int64_t>(s.replication.sync_partial_ok()));
  Field(out, "sync_partial_err", static_cast<std::int64_t>(s.replication.sync_partial_err()));
  Field(out, "expired_keys",
        static_cast<std::int64_t>(s.dbs.expired_keys() - s.stats.expired_keys_before_reset));
  char stale[32];
  std::snprintf(stale, sizeof(stale), "%.2f", s.active_expiry.stale_percent());
  Field(out, "expired_stale_perc", stale);
  // Slices of active expiry that stopped on their time budget with expired keys left.
  Field(out, "expired_time_cap_reached_count",
        static_cast<std::int64_t>(s.active_expiry.slices_out_of_budget()));
  Field(out, "expire_cycle_cpu_milliseconds", s.active_expiry.busy_us() / 1000);
  Field(out, "evicted_keys",
        static_cast<std::int64_t>(s.eviction.evicted_keys - s.stats.evicted_keys_before_reset));
  // No maxmemory-clients here: no client is evicted for its buffers.
  Field(out, "evicted_clients", "0");
  Field(out, "total_eviction_exceeded_time", "0");
  Field(out, "current_eviction_exceeded_time", "0");
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
  // A replica keeps no keys with TTLs of its own (writable-replica expiry).
  Field(out, "slave_expires_tracked_keys", "0");
  Field(out, "active_defrag_hits", "0");
  Field(out, "active_defrag_misses", "0");
  Field(out, "active_defrag_key_hits", "0");
  Field(out, "active_defrag_key_misses", "0");
  Field(out, "total_active_defrag_time", "0");
  Field(out, "current_active_defrag_time", "0");
  Field(out, "tracking_total_keys", static_cast<std::int64_t>(s.tracking.total_keys()));
  Field(out, "tracking_total_items", static_cast<std::int64_t>(s.tracking.total_items()));
  Field(out, "tracking_total_prefixes", static_cast<std::int64_t>(s.tracking.total_prefixes()));
  Field(out, "unexpected_error_replies",
        static_cast<std::int64_t>(s.stats.unexpected_error_replies));
  Field(out, "total_error_replies",
        static_cast<std::int64_t>(s.command_stats.total_error_replies()));
  // Payloads are always checked deeply (sanitize-dump-payload), never counted as sanitized.
  Field(out, "dump_payload_sanitizations", "0");
  Field(out, "total_reads_processed", static_cast<std::int64_t>(m.reads_processed));
  Field(out, "total_writes_processed", static_cast<std::int64_t>(m.writes_processed));
  Field(out, "io_threaded_reads_processed", "0");
  Field(out, "io_threaded_writes_processed", "0");
  Field(out, "reply_buffer_shrinks", "0");
  Field(out, "reply_buffer_expands", "0");
  Field(out, "active_expire_slices", static_cast<std::int64_t>(s.active_expiry.slices()));
  out.append("\r\n");
}

void ReplicationSection(const CommandContext& ctx, std::string& out) {
  ctx.server.replication.AppendInfo(out);
}

void CpuSeconds(std::string& out, std::string_view name, const timeval& tv) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(tv.tv_sec),
                static_cast<long>(tv.tv_usec));
  Field(out, name, buf);
}

void CpuSection(const CommandContext&, std::string& out) {
  rusage self{};
  rusage children{};
  rusage thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  out.append("# CPU\r\n");
  CpuSeconds(out, "used_cpu_sys", self.ru_stime);
  CpuSeconds(out, "used_cpu_user", self.ru_utime);
  CpuSeconds(out, "used_cpu_sys_children", children.ru_stime);
  CpuSeconds(out, "used_cpu_user_children", children.ru_utime);
  CpuSeconds(out, "used_cpu_sys_main_thread", thread.ru_stime);
  CpuSeconds(out, "used_cpu_user_main_thread", thread.ru_utime);
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

}  // namespace warden::server
