// DEBUG's fault subcommands (debug_fault_commands.cc): FAULT ADD|LIST|DEL|CLEAR, and FAIL-NEXT and
// REPLY-DELAY, the shorthands for one rule each. The rules themselves are server/debug/faults.h.
#pragma once

#include "server/command_context.h"

namespace warden::server {

void DebugFault(CommandContext& ctx);
void DebugFailNext(CommandContext& ctx);
void DebugReplyDelay(CommandContext& ctx);

}  // namespace warden::server
