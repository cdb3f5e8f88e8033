// ACL and its subcommands (Redis 7.0's aclCommand): users are kept by Acl (acl.h); the checks
// against connections are in acl_gate.cc.
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"
#include "server/acl/acl_gate.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/log.h"

namespace warden::server {
namespace {

// The kernel's random bytes (getrandom blocks only until the pool is first seeded, at boot), as
// Redis reads /dev/urandom for ACL GENPASS.
void FillRandom(unsigned char* out, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = getrandom(out + done, size - done, 0);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::abort();  // no kernel randomness (Linux before 3.17): nothing safe to answer with
    }
  }
}

// Redis's addReplySubcommandSyntaxError, for forms the arity allows but the subcommand does not.
void SyntaxError(CommandContext& ctx) {
  ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '", ctx.arg(1),
                   "'. Try ACL HELP."});
}

void AclCatCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    SyntaxError(ctx);
    return;
  }
  if (ctx.argc() == 2) {
    ctx.reply.ArrayHeader(std::size(kAclCategories));
    for (std::string_view category : kAclCategories) ctx.reply.Bulk(category);
    return;
  }
  const std::uint32_t bit = AclCategoryBit(ctx.arg(2));
  if (bit == 0) {
    const std::string_view wanted = ctx.arg(2);
    ctx.reply.Error({"ERR Unknown category '", wanted.substr(0, 128), "'"});
    return;
  }
  std::vector<std::string_view> names;
  for (const AclCommand& command : AclCommands()) {
    if ((command.categories & bit) != 0) names.push_back(command.spec->name);
  }
  ctx.reply.ArrayHeader(names.size());
  for (std::string_view name : names) ctx.reply.Bulk(name);
}

void AclWhoamiCommand(CommandContext& ctx) {
  if (ctx.session.user == nullptr) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(ctx.session.user->name);
  }
}

void AclSetuserCommand(CommandContext& ctx) {
  const std::string_view name = ctx.arg(2);
  if (AclHasSpaces(name)) {
    ctx.reply.Error("ERR Usernames can't contain spaces or null characters");
    return;
  }
  std::vector<std::string_view> rules;
  for (std::size_t i = 3; i < ctx.argc(); ++i) rules.push_back(ctx.arg(i));
  const bool existed = ctx.server.acl.Find(name) != nullptr;
  AclUser* user = nullptr;
  if (auto error = ctx.server.acl.SetUser(name, rules, &user)) {
    ctx.reply.Error({"ERR ", *error});
    return;
  }
  if (existed) DropRevokedSubscribers(ctx.server, ctx.session, *user);
  ctx.reply.Ok();
}

void AclDeluserCommand(CommandContext& ctx) {
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    if (ctx.arg(i) == "default") {
      ctx.reply.Error("ERR The 'default' user cannot be removed");
      return;
    }
  }
  std::int64_t deleted = 0;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    AclUser* user = ctx.server.acl.Find(ctx.arg(i));
    if (user == nullptr) continue;
    DropUserClients(ctx.server, ctx.session, *user);
    ctx.server.acl.Remove(ctx.arg(i));
    ++deleted;
  }
  ctx.reply.Integer(deleted);
}

void ReplySelector(protocol::ReplyWriter& r, const AclSelector& s) {
  r.Bulk("commands");
  r.Bulk(AclDescribeCommands(s));
  r.Bulk("keys");
  r.Bulk(AclDescribeKeys(s));
  r.Bulk("channels");
  r.Bulk(AclDescribeChannels(s));
}

void AclGetuserCommand(CommandContext& ctx) {
  const AclUser* user = ctx.server.acl.Find(ctx.arg(2));
  if (user == nullptr) {
    ctx.reply.Null();
    return;
  }
  protocol::ReplyWriter& r = ctx.reply;
  r.MapHeader(6);
  r.Bulk("flags");
  std::size_t flags = 0;
  for (const auto& f : kAclUserFlags) flags += (user->flags & f.flag) != 0 ? 1 : 0;
  r.SetHeader(flags);
  for (const auto& f : kAclUserFlags) {
    if ((user->flags & f.flag) != 0) r.Bulk(f.name);
  }
  r.Bulk("passwords");
  r.ArrayHeader(user->passwords.size());
  for (const std::string& hash : user->passwords) r.Bulk(hash);
  ReplySelector(r, user->selectors.front());
  r.Bulk("selectors");
  r.ArrayHeader(user->selectors.size() - 1);
  for (std::size_t i = 1; i < user->selectors.size(); ++i) {
    r.MapHeader(3);
    ReplySelector(r, user->selectors[i]);
  }
}

void AclListCommand(CommandContext& ctx) {
  const auto& users = ctx.server.acl.users();
  ctx.reply.ArrayHeader(users.size());
  for (const auto& [name, user] : users) {
    ctx.reply.Bulk("user " + name + " " + AclDescribeUser(*user));
  }
}

void AclUsersCommand(CommandContext& ctx) {
  const auto& users = ctx.server.acl.users();
  ctx.reply.ArrayHeader(users.size());
  for (const auto& entry : users) ctx.reply.Bulk(entry.first);
}

[[nodiscard]] bool RefusedWithoutAclFile(CommandContext& ctx) {
  if (!ctx.server.config.aclfile.empty()) return false;
  ctx.reply.Error(
      "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
      "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
      "Redis configuration file set) in order to store users in the Redis configuration.");
  return true;
}

void AclLoadCommand(CommandContext& ctx) {
  if (RefusedWithoutAclFile(ctx)) return;
  std::vector<std::unique_ptr<AclUser>> dropped;
  const Config& config = ctx.server.config;
  if (auto errors =
          ctx.server.acl.LoadFile(PathUnderDir(config, config.aclfile), config.aclfile, dropped)) {
    ctx.reply.Error({"ERR ", *errors});
    return;
  }
  // As Redis frees the old users: their connections close, even where a user of the same
  // name came back from the file.
  for (const std::unique_ptr<AclUser>& user : dropped) {
    DropUserClients(ctx.server, ctx.session, *user);
  }
  ctx.reply.Ok();
}

void AclSaveCommand(CommandContext& ctx) {
  if (RefusedWithoutAclFile(ctx)) return;
  const Config& config = ctx.server.config;
  if (auto error = ctx.server.acl.SaveFile(PathUnderDir(config, config.aclfile))) {
    if (ctx.server.log != nullptr) ctx.server.log->Log(LogLevel::kWarning, "%s", error->c_str());
    ctx.reply.Error(
        "ERR There was an error trying to save the ACLs. Please check the server logs for more "
        "information");
    return;
  }
  ctx.reply.Ok();
}

void AclGenpassCommand(CommandContext& ctx) {
  constexpr std::int64_t kMaxBits = 4096;
  if (ctx.argc() > 3) {
    SyntaxError(ctx);
    return;
  }
  std::int64_t bits = 256;
  if (ctx.argc() == 3 && !protocol::ParseStrictInt64(ctx.arg(2), bits)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (bits <= 0 || bits > kMaxBits) {
    ctx.reply.Error(
        "ERR ACL GENPASS argument must be the number of bits for the output password, a "
        "positive number up to 4096");
    return;
  }
  const auto chars = static_cast<std::size_t>((bits + 3) / 4);
  unsigned char random[kMaxBits / 8];
  // Never the seeded generator: a password must not be predictable, even in a test double.
  FillRandom(random, (chars + 1) / 2);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string pass(chars, '0');
  for (std::size_t i = 0; i < chars; ++i) {
    const unsigned char byte = random[i / 2];
    pass[i] = kHex[i % 2 == 0 ? byte >> 4 : byte & 0xF];
  }
  ctx.reply.Bulk(pass);
}

void AclLogCommand(CommandContext& ctx) {
  std::deque<AclLogEntry>& log = ctx.server.acl.log;
  std::int64_t count = 10;
  if (ctx.argc() > 3) {
    SyntaxError(ctx);
    return;
  }
  if (ctx.argc() == 3) {
    if (ArgIs(ctx.arg(2), "reset")) {
      log.clear();
      ctx.reply.Ok();
      return;
    }
    if (!protocol::ParseStrictInt64(ctx.arg(2), count)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
  }
  const std::size_t n = std::min(static_cast<std::size_t>(count), log.size());
  const std::int64_t now = ctx.server.clock.NowMs();
  protocol::ReplyWriter& r = ctx.reply;
  r.ArrayHeader(n);
  static constexpr std::string_view kReasons[] = {"unknown", "command", "key", "auth", "channel"};
  static constexpr std::string_view kContexts[] = {"toplevel", "lua", "multi"};
  for (std::size_t i = 0; i < n; ++i) {
    const AclLogEntry& e = log[i];
    r.MapHeader(7);
    r.Bulk("count");
    r.Integer(static_cast<std::int64_t>(e.count));
    r.Bulk("reason");
    r.Bulk(kReasons[static_cast<std::size_t>(e.reason)]);
    r.Bulk("context");
    r.Bulk(kContexts[static_cast<std::size_t>(e.context)]);
    r.Bulk("object");
    r.Bulk(e.object);
    r.Bulk("username");
    r.Bulk(e.username);
    r.Bulk("age-seconds");
    r.Double(static_cast<double>(now - e.ctime_ms) / 1000);
    r.Bulk("client-info");
    r.Bulk(e.client_info);
  }
}

void AclDryrunCommand(CommandContext& ctx) {
  const AclUser* user = ctx.server.acl.Find(ctx.arg(2));
  if (user == nullptr) {
    ctx.reply.Error({"ERR User '", ctx.arg(2), "' not found"});
    return;
  }
  std::vector<std::string_view> args;
  for (std::size_t i = 3; i < ctx.argc(); ++i) args.push_back(ctx.arg(i));
  const CommandSpec* spec = ctx.server.command_names.FindFor(args);
  if (spec == nullptr) {
    ctx.reply.Error({"ERR Command '", args[0], "' not found"});
    return;
  }
  const auto argc = static_cast<int>(args.size());
  if ((spec->arity > 0 && spec->arity != argc) || argc < -spec->arity) {
    ctx.reply.Error({"ERR wrong number of arguments for '", spec->name, "' command"});
    return;
  }
  int pos = 0;
  const AclDenial denial = AclCheck(*user, *spec, args, pos);
  switch (denial) {
    case AclDenial::kNone:
      ctx.reply.Ok();
      break;
    case AclDenial::kCommand:
      ctx.reply.Bulk("This user has no permissions to run the '" + std::string(spec->name) +
                     "' command");
      break;
    case AclDenial::kKey:
      ctx.reply.Bulk("This user has no permissions to access the '" +
                     std::string(args[static_cast<std::size_t>(pos)]) + "' key");
      break;
    default:
      ctx.reply.Bulk("This user has no permissions to access the '" +
                     std::string(args[static_cast<std::size_t>(pos)]) + "' channel");
      break;
  }
}

void AclHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "DELUSER <username> [<username> ...]",
      "    Delete a list of users.",
      "DRYRUN <username> <command> [<arg> ...]",
      "    Returns whether the user can execute the given command without executing the command.",
      "GETUSER <username>",
      "    Get the user's details.",
      "GENPASS [<bits>]",
      "    Generate a secure 256-bit user password. The optional `bits` argument can",
      "    be used to specify a different size.",
      "LIST",
      "    Show users details in config file format.",
      "LOAD",
      "    Reload users from the ACL file.",
      "LOG [<count> | RESET]",
      "    Show the ACL log entries.",
      "SAVE",
      "    Save the current config to the ACL file.",
      "SETUSER <username> <attribute> [<attribute> ...]",
      "    Create or modify a user with the specified attributes.",
      "USERS",
      "    List all the registered usernames.",
      "WHOAMI",
      "    Return the current connection username.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

constexpr std::uint32_t kAclAdmin = kAdmin | kNoScript | kLoading | kStale;
constexpr std::string_view kAdminCats = "@admin @slow @dangerous";

// clang-format off
constexpr CommandSpec kAclTable[] = {
    {"acl|cat",     -2, kNoScript | kLoading | kStale, AclCatCommand,      0, 0, 0, "@slow"},
    {"acl|deluser", -3, kAclAdmin,                     AclDeluserCommand,  0, 0, 0, kAdminCats},
    {"acl|dryrun",  -4, kAclAdmin,                     AclDryrunCommand,   0, 0, 0, kAdminCats},
    {"acl|genpass", -2, kNoScript | kLoading | kStale, AclGenpassCommand,  0, 0, 0, "@slow"},
    {"acl|getuser",  3, kAclAdmin,                     AclGetuserCommand,  0, 0, 0, kAdminCats},
    {"acl|help",     2, kLoading | kStale,             AclHelpCommand,     0, 0, 0, "@slow"},
    {"acl|list",     2, kAclAdmin,                     AclListCommand,     0, 0, 0, kAdminCats},
    {"acl|load",     2, kAclAdmin,                     AclLoadCommand,     0, 0, 0, kAdminCats},
    {"acl|log",     -2, kAclAdmin,                     AclLogCommand,      0, 0, 0, kAdminCats},
    {"acl|save",     2, kAclAdmin,                     AclSaveCommand,     0, 0, 0, kAdminCats},
    {"acl|setuser", -3, kAclAdmin,                     AclSetuserCommand,  0, 0, 0, kAdminCats},
    {"acl|users",    2, kAclAdmin,                     AclUsersCommand,    0, 0, 0, kAdminCats},
    {"acl|whoami",   2, kNoScript | kLoading | kStale, AclWhoamiCommand,   0, 0, 0, "@slow"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> AclSubcommands() { return kAclTable; }

}  // namespace warden::server
