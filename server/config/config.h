// Server configuration: the options warden has, their defaults, and parsing from the command
// line and from a redis.conf-style file. Option names are Redis's where Redis has the option.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/encoding_limits.h"

namespace warden::server {

enum class DebugCommandPolicy { kNo, kYes, kLocal };
// tls-auth-clients: whether a TLS client must present a certificate the CA list verifies.
enum class TlsAuthClients { kNo, kYes, kOptional };
// oom-score-adj: whether the OOM killer's score is left as it is, set to oom-score-adj-values
// added to the score at start, or set to them as they are (oom_score_adj.h).
enum class OomScoreAdj { kNo, kRelative, kAbsolute };

// 0 disables a limit. A client over the hard limit, or over the soft limit for longer than
// soft_seconds, is disconnected.
struct OutputBufferLimit {
  std::int64_t hard_bytes = 0;
  std::int64_t soft_bytes = 0;
  std::int64_t soft_seconds = 0;
};

struct ReplicationConfig {
  // replicaof <host> <port>: empty host while a master.
  std::string master_host;
  int master_port = 0;
  std::string masterauth;
  std::string masteruser;
  std::string announce_ip;
  int announce_port = 0;
  bool serve_stale_data = true;
  bool read_only = true;
  std::int64_t priority = 100;
  bool announced = true;
  bool lazy_flush = false;
  bool ignore_maxmemory = true;
  bool ignore_disk_write_errors = false;
  std::int64_t backlog_size = 1024 * 1024;
  std::int64_t backlog_ttl_s = 3600;
  bool diskless_sync = true;
  std::int64_t diskless_sync_delay_s = 5;
  std::int64_t diskless_sync_max_replicas = 0;
  std::string diskless_load = "disabled";
  std::int64_t ping_period_s = 10;
  std::int64_t timeout_s = 60;
  bool disable_tcp_nodelay = false;
  std::int64_t min_replicas_to_write = 0;
  std::int64_t min_replicas_max_lag_s = 10;
};

// The options Redis has and warden accepts without effect (inert_options.cc): each keeps its
// value as CONFIG GET shows it, in Config::inert.
inline constexpr std::size_t kInertOptionCount = 61;
std::array<std::string, kInertOptionCount> InertDefaults();

struct Config {
  int port = 6379;
  std::vector<std::string> bind = {"127.0.0.1", "-::1"};
  std::string unixsocket;
  int unixsocketperm = 0;
  std::string requirepass;
  // ACL LOG's length, and whether a new user starts with every channel (allchannels) or none
  // (resetchannels, Redis 7.0's default).
  std::int64_t acllog_max_len = 128;
  bool acl_pubsub_default_all = false;
  // ACL users from an ACL file (ACL LOAD, ACL SAVE), or from `user` lines: not both.
  std::string aclfile;
  std::vector<std::vector<std::string>> users;  // each: name, rules...
  // rename-command lines, in order: (from, to), `to` empty to disable (command_names.h).
  std::vector<std::pair<std::string, std::string>> rename_commands;
  // TLS (server/tls.h), Redis's options and defaults; tls-port 0 means no TLS listener.
  int tls_port = 0;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_key_file_pass;
  std::string tls_ca_cert_file;
  std::string tls_ca_cert_dir;
  std::string tls_dh_params_file;
  std::string tls_protocols;  // empty: TLSv1.2 and TLSv1.3
  std::string tls_ciphers;
  std::string tls_ciphersuites;
  TlsAuthClients tls_auth_clients = TlsAuthClients::kYes;
  bool tls_prefer_server_ciphers = false;
  bool tls_session_caching = true;
  std::int64_t tls_session_cache_size = 20 * 1024;
  std::int64_t tls_session_cache_timeout_s = 300;
  // warden's own: a TLS client whose handshake is not done after this long is closed (Redis
  // waits for ever, or for `timeout` if set).
  std::int64_t tls_handshake_timeout_ms = 10000;
  int hz = 10;
  std::int64_t maxclients = 10000;
  std::int64_t timeout_s = 0;
  int tcp_keepalive_s = 300;
  int tcp_backlog = 511;
  std::int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  std::int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  // client-output-buffer-limit, per class as Redis has them.
  OutputBufferLimit output_limit_normal = {0, 0, 0};
  OutputBufferLimit output_limit_replica = {256LL * 1024 * 1024, 64LL * 1024 * 1024, 60};
  OutputBufferLimit output_limit_pubsub = {32LL * 1024 * 1024, 8LL * 1024 * 1024, 60};
  // On SIGTERM, how long replies already computed may take to reach slow readers.
  std::int64_t shutdown_timeout_s = 10;
  std::int64_t busy_reply_threshold_ms = 5000;
  // Known lock scripts run as native code instead of Lua (server/scripting/native_scripts.h).
  bool lua_native_scripts = true;
  // Cap on the Lua interpreter's memory while a script runs (0: none).
  std::int64_t script_memory_limit = 256LL * 1024 * 1024;
  int active_expire_effort = 1;
  // SLOWLOG (negative: off, 0: every command) and LATENCY (0: off); latency-tracking feeds INFO
  // latencystats with the percentiles listed.
  std::int64_t slowlog_log_slower_than_us = 10000;
  std::int64_t slowlog_max_len = 128;
  std::int64_t latency_monitor_threshold_ms = 0;
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles = {50, 99, 99.9};
  int databases = 16;
  // notify-keyspace-events as flags (notify.h's notify::k*); 0: no notifications.
  int notify_keyspace_events = 0;
  // hash-max-listpack-*, set-max-intset-entries, zset-max-listpack-*.
  storage::EncodingLimits encoding;
  bool protected_mode = true;
  DebugCommandPolicy enable_debug_command = DebugCommandPolicy::kNo;
  std::string loglevel = "notice";
  // 0: no limit. Above it, commands that may grow memory are refused (memory_meter.h).
  std::int64_t maxmemory = 0;
  // Which keys go when used memory passes maxmemory (eviction.h); OBJECT FREQ and IDLETIME
  // answer by it too.
  std::string maxmemory_policy = "noeviction";
  // Keys sampled per database for each eviction (Redis's default 5; more is closer to exact).
  // Redis's range is accepted; eviction samples at most 64 (eviction.cc).
  std::int64_t maxmemory_samples = 5;
  // How long one eviction pass may run before it goes on later (0..100; 10 is 500 us).
  std::int64_t maxmemory_eviction_tenacity = 10;
  // Keys the client-side caching table remembers before the cron invalidates some (0: no limit).
  std::int64_t tracking_table_max_keys = 1000000;
  // LFU's counter: how slowly it grows with accesses, and the minutes per step of decay.
  std::int64_t lfu_log_factor = 10;
  std::int64_t lfu_decay_time = 1;
  std::string logfile;
  // Every log line to syslog(3) too, under this ident and facility (user, local0 ... local7).
  bool syslog_enabled = false;
  std::string syslog_ident = "redis";
  std::string syslog_facility = "local0";
  // The ASCII logo at start even when stdout is no terminal or a log file is set.
  bool always_show_logo = false;
  std::string port_file;
  // The seed option: a number, or nullopt for `random`. With random, the server draws one at
  // start and keeps it in seed_drawn, which CONFIG GET shows (CONFIG REWRITE writes `random`).
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> seed_drawn;
  // The most entries DEBUG COMMAND-LOG ON may ask for.
  std::int64_t command_log_max_entries = 1'000'000;
  // How many DEBUG FAULT rules may be installed at once.
  std::int64_t debug_fault_max_rules = 1000;
  // Snapshots (server/persistence/snapshots.h): the save points, as (seconds, changes) pairs,
  // Redis's defaults; the file's name in `dir`; and how it is written and read.
  std::vector<std::pair<std::int64_t, std::int64_t>> save_points = {
      {3600, 1}, {300, 100}, {60, 10000}};
  // Set once a config file or the command line has given a save line: later ones add to it,
  // as Redis's do (the first one replaces the defaults).
  bool save_points_from_file = false;
  std::string dbfilename = "dump.rdb";
  bool rdbcompression = true;
  bool rdbchecksum = true;
  bool stop_writes_on_bgsave_error = true;
  bool rdb_del_sync_files = false;
  std::string sanitize_dump_payload = "no";
  // Redis's hidden test option: microseconds slept per key saved, so a test can catch a save
  // under way.
  std::int64_t rdb_key_save_delay = 0;
  // The append-only file (aof.h).
  bool appendonly = false;
  std::string appendfsync = "everysec";
  std::string appendfilename = "appendonly.aof";
  std::string appenddirname = "appendonlydir";
  std::int64_t auto_aof_rewrite_percentage = 100;
  std::int64_t auto_aof_rewrite_min_size = 64LL * 1024 * 1024;
  bool aof_load_truncated = true;
  // Accepted as Redis's; warden writes no timestamp annotations (it skips them when loading).
  bool aof_timestamp_enabled = false;
  bool aof_use_rdb_preamble = true;
  // Where the append-only directory is ("": the working directory).
  std::string dir;
  std::string config_file;
  // DEBUG SNAPSHOT's caps: how many snapshots, and their bytes together (0: no cap).
  std::int64_t snapshot_max_count = 64;
  std::int64_t snapshot_max_bytes = 1024LL * 1024 * 1024;
  // A file of commands run before the first client is accepted (preload.h).
  std::string preload;
  // Replication (server/replication/), Redis 7.0's options and defaults.
  ReplicationConfig repl;
  // Forks into the background at start (Redis's daemonize), with stdin, stdout and stderr on
  // /dev/null.
  bool daemonize = false;
  // Written at start and removed at exit (Redis's createPidFile); empty: none, unless
  // daemonized, which writes Redis's default path.
  std::string pidfile;
  // Whether CONFIG SET may change the protected options (dir, dbfilename, ...): no, yes, or
  // local (clients on loopback or the unix socket), as Redis's enable-protected-configs.
  std::string enable_protected_configs = "no";
  // "systemd" (or "auto" under systemd): readiness is told to the service manager.
  std::string supervised = "no";
  // What SIGINT and SIGTERM do, as SHUTDOWN's flags (config_values::ParseShutdownFlags):
  // "default", or any of save, nosave, now, force.
  std::string shutdown_on_sigint = "default";
  std::string shutdown_on_sigterm = "default";
  // The OOM killer's score: how it is set, and its values for a master, a replica and a forked
  // child (Redis's oom-score-adj and oom-score-adj-values).
  OomScoreAdj oom_score_adj = OomScoreAdj::kNo;
  std::array<int, 3> oom_score_adj_values = {0, 200, 800};
  std::array<std::string, kInertOptionCount> inert = InertDefaults();
};

struct ConfigError {
  std::string message;
  // A log line (Redis's serverLog: "can't open config file"), not the FATAL block for stderr.
  bool log = false;
};

// One option as redis-server takes it: a name and its arguments; where it came from, for
// errors (the line number as Redis counts it, and the line's text).
struct ConfigDirective {
  std::string name;
  std::vector<std::string> args;
  std::size_t line = 0;
  std::string text;
};

// Applies one directive through its option row (config_options.h). Returns Redis's reason for
// an unknown option or a bad value ("Bad directive or wrong number of arguments").
std::optional<ConfigError> ApplyDirective(Config& config, const ConfigDirective& directive);

// Redis's report of a bad config line, for stderr:
//   *** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***
//   Reading the configuration file, at line N
//   >>> 'the line'
//   the reason
std::string FatalConfigError(std::size_t line, std::string_view text, std::string_view why);

// Splits a redis.conf-style text into directives (sdssplitargs rules, '#' comments).
std::optional<ConfigError> ParseConfigText(std::string_view text,
                                           std::vector<ConfigDirective>& out);

// Parses `warden [config-file] [--option value ...]`, reading the file (and the files it
// includes) if one is given. Directives from the command line apply after the file's. Errors
// are Redis's: the FATAL block, or a log line for a file that cannot be read.
std::optional<ConfigError> ParseCommandLine(std::span<char* const> argv, Config& config);

// Where a file named by an option is: Redis chdirs to `dir`, so a relative aclfile is under it;
// warden keeps its working directory (an embedded server must not move its host's) and joins
// the two instead.
std::string PathUnderDir(const Config& config, const std::string& path);

// Every option CONFIG GET knows (its aliases as options of their own, as in Redis), with the
// current value as Redis prints it.
struct ConfigValue {
  std::string_view name;
  std::string value;
  bool hidden;  // Redis's HIDDEN_CONFIG: only CONFIG GET of its exact name shows it
};
std::vector<ConfigValue> ConfigValues(const Config& config);

// latency-tracking-info-percentiles' value: space-separated numbers in [0, 100] ("" for none).
// Returns Redis's error text on failure.
std::optional<std::string> ParsePercentiles(std::span<const std::string> words,
                                            std::vector<double>& out);
std::string FormatPercentiles(const std::vector<double>& percentiles);

// Bytes per unit of a memory value as Redis's memtoull reads it (b, k, kb, m, mb, g, gb, any
// case; none means bytes); 0 for anything else.
std::uint64_t MemoryUnitBytes(std::string_view unit);
// Redis's memtoll: "512mb", "1gb", "100" ...; false on garbage.
bool ParseMemory(std::string_view text, std::int64_t& out);

}  // namespace warden::server
