// BGREWRITEAOF (aof.h), and SAVE, BGSAVE and LASTSAVE (snapshots.h), with Redis 7.0's replies.
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/server_state.h"

namespace warden::server {

void BgrewriteaofCommand(CommandContext& ctx) {
  if (ctx.server.snapshots.saving()) {
    // Redis schedules it for when the snapshot's child is done.
    ctx.server.aof.ScheduleRewrite();
    ctx.reply.Status("Background append only file rewriting scheduled");
    return;
  }
  if (auto err = ctx.server.aof.StartRewrite()) {
    ctx.reply.Error(*err);
    return;
  }
  ctx.reply.Status("Background append only file rewriting started");
}

void SaveCommand(CommandContext& ctx) {
  if (auto err = ctx.server.snapshots.Save()) {
    ctx.reply.Error(err->empty() ? std::string_view("ERR") : std::string_view("ERR " + *err));
    return;
  }
  ctx.reply.Ok();
}

void BgsaveCommand(CommandContext& ctx) {
  bool schedule = false;
  if (ctx.argc() > 1) {
    if (ctx.argc() == 2 && ArgIs(ctx.arg(1), "schedule")) {
      schedule = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Snapshots& snapshots = ctx.server.snapshots;
  if (snapshots.saving()) {
    ctx.reply.Error("ERR Background save already in progress");
  } else if (ctx.server.aof.rewriting() || ctx.server.call.depth > 1) {
    // Another child runs, or this is inside EXEC, where no child may start.
    if (schedule || ctx.server.call.depth > 1) {
      snapshots.Schedule();
      ctx.reply.Status("Background saving scheduled");
    } else {
      ctx.reply.Error(
          "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
          "SCHEDULE in order to schedule a BGSAVE whenever possible.");
    }
  } else if (snapshots.StartBackgroundSave()) {
    ctx.reply.Error("ERR");
  } else {
    ctx.reply.Status("Background saving started");
  }
}

void LastsaveCommand(CommandContext& ctx) {
  ctx.reply.Integer(ctx.server.snapshots.last_save_time());
}

}  // namespace warden::server
