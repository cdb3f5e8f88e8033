// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT.
#include <cstring>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/scripting/lua_debugger.h"
#include "server/scripting/script_engine.h"

namespace warden::server {
namespace {

enum class Source { kBody, kSha };

}  // namespace

[[nodiscard]] bool ParseNumkeys(CommandContext& ctx, std::string_view not_integer,
                                std::int64_t& numkeys) {
  if (!protocol::ParseStrictInt64(ctx.arg(2), numkeys)) {
    ctx.reply.Error(not_integer);
    return false;
  }
  if (numkeys > static_cast<std::int64_t>(ctx.argc()) - 3) {
    ctx.reply.Error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  if (numkeys < 0) {
    ctx.reply.Error("ERR Number of keys can't be negative");
    return false;
  }
  return true;
}

[[nodiscard]] bool ScriptRefusedByDiskError(CommandContext& ctx) {
  // Redis's scriptPrepareForRun checks the replica first.
  if (ctx.server.replication.RefusesWrite(ctx.session)) [[unlikely]] {
    ctx.reply.Error("READONLY Can not run script with write flag on readonly replica");
    return true;
  }
  const int err = ctx.server.aof.write_error();
  if ((err == 0 && !ctx.server.snapshots.refuses_writes()) || ctx.server.loading) [[likely]] {
    return false;
  }
  if (ctx.server.snapshots.refuses_writes()) {
    ctx.reply.Error(
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist "
        "to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts.");
    return true;
  }
  ctx.reply.Error(
      {"MISCONF Redis is configured to persist data to AOF, but it's currently unable to "
       "persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only "
       "scripts. AOF error: ",
       std::strerror(err)});
  return true;
}

void KillScript(CommandContext& ctx, bool eval) {
  ScriptEngine& engine = *ctx.server.scripts;
  switch (engine.Kill(eval)) {
    case ScriptEngine::KillResult::kNotBusy:
      ctx.reply.Error("NOTBUSY No scripts in execution right now.");
      return;
    case ScriptEngine::KillResult::kUnkillable:
      ctx.reply.Error(
          "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
          "can either wait the script termination or kill the server in a hard way using the "
          "SHUTDOWN NOSAVE command.");
      return;
    case ScriptEngine::KillResult::kOtherKind:
      ctx.reply.Error(engine.busy_error());
      return;
    case ScriptEngine::KillResult::kKilled:
      ctx.reply.Ok();
      return;
  }
}

namespace {

void EvalGeneric(CommandContext& ctx, Source source, bool read_only) {
  ScriptEngine& engine = *ctx.server.scripts;
  // EVALSHA answers NOSCRIPT for a digest of the wrong length before looking at numkeys.
  if (source == Source::kSha && ctx.arg(1).size() != 40) {
    ctx.reply.Error(errors::kNoScript);
    return;
  }
  if (source == Source::kSha && ctx.session.lua_debug != Session::kLuaDebugOff) {
    ctx.reply.Error("ERR Please use EVAL instead of EVALSHA for debugging");
    return;
  }
  std::int64_t numkeys = 0;
  if (!ParseNumkeys(ctx, errors::kNotInteger, numkeys)) return;
  char sha[41];
  const Script* script = nullptr;
  if (source == Source::kSha) {
    script = engine.Find(ctx.arg(1));
    if (script == nullptr) {
      ctx.reply.Error(errors::kNoScript);
      return;
    }
    for (std::size_t i = 0; i < 40; ++i) {
      const char c = ctx.arg(1)[i];
      sha[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    }
    sha[40] = '\0';
  } else {
    script = engine.Load(ctx.arg(1), sha, ctx.reply);
    if (script == nullptr) return;
  }
  // Before the *_ro check, in Redis's scriptPrepareForRun order.
  if (script->has_shebang && !script->no_writes && ScriptRefusedByDiskError(ctx)) return;
  if (script->has_shebang && !script->no_writes && !read_only &&
      ctx.server.replication.TooFewReplicas()) [[unlikely]] {
    ctx.reply.Error("NOREPLICAS Not enough good replicas to write.");
    return;
  }
  if (read_only && script->has_shebang && !script->no_writes) {
    ctx.reply.Error("ERR Can not execute a script with write flag using *_ro command.");
    return;
  }
  const auto keys = ctx.args.subspan(3, static_cast<std::size_t>(numkeys));
  const auto args = ctx.args.subspan(3 + static_cast<std::size_t>(numkeys));
  engine.Run(*script, std::string_view(sha, 40), ctx.session, keys, args, read_only, ctx.reply);
}

void ScriptLoadCommand(CommandContext& ctx) {
  char sha[41];
  if (ctx.server.scripts->Load(ctx.arg(2), sha, ctx.reply) == nullptr) return;
  ctx.reply.Bulk(std::string_view(sha, 40));
}

void ScriptExistsCommand(CommandContext& ctx) {
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    ctx.reply.Integer(ctx.server.scripts->Find(ctx.arg(j)) != nullptr ? 1 : 0);
  }
}

void ScriptFlushCommand(CommandContext& ctx) {
  if (ctx.argc() > 3 ||
      (ctx.argc() == 3 && !ArgIs(ctx.arg(2), "sync") && !ArgIs(ctx.arg(2), "async"))) {
    ctx.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  ctx.server.scripts->Flush();
  ctx.reply.Ok();
}

void ScriptKillCommand(CommandContext& ctx) { KillScript(ctx, true); }

void ScriptHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DEBUG (YES|SYNC|NO)",
      "    Set the debug mode for subsequent scripts executed.",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kScriptTable[] = {
    {"script|load",   3, kNoScript | kStale,     ScriptLoadCommand,   0, 0, 0, "@slow @scripting"},
    {"script|exists", -3, kNoScript,             ScriptExistsCommand, 0, 0, 0, "@slow @scripting"},
    {"script|flush",  -2, kNoScript,             ScriptFlushCommand,  0, 0, 0, "@slow @scripting"},
    {"script|kill",   2, kNoScript | kAllowBusy, ScriptKillCommand,   0, 0, 0, "@slow @scripting"},
    {"script|help",   2, kLoading | kStale,      ScriptHelpCommand,   0, 0, 0, "@slow @scripting"},
    {"script|debug",  3, kNoScript,              ScriptDebugCommand,  0, 0, 0, "@slow @scripting"},
};
// clang-format on

}  // namespace

void EvalCommand(CommandContext& ctx) {
  // Redis debugs EVAL and EVAL_RO; EVALSHA refuses and FCALL runs as usual.
  if (ctx.session.lua_debug != Session::kLuaDebugOff) [[unlikely]] {
    EvalDebugged(ctx, [](CommandContext& c) { EvalGeneric(c, Source::kBody, false); });
    return;
  }
  EvalGeneric(ctx, Source::kBody, false);
}
void EvalshaCommand(CommandContext& ctx) { EvalGeneric(ctx, Source::kSha, false); }
void EvalRoCommand(CommandContext& ctx) {
  if (ctx.session.lua_debug != Session::kLuaDebugOff) [[unlikely]] {
    EvalDebugged(ctx, [](CommandContext& c) { EvalGeneric(c, Source::kBody, true); });
    return;
  }
  EvalGeneric(ctx, Source::kBody, true);
}
void EvalshaRoCommand(CommandContext& ctx) { EvalGeneric(ctx, Source::kSha, true); }

std::span<const CommandSpec> ScriptSubcommands() { return kScriptTable; }

}  // namespace warden::server
