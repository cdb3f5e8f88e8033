// DEBUG: the subcommands Redis's own test suites use (SLEEP, SET-ACTIVE-EXPIRE, OBJECT, LOG,
// SET-DISABLE-DENY-SCRIPTS) and warden's test-double controls: a clock tests move, one active
// expiry cycle on demand, and faults on demand. All are refused unless enable-debug-command
// allows them (the dispatcher checks the kProtected flag).
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/debug_command_log.h"
#include "server/commands/debug_fault_commands.h"
#include "server/commands/debug_observe_commands.h"
#include "server/commands/typed_lookup.h"
#include "server/debug/clock_moves.h"
#include "server/debug/dataset_digest.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/scripting/script_engine.h"

namespace warden::server {
namespace {

[[nodiscard]] bool NonNegativeArg(CommandContext& ctx, std::string_view arg, std::int64_t& out) {
  if (!protocol::ParseStrictInt64(arg, out)) {
    ctx.reply.Error(errors::kNotInteger);
    return false;
  }
  if (out < 0) {
    ctx.reply.Error("ERR time can only move forward");
    return false;
  }
  return true;
}

void DebugHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ACTIVE-EXPIRE-CYCLE",
      "    Run active expiry now until no expired key is found; returns how many were removed.",
      "CLOCK [FREEZE [<unix-ms>]|ADVANCE <ms>|REAL]",
      "    Show, stop, move forward or release the server clock.",
      "COMMAND-LOG ON [<max-entries>]|OFF|RESET|GET [<count>]|STATUS",
      "    Record the commands run (oldest dropped past <max-entries>); GET the newest <count>.",
      "DIGEST",
      "    Output a hex signature representing the current DB content.",
      "DIGEST-VALUE <key> [<key> ...]",
      "    Output a hex signature of the values of all the specified keys.",
      "DROP-CLIENTS",
      "    Close every other client connection.",
      "FAIL-NEXT <count> <error> [COMMAND <name>]",
      "    Answer the next <count> commands (or those named <name>) with <error>. 0 clears.",
      "FAULT ADD [COMMAND <name>] [KEY <glob>] [CLIENT-NAME <glob>] [AFTER <n>] [TIMES <n>] "
      "[PROBABILITY <p>] ERROR <text>|DELAY <ms> [JITTER <ms>]|DROP|DROP-AFTER",
      "    Fail, delay or drop the matching commands; returns the rule's id.",
      "FAULT LIST|DEL <id>|CLEAR",
      "    Show, remove one or remove every fault rule.",
      "LOADAOF",
      "    Write and sync the append-only file, empty every database and load the file again.",
      "LOG <message>",
      "    Write <message> to the server log.",
      "OBJECT <key>",
      "    Show low-level info about the <key> and associated value.",
      "PAUSE-CRON <0|1>",
      "    Stop periodic cron job processing.",
      "PROTOCOL <type>",
      "    Reply with a test value of the specified type. <type> can be: string,",
      "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
      "    true, false.",
      "REPLICA-LINK DOWN|STALL|UP",
      "    On a replica: drop the link to the master and keep it down, or keep it open but read",
      "    and acknowledge nothing (a replica that lags), until UP.",
      "REPLY-DELAY <ms>",
      "    Hold the reply of every command but DEBUG <ms> milliseconds. 0 clears.",
      "SET-ACTIVE-EXPIRE <0|1>",
      "    Setting it to 0 disables expiring keys in background when they are not accessed.",
      "SET-DISABLE-DENY-SCRIPTS <0|1>",
      "    Let scripts call DEBUG.",
      "SIMULATE-RESTART",
      "    Lose every key and script and drop every connection, as a restart without persistence.",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "SNAPSHOT SAVE|LOAD|DROP <name> | LIST",
      "    Save a copy of every database, replace the data with one, drop one, or list them.",
      "UNSUPPORTED",
      "    Commands and subcommands answered as unknown since start or CONFIG RESETSTAT, counted.",
      "WAIT-BLOCKED <count> [<timeout-ms>]",
      "    Wait until <count> clients are blocked in blocking commands (real-time timeout,",
      "    default 5000, 0 for none); returns how many are.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// Redis's DEBUG PROTOCOL: one reply of each RESP3 type (as RESP2 shows it to a RESP2 client),
// for clients' and scripts' protocol tests.
void DebugProtocol(CommandContext& ctx) {
  protocol::ReplyWriter& r = ctx.reply;
  const std::string_view name = ctx.arg(2);
  const bool resp3 = ctx.session.resp >= 3;
  if (ArgIs(name, "string")) {
    r.Bulk("Hello World");
  } else if (ArgIs(name, "integer")) {
    r.Integer(12345);
  } else if (ArgIs(name, "double")) {
    r.Double(3.141);
  } else if (ArgIs(name, "bignum")) {
    r.BigNumber("1234567999999999999999999999999999999");
  } else if (ArgIs(name, "null")) {
    r.Null();
  } else if (ArgIs(name, "array") || ArgIs(name, "set")) {
    if (ArgIs(name, "array")) {
      r.ArrayHeader(3);
    } else {
      r.SetHeader(3);
    }
    for (int j = 0; j < 3; ++j) r.Integer(j);
  } else if (ArgIs(name, "map")) {
    r.MapHeader(3);
    for (int j = 0; j < 3; ++j) {
      r.Integer(j);
      r.Boolean(j == 1);
    }
  } else if (ArgIs(name, "attrib")) {
    // An attribute is not a reply of its own: a real reply follows it.
    if (resp3) {
      r.Raw("|1\r\n");
      r.Bulk("key-popularity");
      r.ArrayHeader(2);
      r.Bulk("key:123");
      r.Integer(90);
    }
    r.Bulk("Some real reply following the attribute");
  } else if (ArgIs(name, "push")) {
    if (!resp3) {
      r.Error("ERR RESP2 is not supported by this command");
      return;
    }
    r.Raw(">2\r\n");
    r.Bulk("server-cpu-usage");
    r.Integer(42);
    r.Bulk("Some real reply following the push reply");
  } else if (ArgIs(name, "true")) {
    r.Boolean(true);
  } else if (ArgIs(name, "false")) {
    r.Boolean(false);
  } else if (ArgIs(name, "verbatim")) {
    r.Verbatim("This is a verbatim\nstring");
  } else {
    r.Error(
        "ERR Wrong protocol type name. Please use one of the following: "
        "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
  }
}

void DebugSleep(CommandContext& ctx) {
  // Redis uses atof(): garbage reads as 0. Longer than any test waits (and inf) is capped, so
  // that the whole seconds fit in a time_t.
  constexpr double kMaxSleepSeconds = 1e9;
  const std::string text(ctx.arg(2));
  const double seconds = std::min(std::atof(text.c_str()), kMaxSleepSeconds);
  if (seconds > 0) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(seconds);
    ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
    while (nanosleep(&ts, &ts) != 0) {
    }
  }
  ctx.reply.Ok();
}

// Redis reads DEBUG's on/off flags with atoi(): text that is not a number means off.
bool FlagArg(std::string_view arg) { return std::atoi(std::string(arg).c_str()) != 0; }

void DebugSetActiveExpire(CommandContext& ctx) {
  ctx.server.debug->active_expire_enabled = FlagArg(ctx.arg(2));
  ctx.reply.Ok();
}

void DebugPauseCron(CommandContext& ctx) {
  ctx.server.debug->cron_paused = FlagArg(ctx.arg(2));
  ctx.reply.Ok();
}

void DebugObject(CommandContext& ctx) {
  // Redis reads its dictionary directly: a key past its deadline that active expiry has not
  // removed yet is still described.
  const storage::Entry* e = ctx.keyspace().Peek(ctx.arg(2));
  if (e == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  const std::uint32_t now = ctx.server.dbs.access_clock().now;
  char line[192];
  std::snprintf(line, sizeof(line),
                "Value at:%p refcount:1 encoding:%s serializedlength:%zu lru:%u "
                "lru_seconds_idle:%lld",
                static_cast<const void*>(e), std::string(EncodingName(*e)).c_str(),
                e->value().size() + 1, static_cast<unsigned>(e->access_stamp()),
                static_cast<long long>(storage::AccessClock::IdleSeconds(e->access_stamp(), now)));
  ctx.reply.Status(line);
}

void DebugLog(CommandContext& ctx) {
  if (ctx.server.log != nullptr) {
    const std::string message(ctx.arg(2));
    ctx.server.log->Log(LogLevel::kWarning, "DEBUG LOG: %s", message.c_str());
  }
  ctx.reply.Ok();
}

void DebugSetDisableDenyScripts(CommandContext& ctx) {
  ctx.server.debug->scripts_may_call_debug = FlagArg(ctx.arg(2));
  ctx.reply.Ok();
}

// DEBUG CLOCK [FREEZE [unix-ms] | ADVANCE ms | REAL]
void DebugClock(CommandContext& ctx) {
  storage::ControllableClock* clock = ctx.server.debug->clock_control;
  if (clock == nullptr) {
    ctx.reply.Error("ERR this server's clock cannot be controlled");
    return;
  }
  if (ctx.argc() == 2) {
    ctx.reply.ArrayHeader(2);
    ctx.reply.Bulk(clock->frozen() ? "frozen" : "real");
    ctx.reply.Integer(clock->NowMs());
    return;
  }
  const std::string_view action = ctx.arg(2);
  std::int64_t value = 0;
  if (ArgIs(action, "freeze") && ctx.argc() <= 4) {
    if (ctx.argc() == 4) {
      if (!NonNegativeArg(ctx, ctx.arg(3), value)) return;
      clock->Freeze(value);
    } else {
      clock->Freeze(clock->NowMs());
    }
  } else if (ArgIs(action, "advance") && ctx.argc() == 4) {
    if (!NonNegativeArg(ctx, ctx.arg(3), value)) return;
    clock->AdvanceMs(value);
  } else if (ArgIs(action, "real") && ctx.argc() == 3) {
    clock->Real();
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // What became due happens now, not at the next loop turn: "SET NX PX 30000, ADVANCE 30000,
  // SET NX" succeeds at once, and a BLPOP of that timeout has its reply on the way.
  CatchUpWithClock(ctx.server);
  ctx.reply.Ok();
}

void DebugActiveExpireCycle(CommandContext& ctx) {
  const std::uint64_t before = ctx.server.dbs.expired_keys();
  // Slices until one finds no more than the acceptable share of expired keys.
  while (ctx.server.active_expiry.RunOnce(ctx.server.clock.NowMs(), 1000)) {
  }
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.dbs.expired_keys() - before));
}

void DebugDropClients(CommandContext& ctx) {
  if (ctx.server.connections != nullptr) ctx.server.connections->DropClients(&ctx.session);
  ctx.reply.Ok();
}

void DebugLoadaof(CommandContext& ctx) {
  if (ctx.server.scripts->running()) {
    ctx.reply.Error("ERR DEBUG LOADAOF is not allowed from scripts");
    return;
  }
  if (auto err = ctx.server.aof.Reload()) {
    ctx.reply.Error(*err);
    return;
  }
  ctx.reply.Ok();
}

void DebugReload(CommandContext& ctx) {
  if (ctx.server.scripts->running()) {
    ctx.reply.Error("ERR DEBUG RELOAD is not allowed from scripts");
    return;
  }
  bool merge = false;
  bool flush = true;
  bool save = true;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    if (ArgIs(ctx.arg(j), "merge")) {
      merge = true;
    } else if (ArgIs(ctx.arg(j), "noflush")) {
      flush = false;
    } else if (ArgIs(ctx.arg(j), "nosave")) {
      save = false;
    } else {
      ctx.reply.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
      return;
    }
  }
  if (auto err = ctx.server.snapshots.Reload(save, flush, merge)) {
    ctx.reply.Error(*err);
    return;
  }
  ctx.reply.Ok();
}

void DebugSetSkipChecksumValidation(CommandContext& ctx) {
  std::int64_t on = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), on)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  ctx.server.skip_checksum_validation = on != 0;
  ctx.reply.Ok();
}

void DebugSimulateRestart(CommandContext& ctx) {
  // A script that may call DEBUG would otherwise free the Lua state it is running on.
  if (ctx.server.scripts->running()) {
    ctx.reply.Error("ERR DEBUG SIMULATE-RESTART is not allowed from scripts");
    return;
  }
  ctx.server.dbs.FlushAll();
  ctx.server.active_expiry.ResetStats();
  ctx.server.scripts->FlushFunctions();
  ctx.server.scripts->Flush();
  ctx.server.debug->faults.Clear();
  if (ctx.server.connections != nullptr) ctx.server.connections->DropClients(&ctx.session);
  ctx.reply.Ok();
  // The caller's connection goes too, after this reply: nothing survives a restart.
  ctx.session.close_after_reply = true;
}

// Redis's DEBUG DIGEST and DIGEST-VALUE (server/debug/dataset_digest.h): a value past its
// deadline but still held counts, as Redis reads its dict without expiring.
void DebugDigest(CommandContext& ctx) { ctx.reply.Status(DatasetDigest(ctx.server.dbs)); }

void DebugDigestValue(CommandContext& ctx) {
  ctx.reply.ArrayHeader(ctx.argc() - 2);
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    ctx.reply.Status(ValueDigest(ctx.keyspace().Peek(ctx.arg(j))));
  }
}

struct DebugSubcommand {
  std::string_view name;
  std::size_t min_argc;
  std::size_t max_argc;
  void (*handler)(CommandContext&);
};

// clang-format off
constexpr DebugSubcommand kDebugSubcommands[] = {
    {"help",                     2, 2, DebugHelp},
    {"sleep",                    3, 3, DebugSleep},
    {"set-active-expire",        3, 3, DebugSetActiveExpire},
    {"object",                   3, 3, DebugObject},
    {"pause-cron",               3, 3, DebugPauseCron},
    {"protocol",                 3, 3, DebugProtocol},
    {"digest",                   2, 2, DebugDigest},
    {"digest-value",             2, SIZE_MAX, DebugDigestValue},
    {"loadaof",                  2, 2, DebugLoadaof},
    {"reload",                   2, 5, DebugReload},
    {"set-skip-checksum-validation", 3, 3, DebugSetSkipChecksumValidation},
    {"log",                      3, 3, DebugLog},
    {"set-disable-deny-scripts", 3, 3, DebugSetDisableDenyScripts},
    {"clock",                    2, 4, DebugClock},
    {"active-expire-cycle",      2, 2, DebugActiveExpireCycle},
    {"drop-clients",             2, 2, DebugDropClients},
    {"simulate-restart",         2, 2, DebugSimulateRestart},
    {"fail-next",                4, 6, DebugFailNext},
    {"reply-delay",              3, 3, DebugReplyDelay},
    {"replica-link",             3, 3, DebugReplicaLink},
    {"command-log",              3, 4, DebugCommandLog},
    {"fault",                    3, SIZE_MAX, DebugFault},
    {"snapshot",                 3, 4, DebugSnapshot},
    {"unsupported",              2, 2, DebugUnsupported},
    {"wait-blocked",             3, 4, DebugWaitBlocked},
};
// clang-format on

}  // namespace

void DebugCommand(CommandContext& ctx) {
  const std::string_view sub = ctx.arg(1);
  for (const DebugSubcommand& s : kDebugSubcommands) {
    if (ArgIs(sub, s.name) && ctx.argc() >= s.min_argc && ctx.argc() <= s.max_argc) {
      s.handler(ctx);
      return;
    }
  }
  const bool known = std::any_of(std::begin(kDebugSubcommands), std::end(kDebugSubcommands),
                                 [&](const DebugSubcommand& s) { return ArgIs(sub, s.name); });
  if (!known) ctx.server.debug->unsupported.RecordSubcommand("debug", sub);
  ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '",
                   errors::CString(sub), "'. Try DEBUG HELP."});
}

}  // namespace warden::server
