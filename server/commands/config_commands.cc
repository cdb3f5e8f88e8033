// CONFIG GET, CONFIG SET (so far for the options that pick collection encodings) and CONFIG
// HELP.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "server/command_table.h"
#include "server/config.h"
#include "server/errors.h"
#include "server/notify.h"
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

void ConfigSetCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 == 1) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Every value is checked before any applies, as Redis's CONFIG SET is atomic.
  storage::EncodingLimits updated = ctx.server.config.encoding;
  int notify_flags = ctx.server.config.notify_keyspace_events;
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
    if (ArgIs(name, "notify-keyspace-events")) {
      const std::optional<int> flags = ParseNotifyKeyspaceEvents(ctx.arg(i + 1));
      if (!flags) {
        ConfigSetFailed(ctx, name, kBadNotifyClass);
        return;
      }
      notify_flags = *flags;
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
  ctx.server.config.notify_keyspace_events = notify_flags;
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
    {"config|set",  -4, kAdmin | kNoScript | kLoading | kStale, ConfigSetCommand,  0, 0, 0, "@admin @slow @dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> ConfigSubcommands() { return kConfigTable; }

}  // namespace warden::server
