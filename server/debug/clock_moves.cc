#include "server/debug/clock_moves.h"

#include "server/debug/debug_controls.h"
#include "server/server_state.h"

namespace warden::server {

std::size_t CatchUpWithClock(ServerState& server) {
  const std::int64_t now_ms = server.clock.NowMs();
  // A pause ends once the clock is past its last instant; one of exactly the time advanced ends
  // here rather than a millisecond later. Its held commands run from the loop.
  server.pause.ExpireIfDue(now_ms + 1);
  if (server.blocking.clients_with_deadline() != 0) server.blocking.ExpireTimeouts(now_ms);
  server.migrate_sockets.CloseIdle(now_ms);
  if (!server.debug->active_expire_enabled || server.pause.active()) return 0;
  return server.dbs.ExpireDue(now_ms);
}

}  // namespace warden::server
