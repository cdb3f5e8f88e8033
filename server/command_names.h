// The names clients call commands by. Without rename-command they are the table's own; each
// rename-command line of the configuration takes a command's name away and gives it another, or
// none, as Redis's loadServerConfigFromString changes its command dict (server.commands).
//
// Requests, redis.call, the append-only file, a master's stream, ACL DRYRUN and COMMAND
// INFO/DOCS/GETKEYS/COUNT/LIST look commands up here. Everything else keeps the table's names,
// as Redis keeps cmd->fullname and orig_commands: ACL rules (`+set` still means SET), COMMAND's
// and INFO's replies, the slow log, the error texts that name a command.
//
// Fixed once the server starts; lookups do not allocate, and cost one test without renames.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warden::server {

// command_table.h's, declared here because that header (through command_context.h) includes the
// state that holds a CommandNames.
struct CommandSpec;
const CommandSpec* FindTopLevelCommand(std::string_view name);

class CommandNames {
 public:
  using Renames = std::span<const std::pair<std::string, std::string>>;

  CommandNames() = default;
  // The names after `renames`, each of which Rename accepted in turn (Config::rename_commands).
  explicit CommandNames(Renames renames);

  // Redis's rename-command: the command `from` names is called `to` from now on, or by no name
  // when `to` is empty. Returns Redis's reason for a refusal, which changes nothing.
  std::optional<std::string_view> Rename(std::string_view from, std::string_view to);

  // The top-level command `name` (any case) calls, or nullptr.
  const CommandSpec* Find(std::string_view name) const {
    if (renamed_.empty()) [[likely]] {
      return FindTopLevelCommand(name);
    }
    return FindRenamed(name);
  }
  // Redis's lookupCommand: the command `args` call, a container's subcommand when args[1]
  // names one of its subcommands; the container itself when there is no args[1].
  const CommandSpec* FindFor(std::span<const std::string_view> args) const;
  // Redis's lookupCommandBySds: "get", "client" or "client|list", the container by its name
  // here; nullptr for "get|x" or "a|b|c".
  const CommandSpec* FindFullName(std::string_view name) const;

  // Whether some name calls the top-level command `spec`: COMMAND lists only those.
  bool Callable(const CommandSpec& spec) const;
  // How many top-level commands some name calls (COMMAND COUNT).
  std::size_t CallableCount() const;

 private:
  // A name whose meaning rename-command changed; `spec` null: it calls nothing.
  struct Name {
    std::string name;
    const CommandSpec* spec;
  };

  const CommandSpec* FindRenamed(std::string_view name) const;
  void Set(std::string_view name, const CommandSpec* spec);

  std::vector<Name> renamed_;
};

}  // namespace warden::server
