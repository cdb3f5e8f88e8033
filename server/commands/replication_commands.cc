// The replication commands' entry points; replication.h does the work.
#include "server/command_context.h"
#include "server/commands/commands.h"

namespace warden::server {

void SyncCommand(CommandContext& ctx) {
  ctx.server.replication.SyncCommand(ctx.session, ctx.args, ctx.reply);
}

void ReplconfCommand(CommandContext& ctx) {
  ctx.server.replication.ReplconfCommand(ctx.session, ctx.args, ctx.reply);
}

void ReplicaofCommand(CommandContext& ctx) {
  ctx.server.replication.ReplicaofCommand(ctx.session, ctx.args, ctx.reply);
}

void RoleCommand(CommandContext& ctx) { ctx.server.replication.RoleCommand(ctx.reply); }

void FailoverCommand(CommandContext& ctx) {
  ctx.server.replication.FailoverCommand(ctx.args, ctx.reply);
}

}  // namespace warden::server
