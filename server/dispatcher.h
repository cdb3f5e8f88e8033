// Runs one request: Redis's processCommand checks in Redis's order (cross-protocol guard, lookup,
// arity, DEBUG protection, authentication, busy script), then the handler. The one way into
// command execution, for socket clients and for redis.call alike.
#pragma once

#include <span>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {

struct CommandSpec;

// Finds the (sub)command for `args`, or writes the unknown-command, unknown-subcommand or
// wrong-arity error and returns nullptr. `refused`, when given, is set to the command found but
// refused (wrong arity), which Redis counts in its rejected_calls.
const CommandSpec* ResolveCommand(std::span<const std::string_view> args,
                                  protocol::ReplyWriter& reply,
                                  const CommandSpec** refused = nullptr);

// Redis's call(): runs a command that passed every check, and what follows every execution
// (statistics, waking the clients blocked on the keys it wrote). Dispatch, redis.call and EXEC
// all run commands through it.
void Call(ServerState& server, Session& session, const CommandSpec& spec,
          std::span<const std::string_view> args, protocol::ReplyWriter& reply);

// Sets the databases' access clock for a command about to run at `now_ms`: the stamp of the
// keys it reads and writes, and whether its lookups count (not for a CLIENT NO-TOUCH client,
// unless the command is TOUCH).
void SetAccessClock(ServerState& server, const Session& session, const CommandSpec& spec,
                    std::int64_t now_ms);

// What Redis's updateStatsOnUnblock records when a blocked command is served: its usec, a
// failure, the latency histogram and the slow log, with `duration_us` the time serving it took.
void RecordServedBlockedCommand(ServerState& server, const Session& session,
                                const CommandSpec& spec, std::span<const std::string_view> args,
                                std::int64_t duration_us, bool failed);

// redis.call's way in: the same table and handlers, with the checks and error texts Redis uses
// for scripts. Sets `wrote` when a write command runs.
// `deny_oom`: the script started past maxmemory (and did not declare allow-oom), so its first
// write that may grow memory is refused, as Redis's scriptVerifyOOM does.
void RunScriptCommand(ServerState& server, Session& session, std::span<const std::string_view> args,
                      bool read_only, bool deny_oom, bool& wrote, protocol::ReplyWriter& reply);

void Dispatch(ServerState& server, Session& session, std::span<const std::string_view> args,
              protocol::ReplyWriter& reply);

// The command's flags as Redis's getCommandFlags gives them: for EVAL, EVALSHA, FCALL and their
// _RO forms, the script's or function's declared flags decide write and deny-oom, and
// may-replicate goes (scriptFlagsToCmdFlags). Other commands keep their table's flags.
std::uint32_t EffectiveFlags(const ServerState& server, const CommandSpec& spec,
                             std::span<const std::string_view> args);

// Takes a session that is going away out of everything that may still point to it: the blocked
// clients, pub/sub, monitors, its transaction's watched keys, a CLIENT PAUSE. For a connection's
// session when it closes, and for sessions that have no connection (--preload's, EmbeddedServer's).
void ForgetSession(ServerState& server, Session& session);

}  // namespace warden::server
