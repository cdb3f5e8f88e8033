// DEBUG COMMAND-LOG: switches and reads the command log (server/debug/command_log.h).
//
//   ON [max-entries]  log from the next command, keeping the newest max-entries (default 10000
//                     or the cap, at most command-log-max-entries); ON again changes the bound
//                     and keeps the newest entries
//   OFF               stop logging; entries stay readable
//   RESET             forget every entry (sequence numbers keep counting)
//   GET [count]       the newest count entries (default and -1: all), oldest first, each
//                     [seq, unix-ms, client-id, client-name, db, [arg ...], origin] with origin
//                     "client", "exec" (queued in MULTI, run by EXEC) or "script"
//   STATUS            state, max-entries, entries, dropped (overwritten since RESET), next-seq
#include <algorithm>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/commands/debug_command_log.h"
#include "server/debug/command_log.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"

namespace warden::server {
namespace {

void LogOn(CommandContext& ctx) {
  const std::int64_t cap = ctx.server.config.command_log_max_entries;
  std::int64_t max_entries = std::min<std::int64_t>(CommandLog::kDefaultMaxEntries, cap);
  if (ctx.argc() == 4 && !protocol::ParseStrictInt64(ctx.arg(3), max_entries)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (max_entries < 1 || max_entries > cap) {
    const std::string text = "ERR max-entries must be between 1 and " + std::to_string(cap) +
                             " (command-log-max-entries)";
    ctx.reply.Error(text);
    return;
  }
  ctx.server.debug->command_log.Start(static_cast<std::size_t>(max_entries));
  ctx.reply.Ok();
}

void LogGet(CommandContext& ctx) {
  const CommandLog& log = ctx.server.debug->command_log;
  std::int64_t count = -1;
  // SLOWLOG GET's rule and text.
  if (ctx.argc() == 4 && (!protocol::ParseStrictInt64(ctx.arg(3), count) || count < -1)) {
    ctx.reply.Error("ERR count should be greater than or equal to -1");
    return;
  }
  const std::size_t sent =
      count < 0 ? log.size() : std::min(log.size(), static_cast<std::size_t>(count));
  ctx.reply.ArrayHeader(sent);
  for (std::size_t i = log.size() - sent; i < log.size(); ++i) {
    const CommandLog::Entry& e = log.At(i);
    ctx.reply.ArrayHeader(7);
    ctx.reply.Integer(static_cast<std::int64_t>(e.seq));
    ctx.reply.Integer(e.time_ms);
    ctx.reply.Integer(static_cast<std::int64_t>(e.client_id));
    ctx.reply.Bulk(e.client_name);
    ctx.reply.Integer(e.db);
    ctx.reply.ArrayHeader(e.argc());
    for (std::size_t j = 0; j < e.argc(); ++j) ctx.reply.Bulk(e.arg(j));
    ctx.reply.Bulk(OriginName(e.origin));
  }
}

void LogStatus(CommandContext& ctx) {
  const CommandLog& log = ctx.server.debug->command_log;
  ctx.reply.MapHeader(5);
  ctx.reply.Bulk("state");
  ctx.reply.Bulk(log.on() ? "on" : "off");
  ctx.reply.Bulk("max-entries");
  ctx.reply.Integer(static_cast<std::int64_t>(log.max_entries()));
  ctx.reply.Bulk("entries");
  ctx.reply.Integer(static_cast<std::int64_t>(log.size()));
  ctx.reply.Bulk("dropped");
  ctx.reply.Integer(static_cast<std::int64_t>(log.dropped()));
  ctx.reply.Bulk("next-seq");
  ctx.reply.Integer(static_cast<std::int64_t>(log.next_seq()));
}

}  // namespace

void DebugCommandLog(CommandContext& ctx) {
  const std::string_view action = ctx.arg(2);
  const std::size_t argc = ctx.argc();
  if (ArgIs(action, "on") && argc <= 4) {
    LogOn(ctx);
  } else if (ArgIs(action, "get") && argc <= 4) {
    LogGet(ctx);
  } else if (ArgIs(action, "off") && argc == 3) {
    ctx.server.debug->command_log.Stop();
    ctx.reply.Ok();
  } else if (ArgIs(action, "reset") && argc == 3) {
    ctx.server.debug->command_log.Reset();
    ctx.reply.Ok();
  } else if (ArgIs(action, "status") && argc == 3) {
    LogStatus(ctx);
  } else {
    ctx.reply.Error(errors::kSyntax);
  }
}

}  // namespace warden::server
