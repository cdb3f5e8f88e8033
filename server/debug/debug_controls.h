// What only a test double uses, gathered into one part of ServerState (`server.debug`): DEBUG
// FAULT's rules, DEBUG COMMAND-LOG, DEBUG WAIT-BLOCKED, DEBUG CLOCK, DEBUG SNAPSHOT, DEBUG
// SET-ACTIVE-EXPIRE and SET-DISABLE-DENY-SCRIPTS, and the counts of commands warden does not have.
// Only the DEBUG commands, the admission and dispatcher, the state and the loop that drives these
// controls include server/debug/ (scripts/check-source.sh keeps it so), so production state does
// not sit beside test controls and a handler cannot lean on them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "server/debug/blocked_waits.h"
#include "server/debug/command_log.h"
#include "server/debug/faults.h"
#include "server/debug/unsupported_commands.h"
#include "storage/clock.h"
#include "storage/snapshot.h"

namespace warden::server {

struct DebugControls {
  explicit DebugControls(std::uint64_t seed) : faults(seed) {}

  // DEBUG FAULT's rules (faults.h), DEBUG FAIL-NEXT and REPLY-DELAY among them.
  FaultRules faults;
  CommandLog command_log;            // DEBUG COMMAND-LOG
  BlockedClientWaits blocked_waits;  // DEBUG WAIT-BLOCKED
  // Requests for commands warden does not have, for the log at shutdown and DEBUG's report.
  UnsupportedCommands unsupported;
  // Set when the clock can be moved from outside (DEBUG CLOCK, EmbeddedServer).
  storage::ControllableClock* clock_control = nullptr;
  // DEBUG SET-DISABLE-DENY-SCRIPTS: lets scripts call DEBUG, as Redis's test suite does.
  bool scripts_may_call_debug = false;
  // DEBUG SET-ACTIVE-EXPIRE.
  bool active_expire_enabled = true;
  // DEBUG PAUSE-CRON: the cron does nothing until cleared (expiry, tracking's limit, clients).
  bool cron_paused = false;
  // DEBUG SNAPSHOT's copies by name (debug_snapshot_commands.cc).
  std::map<std::string, std::unique_ptr<storage::Snapshot>, std::less<>> snapshots;
};

}  // namespace warden::server
