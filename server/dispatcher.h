// Runs one request: the admission checks (admission.h), then the handler through Call(), which
// records what every execution records. The one way into command execution, for socket clients
// and for redis.call alike.
#pragma once

#include <span>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/admission.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {

struct CommandSpec;

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
// for scripts (AdmitScriptCall). Sets `wrote` when a write command runs. Returns false when
// those checks refused the call (Redis's scriptCall error, which the Lua debugger logs apart).
bool RunScriptCommand(ServerState& server, Session& session, std::span<const std::string_view> args,
                      bool read_only, bool deny_oom, bool& wrote, protocol::ReplyWriter& reply);

void Dispatch(ServerState& server, Session& session, std::span<const std::string_view> args,
              protocol::ReplyWriter& reply);

// For a client under CLIENT REPLY OFF or SKIP (Session::reply_silence): drops what the command
// that started writing at `mark` wrote, unless it is a pub/sub confirmation, which Redis sends
// regardless; then, unless the client now waits in a blocking command, ends a SKIP.
void EndSilencedReply(Session& session, const CommandSpec* spec, std::string& out,
                      std::size_t mark);

// Takes a session that is going away out of everything that may still point to it: the blocked
// clients, pub/sub, monitors, its transaction's watched keys, a CLIENT PAUSE. For a connection's
// session when it closes, and for sessions that have no connection (--preload's, EmbeddedServer's).
void ForgetSession(ServerState& server, Session& session);

}  // namespace warden::server
