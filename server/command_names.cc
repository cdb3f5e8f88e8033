#include "server/command_names.h"

#include <cstdlib>

#include "server/command_table.h"

namespace warden::server {

CommandNames::CommandNames(Renames renames) {
  for (const auto& [from, to] : renames) {
    // The configuration accepted each in turn: a refusal here is a bug.
    if (Rename(from, to)) std::abort();
  }
}

std::optional<std::string_view> CommandNames::Rename(std::string_view from, std::string_view to) {
  // Redis looks `from` up as a full name: "get|x" is no command, and a subcommand ("config|get")
  // would fail an assertion, since its dict holds top-level names only.
  const CommandSpec* spec = from.find('|') == std::string_view::npos ? Find(from) : nullptr;
  if (spec == nullptr) return "No such command in rename-command";
  // Redis deletes `from` before it adds `to`: a command may be renamed to its own name.
  if (!to.empty() && !EqualsNoCase(from, to) && Find(to) != nullptr) {
    return "Target command name already exists";
  }
  Set(from, nullptr);
  if (!to.empty()) Set(to, spec);
  return std::nullopt;
}

const CommandSpec* CommandNames::FindFor(std::span<const std::string_view> args) const {
  const CommandSpec* spec = Find(args[0]);
  if (spec == nullptr || !spec->is_container() || args.size() < 2) return spec;
  return FindCommand(spec->subcommands(), args[1]);
}

const CommandSpec* CommandNames::FindFullName(std::string_view name) const {
  const std::size_t bar = name.find('|');
  if (bar == std::string_view::npos) return Find(name);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* container = Find(name.substr(0, bar));
  if (container == nullptr || !container->is_container()) return nullptr;
  return FindCommand(container->subcommands(), sub);
}

bool CommandNames::Callable(const CommandSpec& spec) const {
  bool own_name_taken = false;
  for (const Name& n : renamed_) {
    if (n.spec == &spec) return true;
    own_name_taken = own_name_taken || EqualsNoCase(n.name, spec.name);
  }
  return !own_name_taken;
}

std::size_t CommandNames::CallableCount() const {
  std::size_t n = 0;
  for (const CommandSpec& spec : Commands()) n += Callable(spec) ? 1 : 0;
  return n;
}

const CommandSpec* CommandNames::FindRenamed(std::string_view name) const {
  for (const Name& n : renamed_) {
    if (EqualsNoCase(n.name, name)) return n.spec;
  }
  return FindTopLevelCommand(name);
}

void CommandNames::Set(std::string_view name, const CommandSpec* spec) {
  for (Name& n : renamed_) {
    if (EqualsNoCase(n.name, name)) {
      n.spec = spec;
      return;
    }
  }
  renamed_.push_back({std::string(name), spec});
}

}  // namespace warden::server
