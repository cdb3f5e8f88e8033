// The blocking commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX, BZMPOP.
// Each serves at once when it can, as its non-blocking form would; otherwise the client waits
// (server/blocking.h) and the command runs again when a key it waits on receives data.
#include <cmath>
#include <limits>

#include "server/command_table.h"
#include "server/commands/blocking_ops.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"

namespace warden::server {

bool TimeoutArg(CommandContext& ctx, std::string_view arg, std::int64_t& deadline_ms) {
  long double seconds = 0;
  if (!ParseLongDouble(arg, seconds)) {
    ctx.reply.Error("ERR timeout is not a float or out of range");
    return false;
  }
  // Redis 7.0 converts ceill(seconds * 1000) to long long unchecked: on x86-64 a value past
  // the range (inf, 1e16 seconds) comes out as LLONG_MIN, which it then calls negative.
  const long double ms = std::ceil(seconds * 1000.0L);
  constexpr long double kRange = 9223372036854775808.0L;  // 2^63
  if (!(ms < kRange && ms >= -kRange) || ms < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return false;
  }
  const auto timeout = static_cast<std::int64_t>(ms);
  // A deadline past the end of time is no deadline: 7.0's sum overflows and it waits forever.
  if (timeout == 0 || __builtin_add_overflow(timeout, ctx.now_ms, &deadline_ms)) deadline_ms = 0;
  return true;
}

bool CanBlock(const CommandContext& ctx) {
  return !ctx.session.is_script && ctx.session.host != nullptr;
}

void WaitForKeys(CommandContext& ctx, std::span<const std::string_view> keys,
                 std::int64_t deadline_ms) {
  if (Retrying(ctx) || CanBlock(ctx)) {
    ctx.server.blocking.Block(ctx.session, ctx.args, keys, deadline_ms);
  } else {
    ctx.reply.NullArray();
  }
}

}  // namespace warden::server
