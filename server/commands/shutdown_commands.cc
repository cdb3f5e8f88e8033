// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT].
//
// As Redis's prepareForShutdown: a background save is killed, then the snapshot is written when
// save points are set or SAVE is given (not with NOSAVE); if that fails the server keeps running
// and says so, unless FORCE. Then it does what SIGTERM does: no reply to the caller, the replies
// already computed for every client are delivered, then the process exits. NOW and FORCE change
// nothing (there are no replicas to wait for), and no shutdown is ever left in progress for ABORT
// to cancel.
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/scripting/script_engine.h"

namespace warden::server {

void ShutdownCommand(CommandContext& ctx) {
  bool nosave = false;
  bool save = false;
  bool force = false;
  bool now = false;
  bool abort = false;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view arg = ctx.arg(i);
    if (ArgIs(arg, "nosave")) {
      nosave = true;
    } else if (ArgIs(arg, "save")) {
      save = true;
    } else if (ArgIs(arg, "now")) {
      now = true;
    } else if (ArgIs(arg, "force")) {
      force = true;
    } else if (ArgIs(arg, "abort")) {
      abort = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if ((abort && (nosave || save || now || force)) || (nosave && save)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (abort) {
    ctx.reply.Error("ERR No shutdown in progress.");
    return;
  }
  // A script past busy-reply-threshold may only be cut short without saving.
  if (!nosave && ctx.server.scripts->busy()) {
    ctx.reply.Error(ctx.server.scripts->busy_error());
    return;
  }
  Logger* log = ctx.server.log;
  if (log != nullptr) log->Log(LogLevel::kWarning, "User requested shutdown...");
  if (!ctx.server.snapshots.SaveBeforeExit(save, nosave, force)) {
    if (log != nullptr) {
      log->Log(LogLevel::kWarning,
               "Errors trying to shut down the server. Check the logs for more information.");
    }
    ctx.reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
    return;
  }
  // As Redis blocks the caller until the end: its later requests never run, and its earlier
  // replies go out with everyone's when the server closes the connections.
  ctx.session.blocked = true;
  if (ctx.server.connections != nullptr) ctx.server.connections->RequestShutdown();
}

}  // namespace warden::server
