// The options of Redis 7.0's config table that have no effect in warden: cluster mode, active
// defragmentation, jemalloc, I/O threads, lazy freeing, process titles, CPU lists and the like.
// A stock redis.conf sets many of them, so each is accepted with Redis's parsing, bounds and
// error text, kept, shown by CONFIG GET, taken by CONFIG SET (or refused as immutable, as Redis
// does) and written by CONFIG REWRITE; the server logs once at start which ones were given a
// value other than Redis's default (LogInertOptions).
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "server/config/config_options.h"
#include "server/config/config_values.h"
#include "server/config/option_rows.h"

namespace warden::server {
namespace {

using config_values::SetResult;
using option_rows::Words;

enum class Form : std::uint8_t {
  kBool,
  kInt,
  kMemory,
  kEnum,
  kString,
  kMemoryOrPercent,  // maxmemory-clients: bytes, or N% of maxmemory
};

struct InertSpec {
  std::string_view name;
  std::string_view alias;
  Form form;
  bool immutable;
  std::int64_t min;
  std::int64_t max;
  std::span<const std::string_view> choices;
  std::string_view default_value;  // as CONFIG GET shows it
  std::string_view help;
};

constexpr std::string_view kProtectedAction[] = {"no", "yes", "local"};
constexpr std::string_view kEndpointTypes[] = {"ip", "hostname", "unknown-endpoint"};
constexpr std::string_view kPropagationError[] = {"ignore", "panic", "panic-on-replicas"};

constexpr std::int64_t kIntMax = option_rows::kIntMax;
constexpr std::int64_t kLongMax = option_rows::kLongMax;
constexpr std::int64_t kUintMax = UINT32_MAX;

constexpr std::string_view kCluster = "cluster mode: warden runs standalone";
constexpr std::string_view kDefrag = "active defragmentation: warden's entry pool needs none";

// Redis 7.0's rows (config.c), in its order, with its bounds and defaults.
constexpr InertSpec kInert[] = {
    {"activedefrag", {}, Form::kBool, false, 0, 0, {}, "no", kDefrag},
    {"active-defrag-cycle-max", {}, Form::kInt, false, 1, 99, {}, "25", kDefrag},
    {"active-defrag-cycle-min", {}, Form::kInt, false, 1, 99, {}, "1", kDefrag},
    {"active-defrag-ignore-bytes", {}, Form::kMemory, false, 1, kLongMax, {}, "104857600", kDefrag},
    {"active-defrag-max-scan-fields", {}, Form::kInt, false, 1, kLongMax, {}, "1000", kDefrag},
    {"active-defrag-threshold-lower", {}, Form::kInt, false, 0, 1000, {}, "10", kDefrag},
    {"active-defrag-threshold-upper", {}, Form::kInt, false, 0, 1000, {}, "100", kDefrag},
    {"activerehashing",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "yes",
     "warden's tables always rehash incrementally"},
    {"aof-disable-auto-gc",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "old append-only files are always removed"},
    {"aof-rewrite-incremental-fsync",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "yes",
     "the rewrite child syncs as it goes"},
    {"aof_rewrite_cpulist", {}, Form::kString, true, 0, 0, {}, "", "CPU affinity: not set"},
    {"bgsave_cpulist", {}, Form::kString, true, 0, 0, {}, "", "CPU affinity: not set"},
    {"bind-source-addr",
     {},
     Form::kString,
     false,
     0,
     0,
     {},
     "",
     "replication connects from the default address"},
    {"bio_cpulist", {}, Form::kString, true, 0, 0, {}, "", "CPU affinity: not set"},
    {"cluster-allow-pubsubshard-when-down", {}, Form::kBool, false, 0, 0, {}, "yes", kCluster},
    {"cluster-allow-reads-when-down", {}, Form::kBool, false, 0, 0, {}, "no", kCluster},
    {"cluster-allow-replica-migration", {}, Form::kBool, false, 0, 0, {}, "yes", kCluster},
    {"cluster-announce-bus-port", {}, Form::kInt, false, 0, 65535, {}, "0", kCluster},
    {"cluster-announce-hostname", {}, Form::kString, false, 0, 0, {}, "", kCluster},
    {"cluster-announce-ip", {}, Form::kString, false, 0, 0, {}, "", kCluster},
    {"cluster-announce-port", {}, Form::kInt, false, 0, 65535, {}, "0", kCluster},
    {"cluster-announce-tls-port", {}, Form::kInt, false, 0, 65535, {}, "0", kCluster},
    {"cluster-config-file", {}, Form::kString, true, 0, 0, {}, "nodes.conf", kCluster},
    {"cluster-link-sendbuf-limit", {}, Form::kMemory, false, 0, kLongMax, {}, "0", kCluster},
    {"cluster-migration-barrier", {}, Form::kInt, false, 0, kIntMax, {}, "1", kCluster},
    {"cluster-node-timeout", {}, Form::kInt, false, 0, kLongMax, {}, "15000", kCluster},
    {"cluster-port", {}, Form::kInt, true, 0, 65535, {}, "0", kCluster},
    {"cluster-preferred-endpoint-type",
     {},
     Form::kEnum,
     false,
     0,
     0,
     kEndpointTypes,
     "ip",
     kCluster},
    {"cluster-replica-no-failover",
     "cluster-slave-no-failover",
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     kCluster},
    {"cluster-replica-validity-factor",
     "cluster-slave-validity-factor",
     Form::kInt,
     false,
     0,
     kIntMax,
     {},
     "10",
     kCluster},
    {"cluster-require-full-coverage", {}, Form::kBool, false, 0, 0, {}, "yes", kCluster},
    {"crash-log-enabled",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "yes",
     "a crash report is always logged"},
    {"crash-memcheck-enabled",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "yes",
     "no memory test after a crash"},
    {"disable-thp", {}, Form::kBool, true, 0, 0, {}, "yes", "transparent huge pages left as set"},
    {"enable-module-command",
     {},
     Form::kEnum,
     true,
     0,
     0,
     kProtectedAction,
     "no",
     "warden loads no modules"},
    {"ignore-warnings", {}, Form::kString, false, 0, 0, {}, "", "no start-up warnings to silence"},
    {"io-threads", {}, Form::kInt, true, 1, 128, {}, "1", "warden runs one thread"},
    {"io-threads-do-reads", {}, Form::kBool, true, 0, 0, {}, "no", "warden runs one thread"},
    {"jemalloc-bg-thread", {}, Form::kBool, false, 0, 0, {}, "yes", "warden does not use jemalloc"},
    {"lazyfree-lazy-eviction",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "large values are always freed in slices"},
    {"lazyfree-lazy-expire",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "large values are always freed in slices"},
    {"lazyfree-lazy-server-del",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "large values are always freed in slices"},
    {"lazyfree-lazy-user-del",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "large values are always freed in slices"},
    {"list-compress-depth",
     {},
     Form::kInt,
     false,
     0,
     kIntMax,
     {},
     "0",
     "list nodes are not compressed"},
    {"maxmemory-clients",
     {},
     Form::kMemoryOrPercent,
     false,
     -100,
     kLongMax,
     {},
     "0",
     "clients' buffers are bounded by client-output-buffer-limit"},
    {"no-appendfsync-on-rewrite",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "no",
     "the append-only file syncs during rewrites too"},
    {"proc-title-template",
     {},
     Form::kString,
     false,
     0,
     0,
     {},
     "{title} {listen-addr} {server-mode}",
     "warden keeps its process title"},
    {"propagation-error-behavior",
     {},
     Form::kEnum,
     false,
     0,
     0,
     kPropagationError,
     "ignore",
     "a replica logs a failed replicated command"},
    {"rdb-save-incremental-fsync",
     {},
     Form::kBool,
     false,
     0,
     0,
     {},
     "yes",
     "the snapshot child syncs as it goes"},
    {"server_cpulist", {}, Form::kString, true, 0, 0, {}, "", "CPU affinity: not set"},
    {"set-proc-title", {}, Form::kBool, true, 0, 0, {}, "yes", "warden keeps its process title"},
    {"socket-mark-id", {}, Form::kInt, true, 0, kUintMax, {}, "0", "sockets are not marked"},
    {"tls-client-cert-file",
     {},
     Form::kString,
     false,
     0,
     0,
     {},
     "",
     "outgoing TLS uses tls-cert-file"},
    {"tls-client-key-file",
     {},
     Form::kString,
     false,
     0,
     0,
     {},
     "",
     "outgoing TLS uses tls-key-file"},
    {"tls-client-key-file-pass",
     {},
     Form::kString,
     false,
     0,
     0,
     {},
     "",
     "outgoing TLS uses tls-key-file"},
    {"tls-cluster", {}, Form::kBool, false, 0, 0, {}, "no", kCluster},
    {"tls-replication", {}, Form::kBool, false, 0, 0, {}, "no", "replication runs over plain TCP"},
    // Redis's hidden test hooks (kHidden).
    {"use-exit-on-panic", {}, Form::kBool, false, 0, 0, {}, "no", "a test hook of Redis's"},
    {"key-load-delay",
     {},
     Form::kInt,
     false,
     INT32_MIN,
     INT32_MAX,
     {},
     "0",
     "a test hook of Redis's: loading is not slowed"},
    {"watchdog-period", {}, Form::kInt, false, 0, kIntMax, {}, "0", "a test hook of Redis's"},
    {"loading-process-events-interval-bytes",
     {},
     Form::kInt,
     false,
     1024,
     kIntMax,
     {},
     "2097152",
     "a test hook of Redis's"},
};
static_assert(std::size(kInert) == kInertOptionCount, "Config::inert has a slot per row");

constexpr std::string_view kHidden[] = {"use-exit-on-panic", "key-load-delay", "watchdog-period",
                                        "loading-process-events-interval-bytes"};

constexpr bool IsHidden(std::string_view name) {
  for (std::string_view h : kHidden) {
    if (h == name) return true;
  }
  return false;
}

SetResult SetInert(const InertSpec& spec, std::string& out, Words w) {
  switch (spec.form) {
    case Form::kBool: {
      bool b = false;
      if (auto error = config_values::SetBool(w[0], b)) return error;
      out = config_values::YesNo(b);
      return std::nullopt;
    }
    case Form::kInt: {
      std::int64_t n = 0;
      if (auto error = config_values::SetInteger(w[0], spec.min, spec.max, n)) return error;
      out = std::to_string(n);
      return std::nullopt;
    }
    case Form::kMemory: {
      std::int64_t n = 0;
      if (auto error = config_values::SetMemory(w[0], spec.min, spec.max, n)) return error;
      out = std::to_string(n);
      return std::nullopt;
    }
    case Form::kMemoryOrPercent: {
      // Redis keeps a percentage as a negative number and shows it as "N%".
      if (!w[0].empty() && w[0].back() == '%') {
        std::int64_t n = 0;
        if (!protocol::ParseStrictInt64(w[0].substr(0, w[0].size() - 1), n) || n < 0) {
          return "argument must be a memory or percent value";
        }
        if (-n < spec.min) return "percentage argument must be less or equal to 100";
        out = std::to_string(n) + "%";
        return std::nullopt;
      }
      std::int64_t n = 0;
      unsigned long long bytes = 0;
      if (!config_values::MemToUll(w[0], bytes))
        return "argument must be a memory or percent value";
      if (auto error = config_values::SetMemory(w[0], spec.min, spec.max, n)) return error;
      out = std::to_string(n);
      return std::nullopt;
    }
    case Form::kEnum: {
      std::string name;
      if (auto error = config_values::SetEnum(w[0], spec.choices, name)) return error;
      out = name;
      return std::nullopt;
    }
    case Form::kString:
      out.assign(w[0]);
      return std::nullopt;
  }
  return std::nullopt;
}

std::string RewriteInert(const InertSpec& spec, const std::string& value) {
  switch (spec.form) {
    case Form::kMemory:
      return config_values::FormatMemory(std::stoll(value));
    case Form::kMemoryOrPercent:
      return value.ends_with('%') ? value : config_values::FormatMemory(std::stoll(value));
    case Form::kString:
      return config_values::Quoted(value);
    default:
      return value;
  }
}

constexpr ConfigKind KindOf(Form form) {
  switch (form) {
    case Form::kBool:
      return ConfigKind::kBool;
    case Form::kInt:
      return ConfigKind::kInt;
    case Form::kMemory:
      return ConfigKind::kMemory;
    case Form::kEnum:
      return ConfigKind::kEnum;
    case Form::kString:
      return ConfigKind::kString;
    default:
      return ConfigKind::kSpecial;
  }
}

template <std::size_t I>
constexpr ConfigOption InertRow() {
  constexpr const InertSpec& spec = kInert[I];
  return {spec.name,
          spec.alias,
          KindOf(spec.form),
          (spec.immutable ? kConfigImmutable : 0u) | (IsHidden(spec.name) ? kConfigHidden : 0u),
          spec.min,
          spec.max,
          spec.choices,
          spec.help,
          [](Config& c, Words w) -> SetResult {
            if (w.empty()) return "wrong number of arguments";
            return SetInert(kInert[I], c.inert[I], w);
          },
          [](const Config& c) { return c.inert[I]; },
          [](const Config& c) { return RewriteInert(kInert[I], c.inert[I]); },
          nullptr};
}

template <std::size_t... I>
constexpr std::array<ConfigOption, sizeof...(I)> InertRows(std::index_sequence<I...>) {
  return {InertRow<I>()...};
}

constexpr auto kInertRows = InertRows(std::make_index_sequence<std::size(kInert)>());

}  // namespace

std::span<const ConfigOption> InertConfigOptions() { return kInertRows; }

std::array<std::string, kInertOptionCount> InertDefaults() {
  std::array<std::string, kInertOptionCount> values;
  for (std::size_t i = 0; i < kInertOptionCount; ++i) values[i] = kInert[i].default_value;
  return values;
}

std::vector<std::string> InertOptionsSet(const Config& config) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kInertOptionCount; ++i) {
    if (config.inert[i] != kInert[i].default_value) names.emplace_back(kInert[i].name);
  }
  return names;
}

}  // namespace warden::server
