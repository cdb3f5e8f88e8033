// BGREWRITEAOF: the append-only file compacted by a forked child (aof.h).
#include "server/commands/commands.h"
#include "server/server_state.h"

namespace warden::server {

void BgrewriteaofCommand(CommandContext& ctx) {
  if (auto err = ctx.server.aof.StartRewrite()) {
    ctx.reply.Error(*err);
    return;
  }
  ctx.reply.Status("Background append only file rewriting started");
}

}  // namespace warden::server
