// CONFIG GET and CONFIG HELP.
#include <algorithm>
#include <vector>

#include "server/command_table.h"
#include "server/config.h"
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
};
// clang-format on

}  // namespace

std::span<const CommandSpec> ConfigSubcommands() { return kConfigTable; }

}  // namespace warden::server
