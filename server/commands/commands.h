// Declarations of every command handler; the table in command_table.cc refers to them.
#pragma once

#include "server/command_context.h"

namespace warden::server {

// string_commands.cc
void SetCommand(CommandContext& ctx);
void SetnxCommand(CommandContext& ctx);
void SetexCommand(CommandContext& ctx);
void PsetexCommand(CommandContext& ctx);
void GetCommand(CommandContext& ctx);
void IncrCommand(CommandContext& ctx);
void IncrbyCommand(CommandContext& ctx);
void DecrCommand(CommandContext& ctx);
void DecrbyCommand(CommandContext& ctx);
void DelexCommand(CommandContext& ctx);
void DigestCommand(CommandContext& ctx);

// expire_commands.cc
void ExpireCommand(CommandContext& ctx);
void PexpireCommand(CommandContext& ctx);
void ExpireatCommand(CommandContext& ctx);
void PexpireatCommand(CommandContext& ctx);
void PersistCommand(CommandContext& ctx);
void TtlCommand(CommandContext& ctx);
void PttlCommand(CommandContext& ctx);
void ExpiretimeCommand(CommandContext& ctx);
void PexpiretimeCommand(CommandContext& ctx);

// key_commands.cc
void DelCommand(CommandContext& ctx);
void ExistsCommand(CommandContext& ctx);
void TypeCommand(CommandContext& ctx);
void ScanCommand(CommandContext& ctx);
void KeysCommand(CommandContext& ctx);
void RandomkeyCommand(CommandContext& ctx);
void DbsizeCommand(CommandContext& ctx);
void FlushdbCommand(CommandContext& ctx);

// connection_commands.cc
void PingCommand(CommandContext& ctx);
void EchoCommand(CommandContext& ctx);
void QuitCommand(CommandContext& ctx);
void ResetCommand(CommandContext& ctx);
void SelectCommand(CommandContext& ctx);
void HelloCommand(CommandContext& ctx);
void AuthCommand(CommandContext& ctx);

// admin_commands.cc
void InfoCommand(CommandContext& ctx);
void TimeCommand(CommandContext& ctx);
void WaitCommand(CommandContext& ctx);
void CommandCommand(CommandContext& ctx);
void DebugCommand(CommandContext& ctx);

// scripting/script_commands.cc
void EvalCommand(CommandContext& ctx);
void EvalshaCommand(CommandContext& ctx);
void EvalRoCommand(CommandContext& ctx);
void EvalshaRoCommand(CommandContext& ctx);

}  // namespace warden::server
