// DEBUG subcommands that let a test observe the server instead of sleeping or guessing:
// WAIT-BLOCKED and UNSUPPORTED. Rows in debug_commands.cc's table.
#pragma once

#include "server/command_context.h"

namespace warden::server {

// DEBUG WAIT-BLOCKED n [timeout-ms]
void DebugWaitBlocked(CommandContext& ctx);
// DEBUG UNSUPPORTED
void DebugUnsupported(CommandContext& ctx);

}  // namespace warden::server
