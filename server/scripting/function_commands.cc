// FCALL, FCALL_RO and FUNCTION (Redis 7.0's functions.c). FUNCTION DUMP and RESTORE are with
// DUMP (dump_commands.cc), whose payload framing they share.
#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

// FUNCTION LOAD, DELETE and FLUSH change no key but must reach the append-only file, as
// Redis's server.dirty++ makes them.
void PropagateSelf(CommandContext& ctx) {
  if (ctx.server.propagation.active()) {
    ctx.server.propagation.Add(ctx.session.db, ctx.args, ctx.server.call.depth);
  }
}

void FcallGeneric(CommandContext& ctx, bool read_only) {
  ScriptEngine& engine = *ctx.server.scripts;
  const LuaFunction* function = engine.FindFunction(ctx.arg(1));
  if (function == nullptr) {
    ctx.reply.Error("ERR Function not found");
    return;
  }
  std::int64_t numkeys = 0;
  if (!ParseNumkeys(ctx, "ERR Bad number of keys provided", numkeys)) return;
  // Redis's scriptPrepareForRun, for a script that declares its flags.
  if ((function->flags & kFunctionNoWrites) == 0) {
    if (ScriptRefusedByDiskError(ctx)) return;
    if (read_only) {
      ctx.reply.Error("ERR Can not execute a script with write flag using *_ro command.");
      return;
    }
    if (ctx.server.replication.TooFewReplicas()) [[unlikely]] {
      ctx.reply.Error("NOREPLICAS Not enough good replicas to write.");
      return;
    }
  }
  if (ctx.server.call.pre_command_oom && ctx.server.config.maxmemory > 0 &&
      (function->flags & (kFunctionAllowOom | kFunctionNoWrites)) == 0) {
    ctx.reply.Error(
        "OOM allow-oom flag is not set on the script, can not run it when used memory > "
        "'maxmemory'");
    return;
  }
  const auto keys = ctx.args.subspan(3, static_cast<std::size_t>(numkeys));
  const auto args = ctx.args.subspan(3 + static_cast<std::size_t>(numkeys));
  engine.CallFunction(*function, ctx.session, ctx.args, keys, args, read_only, ctx.reply);
}

void FunctionLoadCommand(CommandContext& ctx) {
  bool replace = false;
  std::size_t pos = 2;
  while (pos < ctx.argc() - 1) {
    const std::string_view option = ctx.arg(pos++);
    if (ArgIs(option, "replace")) {
      replace = true;
      continue;
    }
    ctx.reply.Error({"ERR Unknown option given: ", option.substr(0, option.find('\0'))});
    return;
  }
  if (pos >= ctx.argc()) {
    ctx.reply.Error("ERR Function code is missing");
    return;
  }
  std::string error;
  // The append-only file is obeyed without a time limit, as Redis obeys its master.
  const auto name =
      ctx.server.scripts->LoadLibrary(ctx.arg(pos), replace, !ctx.server.loading, error);
  if (!name.has_value()) {
    ctx.reply.Error({"ERR ", error});
    return;
  }
  PropagateSelf(ctx);
  ctx.reply.Bulk(*name);
}

void FunctionDeleteCommand(CommandContext& ctx) {
  if (!ctx.server.scripts->DeleteLibrary(ctx.arg(2))) {
    ctx.reply.Error("ERR Library not found");
    return;
  }
  PropagateSelf(ctx);
  ctx.reply.Ok();
}

void FunctionFlushCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    errors::SubcommandSyntax(ctx.reply, ctx.arg(0), ctx.arg(1));
    return;
  }
  if (ctx.argc() == 3 && !ArgIs(ctx.arg(2), "sync") && !ArgIs(ctx.arg(2), "async")) {
    ctx.reply.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  ctx.server.scripts->FlushFunctions();
  PropagateSelf(ctx);
  ctx.reply.Ok();
}

void FunctionKillCommand(CommandContext& ctx) { KillScript(ctx, false); }

void FunctionListCommand(CommandContext& ctx) {
  bool with_code = false;
  bool have_pattern = false;
  std::string_view pattern;
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    const std::string_view arg = ctx.arg(i);
    if (!with_code && ArgIs(arg, "withcode")) {
      with_code = true;
      continue;
    }
    if (!have_pattern && ArgIs(arg, "libraryname")) {
      if (i >= ctx.argc() - 1) {
        ctx.reply.Error("ERR library name argument was not given");
        return;
      }
      have_pattern = true;
      pattern = ctx.arg(++i);
      continue;
    }
    ctx.reply.Error({"ERR Unknown argument ", arg});
    return;
  }
  const auto& libraries = ctx.server.scripts->libraries();
  std::size_t count = 0;
  for (const auto& [name, library] : libraries) {
    if (!have_pattern || storage::GlobMatchNoCase(pattern, name)) ++count;
  }
  ctx.reply.ArrayHeader(count);
  for (const auto& [name, library] : libraries) {
    if (have_pattern && !storage::GlobMatchNoCase(pattern, name)) continue;
    ctx.reply.MapHeader(with_code ? 4 : 3);
    ctx.reply.Bulk("library_name");
    ctx.reply.Bulk(name);
    ctx.reply.Bulk("engine");
    ctx.reply.Bulk("LUA");
    ctx.reply.Bulk("functions");
    ctx.reply.ArrayHeader(library.functions.size());
    for (const LuaFunction& f : library.functions) {
      ctx.reply.MapHeader(3);
      ctx.reply.Bulk("name");
      ctx.reply.Bulk(f.name);
      ctx.reply.Bulk("description");
      if (f.description.has_value()) {
        ctx.reply.Bulk(*f.description);
      } else {
        ctx.reply.Null();
      }
      ctx.reply.Bulk("flags");
      ctx.reply.SetHeader(static_cast<std::size_t>(__builtin_popcount(f.flags)));
      for (std::size_t i = 0; i < std::size(kFunctionFlagNames); ++i) {
        if ((f.flags & (1u << i)) != 0) ctx.reply.Status(kFunctionFlagNames[i]);
      }
    }
    if (with_code) {
      ctx.reply.Bulk("library_code");
      ctx.reply.Bulk(library.code);
    }
  }
}

void FunctionStatsCommand(CommandContext& ctx) {
  const ScriptEngine& engine = *ctx.server.scripts;
  if (engine.running() && !engine.running_function()) {
    ctx.reply.Error(errors::kBusy);
    return;
  }
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("running_script");
  if (!engine.running()) {
    ctx.reply.Null();
  } else {
    ctx.reply.MapHeader(3);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(engine.running_name());
    ctx.reply.Bulk("command");
    const auto command = engine.running_command();
    ctx.reply.ArrayHeader(command.size());
    for (const std::string_view word : command) ctx.reply.Bulk(word);
    ctx.reply.Bulk("duration_ms");
    ctx.reply.Integer(engine.running_ms());
  }
  ctx.reply.Bulk("engines");
  ctx.reply.MapHeader(1);
  ctx.reply.Bulk("LUA");
  ctx.reply.MapHeader(2);
  ctx.reply.Bulk("libraries_count");
  ctx.reply.Integer(static_cast<std::int64_t>(engine.libraries().size()));
  ctx.reply.Bulk("functions_count");
  ctx.reply.Integer(static_cast<std::int64_t>(engine.function_count()));
}

void FunctionHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored "
      "using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a "
      "chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kFunctionTable[] = {
    {"function|load",   -3, kWrite | kDenyOom | kNoScript, FunctionLoadCommand,   0, 0, 0, "@write @slow @scripting"},
    {"function|delete",  3, kWrite | kNoScript,            FunctionDeleteCommand, 0, 0, 0, "@write @slow @scripting"},
    {"function|flush",  -2, kWrite | kNoScript,            FunctionFlushCommand,  0, 0, 0, "@write @slow @scripting"},
    {"function|kill",    2, kNoScript | kAllowBusy,        FunctionKillCommand,   0, 0, 0, "@slow @scripting"},
    {"function|list",   -2, kNoScript,                     FunctionListCommand,   0, 0, 0, "@slow @scripting"},
    {"function|stats",   2, kNoScript | kAllowBusy,        FunctionStatsCommand,  0, 0, 0, "@slow @scripting"},
    {"function|help",    2, kLoading | kStale,             FunctionHelpCommand,   0, 0, 0, "@slow @scripting"},
    {"function|dump",    2, kNoScript,                     FunctionDumpCommand,   0, 0, 0, "@slow @scripting"},
    {"function|restore", -3, kWrite | kDenyOom | kNoScript, FunctionRestoreCommand, 0, 0, 0, "@write @slow @scripting"},
};
// clang-format on

}  // namespace

void FcallCommand(CommandContext& ctx) { FcallGeneric(ctx, false); }
void FcallRoCommand(CommandContext& ctx) { FcallGeneric(ctx, true); }

std::span<const CommandSpec> FunctionSubcommands() { return kFunctionTable; }

}  // namespace warden::server
