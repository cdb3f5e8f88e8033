#include "server/config/config.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "protocol/request_parser.h"
#include "server/config/config_options.h"
#include "server/notify.h"

namespace warden::server {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

std::optional<ConfigError> Fail(const ConfigDirective& d, std::string_view why) {
  std::string line = d.name;
  for (const std::string& a : d.args) {
    line += ' ';
    line += a;
  }
  return ConfigError{"bad option '" + line + "': " + std::string(why)};
}

bool ParseInt(std::string_view text, std::int64_t min, std::int64_t max, std::int64_t& out) {
  return protocol::ParseStrictInt64(text, out) && out >= min && out <= max;
}

bool ParseYesNo(std::string_view text, bool& out) {
  const std::string v = Lower(text);
  if (v == "yes") {
    out = true;
  } else if (v == "no") {
    out = false;
  } else {
    return false;
  }
  return true;
}

std::string YesNo(bool v) { return v ? "yes" : "no"; }

std::string OutputLimits(const Config& c) {
  std::string out;
  const auto add = [&out](std::string_view cls, const OutputBufferLimit& l) {
    if (!out.empty()) out += ' ';
    out += cls;
    for (std::int64_t v : {l.hard_bytes, l.soft_bytes, l.soft_seconds}) {
      out += ' ';
      out += std::to_string(v);
    }
  };
  add("normal", c.output_limit_normal);
  add("slave", c.output_limit_replica);
  add("pubsub", c.output_limit_pubsub);
  return out;
}

}  // namespace

std::uint64_t MemoryUnitBytes(std::string_view unit) {
  const std::string lower = Lower(unit);
  if (lower.empty() || lower == "b") return 1;
  if (lower == "k") return 1000;
  if (lower == "kb") return 1024;
  if (lower == "m") return 1000ULL * 1000;
  if (lower == "mb") return 1024ULL * 1024;
  if (lower == "g") return 1000ULL * 1000 * 1000;
  if (lower == "gb") return 1024ULL * 1024 * 1024;
  return 0;
}

bool ParseMemory(std::string_view text, std::int64_t& out) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         ((text[digits] >= '0' && text[digits] <= '9') || (digits == 0 && text[digits] == '-'))) {
    ++digits;
  }
  const auto mul = static_cast<std::int64_t>(MemoryUnitBytes(text.substr(digits)));
  if (mul == 0) return false;
  std::int64_t value = 0;
  if (!protocol::ParseStrictInt64(text.substr(0, digits), value)) return false;
  if (value != 0 && (value > INT64_MAX / mul || value < INT64_MIN / mul)) return false;
  out = value * mul;
  return true;
}

std::optional<std::string> ParsePercentiles(std::span<const std::string> words,
                                            std::vector<double>& out) {
  std::vector<double> parsed;
  if (!(words.size() == 1 && words[0].empty())) {
    for (const std::string& word : words) {
      // Redis's string2d: strtod over the whole word, no spaces, no nan.
      char* end = nullptr;
      errno = 0;
      const double value = word.empty() || word[0] == ' ' ? NAN : std::strtod(word.c_str(), &end);
      if (std::isnan(value) || end != word.c_str() + word.size() || errno == ERANGE) {
        return "Invalid latency-tracking-info-percentiles parameters";
      }
      if (value > 100.0 || value < 0.0) {
        return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
      }
      parsed.push_back(value);
    }
  }
  out = std::move(parsed);
  return std::nullopt;
}

std::string FormatPercentiles(const std::vector<double>& percentiles) {
  std::string out;
  for (double p : percentiles) {
    char buf[64];
    int len = std::snprintf(buf, sizeof(buf), "%f", p);
    while (len > 0 && buf[len - 1] == '0') --len;
    if (len > 0 && buf[len - 1] == '.') --len;
    if (!out.empty()) out += ' ';
    out.append(buf, static_cast<std::size_t>(len));
  }
  return out;
}

std::optional<ConfigError> ApplyDirective(Config& c, const ConfigDirective& d) {
  const std::string name = Lower(d.name);
  // As in Redis, options that take a list also take it as one space-separated argument
  // (`--bind "127.0.0.1 ::1"`).
  std::vector<std::string> split;
  if ((name == "bind" || name == "client-output-buffer-limit" ||
       name == "latency-tracking-info-percentiles") &&
      d.args.size() == 1) {
    std::string_view rest = d.args[0];
    while (!rest.empty()) {
      const std::size_t start = rest.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      rest.remove_prefix(start);
      const std::size_t end = std::min(rest.find(' '), rest.size());
      split.emplace_back(rest.substr(0, end));
      rest.remove_prefix(end);
    }
  }
  const auto& a = split.empty() ? d.args : split;
  auto one = [&]() -> bool { return a.size() == 1; };
  std::int64_t n = 0;
  auto int_option = [&](std::int64_t min, std::int64_t max,
                        auto& field) -> std::optional<ConfigError> {
    if (!one()) return Fail(d, "wrong number of arguments");
    if (!ParseInt(a[0], min, max, n)) {
      return Fail(d, "argument must be an integer between " + std::to_string(min) + " and " +
                         std::to_string(max));
    }
    field = static_cast<std::remove_reference_t<decltype(field)>>(n);
    return std::nullopt;
  };
  auto memory_option = [&](std::int64_t min, std::int64_t& field) -> std::optional<ConfigError> {
    if (!one()) return Fail(d, "wrong number of arguments");
    if (!ParseMemory(a[0], n) || n < min) return Fail(d, "argument must be a memory value");
    field = n;
    return std::nullopt;
  };
  auto string_option = [&](std::string& field) -> std::optional<ConfigError> {
    if (!one()) return Fail(d, "wrong number of arguments");
    field = a[0];
    return std::nullopt;
  };

  if (name == "port") return int_option(0, 65535, c.port);
  if (name == "bind") {
    if (a.empty()) return Fail(d, "wrong number of arguments");
    c.bind = a;
    return std::nullopt;
  }
  if (name == "unixsocket") return string_option(c.unixsocket);
  if (name == "unixsocketperm") {
    if (!one()) return Fail(d, "wrong number of arguments");
    int perm = 0;
    const auto [ptr, ec] = std::from_chars(a[0].data(), a[0].data() + a[0].size(), perm, 8);
    if (ec != std::errc() || ptr != a[0].data() + a[0].size() || perm > 0777) {
      return Fail(d, "argument must be an octal permission");
    }
    c.unixsocketperm = perm;
    return std::nullopt;
  }
  if (name == "requirepass") return string_option(c.requirepass);
  if (name == "aclfile") return string_option(c.aclfile);
  if (name == "user") {
    if (a.empty()) return Fail(d, "wrong number of arguments");
    c.users.push_back(a);
    return std::nullopt;
  }
  if (name == "acllog-max-len") return int_option(0, INT64_MAX, c.acllog_max_len);
  if (name == "acl-pubsub-default") {
    const std::string v = one() ? Lower(a[0]) : "";
    if (v != "allchannels" && v != "resetchannels") {
      return Fail(d, "argument(s) must be one of the following: allchannels, resetchannels");
    }
    c.acl_pubsub_default_all = v == "allchannels";
    return std::nullopt;
  }
  if (name == "hz") return int_option(1, 500, c.hz);
  if (name == "maxclients") return int_option(1, 1000000, c.maxclients);
  if (name == "timeout") return int_option(0, INT32_MAX, c.timeout_s);
  if (name == "tcp-keepalive") return int_option(0, INT32_MAX, c.tcp_keepalive_s);
  if (name == "tcp-backlog") return int_option(0, INT32_MAX, c.tcp_backlog);
  if (name == "proto-max-bulk-len") {
    // An entry keeps 31 bits of value length.
    std::int64_t limit = 0;
    if (auto error = memory_option(1024 * 1024, limit)) return error;
    if (limit > 0x7FFFFFFF) return Fail(d, "argument must be at most 2gb - 1 in warden");
    c.proto_max_bulk_len = limit;
    return std::nullopt;
  }
  if (name == "client-query-buffer-limit") {
    return memory_option(1024 * 1024, c.client_query_buffer_limit);
  }
  if (name == "client-output-buffer-limit") {
    // Redis's syntax: one or more "<class> <hard> <soft> <soft-seconds>" groups.
    if (a.empty() || a.size() % 4 != 0) {
      return Fail(d, "Wrong number of arguments in buffer limit configuration.");
    }
    // All groups are checked before any applies.
    Config updated = c;
    for (std::size_t i = 0; i < a.size(); i += 4) {
      const std::string cls = Lower(a[i]);
      OutputBufferLimit* target = nullptr;
      if (cls == "normal") {
        target = &updated.output_limit_normal;
      } else if (cls == "slave" || cls == "replica") {
        target = &updated.output_limit_replica;
      } else if (cls == "pubsub") {
        target = &updated.output_limit_pubsub;
      }
      if (target == nullptr) {
        return Fail(d, "Invalid client class specified in buffer limit configuration.");
      }
      OutputBufferLimit limit;
      if (!ParseMemory(a[i + 1], limit.hard_bytes) || !ParseMemory(a[i + 2], limit.soft_bytes) ||
          !ParseInt(a[i + 3], 0, INT32_MAX, limit.soft_seconds) || limit.hard_bytes < 0 ||
          limit.soft_bytes < 0) {
        return Fail(d,
                    "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
      }
      *target = limit;
    }
    c = std::move(updated);
    return std::nullopt;
  }
  if (name == "shutdown-timeout") return int_option(0, INT32_MAX, c.shutdown_timeout_s);
  if (name == "busy-reply-threshold" || name == "lua-time-limit") {
    return int_option(0, INT64_MAX, c.busy_reply_threshold_ms);
  }
  if (name == "script-memory-limit") return memory_option(0, c.script_memory_limit);
  if (name == "active-expire-effort") return int_option(1, 10, c.active_expire_effort);
  if (name == "slowlog-log-slower-than") {
    return int_option(-1, INT64_MAX, c.slowlog_log_slower_than_us);
  }
  if (name == "slowlog-max-len") return int_option(0, INT64_MAX, c.slowlog_max_len);
  if (name == "latency-monitor-threshold") {
    return int_option(0, INT64_MAX, c.latency_monitor_threshold_ms);
  }
  if (name == "lua-native-scripts") {
    if (!one() || !ParseYesNo(a[0], c.lua_native_scripts)) {
      return Fail(d, "argument must be 'yes' or 'no'");
    }
    return std::nullopt;
  }
  if (name == "latency-tracking") {
    if (!one() || !ParseYesNo(a[0], c.latency_tracking)) {
      return Fail(d, "argument must be 'yes' or 'no'");
    }
    return std::nullopt;
  }
  if (name == "latency-tracking-info-percentiles") {
    if (a.empty()) return Fail(d, "wrong number of arguments");
    if (auto error = ParsePercentiles(a, c.latency_tracking_info_percentiles)) {
      return Fail(d, *error);
    }
    return std::nullopt;
  }
  if (name == "databases") return int_option(1, 1 << 16, c.databases);
  if (name == "notify-keyspace-events") {
    if (!one()) return Fail(d, "wrong number of arguments");
    const std::optional<int> flags = ParseNotifyKeyspaceEvents(a[0]);
    if (!flags) return Fail(d, kBadNotifyClass);
    c.notify_keyspace_events = *flags;
    return std::nullopt;
  }
  // The ziplist names are Redis 7.0's aliases for the same options.
  if (name == "hash-max-listpack-entries" || name == "hash-max-ziplist-entries") {
    return int_option(0, INT64_MAX, c.encoding.hash_max_listpack_entries);
  }
  if (name == "hash-max-listpack-value" || name == "hash-max-ziplist-value") {
    return int_option(0, INT64_MAX, c.encoding.hash_max_listpack_value);
  }
  if (name == "set-max-intset-entries") {
    return int_option(0, INT64_MAX, c.encoding.set_max_intset_entries);
  }
  if (name == "zset-max-listpack-entries" || name == "zset-max-ziplist-entries") {
    return int_option(0, INT64_MAX, c.encoding.zset_max_listpack_entries);
  }
  if (name == "zset-max-listpack-value" || name == "zset-max-ziplist-value") {
    return int_option(0, INT64_MAX, c.encoding.zset_max_listpack_value);
  }
  if (name == "list-max-listpack-size" || name == "list-max-ziplist-size") {
    return int_option(INT32_MIN, INT32_MAX, c.encoding.list_max_listpack_size);
  }
  if (name == "protected-mode") {
    if (!one() || !ParseYesNo(a[0], c.protected_mode))
      return Fail(d, "argument must be 'yes' or 'no'");
    return std::nullopt;
  }
  if (name == "enable-debug-command") {
    const std::string v = one() ? Lower(a[0]) : "";
    if (v == "yes") {
      c.enable_debug_command = DebugCommandPolicy::kYes;
    } else if (v == "no") {
      c.enable_debug_command = DebugCommandPolicy::kNo;
    } else if (v == "local") {
      c.enable_debug_command = DebugCommandPolicy::kLocal;
    } else {
      return Fail(d, "argument(s) must be one of the following: no, yes, local");
    }
    return std::nullopt;
  }
  if (name == "loglevel") {
    const std::string v = one() ? Lower(a[0]) : "";
    if (v != "debug" && v != "verbose" && v != "notice" && v != "warning" && v != "nothing") {
      return Fail(
          d, "argument(s) must be one of the following: debug, verbose, notice, warning, nothing");
    }
    c.loglevel = v;
    return std::nullopt;
  }
  if (name == "maxmemory") return memory_option(0, c.maxmemory);
  if (name == "maxmemory-policy") {
    static constexpr std::string_view kPolicies[] = {
        "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
        "allkeys-lru",  "allkeys-lfu",  "allkeys-random",  "noeviction"};
    const std::string v = one() ? Lower(a[0]) : "";
    if (std::find(std::begin(kPolicies), std::end(kPolicies), v) == std::end(kPolicies)) {
      return Fail(d,
                  "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                  "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                  "noeviction");
    }
    c.maxmemory_policy = v;
    return std::nullopt;
  }
  if (name == "maxmemory-samples") return int_option(1, INT32_MAX, c.maxmemory_samples);
  if (name == "maxmemory-eviction-tenacity")
    return int_option(0, 100, c.maxmemory_eviction_tenacity);
  if (name == "lfu-log-factor") return int_option(0, INT32_MAX, c.lfu_log_factor);
  if (name == "lfu-decay-time") return int_option(0, INT32_MAX, c.lfu_decay_time);
  if (name == "logfile") return string_option(c.logfile);
  if (name == "port-file") return string_option(c.port_file);
  if (name == "command-log-max-entries") return int_option(1, INT64_MAX, c.command_log_max_entries);
  if (name == "debug-fault-max-rules") return int_option(0, INT32_MAX, c.debug_fault_max_rules);
  if (name == "preload") return string_option(c.preload);
  if (name == "snapshot-max-count") return int_option(0, INT64_MAX, c.snapshot_max_count);
  if (name == "snapshot-max-bytes") return memory_option(0, c.snapshot_max_bytes);
  if (name == "seed") {
    if (!one()) return Fail(d, "wrong number of arguments");
    std::uint64_t seed = 0;
    const auto [ptr, ec] = std::from_chars(a[0].data(), a[0].data() + a[0].size(), seed);
    if (ec != std::errc() || ptr != a[0].data() + a[0].size()) {
      return Fail(d, "argument must be an unsigned 64-bit integer");
    }
    c.seed = seed;
    return std::nullopt;
  }
  // Persistence options are accepted so redis-server command lines work unchanged; warden keeps
  // nothing on disk, so only the values that mean "no persistence" are allowed.
  if (name == "save") {
    if (a.size() > 1 || (a.size() == 1 && !a[0].empty())) {
      return Fail(d, "warden does not persist: only save \"\" is accepted");
    }
    c.save.clear();
    return std::nullopt;
  }
  auto yes_no = [&](bool& field) -> std::optional<ConfigError> {
    if (!one() || !ParseYesNo(a[0], field)) return Fail(d, "argument must be 'yes' or 'no'");
    return std::nullopt;
  };
  if (name == "appendonly") return yes_no(c.appendonly);
  if (name == "appendfsync") {
    const std::string v = one() ? Lower(a[0]) : "";
    if (v != "always" && v != "everysec" && v != "no") {
      return Fail(d, "argument(s) must be one of the following: everysec, always, no");
    }
    c.appendfsync = v;
    return std::nullopt;
  }
  auto file_name = [&](std::string& field) -> std::optional<ConfigError> {
    if (!one()) return Fail(d, "wrong number of arguments");
    if (a[0].empty() || a[0].find('/') != std::string::npos) {
      return Fail(d, "appendfilename can't be a path, just a filename");
    }
    field = a[0];
    return std::nullopt;
  };
  if (name == "appendfilename") return file_name(c.appendfilename);
  if (name == "appenddirname") {
    if (!one()) return Fail(d, "wrong number of arguments");
    if (a[0].empty() || a[0].find('/') != std::string::npos) {
      return Fail(d, "appenddirname can't be a path, just a dirname");
    }
    c.appenddirname = a[0];
    return std::nullopt;
  }
  if (name == "auto-aof-rewrite-percentage") {
    return int_option(0, INT32_MAX, c.auto_aof_rewrite_percentage);
  }
  if (name == "auto-aof-rewrite-min-size") return memory_option(0, c.auto_aof_rewrite_min_size);
  if (name == "aof-load-truncated") return yes_no(c.aof_load_truncated);
  if (name == "aof-timestamp-enabled") return yes_no(c.aof_timestamp_enabled);
  if (name == "aof-use-rdb-preamble") return yes_no(c.aof_use_rdb_preamble);
  if (name == "dir") return string_option(c.dir);
  if (name == "daemonize") {
    bool on = false;
    if (!one() || !ParseYesNo(a[0], on)) return Fail(d, "argument must be 'yes' or 'no'");
    if (on) return Fail(d, "warden does not daemonize: run it under a supervisor");
    return std::nullopt;
  }
  // The options whose only parser is CONFIG SET's (the tls-* rows) take one value.
  if (const ConfigOption* option = FindConfigOption(name); option != nullptr && option->set) {
    if (!one()) return Fail(d, "wrong number of arguments");
    if (auto error = option->set(c, a[0])) return Fail(d, *error);
    return std::nullopt;
  }
  return ConfigError{"unknown option '" + d.name + "'"};
}

std::optional<ConfigError> ParseConfigText(std::string_view text,
                                           std::vector<ConfigDirective>& out) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    std::string storage;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    if (!protocol::SplitInlineArgs(line, storage, spans)) {
      return ConfigError{"line " + std::to_string(line_no) + ": unbalanced quotes"};
    }
    if (spans.empty()) continue;
    ConfigDirective d;
    d.name = storage.substr(spans[0].first, spans[0].second);
    for (std::size_t i = 1; i < spans.size(); ++i) {
      d.args.push_back(storage.substr(spans[i].first, spans[i].second));
    }
    out.push_back(std::move(d));
  }
  return std::nullopt;
}

std::optional<ConfigError> ParseCommandLine(std::span<char* const> argv, Config& config) {
  std::vector<ConfigDirective> directives;
  std::size_t i = 1;
  if (i < argv.size() && std::string_view(argv[i]).substr(0, 2) != "--") {
    config.config_file = argv[i];
    std::ifstream in(config.config_file);
    if (!in) return ConfigError{"cannot open config file '" + config.config_file + "'"};
    std::stringstream text;
    text << in.rdbuf();
    if (auto err = ParseConfigText(text.str(), directives)) {
      return ConfigError{config.config_file + ": " + err->message};
    }
    ++i;
  }
  for (; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 2) != "--" || arg.size() == 2) {
      return ConfigError{"unexpected argument '" + std::string(arg) + "' (options start with --)"};
    }
    ConfigDirective d;
    d.name = std::string(arg.substr(2));
    // As redis-server does: every following word up to the next --option is an argument.
    while (i + 1 < argv.size() && std::string_view(argv[i + 1]).substr(0, 2) != "--") {
      d.args.emplace_back(argv[++i]);
    }
    directives.push_back(std::move(d));
  }
  for (const ConfigDirective& d : directives) {
    if (auto err = ApplyDirective(config, d)) return err;
  }
  return std::nullopt;
}

std::vector<ConfigValue> ConfigValues(const Config& c) {
  std::string bind;
  for (const std::string& b : c.bind) {
    if (!bind.empty()) bind += ' ';
    bind += b;
  }
  const char* debug = c.enable_debug_command == DebugCommandPolicy::kYes     ? "yes"
                      : c.enable_debug_command == DebugCommandPolicy::kLocal ? "local"
                                                                             : "no";
  char perm[8];
  std::snprintf(perm, sizeof(perm), "%o", c.unixsocketperm);
  std::vector<ConfigValue> values = {
      {"port", std::to_string(c.port)},
      {"bind", bind},
      {"unixsocket", c.unixsocket},
      {"unixsocketperm", perm},
      {"requirepass", c.requirepass},
      {"aclfile", c.aclfile},
      {"acllog-max-len", std::to_string(c.acllog_max_len)},
      {"acl-pubsub-default", c.acl_pubsub_default_all ? "allchannels" : "resetchannels"},
      {"hz", std::to_string(c.hz)},
      {"maxclients", std::to_string(c.maxclients)},
      {"timeout", std::to_string(c.timeout_s)},
      {"tcp-keepalive", std::to_string(c.tcp_keepalive_s)},
      {"tcp-backlog", std::to_string(c.tcp_backlog)},
      {"proto-max-bulk-len", std::to_string(c.proto_max_bulk_len)},
      {"client-query-buffer-limit", std::to_string(c.client_query_buffer_limit)},
      {"client-output-buffer-limit", OutputLimits(c)},
      {"shutdown-timeout", std::to_string(c.shutdown_timeout_s)},
      {"busy-reply-threshold", std::to_string(c.busy_reply_threshold_ms)},
      {"lua-time-limit", std::to_string(c.busy_reply_threshold_ms)},
      {"script-memory-limit", std::to_string(c.script_memory_limit)},
      {"lua-native-scripts", YesNo(c.lua_native_scripts)},
      {"active-expire-effort", std::to_string(c.active_expire_effort)},
      {"slowlog-log-slower-than", std::to_string(c.slowlog_log_slower_than_us)},
      {"slowlog-max-len", std::to_string(c.slowlog_max_len)},
      {"latency-monitor-threshold", std::to_string(c.latency_monitor_threshold_ms)},
      {"latency-tracking", YesNo(c.latency_tracking)},
      {"latency-tracking-info-percentiles", FormatPercentiles(c.latency_tracking_info_percentiles)},
      {"databases", std::to_string(c.databases)},
      {"notify-keyspace-events", FormatNotifyKeyspaceEvents(c.notify_keyspace_events)},
      {"hash-max-listpack-entries", std::to_string(c.encoding.hash_max_listpack_entries)},
      {"hash-max-ziplist-entries", std::to_string(c.encoding.hash_max_listpack_entries)},
      {"hash-max-listpack-value", std::to_string(c.encoding.hash_max_listpack_value)},
      {"hash-max-ziplist-value", std::to_string(c.encoding.hash_max_listpack_value)},
      {"set-max-intset-entries", std::to_string(c.encoding.set_max_intset_entries)},
      {"zset-max-listpack-entries", std::to_string(c.encoding.zset_max_listpack_entries)},
      {"zset-max-ziplist-entries", std::to_string(c.encoding.zset_max_listpack_entries)},
      {"zset-max-listpack-value", std::to_string(c.encoding.zset_max_listpack_value)},
      {"zset-max-ziplist-value", std::to_string(c.encoding.zset_max_listpack_value)},
      {"list-max-listpack-size", std::to_string(c.encoding.list_max_listpack_size)},
      {"list-max-ziplist-size", std::to_string(c.encoding.list_max_listpack_size)},
      {"stream-node-max-bytes", std::to_string(c.encoding.stream_node_max_bytes)},
      {"stream-node-max-entries", std::to_string(c.encoding.stream_node_max_entries)},
      {"protected-mode", YesNo(c.protected_mode)},
      {"enable-debug-command", debug},
      {"loglevel", c.loglevel},
      {"logfile", c.logfile},
      {"save", c.save},
      {"appendonly", YesNo(c.appendonly)},
      {"appendfsync", c.appendfsync},
      {"appendfilename", c.appendfilename},
      {"appenddirname", c.appenddirname},
      {"auto-aof-rewrite-percentage", std::to_string(c.auto_aof_rewrite_percentage)},
      {"auto-aof-rewrite-min-size", std::to_string(c.auto_aof_rewrite_min_size)},
      {"aof-load-truncated", YesNo(c.aof_load_truncated)},
      {"aof-timestamp-enabled", YesNo(c.aof_timestamp_enabled)},
      {"aof-use-rdb-preamble", YesNo(c.aof_use_rdb_preamble)},
      {"dir", c.dir},
      {"maxmemory", std::to_string(c.maxmemory)},
      {"maxmemory-policy", c.maxmemory_policy},
      {"maxmemory-samples", std::to_string(c.maxmemory_samples)},
      {"maxmemory-eviction-tenacity", std::to_string(c.maxmemory_eviction_tenacity)},
      {"lfu-log-factor", std::to_string(c.lfu_log_factor)},
      {"lfu-decay-time", std::to_string(c.lfu_decay_time)},
      {"cluster-enabled", "no"},
      {"dynamic-hz", "no"},
      {"lazyfree-lazy-user-flush", "no"},
      {"snapshot-max-count", std::to_string(c.snapshot_max_count)},
      {"snapshot-max-bytes", std::to_string(c.snapshot_max_bytes)},
  };
  AppendTlsConfigValues(c, values);
  return values;
}

}  // namespace warden::server
