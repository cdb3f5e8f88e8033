// CONFIG GET, CONFIG SET (so far for the options that pick collection encodings) and CONFIG
// HELP.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/config.h"
#include "server/errors.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

void ConfigGetCommand(CommandContext& ctx) {
  std::vector<ConfigValue> values = ConfigValues(ctx.server.config);
  // The union over all patterns, each option once.
  std::vector<bool> selected(values.size(), false);
  std::size_t count = 0;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::string_view pattern = ctx.arg(j);
    // Redis looks a name without glob characters up directly (no escapes) and replies it as
    // typed: "CONFIG GET MAXMEMORY" answers "MAXMEMORY".
    const bool exact = pattern.find_first_of("[*?") == std::string_view::npos;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (selected[i]) continue;
      if (exact ? ArgIs(pattern, values[i].name)
                : storage::GlobMatchNoCase(pattern, values[i].name)) {
        selected[i] = true;
        ++count;
        if (exact) values[i].name = pattern;
      }
    }
  }
  ctx.reply.MapHeader(count);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!selected[i]) continue;
    ctx.reply.Bulk(values[i].name);
    ctx.reply.Bulk(values[i].value);
  }
}

// The options CONFIG SET can change at run time so far, each with Redis's aliases. The rest of
// Redis's mutable options come with the operator's commands.
std::size_t* SettableOption(storage::EncodingLimits& e, std::string_view name) {
  struct Option {
    std::string_view name;
    std::size_t storage::EncodingLimits::*field;
  };
  static constexpr Option kOptions[] = {
      {"hash-max-listpack-entries", &storage::EncodingLimits::hash_max_listpack_entries},
      {"hash-max-ziplist-entries", &storage::EncodingLimits::hash_max_listpack_entries},
      {"hash-max-listpack-value", &storage::EncodingLimits::hash_max_listpack_value},
      {"hash-max-ziplist-value", &storage::EncodingLimits::hash_max_listpack_value},
      {"set-max-intset-entries", &storage::EncodingLimits::set_max_intset_entries},
      {"zset-max-listpack-entries", &storage::EncodingLimits::zset_max_listpack_entries},
      {"zset-max-ziplist-entries", &storage::EncodingLimits::zset_max_listpack_entries},
      {"zset-max-listpack-value", &storage::EncodingLimits::zset_max_listpack_value},
      {"zset-max-ziplist-value", &storage::EncodingLimits::zset_max_listpack_value},
  };
  for (const Option& o : kOptions) {
    if (ArgIs(name, o.name)) return &(e.*o.field);
  }
  return nullptr;
}

void ConfigSetFailed(CommandContext& ctx, std::string_view name, std::string_view reason) {
  ctx.reply.Error({"ERR CONFIG SET failed (possibly related to argument '", name, "') - ", reason});
}

// list-max-listpack-size is Redis's one signed encoding option (an int).
bool SetListMaxListpackSize(CommandContext& ctx, std::string_view name, std::string_view value,
                            storage::EncodingLimits& updated) {
  std::int64_t n = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || ptr != value.data() + value.size()) {
    ConfigSetFailed(ctx, name, "argument couldn't be parsed into an integer");
    return false;
  }
  if (n < INT32_MIN || n > INT32_MAX) {
    ConfigSetFailed(ctx, name, "argument must be between -2147483648 and 2147483647 inclusive");
    return false;
  }
  updated.list_max_listpack_size = n;
  return true;
}

// The SLOWLOG and LATENCY options (slowlog.h, command_stats.h). Returns false when `name` is not
// one of them; `ok` says whether the value was valid (the error is written when not).
bool SetStatsOption(CommandContext& ctx, std::string_view name, std::string_view value,
                    Config& staged, bool& ok) {
  struct IntOption {
    std::string_view name;
    std::int64_t min;
    std::int64_t Config::*field;
  };
  static constexpr IntOption kInts[] = {
      {"slowlog-log-slower-than", -1, &Config::slowlog_log_slower_than_us},
      {"slowlog-max-len", 0, &Config::slowlog_max_len},
      {"latency-monitor-threshold", 0, &Config::latency_monitor_threshold_ms},
  };
  ok = false;
  for (const IntOption& option : kInts) {
    if (!ArgIs(name, option.name)) continue;
    std::int64_t n = 0;
    if (!protocol::ParseStrictInt64(value, n)) {
      ConfigSetFailed(ctx, name, "argument couldn't be parsed into an integer");
    } else if (n < option.min) {
      ConfigSetFailed(ctx, name,
                      option.min < 0
                          ? "argument must be between -1 and 9223372036854775807 inclusive"
                          : "argument must be between 0 and 9223372036854775807 inclusive");
    } else {
      staged.*option.field = n;
      ok = true;
    }
    return true;
  }
  if (ArgIs(name, "latency-tracking")) {
    if (ArgIs(value, "yes") || ArgIs(value, "no")) {
      staged.latency_tracking = ArgIs(value, "yes");
      ok = true;
    } else {
      ConfigSetFailed(ctx, name, "argument must be 'yes' or 'no'");
    }
    return true;
  }
  if (ArgIs(name, "latency-tracking-info-percentiles")) {
    // A multi-argument option: the value is split at each space, as sdssplitlen does (so two
    // spaces make an empty, invalid word); "" means none.
    std::vector<std::string> words;
    for (std::size_t at = 0; !value.empty() && at <= value.size();) {
      const std::size_t end = std::min(value.find(' ', at), value.size());
      words.emplace_back(value.substr(at, end - at));
      at = end + 1;
    }
    if (words.empty()) words.emplace_back();
    if (auto error = ParsePercentiles(words, staged.latency_tracking_info_percentiles)) {
      ConfigSetFailed(ctx, name, *error);
    } else {
      ok = true;
    }
    return true;
  }
  return false;
}

void ConfigSetCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 == 1) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Every value is checked before any applies, as Redis's CONFIG SET is atomic.
  storage::EncodingLimits updated = ctx.server.config.encoding;
  Config staged = ctx.server.config;
  const std::vector<ConfigValue> known = ConfigValues(ctx.server.config);
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view name = ctx.arg(i);
    std::string lower(name);
    for (char& c : lower) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    for (std::size_t j = 2; j < i; j += 2) {
      if (ArgIs(ctx.arg(j), lower)) {
        ConfigSetFailed(ctx, name, "duplicate parameter");
        return;
      }
    }
    if (ArgIs(name, "list-max-listpack-size") || ArgIs(name, "list-max-ziplist-size")) {
      if (!SetListMaxListpackSize(ctx, name, ctx.arg(i + 1), updated)) return;
      continue;
    }
    bool ok = false;
    if (SetStatsOption(ctx, name, ctx.arg(i + 1), staged, ok)) {
      if (!ok) return;
      continue;
    }
    std::size_t* field = SettableOption(updated, name);
    if (field == nullptr) {
      const bool exists = std::any_of(known.begin(), known.end(),
                                      [&](const ConfigValue& v) { return ArgIs(name, v.name); });
      if (!exists) {
        ctx.reply.Error(
            {"ERR Unknown option or number of arguments for CONFIG SET - '", name, "'"});
      } else {
        ConfigSetFailed(ctx, name, "can't set this config in warden yet");
      }
      return;
    }
    const std::string_view value = ctx.arg(i + 1);
    std::int64_t n = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || ptr != value.data() + value.size()) {
      ConfigSetFailed(ctx, name, "argument couldn't be parsed into an integer");
      return;
    }
    if (n < 0) {
      ConfigSetFailed(ctx, name, "argument must be between 0 and 9223372036854775807 inclusive");
      return;
    }
    *field = static_cast<std::size_t>(n);
  }
  ctx.server.config.encoding = updated;
  Config& config = ctx.server.config;
  config.slowlog_log_slower_than_us = staged.slowlog_log_slower_than_us;
  config.slowlog_max_len = staged.slowlog_max_len;
  config.latency_monitor_threshold_ms = staged.latency_monitor_threshold_ms;
  config.latency_tracking = staged.latency_tracking;
  config.latency_tracking_info_percentiles = std::move(staged.latency_tracking_info_percentiles);
  ctx.reply.Ok();
}

// Zeroes what INFO counts (ServerState::ResetStats); this command is then the first one counted.
void ConfigResetstatCommand(CommandContext& ctx) {
  ctx.server.ResetStats();
  ctx.reply.Ok();
}

void ConfigHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "HELP",
      "    Print this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kConfigTable[] = {
    {"config|get",  -3, kAdmin | kNoScript | kLoading | kStale, ConfigGetCommand,  0, 0, 0, "@admin @slow @dangerous"},
    {"config|help",  2, kLoading | kStale,                      ConfigHelpCommand, 0, 0, 0, "@slow"},
    {"config|resetstat", 2, kAdmin | kNoScript | kLoading | kStale, ConfigResetstatCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"config|set",  -4, kAdmin | kNoScript | kLoading | kStale, ConfigSetCommand,  0, 0, 0, "@admin @slow @dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> ConfigSubcommands() { return kConfigTable; }

}  // namespace warden::server
