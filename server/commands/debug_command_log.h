// DEBUG COMMAND-LOG's handler, a row of debug_commands.cc's subcommand table.
#pragma once

namespace warden::server {

struct CommandContext;

// DEBUG COMMAND-LOG ON [max-entries] | OFF | RESET | GET [count] | STATUS
void DebugCommandLog(CommandContext& ctx);

}  // namespace warden::server
