// COMMAND and its subcommands: what clients (redis-cli above all) read to learn the table.
#include <string>

#include "protocol/reply_reader.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/key_specs.h"
#include "server/server_state.h"
#include "storage/glob.h"

namespace warden::server {

// Redis 7.0.15's COMMAND DOCS entry for a full name ("get", "client|list") as RESP3, or empty;
// generated into command_docs_data.cc by scripts/gen_command_docs.py.
std::string_view CommandDocResp3(std::string_view full_name);

// Redis 7.0.15's COMMAND INFO tips and key specifications for a full name as RESP3 sets, or
// empty; generated into command_info_data.cc by scripts/gen_command_info.py.
std::string_view CommandTipsResp3(std::string_view full_name);
std::string_view CommandKeySpecsResp3(std::string_view full_name);

namespace {

struct FlagName {
  std::uint32_t flag;
  std::string_view name;
};

// In the order Redis lists them.
constexpr FlagName kFlagNames[] = {
    {kWrite, "write"},
    {kReadOnly, "readonly"},
    {kDenyOom, "denyoom"},
    {kAdmin, "admin"},
    {kPubSub, "pubsub"},
    {kNoScript, "noscript"},
    {kBlocking, "blocking"},
    {kLoading, "loading"},
    {kStale, "stale"},
    {kSkipMonitor, "skip_monitor"},
    {kSkipSlowlog, "skip_slowlog"},
    {kFast, "fast"},
    {kNoAuth, "no_auth"},
    {kNoMandatoryKeys, "no_mandatory_keys"},
    {kNoAsyncLoading, "no_async_loading"},
    {kNoMulti, "no_multi"},
    {kMovableKeys, "movablekeys"},
    {kAllowBusy, "allow_busy"},
};

std::size_t CountWords(std::string_view words) {
  std::size_t n = 0;
  for (std::string_view rest = words; !rest.empty(); ++n) {
    const std::size_t space = rest.find(' ');
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  return n;
}

template <typename Fn>
void ForEachWord(std::string_view words, Fn&& fn) {
  for (std::string_view rest = words; !rest.empty();) {
    const std::size_t space = rest.find(' ');
    fn(rest.substr(0, space));
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
}

// Writes a reply captured as RESP3 through `r`, so RESP2 clients get maps and sets as arrays.
void WriteReply(protocol::ReplyWriter& r, const protocol::Reply& reply) {
  switch (reply.type) {
    case protocol::ReplyType::kMap:
      r.MapHeader(reply.elements.size() / 2);
      break;
    case protocol::ReplyType::kSet:
      r.SetHeader(reply.elements.size());
      break;
    case protocol::ReplyType::kArray:
      r.ArrayHeader(reply.elements.size());
      break;
    case protocol::ReplyType::kStatus:
      r.Status(reply.text);
      return;
    case protocol::ReplyType::kInteger:
      r.Integer(reply.integer);
      return;
    default:  // the generator captures only the types above and bulk strings
      r.Bulk(reply.text);
      return;
  }
  for (const protocol::Reply& element : reply.elements) WriteReply(r, element);
}

// Writes bytes captured from Redis as RESP3 (a generated data file); nothing captured is an
// empty set.
void WriteCaptured(protocol::ReplyWriter& r, std::string_view resp3) {
  protocol::Reply reply;
  if (resp3.empty() || protocol::ReadReply(resp3, reply) != resp3.size()) {
    r.SetHeader(0);
    return;
  }
  WriteReply(r, reply);
}

void WriteInfo(protocol::ReplyWriter& r, const CommandSpec& spec) {
  r.ArrayHeader(10);
  r.Bulk(spec.name);
  r.Integer(spec.arity);
  std::size_t flags = 0;
  for (const FlagName& f : kFlagNames) flags += (spec.flags & f.flag) != 0;
  r.SetHeader(flags);
  for (const FlagName& f : kFlagNames) {
    if ((spec.flags & f.flag) != 0) r.Status(f.name);
  }
  r.Integer(spec.first_key);
  r.Integer(spec.last_key);
  r.Integer(spec.key_step);
  r.SetHeader(CountWords(spec.acl_categories));
  ForEachWord(spec.acl_categories, [&](std::string_view category) { r.Status(category); });
  // Redis 7.0's tips and key specifications (command_info_data.cc); they and an absent
  // subcommand list are sets (arrays in RESP2).
  WriteCaptured(r, CommandTipsResp3(spec.name));
  WriteCaptured(r, CommandKeySpecsResp3(spec.name));
  if (spec.is_container()) {
    const auto subs = spec.subcommands();
    r.ArrayHeader(subs.size());
    for (const CommandSpec& sub : subs) WriteInfo(r, sub);
  } else {
    r.SetHeader(0);
  }
}

// One COMMAND DOCS entry: the name, then Redis 7.0.15's doc map for it (see
// command_docs_data.cc). A container's map ends with `subcommands`, built from warden's own table.
void WriteDoc(protocol::ReplyWriter& r, const CommandSpec& spec) {
  r.Bulk(spec.name);
  protocol::Reply doc;
  const std::string_view bytes = CommandDocResp3(spec.name);
  if (bytes.empty() || protocol::ReadReply(bytes, doc) != bytes.size()) doc = {};
  const bool subs = spec.is_container();
  r.MapHeader(doc.elements.size() / 2 + (subs ? 1 : 0));
  for (const protocol::Reply& element : doc.elements) WriteReply(r, element);
  if (subs) {
    r.Bulk("subcommands");
    const auto table = spec.subcommands();
    r.MapHeader(table.size());
    for (const CommandSpec& sub : table) WriteDoc(r, sub);
  }
}

// As Redis's: a command rename-command disabled is neither counted nor listed; a renamed one
// is, by its own name (cmd->fullname), and COMMAND INFO and DOCS find it by its new name only.
void CommandCountCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.command_names.CallableCount()));
}

void CommandInfoCommand(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    CommandCommand(ctx);
    return;
  }
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const CommandSpec* spec = ctx.server.command_names.FindFullName(ctx.arg(j));
    if (spec == nullptr) {
      ctx.reply.Null();
    } else {
      WriteInfo(ctx.reply, *spec);
    }
  }
}

void CommandDocsCommand(CommandContext& ctx) {
  const CommandNames& names = ctx.server.command_names;
  if (ctx.argc() == 2) {
    ctx.reply.MapHeader(names.CallableCount());
    for (const CommandSpec& spec : Commands()) {
      if (names.Callable(spec)) WriteDoc(ctx.reply, spec);
    }
    return;
  }
  std::vector<const CommandSpec*> found;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    if (const CommandSpec* spec = names.FindFullName(ctx.arg(j))) found.push_back(spec);
  }
  ctx.reply.MapHeader(found.size());
  for (const CommandSpec* spec : found) WriteDoc(ctx.reply, *spec);
}

void CommandListCommand(CommandContext& ctx) {
  std::string_view pattern;
  std::string_view category;
  bool module_filter = false;
  if (ctx.argc() == 5 && ArgIs(ctx.arg(2), "filterby")) {
    if (ArgIs(ctx.arg(3), "pattern")) {
      pattern = ctx.arg(4);
    } else if (ArgIs(ctx.arg(3), "aclcat")) {
      category = ctx.arg(4);
    } else if (ArgIs(ctx.arg(3), "module")) {
      module_filter = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  } else if (ctx.argc() != 2) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::vector<std::string_view> names;
  auto consider = [&](const CommandSpec& spec) {
    if (module_filter) return;
    if (!pattern.empty() && !storage::GlobMatchNoCase(pattern, spec.name)) return;
    if (!category.empty()) {
      bool has = false;
      ForEachWord(spec.acl_categories, [&](std::string_view word) {
        if (ArgIs(category, word.substr(1))) has = true;  // "@read" matches "read"
      });
      if (!has) return;
    }
    names.push_back(spec.name);
  };
  for (const CommandSpec& spec : Commands()) {
    if (!ctx.server.command_names.Callable(spec)) continue;
    consider(spec);
    if (spec.is_container()) {
      for (const CommandSpec& sub : spec.subcommands()) consider(sub);
    }
  }
  ctx.reply.ArrayHeader(names.size());
  for (std::string_view name : names) ctx.reply.Bulk(name);
}

// Redis's addReplyFlagsForKeyArgs: a key's flags by name, in Redis's order.
void WriteKeyFlags(protocol::ReplyWriter& r, std::uint16_t flags) {
  static constexpr std::pair<std::uint16_t, std::string_view> kNames[] = {
      {kKeyRO, "RO"},
      {kKeyRW, "RW"},
      {kKeyOW, "OW"},
      {kKeyRM, "RM"},
      {kKeyAccess, "access"},
      {kKeyUpdate, "update"},
      {kKeyInsert, "insert"},
      {kKeyDelete, "delete"},
      {kKeyNotKey, "not_key"},
      {kKeyIncomplete, "incomplete"},
      {kKeyVariableFlags, "variable_flags"},
  };
  std::size_t n = 0;
  for (const auto& [flag, name] : kNames) n += (flags & flag) != 0;
  r.SetHeader(n);
  for (const auto& [flag, name] : kNames) {
    if ((flags & flag) != 0) r.Status(name);
  }
}

// COMMAND GETKEYS and GETKEYSANDFLAGS (getKeysSubcommandImpl): the keys the command in the
// arguments would touch, found as ACL finds them.
void ReplyKeysOf(CommandContext& ctx, bool with_flags) {
  const std::span<const std::string_view> args = ctx.args.subspan(2);
  const CommandSpec* spec = ctx.server.command_names.FindFor(args);
  if (spec == nullptr) {
    ctx.reply.Error("ERR Invalid command specified");
    return;
  }
  const std::uint16_t id = CommandId(*spec);
  if (!CommandHasKeys(id)) {
    ctx.reply.Error("ERR The command has no key arguments");
    return;
  }
  const auto argc = static_cast<int>(ctx.argc() - 2);
  if ((spec->arity > 0 && spec->arity != argc) || argc < -spec->arity) {
    ctx.reply.Error("ERR Invalid number of arguments specified for command");
    return;
  }
  std::vector<KeyRef> keys;
  FindCommandKeys(id, args, keys);
  if (keys.empty()) {
    if ((spec->flags & kNoMandatoryKeys) != 0) {
      ctx.reply.ArrayHeader(0);
    } else {
      ctx.reply.Error("ERR Invalid arguments specified for command");
    }
    return;
  }
  ctx.reply.ArrayHeader(keys.size());
  for (const KeyRef& key : keys) {
    if (with_flags) ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(args[static_cast<std::size_t>(key.pos)]);
    if (with_flags) WriteKeyFlags(ctx.reply, key.flags);
  }
}

void CommandGetkeysCommand(CommandContext& ctx) { ReplyKeysOf(ctx, false); }
void CommandGetkeysandflagsCommand(CommandContext& ctx) { ReplyKeysOf(ctx, true); }

void CommandHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kCommandTable[] = {
    {"command|count",  2, kLoading | kStale, CommandCountCommand, 0, 0, 0, "@slow @connection"},
    {"command|info",  -2, kLoading | kStale, CommandInfoCommand,  0, 0, 0, "@slow @connection"},
    {"command|docs",  -2, kLoading | kStale, CommandDocsCommand,  0, 0, 0, "@slow @connection"},
    {"command|list",  -2, kLoading | kStale, CommandListCommand,  0, 0, 0, "@slow @connection"},
    {"command|getkeys", -4, kLoading | kStale, CommandGetkeysCommand, 0, 0, 0, "@slow @connection"},
    {"command|getkeysandflags", -4, kLoading | kStale, CommandGetkeysandflagsCommand, 0, 0, 0, "@slow @connection"},
    {"command|help",   2, kLoading | kStale, CommandHelpCommand,  0, 0, 0, "@slow @connection"},
};
// clang-format on

}  // namespace

void CommandCommand(CommandContext& ctx) {
  const CommandNames& names = ctx.server.command_names;
  ctx.reply.ArrayHeader(names.CallableCount());
  for (const CommandSpec& spec : Commands()) {
    if (names.Callable(spec)) WriteInfo(ctx.reply, spec);
  }
}

std::span<const CommandSpec> CommandSubcommands() { return kCommandTable; }

}  // namespace warden::server
