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
void MsetCommand(CommandContext& ctx);
void MsetnxCommand(CommandContext& ctx);
void MgetCommand(CommandContext& ctx);
void GetdelCommand(CommandContext& ctx);
void GetexCommand(CommandContext& ctx);
void GetsetCommand(CommandContext& ctx);
void IncrbyfloatCommand(CommandContext& ctx);

// string_range_commands.cc
void AppendCommand(CommandContext& ctx);
void StrlenCommand(CommandContext& ctx);
void GetrangeCommand(CommandContext& ctx);
void SetrangeCommand(CommandContext& ctx);
void SubstrCommand(CommandContext& ctx);
void LcsCommand(CommandContext& ctx);

// hash_commands.cc
void HsetCommand(CommandContext& ctx);
void HsetnxCommand(CommandContext& ctx);
void HgetCommand(CommandContext& ctx);
void HmsetCommand(CommandContext& ctx);
void HmgetCommand(CommandContext& ctx);
void HdelCommand(CommandContext& ctx);
void HlenCommand(CommandContext& ctx);
void HstrlenCommand(CommandContext& ctx);
void HincrbyCommand(CommandContext& ctx);
void HincrbyfloatCommand(CommandContext& ctx);
void HkeysCommand(CommandContext& ctx);
void HvalsCommand(CommandContext& ctx);
void HgetallCommand(CommandContext& ctx);
void HexistsCommand(CommandContext& ctx);
void HscanCommand(CommandContext& ctx);
void HrandfieldCommand(CommandContext& ctx);

// set_commands.cc
void SaddCommand(CommandContext& ctx);
void SremCommand(CommandContext& ctx);
void SmembersCommand(CommandContext& ctx);
void SismemberCommand(CommandContext& ctx);
void SmismemberCommand(CommandContext& ctx);
void ScardCommand(CommandContext& ctx);
void SpopCommand(CommandContext& ctx);
void SrandmemberCommand(CommandContext& ctx);
void SmoveCommand(CommandContext& ctx);
void SinterCommand(CommandContext& ctx);
void SinterstoreCommand(CommandContext& ctx);
void SintercardCommand(CommandContext& ctx);
void SunionCommand(CommandContext& ctx);
void SunionstoreCommand(CommandContext& ctx);
void SdiffCommand(CommandContext& ctx);
void SdiffstoreCommand(CommandContext& ctx);
void SscanCommand(CommandContext& ctx);

// list_commands.cc
void LpushCommand(CommandContext& ctx);
void RpushCommand(CommandContext& ctx);
void LpushxCommand(CommandContext& ctx);
void RpushxCommand(CommandContext& ctx);
void LpopCommand(CommandContext& ctx);
void RpopCommand(CommandContext& ctx);
void LlenCommand(CommandContext& ctx);
void LrangeCommand(CommandContext& ctx);
void LindexCommand(CommandContext& ctx);
void LsetCommand(CommandContext& ctx);
void LinsertCommand(CommandContext& ctx);
void LremCommand(CommandContext& ctx);
void LtrimCommand(CommandContext& ctx);
void LposCommand(CommandContext& ctx);
void LmoveCommand(CommandContext& ctx);
void RpoplpushCommand(CommandContext& ctx);
void LmpopCommand(CommandContext& ctx);
void BlpopCommand(CommandContext& ctx);
void BrpopCommand(CommandContext& ctx);
void BlmoveCommand(CommandContext& ctx);
void BrpoplpushCommand(CommandContext& ctx);
void BlmpopCommand(CommandContext& ctx);
void BzpopminCommand(CommandContext& ctx);
void BzpopmaxCommand(CommandContext& ctx);
void BzmpopCommand(CommandContext& ctx);
// stream_commands.cc
void XaddCommand(CommandContext& ctx);
void XrangeCommand(CommandContext& ctx);
void XrevrangeCommand(CommandContext& ctx);
void XlenCommand(CommandContext& ctx);
void XdelCommand(CommandContext& ctx);
void XtrimCommand(CommandContext& ctx);
void XsetidCommand(CommandContext& ctx);

// stream_read_commands.cc
void XreadCommand(CommandContext& ctx);
void XreadgroupCommand(CommandContext& ctx);

// stream_group_commands.cc
void XgroupCommand(CommandContext& ctx);
void XackCommand(CommandContext& ctx);
void XpendingCommand(CommandContext& ctx);
void XclaimCommand(CommandContext& ctx);
void XautoclaimCommand(CommandContext& ctx);

// stream_info_commands.cc
void XinfoCommand(CommandContext& ctx);

// zset_commands.cc
void ZaddCommand(CommandContext& ctx);
void ZincrbyCommand(CommandContext& ctx);
void ZscoreCommand(CommandContext& ctx);
void ZmscoreCommand(CommandContext& ctx);
void ZcardCommand(CommandContext& ctx);
void ZremCommand(CommandContext& ctx);
void ZrankCommand(CommandContext& ctx);
void ZrevrankCommand(CommandContext& ctx);
void ZpopminCommand(CommandContext& ctx);
void ZpopmaxCommand(CommandContext& ctx);
void ZmpopCommand(CommandContext& ctx);
void ZrandmemberCommand(CommandContext& ctx);
void ZscanCommand(CommandContext& ctx);

// zset_range_commands.cc
void ZrangeCommand(CommandContext& ctx);
void ZrangestoreCommand(CommandContext& ctx);
void ZrevrangeCommand(CommandContext& ctx);
void ZrangebyscoreCommand(CommandContext& ctx);
void ZrevrangebyscoreCommand(CommandContext& ctx);
void ZrangebylexCommand(CommandContext& ctx);
void ZrevrangebylexCommand(CommandContext& ctx);
void ZcountCommand(CommandContext& ctx);
void ZlexcountCommand(CommandContext& ctx);
void ZremrangebyrankCommand(CommandContext& ctx);
void ZremrangebyscoreCommand(CommandContext& ctx);
void ZremrangebylexCommand(CommandContext& ctx);

// zset_store_commands.cc
void ZunionCommand(CommandContext& ctx);
void ZinterCommand(CommandContext& ctx);
void ZdiffCommand(CommandContext& ctx);
void ZunionstoreCommand(CommandContext& ctx);
void ZinterstoreCommand(CommandContext& ctx);
void ZdiffstoreCommand(CommandContext& ctx);
void ZintercardCommand(CommandContext& ctx);

// client_tracking_commands.cc
void ClientTrackingCommand(CommandContext& ctx);
void ClientCachingCommand(CommandContext& ctx);
void ClientGetredirCommand(CommandContext& ctx);
void ClientTrackinginfoCommand(CommandContext& ctx);

// bitmap_commands.cc
void SetbitCommand(CommandContext& ctx);
void GetbitCommand(CommandContext& ctx);
void BitcountCommand(CommandContext& ctx);
void BitposCommand(CommandContext& ctx);
void BitopCommand(CommandContext& ctx);

// bitfield_commands.cc
void BitfieldCommand(CommandContext& ctx);
void BitfieldRoCommand(CommandContext& ctx);

// hyperloglog_commands.cc
void PfaddCommand(CommandContext& ctx);
void PfcountCommand(CommandContext& ctx);
void PfmergeCommand(CommandContext& ctx);
void PfdebugCommand(CommandContext& ctx);
void PfselftestCommand(CommandContext& ctx);

// geo_commands.cc
void GeoaddCommand(CommandContext& ctx);
void GeoposCommand(CommandContext& ctx);
void GeodistCommand(CommandContext& ctx);
void GeohashCommand(CommandContext& ctx);
void GeosearchCommand(CommandContext& ctx);
void GeosearchstoreCommand(CommandContext& ctx);
void GeoradiusCommand(CommandContext& ctx);
void GeoradiusRoCommand(CommandContext& ctx);
void GeoradiusbymemberCommand(CommandContext& ctx);
void GeoradiusbymemberRoCommand(CommandContext& ctx);

// sort_command.cc
void SortCommand(CommandContext& ctx);
void SortRoCommand(CommandContext& ctx);

// lolwut_command.cc
void LolwutCommand(CommandContext& ctx);

// key_move_commands.cc
void RenameCommand(CommandContext& ctx);
void RenamenxCommand(CommandContext& ctx);
void CopyCommand(CommandContext& ctx);
void MoveCommand(CommandContext& ctx);
void SwapdbCommand(CommandContext& ctx);

// object_commands.cc (and the OBJECT and MEMORY subcommands)
void TouchCommand(CommandContext& ctx);

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

// client_admin_commands.cc
void ClientKillCommand(CommandContext& ctx);
void ClientPauseCommand(CommandContext& ctx);
void ClientUnpauseCommand(CommandContext& ctx);
void ClientNoTouchCommand(CommandContext& ctx);

// shutdown_commands.cc
void ShutdownCommand(CommandContext& ctx);
void BgrewriteaofCommand(CommandContext& ctx);
void SaveCommand(CommandContext& ctx);
void BgsaveCommand(CommandContext& ctx);
void LastsaveCommand(CommandContext& ctx);
void DumpCommand(CommandContext& ctx);
void RestoreCommand(CommandContext& ctx);
void MigrateCommand(CommandContext& ctx);
void FunctionDumpCommand(CommandContext& ctx);
void FunctionRestoreCommand(CommandContext& ctx);

// admin_commands.cc
void InfoCommand(CommandContext& ctx);
void TimeCommand(CommandContext& ctx);
void WaitCommand(CommandContext& ctx);
// Replication (replication_commands.cc).
void SyncCommand(CommandContext& ctx);
void ReplconfCommand(CommandContext& ctx);
void ReplicaofCommand(CommandContext& ctx);
void RoleCommand(CommandContext& ctx);
void FailoverCommand(CommandContext& ctx);
void CommandCommand(CommandContext& ctx);
void DebugCommand(CommandContext& ctx);
// debug_snapshot_commands.cc: DEBUG SNAPSHOT SAVE|LOAD|DROP|LIST
void DebugSnapshot(CommandContext& ctx);
void DebugReplicaLink(CommandContext& ctx);

// client_commands.cc: one CLIENT LIST line, without its newline (also logged when a client is
// closed for its output buffer).
void AppendClientInfo(const Session& s, std::int64_t now_ms, std::string& out);

// pubsub_commands.cc
void SubscribeCommand(CommandContext& ctx);
void UnsubscribeCommand(CommandContext& ctx);
void PsubscribeCommand(CommandContext& ctx);
void PunsubscribeCommand(CommandContext& ctx);
void SsubscribeCommand(CommandContext& ctx);
void SunsubscribeCommand(CommandContext& ctx);
void PublishCommand(CommandContext& ctx);
void SpublishCommand(CommandContext& ctx);

// monitor_commands.cc
void MonitorCommand(CommandContext& ctx);

// scripting/script_commands.cc
void EvalCommand(CommandContext& ctx);
void EvalshaCommand(CommandContext& ctx);
void EvalRoCommand(CommandContext& ctx);
void EvalshaRoCommand(CommandContext& ctx);
void FcallCommand(CommandContext& ctx);
void FcallRoCommand(CommandContext& ctx);

// transaction_commands.cc
void MultiCommand(CommandContext& ctx);
void ExecCommand(CommandContext& ctx);
void DiscardCommand(CommandContext& ctx);
void WatchCommand(CommandContext& ctx);
void UnwatchCommand(CommandContext& ctx);

}  // namespace warden::server
