// DEBUG REPLICA-LINK: the replication link's failures, for tests of failover and lag.
#include "server/command_context.h"
#include "server/commands/commands.h"

namespace warden::server {

void DebugReplicaLink(CommandContext& ctx) {
  const std::string_view how = ctx.arg(2);
  if (!ArgIs(how, "down") && !ArgIs(how, "stall") && !ArgIs(how, "up")) {
    ctx.reply.Error("ERR DEBUG REPLICA-LINK takes DOWN, STALL or UP");
    return;
  }
  std::string lower(how);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (!ctx.server.replication.HoldLink(lower)) {
    ctx.reply.Error("ERR DEBUG REPLICA-LINK is for replicas: this server is a master");
    return;
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
