// ACL WHOAMI, ACL CAT and ACL HELP. warden has one user, Redis's "default", allowed everything;
// the categories come from the command table's ACL category column.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"

namespace warden::server {
namespace {

// Redis 7.0's categories, in ACL CAT's order.
constexpr std::string_view kCategories[] = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};

bool InCategory(const CommandSpec& spec, std::string_view category) {
  std::string_view rest = spec.acl_categories;
  while (!rest.empty()) {
    const std::size_t space = std::min(rest.find(' '), rest.size());
    const std::string_view word = rest.substr(0, space);
    if (word.size() == category.size() + 1 && word[0] == '@' && word.substr(1) == category) {
      return true;
    }
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return false;
}

// Every command and subcommand of `table` in `category`, as Redis's aclCatWithFlags lists them.
void CollectCategory(std::span<const CommandSpec> table, std::string_view category,
                     std::vector<std::string_view>& out) {
  for (const CommandSpec& spec : table) {
    if (InCategory(spec, category)) out.push_back(spec.name);
    if (spec.is_container()) CollectCategory(spec.subcommands(), category, out);
  }
}

void AclCatCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '", ctx.arg(1),
                     "'. Try ACL HELP."});
    return;
  }
  if (ctx.argc() == 2) {
    ctx.reply.ArrayHeader(std::size(kCategories));
    for (std::string_view category : kCategories) ctx.reply.Bulk(category);
    return;
  }
  const std::string_view wanted = ctx.arg(2);
  for (std::string_view category : kCategories) {
    if (!ArgIs(wanted, category)) continue;
    std::vector<std::string_view> names;
    CollectCategory(Commands(), category, names);
    ctx.reply.ArrayHeader(names.size());
    for (std::string_view name : names) ctx.reply.Bulk(name);
    return;
  }
  ctx.reply.Error({"ERR Unknown category '", wanted, "'"});
}

void AclWhoamiCommand(CommandContext& ctx) { ctx.reply.Bulk("default"); }

void AclHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "WHOAMI",
      "    Return the current connection username.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kAclTable[] = {
    {"acl|cat",    -2, kNoScript | kLoading | kStale, AclCatCommand,    0, 0, 0, "@slow"},
    {"acl|help",    2, kLoading | kStale,             AclHelpCommand,   0, 0, 0, "@slow"},
    {"acl|whoami",  2, kNoScript | kLoading | kStale, AclWhoamiCommand, 0, 0, 0, "@slow"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> AclSubcommands() { return kAclTable; }

}  // namespace warden::server
