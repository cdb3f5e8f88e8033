#include "server/config/config_options.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "server/command_context.h"
#include "server/config/option_rows.h"
#include "server/eviction.h"
#include "server/log.h"
#include "server/notify.h"
#include "server/server_state.h"
#include "server/stats/memory_meter.h"

namespace warden::server {
namespace {

using namespace config_values;  // NOLINT(build/namespaces): the table is built from them
using namespace option_rows;    // NOLINT(build/namespaces)
using storage::EncodingLimits;

// --- The options whose parsing is their own ---------------------------------------------------

// Redis's setConfigBindOption: up to 16 addresses; "" for none.
ConfigSetResult SetBind(Config& c, Words a) {
  if (a.size() > 16) return "Too many bind addresses specified.";
  c.bind.assign(a.begin(), a.end());
  if (c.bind.size() == 1 && c.bind[0].empty()) c.bind.clear();
  return std::nullopt;
}

std::string GetBind(const Config& c) {
  std::string out;
  for (const std::string& b : c.bind) out += (out.empty() ? "" : " ") + b;
  return out;
}

ConfigSetResult SetUnixsocketperm(Config& c, Words a) {
  int perm = 0;
  const std::string_view v = a[0];
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), perm, 8);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
    return "argument couldn't be parsed into an integer";
  }
  if (perm > 0777) return Between(0, 0777);
  c.unixsocketperm = perm;
  return std::nullopt;
}

std::string GetUnixsocketperm(const Config& c) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%o", c.unixsocketperm);
  return buf;
}

ConfigSetResult SetRequirepass(Config& c, Words a) {
  c.requirepass.assign(a[0]);
  return std::nullopt;
}

constexpr std::string_view kPubsubDefaults[] = {"allchannels", "resetchannels"};

ConfigSetResult SetAclPubsubDefault(Config& c, Words a) {
  std::string value;
  if (auto err = SetEnum(a[0], kPubsubDefaults, value)) return err;
  c.acl_pubsub_default_all = value == "allchannels";
  return std::nullopt;
}

std::string GetAclPubsubDefault(const Config& c) {
  return c.acl_pubsub_default_all ? "allchannels" : "resetchannels";
}

// Redis's updateHZ keeps the value within 1..500 without complaint.
ConfigSetResult SetHz(Config& c, Words a) {
  std::int64_t hz = 0;
  ConfigSetResult err = SetInteger(a[0], 0, kIntMax, hz);
  if (!err) c.hz = static_cast<int>(std::clamp<std::int64_t>(hz, 1, 500));
  return err;
}

std::string GetHz(const Config& c) { return std::to_string(c.hz); }

ConfigSetResult SetProtoMaxBulkLen(Config& c, Words a) {
  std::int64_t limit = 0;
  if (auto err = SetMemory(a[0], 1024 * 1024, kLongMax, limit)) return err;
  // An entry keeps 31 bits of value length.
  if (limit > 0x7FFFFFFF) return "argument must be at most 2gb - 1 in warden";
  c.proto_max_bulk_len = limit;
  return std::nullopt;
}

std::string GetProtoMaxBulkLen(const Config& c) { return std::to_string(c.proto_max_bulk_len); }
std::string RewriteProtoMaxBulkLen(const Config& c) { return FormatMemory(c.proto_max_bulk_len); }

// Redis's "<class> <hard> <soft> <soft-seconds>" groups; all are checked before any applies.
ConfigSetResult SetOutputBufferLimit(Config& c, Words a) {
  if (a.empty() || a.size() % 4 != 0) {
    return "Wrong number of arguments in buffer limit configuration.";
  }
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

std::string GetOutputBufferLimit(const Config& c) {
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

std::string RewriteOutputBufferLimit(const Config& c) {
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

ConfigSetResult SetPercentiles(Config& c, Words a) {
  std::vector<std::string> words(a.begin(), a.end());
  if (words.empty()) words.emplace_back();
  return ParsePercentiles(words, c.latency_tracking_info_percentiles);
}

std::string GetPercentiles(const Config& c) {
  return FormatPercentiles(c.latency_tracking_info_percentiles);
}

ConfigSetResult SetNotifyKeyspaceEvents(Config& c, Words a) {
  const std::optional<int> flags = ParseNotifyKeyspaceEvents(a[0]);
  if (!flags) return std::string(kBadNotifyClass);
  c.notify_keyspace_events = *flags;
  return std::nullopt;
}

std::string GetNotifyKeyspaceEvents(const Config& c) {
  return FormatNotifyKeyspaceEvents(c.notify_keyspace_events);
}

// Quoted, as Redis's rewriteConfigNotifyKeyspaceEventsOption writes it: "" is a value.
std::string RewriteNotifyKeyspaceEvents(const Config& c) {
  return Quoted(GetNotifyKeyspaceEvents(c));
}

constexpr std::string_view kDebugPolicies[] = {"no", "yes", "local"};
constexpr DebugCommandPolicy kDebugPolicyValues[] = {
    DebugCommandPolicy::kNo, DebugCommandPolicy::kYes, DebugCommandPolicy::kLocal};

// Redis's setConfigSaveOption: "" empties the schedule; otherwise "<seconds> <changes>" pairs,
// seconds at least 1. A config file's or the command line's save lines add up (the first
// replaces the defaults); CONFIG SET replaces.
ConfigSetResult SetSave(Config& c, Words a) {
  if (a.size() == 1 && a[0].empty()) a = {};
  if (a.size() % 2 != 0) return "Invalid save parameters";
  std::vector<std::pair<std::int64_t, std::int64_t>> points;
  for (std::size_t j = 0; j < a.size(); j += 2) {
    std::int64_t pair[2];
    for (std::size_t k = 0; k < 2; ++k) {
      const std::string text(a[j + k]);
      char* end = nullptr;
      pair[k] = std::strtoll(text.c_str(), &end, 10);
      if (*end != '\0' || (k == 0 && pair[k] < 1) || (k == 1 && pair[k] < 0)) {
        return "Invalid save parameters";
      }
    }
    points.emplace_back(pair[0], pair[1]);
  }
  c.save_points = std::move(points);
  return std::nullopt;
}

std::string GetSave(const Config& c) {
  std::string out;
  for (const auto& [seconds, changes] : c.save_points) {
    if (!out.empty()) out += ' ';
    out += std::to_string(seconds) + " " + std::to_string(changes);
  }
  return out;
}

// rewriteConfigSaveOption: a line per point, or save "" for none.
std::string RewriteSave(const Config& c) {
  if (c.save_points.empty()) return "\"\"";
  std::string out;
  for (const auto& [seconds, changes] : c.save_points) {
    if (!out.empty()) out += '\n';
    out += std::to_string(seconds) + " " + std::to_string(changes);
  }
  return out;
}

constexpr char kDbfilenamePath[] = "dbfilename can't be a path, just a filename";

ConfigSetResult SetDbfilename(Config& c, Words a) {
  if (a[0].find('/') != std::string_view::npos) return kDbfilenamePath;
  c.dbfilename.assign(a[0]);
  return std::nullopt;
}
std::string GetDbfilename(const Config& c) { return c.dbfilename; }

template <std::string Config::*field, const char* kEmpty, const char* kPath>
ConfigSetResult SetBaseName(Config& c, Words a) {
  if (a[0].empty()) return kEmpty;
  if (a[0].find('/') != std::string_view::npos) return kPath;
  (c.*field).assign(a[0]);
  return std::nullopt;
}
constexpr char kAofFileEmpty[] = "appendfilename can't be empty";
constexpr char kAofFilePath[] = "appendfilename can't be a path, just a filename";
constexpr char kAofDirEmpty[] = "appenddirname can't be empty";
constexpr char kAofDirPath[] = "appenddirname can't be a path, just a dirname";

std::string GetAppendfilename(const Config& c) { return c.appendfilename; }
std::string GetAppenddirname(const Config& c) { return c.appenddirname; }
std::string RewriteAppendfilename(const Config& c) { return Quoted(c.appendfilename); }
std::string RewriteAppenddirname(const Config& c) { return Quoted(c.appenddirname); }

// Redis chdirs to `dir` and shows the working directory; warden keeps its own and names files
// under `dir`, so it shows that directory as an absolute path.
ConfigSetResult SetDir(Config& c, Words a) {
  c.dir.assign(a[0]);
  return std::nullopt;
}
std::string GetDir(const Config& c) {
  char* real = ::realpath(c.dir.empty() ? "." : c.dir.c_str(), nullptr);
  if (real == nullptr) return c.dir;
  std::string out(real);
  std::free(real);
  return out;
}
std::string RewriteDir(const Config& c) { return Quoted(GetDir(c)); }

// Options of Redis's whose only value in warden is "no": yes is refused with `Why`.
template <const char* Why>
ConfigSetResult SetOnlyNo(Config&, Words a) {
  bool on = false;
  if (auto err = SetBool(a[0], on)) return err;
  if (on) return Why;
  return std::nullopt;
}
constexpr char kNoCluster[] = "warden has no cluster mode";
std::string GetNo(const Config&) { return "no"; }
// A module is native code written against Redis's own structures: none can load here, and
// starting without the commands it would add is worse than not starting.
ConfigSetResult RefuseModule(Config&, Words) { return "warden loads no modules"; }

// Accepted with either value and without effect (Redis's dynamic-hz and lazyfree-lazy-user-flush:
// warden's hz stays as set, and large values are always freed in slices).
ConfigSetResult SetIgnoredBool(Config&, Words a) {
  bool ignored = false;
  return SetBool(a[0], ignored);
}

ConfigSetResult SetUser(Config& c, Words a) {
  c.users.emplace_back(a.begin(), a.end());
  return std::nullopt;
}

// Redis's rename-command <from> <to>: checked against the names the earlier lines left.
ConfigSetResult SetRenameCommand(Config& c, Words a) {
  if (a.size() != 2) return "Bad directive or wrong number of arguments";
  CommandNames names(c.rename_commands);
  if (const auto refused = names.Rename(a[0], a[1])) return std::string(*refused);
  c.rename_commands.emplace_back(a[0], a[1]);
  return std::nullopt;
}

ConfigSetResult SetSeed(Config& c, Words a) {
  const std::string_view v = a[0];
  if (EqualsNoCase(v, "random")) {
    c.seed.reset();
    return std::nullopt;
  }
  std::uint64_t seed = 0;
  const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
    return "argument must be an unsigned 64-bit integer or 'random'";
  }
  c.seed = seed;
  return std::nullopt;
}

// CONFIG GET shows the seed in use, drawn or given; a rewrite keeps `random` random.
template <std::string Config::*Field>
ConfigSetResult SetShutdownOnSignal(Config& c, Words w) {
  return config_values::SetShutdownFlags(w, c.*Field);
}
template <std::string Config::*Field>
std::string GetShutdownOnSignal(const Config& c) {
  return c.*Field;
}

std::string GetSeed(const Config& c) {
  const std::optional<std::uint64_t> seed = c.seed ? c.seed : c.seed_drawn;
  return seed ? std::to_string(*seed) : "random";
}
std::string RewriteSeed(const Config& c) { return c.seed ? std::to_string(*c.seed) : "random"; }

constexpr std::string_view kOomScoreAdjNames[] = {"no", "yes", "relative", "absolute"};
constexpr OomScoreAdj kOomScoreAdjValues[] = {OomScoreAdj::kNo, OomScoreAdj::kRelative,
                                              OomScoreAdj::kRelative, OomScoreAdj::kAbsolute};

// Redis's setConfigOOMScoreAdjValuesOption: three numbers as strtoll reads them ("+5", and ""
// for 0, are numbers), each within [-2000, 2000].
ConfigSetResult SetOomScoreAdjValues(Config& c, Words a) {
  if (a.size() != 3) return "wrong number of arguments";
  std::array<int, 3> values{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string word(a[i]);
    char* end = nullptr;
    const long long value = std::strtoll(word.c_str(), &end, 10);
    if (*end != '\0' || value < -2000 || value > 2000) {
      return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
    }
    values[i] = static_cast<int>(value);
  }
  c.oom_score_adj_values = values;
  return std::nullopt;
}

std::string GetOomScoreAdjValues(const Config& c) {
  const auto& v = c.oom_score_adj_values;
  return std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]);
}

// --- What a CONFIG SET must do besides changing the value -------------------------------------

// port and bind take effect at once, as in Redis: the listeners are replaced.
ConfigSetResult ApplyPort(ServerState& s) {
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Unable to listen on this port. Check server logs.";
}

ConfigSetResult ApplyBind(ServerState& s) {
  if (s.connections == nullptr || !s.connections->Relisten()) return std::nullopt;
  return "Failed to bind to specified addresses.";
}

// requirepass is the default user's password (Redis's ACLUpdateDefaultUserPassword).
ConfigSetResult ApplyRequirepass(ServerState& s) {
  s.acl.SetDefaultPassword(s.config.requirepass);
  return std::nullopt;
}

ConfigSetResult ApplyAclPubsubDefault(ServerState& s) {
  s.acl.pubsub_default_all = s.config.acl_pubsub_default_all;
  return std::nullopt;
}

ConfigSetResult ApplyActiveExpireEffort(ServerState& s) {
  const int effort = s.config.active_expire_effort - 1;
  s.active_expiry.set_options(
      {.keys_per_loop = 20 + 5 * effort, .acceptable_stale_percent = 10 - effort});
  return std::nullopt;
}

ConfigSetResult ApplyLoglevel(ServerState& s) {
  if (s.log != nullptr) s.log->set_level(ParseLogLevel(s.config.loglevel));
  return std::nullopt;
}

// Redis's updateOOMScoreAdj: the score changes at once.
ConfigSetResult ApplyOomScoreAdj(ServerState& s) {
  if (s.AdjustOomScore()) return std::nullopt;
  return "Failed to set current oom_score_adj. Check server logs.";
}

ConfigSetResult ApplyOomScoreAdjValues(ServerState& s) {
  if (!OomValuesRise(s.config.oom_score_adj_values) && s.log != nullptr) {
    s.log->Log(LogLevel::kWarning, "%s", kOomValuesMayNotWork);
  }
  return ApplyOomScoreAdj(s);
}

ConfigSetResult ApplyEviction(ServerState& s) {
  ApplyEvictionConfig(s);
  return std::nullopt;
}

// A lower limit takes effect at once, as Redis's updateMaxmemory: keys go (and their `evicted`
// events fire) before CONFIG SET replies, not at the next write.
ConfigSetResult ApplyMaxmemory(ServerState& s) {
  if (s.config.maxmemory <= 0) return std::nullopt;
  const std::size_t used = UsedMemory(s);
  if (static_cast<std::size_t>(s.config.maxmemory) < used && s.log != nullptr) {
    s.log->Log(LogLevel::kWarning,
               "WARNING: the new maxmemory value set via CONFIG SET (%lld) is smaller than the "
               "current memory usage (%zu). This will result in key eviction and/or the "
               "inability to accept new write commands depending on the maxmemory-policy.",
               static_cast<long long>(s.config.maxmemory), used);
  }
  PerformEvictions(s);
  return std::nullopt;
}

// On: the data set is rewritten into a new base while writes go on (Aof::Enable). Off: the file
// is written, synced and closed, as Redis's stopAppendOnly.
ConfigSetResult ApplyAppendonly(ServerState& s) {
  if (!s.config.appendonly && s.aof.on()) {
    s.propagation.set_aof(false);
    s.aof.Stop();
  } else if (s.config.appendonly && !s.aof.on()) {
    if (auto err = s.aof.Enable()) return err;
    s.propagation.set_aof(true);
  }
  return std::nullopt;
}

ConfigSetResult ApplyAppendfsync(ServerState& s) {
  s.aof.set_policy(ParseAppendFsync(s.config.appendfsync));
  return std::nullopt;
}

// --- The table --------------------------------------------------------------------------------

constexpr std::string_view kSupervised[] = {"upstart", "systemd", "auto", "no"};
constexpr std::string_view kLogLevels[] = {"debug", "verbose", "notice", "warning"};
constexpr std::string_view kPolicies[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                          "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                          "allkeys-random", "noeviction"};
constexpr std::string_view kFsyncPolicies[] = {"everysec", "always", "no"};
constexpr std::string_view kSanitizeModes[] = {"no", "yes", "clients"};

constexpr std::uint32_t kImm = kConfigImmutable;
constexpr std::uint32_t kWarden = kConfigWarden;
template <auto M>
using F = Field<M>;
template <auto M>
using Enc = SubField<&Config::encoding, M>;

// Kinds, bounds and texts are Redis 7.0's (config.c's standardConfig table), in the groups
// --help, the man page and the sample config show. hz is picked up by the next cron tick; the
// others without an apply step are read where they are used.
const ConfigOption kNetworkOptions[] = {
    Int<F<&Config::port>, 0, 65535>("port", 0, "TCP port (0 picks a free one)", ApplyPort),
    Special("bind", kConfigMultiWord, "addresses to listen on", SetBind, GetBind, GetBind,
            ApplyBind),
    String<F<&Config::unixsocket>>("unixsocket", kImm, "also listen on this unix socket"),
    Special("unixsocketperm", kImm, "the unix socket's permissions, in octal", SetUnixsocketperm,
            GetUnixsocketperm, GetUnixsocketperm),
    Bool<F<&Config::protected_mode>>("protected-mode", 0,
                                     "without a password, refuse clients from other hosts"),
    Int<F<&Config::tcp_backlog>, 0, kIntMax>("tcp-backlog", kImm, "listen() backlog"),
    Int<F<&Config::tcp_keepalive_s>, 0, kIntMax>("tcp-keepalive", 0,
                                                 "seconds between TCP keepalive probes"),
    Int<F<&Config::timeout_s>, 0, kIntMax>("timeout", 0,
                                           "close a client idle this many seconds (0: never)"),
    Special(
        "maxclients", 0, "most clients at once",
        [](Config& c, Words w) { return SetInteger(w[0], 1, UINT32_MAX, c.maxclients); },
        [](const Config& c) { return std::to_string(c.maxclients); },
        [](const Config& c) { return std::to_string(c.maxclients); }),
    Special("proto-max-bulk-len", 0, "largest bulk argument (at most 2gb - 1)", SetProtoMaxBulkLen,
            GetProtoMaxBulkLen, RewriteProtoMaxBulkLen),
    Memory<F<&Config::client_query_buffer_limit>, 1024 * 1024, kLongMax>(
        "client-query-buffer-limit", 0, "largest request a client may have pending"),
    Special("client-output-buffer-limit", kConfigMultiWord,
            "<class> <hard> <soft> <soft-seconds>: when a slow reader is closed",
            SetOutputBufferLimit, GetOutputBufferLimit, RewriteOutputBufferLimit),
    Int<F<&Config::shutdown_timeout_s>, 0, kIntMax>(
        "shutdown-timeout", 0, "seconds replies may take to reach slow readers on SIGTERM"),
};
const ConfigOption kSecurityOptions[] = {
    Special(
        "requirepass", kConfigSensitive, "the default user's password", SetRequirepass,
        [](const Config& c) { return c.requirepass; },
        [](const Config& c) { return Quoted(c.requirepass); }, ApplyRequirepass),
    String<F<&Config::aclfile>>("aclfile", kImm, "the ACL file (ACL LOAD, ACL SAVE)"),
    Special("user", kConfigFileOnly | kConfigMultiWord, "<name> [rules ...]: an ACL user", SetUser,
            nullptr, nullptr),
    Special("rename-command", kConfigFileOnly | kConfigMultiWord,
            "<from> <to>: call a command by another name (\"\": by none)", SetRenameCommand,
            nullptr, nullptr),
    Int<F<&Config::acllog_max_len>, 0, kLongMax>("acllog-max-len", 0, "ACL LOG's length"),
    Special("acl-pubsub-default", 0, "channels a new user may use: allchannels|resetchannels",
            SetAclPubsubDefault, GetAclPubsubDefault, GetAclPubsubDefault, ApplyAclPubsubDefault),
    Enum<F<&Config::enable_protected_configs>, kDebugPolicies>(
        "enable-protected-configs", kImm, "CONFIG SET of dir, dbfilename ...: no|yes|local"),
    EnumClass<F<&Config::enable_debug_command>, kDebugPolicies, kDebugPolicyValues>(
        "enable-debug-command", kImm, "DEBUG and its test controls"),
};
const ConfigOption kBackgroundOptions[] = {
    Special("hz", 0, "background tasks per second (1..500)", SetHz, GetHz, GetHz),
    Special("dynamic-hz", 0, "accepted; warden's hz stays as set", SetIgnoredBool, GetNo, nullptr),
    Int<F<&Config::active_expire_effort>, 1, 10>(
        "active-expire-effort", 0, "effort of active expiry", ApplyActiveExpireEffort),
    Int<F<&Config::busy_reply_threshold_ms>, 0, kLongMax>("busy-reply-threshold", 0,
                                                          "ms a script runs before others get BUSY",
                                                          nullptr, "lua-time-limit"),
};
const ConfigOption kDatabaseOptions[] = {
    Int<F<&Config::databases>, 1, 1 << 16>("databases", kImm, "how many databases"),
    Special("notify-keyspace-events", 0, "keyspace notification classes", SetNotifyKeyspaceEvents,
            GetNotifyKeyspaceEvents, RewriteNotifyKeyspaceEvents),
    Int<Enc<&EncodingLimits::hash_max_listpack_entries>, 0, kLongMax>(
        "hash-max-listpack-entries", 0, "hashes packed up to this many fields", nullptr,
        "hash-max-ziplist-entries"),
    Memory<Enc<&EncodingLimits::hash_max_listpack_value>, 0, kLongMax>(
        "hash-max-listpack-value", 0, "and values up to this size", nullptr,
        "hash-max-ziplist-value"),
    Int<Enc<&EncodingLimits::set_max_intset_entries>, 0, kLongMax>(
        "set-max-intset-entries", 0, "integer sets packed up to this many members"),
    Int<Enc<&EncodingLimits::zset_max_listpack_entries>, 0, kLongMax>(
        "zset-max-listpack-entries", 0, "sorted sets packed up to this many members", nullptr,
        "zset-max-ziplist-entries"),
    Memory<Enc<&EncodingLimits::zset_max_listpack_value>, 0, kLongMax>(
        "zset-max-listpack-value", 0, "and members up to this size", nullptr,
        "zset-max-ziplist-value"),
    Int<Enc<&EncodingLimits::list_max_listpack_size>, INT32_MIN, INT32_MAX>(
        "list-max-listpack-size", 0, "list chunk size: entries, or -1..-5 for 4kb..64kb", nullptr,
        "list-max-ziplist-size"),
    Memory<Enc<&EncodingLimits::stream_node_max_bytes>, 0, kLongMax>("stream-node-max-bytes", 0,
                                                                     "bytes per stream node"),
    Int<Enc<&EncodingLimits::stream_node_max_entries>, 0, kLongMax>("stream-node-max-entries", 0,
                                                                    "entries per stream node"),
    Memory<Enc<&EncodingLimits::hll_sparse_max_bytes>, 0, kLongMax>(
        "hll-sparse-max-bytes", 0, "sparse HyperLogLogs up to this size"),
};
const ConfigOption kMemoryOptions[] = {
    Memory<F<&Config::maxmemory>, 0, kLongMax>("maxmemory", 0, "memory limit for data (0: none)",
                                               ApplyMaxmemory),
    Enum<F<&Config::maxmemory_policy>, kPolicies>("maxmemory-policy", 0, "what goes past maxmemory",
                                                  ApplyEviction),
    Int<F<&Config::maxmemory_samples>, 1, kIntMax>("maxmemory-samples", 0,
                                                   "keys sampled per eviction"),
    Int<F<&Config::maxmemory_eviction_tenacity>, 0, 100>("maxmemory-eviction-tenacity", 0,
                                                         "how long one eviction pass may run"),
    Int<F<&Config::tracking_table_max_keys>, 0, kLongMax>(
        "tracking-table-max-keys", 0, "keys client-side caching remembers (0: no limit)"),
    Int<F<&Config::lfu_log_factor>, 0, kIntMax>("lfu-log-factor", 0, "LFU counter growth",
                                                ApplyEviction),
    Int<F<&Config::lfu_decay_time>, 0, kIntMax>("lfu-decay-time", 0, "minutes per LFU decay step",
                                                ApplyEviction),
    Special("lazyfree-lazy-user-flush", 0, "accepted; large values are always freed in slices",
            SetIgnoredBool, GetNo, nullptr),
};
const ConfigOption kLoggingOptions[] = {
    Enum<F<&Config::loglevel>, kLogLevels>("loglevel", 0, "log verbosity", ApplyLoglevel),
    String<F<&Config::logfile>>("logfile", kImm, "log here instead of stdout"),
    Bool<F<&Config::syslog_enabled>>("syslog-enabled", kImm, "log to syslog too"),
    String<F<&Config::syslog_ident>>("syslog-ident", kImm, "the ident syslog's lines carry"),
    Enum<F<&Config::syslog_facility>, kSyslogFacilities>("syslog-facility", kImm,
                                                         "the facility they go to"),
    Bool<F<&Config::always_show_logo>>("always-show-logo", kImm,
                                       "the logo at start, not only on a terminal"),
    Int<F<&Config::slowlog_log_slower_than_us>, -1, kLongMax>(
        "slowlog-log-slower-than", 0, "us a command takes to enter the slow log (-1: off)"),
    Int<F<&Config::slowlog_max_len>, 0, kLongMax>("slowlog-max-len", 0, "slow log length"),
    Int<F<&Config::latency_monitor_threshold_ms>, 0, kLongMax>(
        "latency-monitor-threshold", 0, "ms an event takes to be recorded (0: off)"),
    Bool<F<&Config::latency_tracking>>("latency-tracking", 0, "per-command latency histograms"),
    Special("latency-tracking-info-percentiles", kConfigMultiWord, "percentiles INFO shows",
            SetPercentiles, GetPercentiles, GetPercentiles),
};
const ConfigOption kPersistenceOptions[] = {
    Special("save", kConfigMultiWord, "snapshot points: <seconds> <changes> pairs", SetSave,
            GetSave, RewriteSave),
    Special("dbfilename", kConfigProtected, "the snapshot's file name, in dir", SetDbfilename,
            GetDbfilename, GetDbfilename),
    Bool<F<&Config::rdbcompression>>("rdbcompression", 0, "LZF for snapshot strings"),
    Bool<F<&Config::rdbchecksum>>("rdbchecksum", kImm, "CRC64 of snapshots, checked on load"),
    Bool<F<&Config::stop_writes_on_bgsave_error>>("stop-writes-on-bgsave-error", 0,
                                                  "refuse writes while snapshots fail"),
    Bool<F<&Config::rdb_del_sync_files>>("rdb-del-sync-files", 0,
                                         "delete a replica's sync snapshot"),
    Enum<F<&Config::sanitize_dump_payload>, kSanitizeModes>(
        "sanitize-dump-payload", 0, "accepted: warden checks every payload deeply"),
    Int<F<&Config::rdb_key_save_delay>, INT32_MIN, kIntMax>(
        "rdb-key-save-delay", kConfigHidden, "tests: microseconds slept per key saved"),
    Bool<F<&Config::appendonly>>("appendonly", 0, "keep an append-only file", ApplyAppendonly),
    Enum<F<&Config::appendfsync>, kFsyncPolicies>("appendfsync", 0, "when it is synced",
                                                  ApplyAppendfsync),
    Special("appendfilename", kImm, "its base name",
            SetBaseName<&Config::appendfilename, kAofFileEmpty, kAofFilePath>, GetAppendfilename,
            RewriteAppendfilename),
    Special("appenddirname", kImm, "its directory's name, under dir",
            SetBaseName<&Config::appenddirname, kAofDirEmpty, kAofDirPath>, GetAppenddirname,
            RewriteAppenddirname),
    Int<F<&Config::auto_aof_rewrite_percentage>, 0, kIntMax>(
        "auto-aof-rewrite-percentage", 0, "growth that starts a rewrite (0: never)"),
    Memory<F<&Config::auto_aof_rewrite_min_size>, 0, kLongMax>(
        "auto-aof-rewrite-min-size", 0, "and the size below which it does not"),
    Bool<F<&Config::aof_load_truncated>>("aof-load-truncated", 0,
                                         "load a file cut short by a crash"),
    Bool<F<&Config::aof_timestamp_enabled>>("aof-timestamp-enabled", 0,
                                            "accepted; warden writes no timestamps"),
    Bool<F<&Config::aof_use_rdb_preamble>>("aof-use-rdb-preamble", 0,
                                           "a rewrite's base file is an RDB snapshot"),
    Special("dir", kConfigProtected, "working directory for the files", SetDir, GetDir, RewriteDir),
};
const ConfigOption kServiceOptions[] = {
    Bool<F<&Config::daemonize>>("daemonize", kImm, "run in the background, detached"),
    String<F<&Config::pidfile>>("pidfile", kImm, "write the pid here (daemonized: always)"),
    Enum<F<&Config::supervised>, kSupervised>("supervised", kImm,
                                              "systemd: tell systemd when ready (sd_notify)"),
    EnumClass<F<&Config::oom_score_adj>, kOomScoreAdjNames, kOomScoreAdjValues>(
        "oom-score-adj", 0, "set the OOM killer's score (yes: relative)", ApplyOomScoreAdj),
    Special("oom-score-adj-values", kConfigMultiWord,
            "its values for a master, a replica and a forked child", SetOomScoreAdjValues,
            GetOomScoreAdjValues, GetOomScoreAdjValues, ApplyOomScoreAdjValues),
    Special("shutdown-on-sigint", kConfigMultiWord,
            "SIGINT as SHUTDOWN with these flags: default|save|nosave|now|force",
            SetShutdownOnSignal<&Config::shutdown_on_sigint>,
            GetShutdownOnSignal<&Config::shutdown_on_sigint>,
            GetShutdownOnSignal<&Config::shutdown_on_sigint>),
    Special("shutdown-on-sigterm", kConfigMultiWord,
            "SIGTERM as SHUTDOWN with these flags: default|save|nosave|now|force",
            SetShutdownOnSignal<&Config::shutdown_on_sigterm>,
            GetShutdownOnSignal<&Config::shutdown_on_sigterm>,
            GetShutdownOnSignal<&Config::shutdown_on_sigterm>),
};
const ConfigOption kNoClusterOptions[] = {
    Special("cluster-enabled", kImm, "only no: warden has no cluster mode", SetOnlyNo<kNoCluster>,
            GetNo, nullptr),
    Special("loadmodule", kConfigFileOnly | kConfigMultiWord,
            "<path> [args]: refused, warden loads no modules", RefuseModule, nullptr, nullptr),
};
const ConfigOption kWardenOptions[] = {
    Bool<F<&Config::lua_native_scripts>>("lua-native-scripts", kWarden,
                                         "run known lock scripts as native code"),
    Memory<F<&Config::script_memory_limit>, 0, kLongMax>(
        "script-memory-limit", kImm | kWarden, "Lua memory while a script runs (0: none)"),
    String<F<&Config::port_file>>("port-file", kImm | kWarden,
                                  "write the bound port here once ready"),
    String<F<&Config::preload>>("preload", kImm | kWarden,
                                "run the commands in this file before serving"),
    Special("seed", kImm | kWarden,
            "fix every random choice, for reproducible runs (CONFIG GET: the seed in use)", SetSeed,
            GetSeed, RewriteSeed),
    Int<F<&Config::command_log_max_entries>, 1, kLongMax>(
        "command-log-max-entries", kImm | kWarden, "most entries DEBUG COMMAND-LOG may keep"),
    Int<F<&Config::debug_fault_max_rules>, 0, kIntMax>("debug-fault-max-rules", kImm | kWarden,
                                                       "DEBUG FAULT rules installed at once"),
    Int<F<&Config::snapshot_max_count>, 0, kLongMax>("snapshot-max-count", kWarden,
                                                     "DEBUG SNAPSHOT's most snapshots"),
    Memory<F<&Config::snapshot_max_bytes>, 0, kLongMax>("snapshot-max-bytes", kWarden,
                                                        "and their bytes together (0: no cap)"),
};

bool NameMatches(const ConfigOption& o, std::string_view name, bool* via_alias) {
  const bool alias = !o.alias.empty() && EqualsNoCase(name, o.alias);
  if (!alias && !EqualsNoCase(name, o.name)) return false;
  if (via_alias != nullptr) *via_alias = alias;
  return true;
}

}  // namespace

std::span<const ConfigGroup> ConfigGroups() {
  static const ConfigGroup groups[] = {
      {"Network and clients", kNetworkOptions},
      {"Security", kSecurityOptions},
      {"TLS", TlsConfigOptions()},
      {"Background work and scripts", kBackgroundOptions},
      {"Databases and encodings", kDatabaseOptions},
      {"Memory", kMemoryOptions},
      {"Logging and statistics", kLoggingOptions},
      {"Persistence", kPersistenceOptions},
      {"Replication", ReplicationConfigOptions()},
      {"Running as a service", kServiceOptions},
      {"Redis's cluster and modules, not in warden", kNoClusterOptions},
      {"Redis's, with no effect here", InertConfigOptions()},
      {"warden's own: scripts, start-up and the test double", kWardenOptions},
  };
  return groups;
}

std::span<const ConfigOption> ConfigOptions() {
  static const std::vector<ConfigOption> all = [] {
    std::vector<ConfigOption> options;
    for (const ConfigGroup& group : ConfigGroups()) {
      options.insert(options.end(), group.rows.begin(), group.rows.end());
    }
    return options;
  }();
  return all;
}

const ConfigOption* FindConfigOption(std::string_view name, bool* via_alias) {
  for (const ConfigOption& o : ConfigOptions()) {
    if ((o.flags & kConfigFileOnly) == 0 && NameMatches(o, name, via_alias)) return &o;
  }
  return nullptr;
}

const ConfigOption* FindOptionRow(std::string_view name) {
  for (const ConfigOption& o : ConfigOptions()) {
    if (NameMatches(o, name, nullptr)) return &o;
  }
  return nullptr;
}

std::string OptionArgument(const ConfigOption& option) {
  switch (option.kind) {
    case ConfigKind::kBool:
      return "yes|no";
    case ConfigKind::kInt:
      return "N";
    case ConfigKind::kMemory:
      return "BYTES";
    case ConfigKind::kEnum: {
      std::string arg;
      for (std::string_view c : option.choices) {
        if (!arg.empty()) arg += '|';
        arg += c;
      }
      return arg;
    }
    case ConfigKind::kString:
    case ConfigKind::kSpecial:
      break;
  }
  return "VALUE";
}

std::string OptionDefault(const ConfigOption& option) {
  const auto shown = option.rewrite != nullptr ? option.rewrite : option.get;
  if (shown == nullptr || (option.flags & kConfigFileOnly) != 0) return {};
  static const Config defaults;
  std::string value = shown(defaults);
  if (value.empty()) return "\"\"";
  std::replace(value.begin(), value.end(), '\n', ',');
  return value;
}

std::string OptionsHelp() {
  std::string out;
  for (const ConfigGroup& group : ConfigGroups()) {
    out += (out.empty() ? "" : "\n") + std::string(group.title) + ":\n";
    for (const ConfigOption& o : group.rows) {
      std::string line = "  --" + std::string(o.name) + " " + OptionArgument(o);
      if (line.size() < 44) line.resize(44, ' ');
      line += ' ';
      line += o.help;
      if (const std::string value = OptionDefault(o); !value.empty()) {
        line += " (default " + value + ")";
      }
      if (!o.alias.empty()) line += "; alias " + std::string(o.alias);
      out += line;
      out += '\n';
    }
  }
  return out;
}

}  // namespace warden::server
