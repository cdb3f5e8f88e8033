// The one command table. Every command is declared once, with its name, arity, flags, key
// positions and handler; a container command (CLIENT, CONFIG, SCRIPT, COMMAND) points at a
// second table of its subcommands. Lookup is case-insensitive and allocation-free.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "server/command_context.h"

namespace warden::server {

using Handler = void (*)(CommandContext&);

// Redis's command flags (COMMAND INFO shows their names), plus kDebug for the test-only commands
// gated by enable-debug-command.
enum CommandFlag : std::uint32_t {
  kWrite = 1u << 0,
  kReadOnly = 1u << 1,
  kDenyOom = 1u << 2,
  kAdmin = 1u << 3,
  kNoScript = 1u << 4,
  kLoading = 1u << 5,
  kStale = 1u << 6,
  kFast = 1u << 7,
  kNoAuth = 1u << 8,
  kAllowBusy = 1u << 9,
  kSkipMonitor = 1u << 10,
  kNoMandatoryKeys = 1u << 11,
  kMovableKeys = 1u << 12,
  kProtected = 1u << 13,  // DEBUG: refused unless enable-debug-command allows it
  kBlocking = 1u << 14,
  kSkipSlowlog = 1u << 15,
  kNoMulti = 1u << 16,  // refused inside MULTI (SHUTDOWN, SAVE, SYNC, PSYNC)
  // A write that never wakes blocked clients: the stream commands Redis does not signal
  // (XSETID, XGROUP SETID, XACK...), so a reader blocked on `$` or `>` waits for an XADD.
  kNoWake = 1u << 17,
  // Refused while a replica loads its sync asynchronously (shown by COMMAND INFO).
  kNoAsyncLoading = 1u << 18,
  // High bits, apart from the flags other features add.
  kPubSub = 1u << 24,
  kMayReplicate = 1u << 25,  // not shown by COMMAND INFO (Redis hides it too)
};

struct CommandSpec {
  // Lower case; subcommands carry their full name, "client|list".
  std::string_view name;
  // Counts the command name; -N means at least N.
  int arity;
  std::uint32_t flags;
  Handler handler;  // null for containers
  int first_key = 0;
  int last_key = 0;
  int key_step = 0;
  std::string_view acl_categories = "";  // "@read @string @fast"
  // Container commands: their subcommand table, defined beside its handlers.
  std::span<const CommandSpec> (*subcommands)() = nullptr;

  // "list" for "client|list".
  std::string_view short_name() const {
    const std::size_t bar = name.find('|');
    return bar == std::string_view::npos ? name : name.substr(bar + 1);
  }
  bool is_container() const { return subcommands != nullptr; }
};

// The top-level commands, in the order COMMAND lists them.
std::span<const CommandSpec> Commands();

// Case-insensitive lookup among `table`; nullptr if absent.
const CommandSpec* FindCommand(std::span<const CommandSpec> table, std::string_view name);
// Lookup of a top-level command through a hash index built once.
const CommandSpec* FindTopLevelCommand(std::string_view name);

// A dense number for every command and subcommand (containers before their subcommands, in
// table order), for tables indexed by command: ACL bitmaps, key specs. A few range checks.
std::uint16_t CommandId(const CommandSpec& spec);
std::size_t CommandIdCount();
const CommandSpec& CommandById(std::uint16_t id);

// The subcommand tables, each defined beside its handlers.
std::span<const CommandSpec> ClientSubcommands();
std::span<const CommandSpec> ConfigSubcommands();
std::span<const CommandSpec> CommandSubcommands();
std::span<const CommandSpec> ScriptSubcommands();
std::span<const CommandSpec> FunctionSubcommands();
std::span<const CommandSpec> ObjectSubcommands();
std::span<const CommandSpec> MemorySubcommands();
std::span<const CommandSpec> PubsubSubcommands();
std::span<const CommandSpec> AclSubcommands();
std::span<const CommandSpec> SlowlogSubcommands();
std::span<const CommandSpec> LatencySubcommands();
std::span<const CommandSpec> XgroupSubcommands();
std::span<const CommandSpec> XinfoSubcommands();

}  // namespace warden::server
