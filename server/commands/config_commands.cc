// CONFIG GET, SET, REWRITE and HELP. What each option accepts is in config_options.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/config/config.h"
#include "server/config/config_options.h"
#include "server/config/config_values.h"
#include "server/errors.h"
#include "server/log.h"
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
                : !values[i].hidden && storage::GlobMatchNoCase(pattern, values[i].name)) {
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

void ConfigSetFailed(CommandContext& ctx, std::string_view name, std::string_view reason) {
  ctx.reply.Error({"ERR CONFIG SET failed (possibly related to argument '", name, "') - ", reason});
}

// Whether CONFIG SET refuses `option` as immutable. Redis's own immutable options refuse any
// value, as in Redis; warden's own take back the value they have (however it is spelled), so a
// client that writes back every option CONFIG GET * lists (Redis's "CONFIG sanity" test, which
// skips only Redis's immutable options) is not refused.
bool RefusedAsImmutable(const ConfigOption& option, const Config& config, std::string_view value) {
  if ((option.flags & kConfigImmutable) == 0) return false;
  if ((option.flags & kConfigWarden) == 0 || option.get == nullptr) return true;
  const std::vector<std::string_view> words = (option.flags & kConfigMultiWord) != 0
                                                  ? config_values::SplitSpaces(value)
                                                  : std::vector<std::string_view>{value};
  Config probe = config;
  return option.set(probe, words).has_value() || option.get(probe) != option.get(config);
}

// CONFIG SET name value [name value ...], atomic as Redis's: every name is checked first
// (unknown, immutable, protected, given twice: the first problem found is the answer, naming the
// option as typed), then every value is parsed into a copy of the configuration (a bad value
// names the option by its canonical name), and only when all are good does the copy replace the
// configuration and the options' side effects run.
void ConfigSetCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 == 1) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Each option with the name it was found by: an alias is an option of its own to Redis, so
  // "lua-time-limit 1 busy-reply-threshold 2" is no duplicate (the last one wins).
  struct Named {
    const ConfigOption* option;
    std::string_view name;
  };
  std::vector<Named> options;
  options.reserve((ctx.argc() - 2) / 2);
  for (std::size_t i = 2; i < ctx.argc(); i += 2) {
    const std::string_view name = ctx.arg(i);
    bool via_alias = false;
    const ConfigOption* option = FindConfigOption(name, &via_alias);
    if (option == nullptr) {
      ctx.reply.Error({"ERR Unknown option or number of arguments for CONFIG SET - '", name, "'"});
      return;
    }
    if (RefusedAsImmutable(*option, ctx.server.config, ctx.arg(i + 1))) {
      ConfigSetFailed(ctx, name, "can't set immutable config");
      return;
    }
    const std::string& protected_policy = ctx.server.config.enable_protected_configs;
    if ((option->flags & kConfigProtected) != 0 && protected_policy != "yes" &&
        !(protected_policy == "local" && ctx.session.local)) {
      ConfigSetFailed(ctx, name, "can't set protected config");
      return;
    }
    const std::string_view canonical = via_alias ? option->alias : option->name;
    for (const Named& earlier : options) {
      if (earlier.option == option && earlier.name == canonical) {
        ConfigSetFailed(ctx, name, "duplicate parameter");
        return;
      }
    }
    options.push_back({option, canonical});
  }
  Config updated = ctx.server.config;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ConfigOption& option = *options[i].option;
    const std::string_view value = ctx.arg(3 + 2 * i);
    // A several-word option's value is split at each space, as Redis's sdssplitlen does.
    const std::vector<std::string_view> words = (option.flags & kConfigMultiWord) != 0
                                                    ? config_values::SplitSpaces(value)
                                                    : std::vector<std::string_view>{value};
    if (auto reason = option.set(updated, words)) {
      ConfigSetFailed(ctx, options[i].name, *reason);
      return;
    }
  }
  Config old = std::exchange(ctx.server.config, std::move(updated));
  for (const Named& named : options) {
    if (named.option->apply == nullptr) continue;
    if (auto reason = named.option->apply(ctx.server)) {
      // As Redis's restoreBackupConfig: every option of the call goes back and is applied
      // again (port and bind listen where they did).
      if (ctx.server.log != nullptr) {
        ctx.server.log->Log(LogLevel::kWarning,
                            "Failed applying new configuration. Possibly related to new %.*s "
                            "setting. Restoring previous settings.",
                            static_cast<int>(named.option->name.size()), named.option->name.data());
      }
      ctx.server.config = std::move(old);
      for (const Named& undo : options) {
        if (undo.option->apply != nullptr) undo.option->apply(ctx.server);
      }
      ConfigSetFailed(ctx, named.name, *reason);
      return;
    }
  }
  ctx.reply.Ok();
}

// Zeroes what INFO counts (ServerState::ResetStats); this command is then the first one counted.
void ConfigResetstatCommand(CommandContext& ctx) {
  ctx.server.ResetStats();
  ctx.reply.Ok();
}

// Writes the new text next to the file and renames it over, so a crash never leaves half a file.
bool WriteFileAtomically(const std::string& path, const std::string& text, int& error) {
  std::string tmp = path + ".XXXXXX";
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) {
    error = errno;
    return false;
  }
  std::size_t offset = 0;
  while (offset < text.size()) {
    const ssize_t n = ::write(fd, text.data() + offset, text.size() - offset);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      error = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return false;
    }
    offset += static_cast<std::size_t>(n);
  }
  const mode_t mask = ::umask(0);
  ::umask(mask);
  if (::fsync(fd) != 0 || ::fchmod(fd, 0644 & ~mask) != 0 ||
      ::rename(tmp.c_str(), path.c_str()) != 0) {
    error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  }
  ::close(fd);
  return true;
}

void ConfigRewriteCommand(CommandContext& ctx) {
  const std::string& path = ctx.server.config.config_file;
  if (path.empty()) {
    ctx.reply.Error("ERR The server is running without a config file");
    return;
  }
  std::string old_text;
  int error = 0;
  std::ifstream in(path, std::ios::binary);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    old_text = text.str();
  } else if (errno != ENOENT) {
    error = errno;
  }
  if (error == 0 &&
      WriteFileAtomically(
          path, RewriteConfigText(old_text, ctx.server.config, ctx.server.acl.UserLines()),
          error)) {
    if (ctx.server.log != nullptr) {
      ctx.server.log->Log(LogLevel::kNotice, "CONFIG REWRITE executed with success.");
    }
    ctx.reply.Ok();
    return;
  }
  if (ctx.server.log != nullptr) {
    ctx.server.log->Log(LogLevel::kWarning, "CONFIG-REWRITE failed: %s", std::strerror(error));
  }
  ctx.reply.Error({"ERR Rewriting config file: ", std::strerror(error)});
}

void ConfigHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kConfigTable[] = {
    {"config|get",  -3, kAdmin | kNoScript | kLoading | kStale, ConfigGetCommand,  0, 0, 0, "@admin @slow @dangerous"},
    {"config|help",  2, kLoading | kStale,                      ConfigHelpCommand, 0, 0, 0, "@slow"},
    {"config|rewrite", 2, kAdmin | kNoScript | kLoading | kStale, ConfigRewriteCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"config|resetstat", 2, kAdmin | kNoScript | kLoading | kStale, ConfigResetstatCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"config|set",  -4, kAdmin | kNoScript | kLoading | kStale, ConfigSetCommand,  0, 0, 0, "@admin @slow @dangerous"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> ConfigSubcommands() { return kConfigTable; }

}  // namespace warden::server
