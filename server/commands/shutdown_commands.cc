// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT].
//
// warden keeps nothing on disk, so it behaves as a Redis whose final save fails: SAVE is refused
// with Redis's error and the server keeps running, SAVE FORCE exits anyway. Without SAVE it
// does what SIGTERM does: no reply to the caller, the replies already computed for every client
// are delivered, then the process exits. NOW and FORCE change nothing (there are no replicas to
// wait for), and no shutdown is ever left in progress for ABORT to cancel.
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
  if (save) {
    if (log != nullptr) {
      log->Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
      log->Log(LogLevel::kWarning, "warden does not persist: there is no RDB snapshot to write.");
    }
    if (!force) {
      if (log != nullptr) {
        log->Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
        log->Log(LogLevel::kWarning,
                 "Errors trying to shut down the server. Check the logs for more information.");
      }
      ctx.reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
      return;
    }
    if (log != nullptr) log->Log(LogLevel::kWarning, "Error trying to save the DB. Exit anyway.");
  }
  // As Redis blocks the caller until the end: its later requests never run, and its earlier
  // replies go out with everyone's when the server closes the connections.
  ctx.session.blocked = true;
  if (ctx.server.connections != nullptr) ctx.server.connections->RequestShutdown();
}

}  // namespace warden::server
