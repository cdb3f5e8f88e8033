// What a test that moves warden's clock (DEBUG CLOCK, EmbeddedServer::AdvanceClockMs) gets at
// once, as if the time had really passed: the CLIENT PAUSE that is over ends, the blocked clients
// whose timeout has come get their null reply, and the keys whose deadline has come are expired
// (each publishing `expired`). Without this a frozen clock would leave them all waiting for the
// next loop turn or cron tick, and a test could not assert on them right after ADVANCE.
#pragma once

#include <cstddef>

namespace warden::server {

class ServerState;

// After the clock moved. A pause or a blocking timeout of exactly the time advanced is over.
// Keys go in one complete active-expiry pass (every database, every key past its deadline, not
// a sample) unless active expiry would not run now either: after DEBUG SET-ACTIVE-EXPIRE 0
// (expiry is then lazy only, so a test of lazy expiry keeps working with a frozen clock) and
// while a CLIENT PAUSE is still in force. Returns how many keys it expired.
std::size_t CatchUpWithClock(ServerState& server);

}  // namespace warden::server
