#include "server/config/config_options.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/config/config_values.h"
#include "server/eviction.h"
#include "server/log.h"
#include "server/notify.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

using namespace config_values;  // NOLINT(build/namespaces): the table is built from them

SetResult SetOutputBufferLimit(Config& c, std::string_view v) {
  const std::vector<std::string_view> a = SplitSpaces(v);
  if (a.size() % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
  // All groups are checked before any applies.
  Config updated = c;
  for (std::size_t i = 0; i < a.size(); i += 4) {
    OutputBufferLimit* target = nullptr;
    if (EqualsNoCase(a[i], "normal")) {
      target = &updated.output_limit_normal;
    } else if (EqualsNoCase(a[i], "slave") || EqualsNoCase(a[i], "replica")) {
      target = &updated.output_limit_replica;
    } else if (EqualsNoCase(a[i], "pubsub")) {
      target = &updated.output_limit_pubsub;
    } else {
      return "Invalid client class specified in buffer limit configuration.";
    }
    unsigned long long hard = 0;
    unsigned long long soft = 0;
    const std::string seconds_text(a[i + 3]);
    char* end = nullptr;
    const long long seconds = std::strtoll(seconds_text.c_str(), &end, 10);
    if (!MemToUll(a[i + 1], hard) || !MemToUll(a[i + 2], soft) || seconds < 0 || *end != '\0') {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    *target = {static_cast<std::int64_t>(hard), static_cast<std::int64_t>(soft),
               static_cast<std::int64_t>(static_cast<int>(seconds))};
  }
  c = std::move(updated);
  return std::nullopt;
}

std::string FormatOutputBufferLimit(const Config& c) {
  std::string out;
  const auto add = [&out](std::string_view cls, const OutputBufferLimit& l) {
    if (!out.empty()) out += '\n';
    out += cls;
    out += ' ' + FormatMemory(l.hard_bytes) + ' ' + FormatMemory(l.soft_bytes) + ' ' +
           std::to_string(l.soft_seconds);
  };
  add("normal", c.output_limit_normal);
  add("replica", c.output_limit_replica);
  add("pubsub", c.output_limit_pubsub);
  return out;
}

// Redis's checks for save's "<seconds> <changes> ..." pairs; warden keeps nothing on disk, so
// only the empty schedule is taken (as its config file loader does).
SetResult SetSave(Config& c, std::string_view v) {
  const std::vector<std::string_view> a = SplitSpaces(v);
  if (a.size() % 2 != 0) return "Invalid save parameters";
  for (std::size_t j = 0; j < a.size(); ++j) {
    const std::string text(a[j]);
    char* end = nullptr;
    const long long n = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || (j % 2 == 0 && n < 1) || (j % 2 == 1 && n < 0)) {
      return "Invalid save parameters";
    }
  }
  if (!a.empty()) return "warden does not persist: only save \"\" is accepted";
  c.save.clear();
  return std::nullopt;
}

SetResult SetAppendonly(Config& c, std::string_view v) { return SetBool(v, c.appendonly); }

// On: the data set is rewritten into a new base while writes go on (Aof::Enable). Off: the file
// is written, synced and closed, as Redis's stopAppendOnly.
SetResult ApplyAppendonly(ServerState& s) {
  if (!s.config.appendonly && s.aof.on()) {
    s.propagation.set_active(false);
    s.aof.Stop();
  } else if (s.config.appendonly && !s.aof.on()) {
    if (auto err = s.aof.Enable()) return err;
    s.propagation.set_active(true);
  }
  return std::nullopt;
}

SetResult ApplyAppendfsync(ServerState& s) {
  s.aof.set_policy(ParseAppendFsync(s.config.appendfsync));
  return std::nullopt;
}

constexpr std::string_view kFsyncPolicies[] = {"everysec", "always", "no"};
constexpr std::string_view kPubsubDefaults[] = {"allchannels", "resetchannels"};

// requirepass is the default user's password (Redis's ACLUpdateDefaultUserPassword).
SetResult ApplyRequirepass(ServerState& s) {
  s.acl.SetDefaultPassword(s.config.requirepass);
  return std::nullopt;
}

SetResult ApplyAclPubsubDefault(ServerState& s) {
  s.acl.pubsub_default_all = s.config.acl_pubsub_default_all;
  return std::nullopt;
}

constexpr std::string_view kLogLevels[] = {"debug", "verbose", "notice", "warning"};
constexpr std::string_view kPolicies[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                          "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                          "allkeys-random", "noeviction"};

SetResult ApplyEviction(ServerState& s) {
  ApplyEvictionConfig(s);
  return std::nullopt;
}

SetResult ApplyLoglevel(ServerState& s) {
  if (s.log != nullptr) s.log->set_level(ParseLogLevel(s.config.loglevel));
  return std::nullopt;
}

SetResult ApplyActiveExpireEffort(ServerState& s) {
  const int effort = s.config.active_expire_effort - 1;
  s.active_expiry.set_options(
      {.keys_per_loop = 20 + 5 * effort, .acceptable_stale_percent = 10 - effort});
  return std::nullopt;
}

// port and bind take effect at once, as in Redis: the listeners are replaced.
SetResult ApplyPort(ServerState& s) {
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Unable to listen on this port. Check server logs.";
}

SetResult ApplyBind(ServerState& s) {
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Failed to bind to specified addresses.";
}

// Redis's setConfigBindOption: addresses separated by spaces, "" for none.
SetResult SetBind(Config& c, std::string_view v) {
  std::vector<std::string_view> a = SplitSpaces(v);
  if (a.size() > 16) return "Too many bind addresses specified.";
  if (a.size() == 1 && a[0].empty()) a.clear();
  c.bind.assign(a.begin(), a.end());
  return std::nullopt;
}

constexpr auto kMut = ConfigMutability::kMutable;
constexpr auto kImm = ConfigMutability::kImmutable;
constexpr auto kProt = ConfigMutability::kProtected;
constexpr std::int64_t kIntMax = INT32_MAX;
constexpr std::int64_t kLongMax = INT64_MAX;

// Bounds, kinds and texts are Redis 7.0's (config.c's standardConfig table). The options read
// where they are used (timeout, maxclients, output limits, encodings, requirepass...) need no
// apply step; hz is picked up by the next cron tick.
// clang-format off
// A multi-argument option given as one value: split at each space, as sdssplitlen does (two
// spaces make an empty, invalid word); "" means none.
SetResult SetPercentiles(Config& c, std::string_view value) {
  std::vector<std::string> words;
  for (std::size_t at = 0; !value.empty() && at <= value.size();) {
    const std::size_t end = std::min(value.find(' ', at), value.size());
    words.emplace_back(value.substr(at, end - at));
    at = end + 1;
  }
  if (words.empty()) words.emplace_back();
  return ParsePercentiles(words, c.latency_tracking_info_percentiles);
}

constexpr ConfigOption kConfigOptions[] = {
    {"port", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, 65535, c.port); },
     [](const Config& c) { return std::to_string(c.port); }, ApplyPort},
    {"bind", "", kMut, SetBind,
     [](const Config& c) {
       std::string out;
       for (const std::string& b : c.bind) out += (out.empty() ? "" : " ") + b;
       return out;
     }, ApplyBind},
    {"unixsocket", "", kImm, nullptr, [](const Config& c) { return Quoted(c.unixsocket); }, nullptr},
    {"aclfile", "", kImm, nullptr, [](const Config& c) { return Quoted(c.aclfile); }, nullptr},
    {"unixsocketperm", "", kImm, nullptr,
     [](const Config& c) {
       char buf[16];
       std::snprintf(buf, sizeof(buf), "%o", c.unixsocketperm);
       return std::string(buf);
     }, nullptr},
    {"requirepass", "", kMut,
     [](Config& c, std::string_view v) -> SetResult { c.requirepass = std::string(v); return std::nullopt; },
     [](const Config& c) { return Quoted(c.requirepass); }, ApplyRequirepass},
    {"acllog-max-len", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.acllog_max_len); },
     [](const Config& c) { return std::to_string(c.acllog_max_len); }, nullptr},
    {"acl-pubsub-default", "", kMut,
     [](Config& c, std::string_view v) -> SetResult {
       std::string value;
       if (auto err = SetEnum(v, kPubsubDefaults, value)) return err;
       c.acl_pubsub_default_all = value == "allchannels";
       return std::nullopt;
     },
     [](const Config& c) {
       return std::string(c.acl_pubsub_default_all ? "allchannels" : "resetchannels");
     }, ApplyAclPubsubDefault},
    {"hz", "", kMut,
     [](Config& c, std::string_view v) {
       // Redis's updateHZ keeps the value within 1..500 without complaint.
       std::int64_t hz = 0;
       SetResult err = SetInteger(v, 0, kIntMax, hz);
       if (!err) c.hz = static_cast<int>(std::clamp<std::int64_t>(hz, 1, 500));
       return err;
     },
     [](const Config& c) { return std::to_string(c.hz); }, nullptr},
    {"maxclients", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 1, UINT32_MAX, c.maxclients); },
     [](const Config& c) { return std::to_string(c.maxclients); }, nullptr},
    {"timeout", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.timeout_s); },
     [](const Config& c) { return std::to_string(c.timeout_s); }, nullptr},
    {"tcp-keepalive", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.tcp_keepalive_s); },
     [](const Config& c) { return std::to_string(c.tcp_keepalive_s); }, nullptr},
    {"tcp-backlog", "", kImm, nullptr, [](const Config& c) { return std::to_string(c.tcp_backlog); }, nullptr},
    {"proto-max-bulk-len", "", kMut,
     [](Config& c, std::string_view v) -> SetResult {
       std::int64_t limit = 0;
       if (auto err = SetMemory(v, 1024 * 1024, kLongMax, limit)) return err;
       // An entry keeps 31 bits of value length.
       if (limit > 0x7FFFFFFF) return "argument must be at most 2gb - 1 in warden";
       c.proto_max_bulk_len = limit;
       return std::nullopt;
     },
     [](const Config& c) { return FormatMemory(c.proto_max_bulk_len); }, nullptr},
    {"client-query-buffer-limit", "", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 1024 * 1024, kLongMax, c.client_query_buffer_limit); },
     [](const Config& c) { return FormatMemory(c.client_query_buffer_limit); }, nullptr},
    {"client-output-buffer-limit", "", kMut, SetOutputBufferLimit, FormatOutputBufferLimit, nullptr},
    {"shutdown-timeout", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.shutdown_timeout_s); },
     [](const Config& c) { return std::to_string(c.shutdown_timeout_s); }, nullptr},
    {"busy-reply-threshold", "lua-time-limit", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.busy_reply_threshold_ms); },
     [](const Config& c) { return std::to_string(c.busy_reply_threshold_ms); }, nullptr},
    {"active-expire-effort", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 1, 10, c.active_expire_effort); },
     [](const Config& c) { return std::to_string(c.active_expire_effort); }, ApplyActiveExpireEffort},
    {"databases", "", kImm, nullptr, [](const Config& c) { return std::to_string(c.databases); }, nullptr},
    {"hash-max-listpack-entries", "hash-max-ziplist-entries", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.encoding.hash_max_listpack_entries); },
     [](const Config& c) { return std::to_string(c.encoding.hash_max_listpack_entries); }, nullptr},
    {"hash-max-listpack-value", "hash-max-ziplist-value", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 0, kLongMax, c.encoding.hash_max_listpack_value); },
     [](const Config& c) { return FormatMemory(static_cast<std::int64_t>(c.encoding.hash_max_listpack_value)); }, nullptr},
    {"set-max-intset-entries", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.encoding.set_max_intset_entries); },
     [](const Config& c) { return std::to_string(c.encoding.set_max_intset_entries); }, nullptr},
    {"zset-max-listpack-entries", "zset-max-ziplist-entries", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.encoding.zset_max_listpack_entries); },
     [](const Config& c) { return std::to_string(c.encoding.zset_max_listpack_entries); }, nullptr},
    {"zset-max-listpack-value", "zset-max-ziplist-value", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 0, kLongMax, c.encoding.zset_max_listpack_value); },
     [](const Config& c) { return FormatMemory(static_cast<std::int64_t>(c.encoding.zset_max_listpack_value)); }, nullptr},
    {"list-max-listpack-size", "list-max-ziplist-size", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, INT32_MIN, INT32_MAX, c.encoding.list_max_listpack_size); },
     [](const Config& c) { return std::to_string(c.encoding.list_max_listpack_size); }, nullptr},
    {"stream-node-max-bytes", "", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 0, kLongMax, c.encoding.stream_node_max_bytes); },
     [](const Config& c) { return FormatMemory(static_cast<std::int64_t>(c.encoding.stream_node_max_bytes)); }, nullptr},
    {"stream-node-max-entries", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.encoding.stream_node_max_entries); },
     [](const Config& c) { return std::to_string(c.encoding.stream_node_max_entries); }, nullptr},
    {"protected-mode", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.protected_mode); },
     [](const Config& c) { return YesNo(c.protected_mode); }, nullptr},
    {"enable-debug-command", "", kImm, nullptr,
     [](const Config& c) {
       return std::string(c.enable_debug_command == DebugCommandPolicy::kYes     ? "yes"
                          : c.enable_debug_command == DebugCommandPolicy::kLocal ? "local"
                                                                                 : "no");
     }, nullptr},
    {"loglevel", "", kMut,
     [](Config& c, std::string_view v) { return SetEnum(v, kLogLevels, c.loglevel); },
     [](const Config& c) { return c.loglevel; }, ApplyLoglevel},
    {"logfile", "", kImm, nullptr, [](const Config& c) { return Quoted(c.logfile); }, nullptr},
    {"save", "", kMut, SetSave, [](const Config&) { return std::string("\"\""); }, nullptr},
    {"appendonly", "", kMut, SetAppendonly, [](const Config& c) { return YesNo(c.appendonly); },
     ApplyAppendonly},
    {"appendfsync", "", kMut,
     [](Config& c, std::string_view v) { return SetEnum(v, kFsyncPolicies, c.appendfsync); },
     [](const Config& c) { return c.appendfsync; }, ApplyAppendfsync},
    {"appendfilename", "", kImm, nullptr, [](const Config& c) { return c.appendfilename; }, nullptr},
    {"appenddirname", "", kImm, nullptr, [](const Config& c) { return c.appenddirname; }, nullptr},
    {"auto-aof-rewrite-percentage", "", kMut,
     [](Config& c, std::string_view v) {
       return SetInteger(v, 0, kIntMax, c.auto_aof_rewrite_percentage);
     },
     [](const Config& c) { return std::to_string(c.auto_aof_rewrite_percentage); }, nullptr},
    {"auto-aof-rewrite-min-size", "", kMut,
     [](Config& c, std::string_view v) {
       return SetMemory(v, 0, kLongMax, c.auto_aof_rewrite_min_size);
     },
     [](const Config& c) { return std::to_string(c.auto_aof_rewrite_min_size); }, nullptr},
    {"aof-load-truncated", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.aof_load_truncated); },
     [](const Config& c) { return YesNo(c.aof_load_truncated); }, nullptr},
    {"aof-timestamp-enabled", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.aof_timestamp_enabled); },
     [](const Config& c) { return YesNo(c.aof_timestamp_enabled); }, nullptr},
    {"aof-use-rdb-preamble", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.aof_use_rdb_preamble); },
     [](const Config& c) { return YesNo(c.aof_use_rdb_preamble); }, nullptr},
    {"dir", "", kProt, nullptr, [](const Config& c) { return Quoted(c.dir); }, nullptr},
    {"daemonize", "", kImm, nullptr, [](const Config&) { return std::string("no"); }, nullptr},
    {"cluster-enabled", "", kImm, nullptr, [](const Config&) { return std::string("no"); }, nullptr},
    {"maxmemory", "", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 0, kLongMax, c.maxmemory); },
     [](const Config& c) { return std::to_string(c.maxmemory); }, nullptr},
    {"maxmemory-policy", "", kMut,
     [](Config& c, std::string_view v) { return SetEnum(v, kPolicies, c.maxmemory_policy); },
     [](const Config& c) { return c.maxmemory_policy; }, ApplyEviction},
    {"maxmemory-samples", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 1, kIntMax, c.maxmemory_samples); },
     [](const Config& c) { return std::to_string(c.maxmemory_samples); }, nullptr},
    {"maxmemory-eviction-tenacity", "", kMut,
     [](Config& c, std::string_view v) {
       return SetInteger(v, 0, 100, c.maxmemory_eviction_tenacity);
     },
     [](const Config& c) { return std::to_string(c.maxmemory_eviction_tenacity); }, nullptr},
    {"lfu-log-factor", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.lfu_log_factor); },
     [](const Config& c) { return std::to_string(c.lfu_log_factor); }, ApplyEviction},
    {"lfu-decay-time", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kIntMax, c.lfu_decay_time); },
     [](const Config& c) { return std::to_string(c.lfu_decay_time); }, ApplyEviction},
    {"notify-keyspace-events", "", kMut,
     [](Config& c, std::string_view v) -> SetResult {
       const std::optional<int> flags = ParseNotifyKeyspaceEvents(v);
       if (!flags) return std::string(kBadNotifyClass);
       c.notify_keyspace_events = *flags;
       return std::nullopt;
     },
     [](const Config& c) { return FormatNotifyKeyspaceEvents(c.notify_keyspace_events); }, nullptr},
    {"slowlog-log-slower-than", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, -1, kLongMax, c.slowlog_log_slower_than_us); },
     [](const Config& c) { return std::to_string(c.slowlog_log_slower_than_us); }, nullptr},
    {"slowlog-max-len", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.slowlog_max_len); },
     [](const Config& c) { return std::to_string(c.slowlog_max_len); }, nullptr},
    {"latency-monitor-threshold", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.latency_monitor_threshold_ms); },
     [](const Config& c) { return std::to_string(c.latency_monitor_threshold_ms); }, nullptr},
    {"lua-native-scripts", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.lua_native_scripts); },
     [](const Config& c) { return std::string(c.lua_native_scripts ? "yes" : "no"); }, nullptr},
    {"latency-tracking", "", kMut,
     [](Config& c, std::string_view v) { return SetBool(v, c.latency_tracking); },
     [](const Config& c) { return std::string(c.latency_tracking ? "yes" : "no"); }, nullptr},
    {"latency-tracking-info-percentiles", "", kMut, SetPercentiles,
     [](const Config& c) { return FormatPercentiles(c.latency_tracking_info_percentiles); }, nullptr},
    // warden's own options: set at start only, and left as written by CONFIG REWRITE.
    {"port-file", "", kImm, nullptr, nullptr, nullptr},
    {"preload", "", kImm, nullptr, nullptr, nullptr},
    {"snapshot-max-count", "", kMut,
     [](Config& c, std::string_view v) { return SetInteger(v, 0, kLongMax, c.snapshot_max_count); },
     [](const Config& c) { return std::to_string(c.snapshot_max_count); }, nullptr},
    {"snapshot-max-bytes", "", kMut,
     [](Config& c, std::string_view v) { return SetMemory(v, 0, kLongMax, c.snapshot_max_bytes); },
     [](const Config& c) { return FormatMemory(c.snapshot_max_bytes); }, nullptr},
    {"seed", "", kImm, nullptr, nullptr, nullptr},
    {"command-log-max-entries", "", kImm, nullptr, nullptr, nullptr},
    {"debug-fault-max-rules", "", kImm, nullptr, nullptr, nullptr},
    {"script-memory-limit", "", kImm, nullptr, nullptr, nullptr},
};
// clang-format on

}  // namespace

std::string FormatMemory(std::int64_t bytes) {
  constexpr std::int64_t kGb = 1024LL * 1024 * 1024;
  constexpr std::int64_t kMb = 1024LL * 1024;
  constexpr std::int64_t kKb = 1024;
  if (bytes != 0 && bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
  if (bytes != 0 && bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
  if (bytes != 0 && bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  return std::to_string(bytes);
}

std::span<const ConfigOption> ConfigOptions() {
  static const std::vector<ConfigOption> all = [] {
    std::vector<ConfigOption> options(std::begin(kConfigOptions), std::end(kConfigOptions));
    const std::span<const ConfigOption> tls = TlsConfigOptions();
    options.insert(options.end(), tls.begin(), tls.end());
    return options;
  }();
  return all;
}

const ConfigOption* FindConfigOption(std::string_view name, bool* via_alias) {
  for (const ConfigOption& o : ConfigOptions()) {
    const bool alias = !o.alias.empty() && EqualsNoCase(name, o.alias);
    if (alias || EqualsNoCase(name, o.name)) {
      if (via_alias != nullptr) *via_alias = alias;
      return &o;
    }
  }
  return nullptr;
}

}  // namespace warden::server

namespace warden::server {

std::string RewriteConfigText(std::string_view old_text, const Config& config) {
  static constexpr std::string_view kSignature = "# Generated by CONFIG REWRITE";
  std::vector<std::string> lines;
  // Line numbers in the old file of each option with a row, by canonical name.
  std::map<std::string_view, std::vector<std::size_t>> option_lines;
  bool needs_signature = true;
  std::size_t start = 0;
  while (start <= old_text.size() && !old_text.empty()) {
    const std::size_t nl = old_text.find('\n', start);
    std::string_view line =
        old_text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    const std::size_t first = line.find_first_not_of("\r\n\t ");
    const std::size_t last = line.find_last_not_of("\r\n\t ");
    line =
        first == std::string_view::npos ? std::string_view() : line.substr(first, last - first + 1);
    lines.emplace_back(line);
    if (line.empty() || line[0] == '#') {
      if (line == kSignature) needs_signature = false;
    } else {
      std::string storage;
      std::vector<std::pair<std::size_t, std::size_t>> spans;
      if (protocol::SplitInlineArgs(line, storage, spans) && !spans.empty()) {
        const ConfigOption* option =
            FindConfigOption(std::string_view(storage).substr(spans[0].first, spans[0].second));
        if (option != nullptr && option->format != nullptr) {
          option_lines[option->name].push_back(lines.size() - 1);
        }
      }
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }

  const Config defaults;
  for (const ConfigOption& option : ConfigOptions()) {
    if (option.format == nullptr) continue;
    const std::string value = option.format(config);
    const std::string default_value = option.format(defaults);
    std::vector<std::size_t>& reuse = option_lines[option.name];
    std::size_t pos = 0;
    std::size_t default_pos = 0;
    while (pos <= value.size()) {
      const std::size_t end = std::min(value.find('\n', pos), value.size());
      const std::size_t default_end =
          std::min(default_value.find('\n', default_pos), default_value.size());
      const std::string_view one = std::string_view(value).substr(pos, end - pos);
      const std::string_view default_one =
          std::string_view(default_value).substr(default_pos, default_end - default_pos);
      // Redis writes save out whatever its value.
      const bool force = one != default_one || option.name == "save";
      std::string line = std::string(option.name) + " " + std::string(one);
      if (!reuse.empty()) {
        lines[reuse.front()] = std::move(line);
        reuse.erase(reuse.begin());
      } else if (force) {
        if (needs_signature) {
          lines.emplace_back(kSignature);
          needs_signature = false;
        }
        lines.push_back(std::move(line));
      }
      pos = end + 1;
      default_pos = default_end + 1;
    }
    // Lines of this option the new values did not take are orphans.
    for (std::size_t orphan : reuse) lines[orphan].clear();
    reuse.clear();
  }

  std::string out;
  bool was_empty = false;
  for (const std::string& line : lines) {
    if (line.empty()) {
      if (was_empty) continue;
      was_empty = true;
    } else {
      was_empty = false;
    }
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace warden::server
