// MONITOR. The feed itself is server/monitor.h, driven from Call().
#include "server/command_table.h"
#include "server/transaction.h"

namespace warden::server {

void MonitorCommand(CommandContext& ctx) {
  // Redis refuses it to a client that expects one reply per command (CLIENT_DENY_BLOCKING: a
  // script, or EXEC running it; MONITOR is not flagged no_multi in 7.0).
  if (ctx.session.is_script || ctx.session.multi.executing) {
    ctx.reply.Error("ERR MONITOR isn't allowed for DENY BLOCKING client");
    return;
  }
  // A second MONITOR is ignored, without a reply.
  if (ctx.session.monitoring()) return;
  ctx.server.monitors.Add(ctx.session);
  ctx.reply.Ok();
}

}  // namespace warden::server
