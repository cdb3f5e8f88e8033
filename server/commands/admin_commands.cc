// TIME and WAIT (INFO is in server/stats/info.cc).
#include <cstdint>

#include "protocol/request_parser.h"
#include "server/commands/commands.h"
#include "server/errors.h"

namespace warden::server {

void TimeCommand(CommandContext& ctx) {
  const std::int64_t now_us = ctx.server.clock.NowUs();
  ctx.reply.ArrayHeader(2);
  ctx.reply.BulkInteger(now_us / 1000000);
  ctx.reply.BulkInteger(now_us % 1000000);
}

void WaitCommand(CommandContext& ctx) {
  std::int64_t replicas = 0;
  std::int64_t timeout = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(1), replicas)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (!protocol::ParseStrictInt64(ctx.arg(2), timeout)) {
    ctx.reply.Error("ERR timeout is not an integer or out of range");
    return;
  }
  if (timeout < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return;
  }
  ctx.server.replication.WaitCommand(ctx.session, replicas, timeout, ctx.reply);
}

}  // namespace warden::server
