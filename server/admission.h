// Between parsing and the handler: whether a request may run. Every check Redis 7.0's
// processCommand makes, in its order, in one place: lookup and arity, DEBUG's protection,
// authentication, MULTI's refusals, ACL, maxmemory, a failing append-only file, the pub/sub
// context, a busy script, MONITOR, and CLIENT PAUSE. Each check costs one flag test while its
// feature is not in use, so a server that uses none of them pays for none.
//
// redis.call's way in (script.c's scriptCall) has checks of its own, with their own texts: they
// are here too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/reply_writer.h"

namespace warden::server {

class ServerState;
struct Session;
struct CommandSpec;

// The command a request may run now, or nullptr: refused (the error written, the refusal
// counted, an EXEC turned into EXECABORT), held by CLIENT PAUSE until it is released (nothing
// written), or a cross-protocol request whose connection is closing.
const CommandSpec* AdmitRequest(ServerState& server, Session& session,
                                std::span<const std::string_view> args,
                                protocol::ReplyWriter& reply);

// The same for a command a script calls. `read_only`: EVAL_RO, FCALL_RO or a no-writes script;
// `deny_oom`: the script started past maxmemory without allow-oom, so its first write that may
// grow memory is refused (Redis's scriptVerifyOOM); `wrote`: a write has run, after which
// nothing is refused for memory or the disk (a script cannot stop half way through its effects).
const CommandSpec* AdmitScriptCall(ServerState& server, Session& session,
                                   std::span<const std::string_view> args, bool read_only,
                                   bool deny_oom, bool wrote, protocol::ReplyWriter& reply);

// Finds the (sub)command for `args` from `top`, FindTopLevelCommand(args[0]), or writes the
// unknown-command, unknown-subcommand or wrong-arity error and returns nullptr. `refused`, when
// given, is set to the command found but refused (wrong arity), which Redis counts in its
// rejected_calls.
const CommandSpec* ResolveCommand(const CommandSpec* top, std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply,
                                  const CommandSpec** refused = nullptr);

// Redis's rejectCommand, for an error the caller wrote after `mark` in the reply buffer: counts
// it among `spec`'s rejected calls (a request for no known command is counted as unsupported),
// marks the client's transaction as failed, and when the refused command is EXEC, replaces the
// error by the EXECABORT that discards the transaction.
void RejectCommand(ServerState& server, Session& session, const CommandSpec* spec,
                   std::span<const std::string_view> args, protocol::ReplyWriter& reply,
                   std::size_t mark);

// The command's flags as Redis's getCommandFlags gives them: for EVAL, EVALSHA, FCALL and their
// _RO forms, the script's or function's declared flags decide write and deny-oom, and
// may-replicate goes (scriptFlagsToCmdFlags). Other commands keep their table's flags.
std::uint32_t EffectiveFlags(const ServerState& server, const CommandSpec& spec,
                             std::span<const std::string_view> args);

}  // namespace warden::server
