// DEBUG WAIT-BLOCKED replaces the loop Redis's own test suite runs hundreds of times (poll INFO
// until blocked_clients reaches n); DEBUG UNSUPPORTED tells a red CI run which commands warden
// answered as unknown.
#include "server/commands/debug_observe_commands.h"

#include <algorithm>

#include "protocol/request_parser.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"

namespace warden::server {
namespace {

// Long enough for a worker to start, short enough that a test waiting for a client that never
// blocks fails within its own timeout.
constexpr std::int64_t kDefaultWaitBlockedMs = 5000;
// Past this (about 30 years) a timeout is as good as none, and microseconds cannot overflow.
constexpr std::int64_t kMaxWaitBlockedMs = 1'000'000'000'000;

}  // namespace

void DebugWaitBlocked(CommandContext& ctx) {
  std::int64_t count = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), count)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (count < 0) {
    ctx.reply.Error("ERR value is out of range, must be positive");
    return;
  }
  std::int64_t timeout_ms = kDefaultWaitBlockedMs;
  if (ctx.argc() == 4) {
    if (!protocol::ParseStrictInt64(ctx.arg(3), timeout_ms)) {
      ctx.reply.Error("ERR timeout is not an integer or out of range");
      return;
    }
    if (timeout_ms < 0) {
      ctx.reply.Error("ERR timeout is negative");
      return;
    }
  }
  const std::size_t blocked = ctx.server.BlockedClients();
  const auto wanted = static_cast<std::size_t>(count);
  if (blocked >= wanted) {
    ctx.reply.Integer(static_cast<std::int64_t>(blocked));
    return;
  }
  // Inside MULTI or a script nothing else can run meanwhile: answer with what is.
  if (ctx.session.is_script || ctx.session.multi.executing || ctx.session.host == nullptr) {
    ctx.reply.Error(WaitBlockedTimeoutError(wanted, blocked));
    return;
  }
  // Timeout 0 waits for ever, as BLPOP's does. Real time: a frozen clock must not hold it.
  const std::int64_t deadline_us =
      timeout_ms == 0
          ? 0
          : ctx.server.clock.MonotonicUs() + std::min(timeout_ms, kMaxWaitBlockedMs) * 1000;
  ctx.server.debug->blocked_waits.Add(ctx.session, wanted, deadline_us);
}

void DebugUnsupported(CommandContext& ctx) {
  const UnsupportedCommands& unsupported = ctx.server.debug->unsupported;
  ctx.reply.MapHeader(unsupported.names_since_reset());
  unsupported.ForEachSinceReset([&](std::string_view name, std::uint64_t count) {
    ctx.reply.Bulk(name);
    ctx.reply.Integer(static_cast<std::int64_t>(count));
  });
}

}  // namespace warden::server
