// Where ACL users meet connections: who must authenticate, the per-request permission check with
// its NOPERM refusals and ACL LOG entries, and closing the connections of a deleted user.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/acl/acl.h"

namespace warden::protocol {
class ReplyWriter;
}

namespace warden::server {

class ServerState;
struct Session;
struct CommandSpec;

// Redis's authRequired: the default user needs a password (or is off) and the client has not
// authenticated.
bool AuthRequired(ServerState& server, const Session& session);
// Redis's clientSetDefaultAuth: a new connection (or RESET) is the default user's, already
// authenticated if that user takes no password.
void SetDefaultAuth(ServerState& server, Session& session);

// The ACL checks of a limited user's request, each true having logged the denial and written
// Redis's error for its place: a top-level request (processCommand's NOPERM), a command a
// script calls (script.c's "The user executing the script ..."), and a command EXEC runs, for
// rules changed while it was queued (multi.c).
[[nodiscard]] bool RefusedByAcl(ServerState& server, Session& session, const CommandSpec& spec,
                                std::span<const std::string_view> args,
                                protocol::ReplyWriter& reply);
[[nodiscard]] bool RefusedInScript(ServerState& server, Session& session, const CommandSpec& spec,
                                   std::span<const std::string_view> args,
                                   protocol::ReplyWriter& reply);
[[nodiscard]] bool RefusedSinceQueued(ServerState& server, Session& session,
                                      const CommandSpec& spec,
                                      std::span<const std::string_view> args,
                                      protocol::ReplyWriter& reply);

// Adds an ACL LOG entry for `session` (a script's denial is logged with its caller's details).
// `object` is what was refused: a command's full name, a key, a channel, or AUTH's own name.
void LogAclDenial(ServerState& server, Session& session, AclDenial reason, AclContext context,
                  std::string_view object, std::string_view username);

// Start-up: the `user` lines of the configuration, or the ACL file (Redis's
// ACLLoadUsersAtStartup). Returns the reason not to start.
std::optional<std::string> LoadStartupUsers(ServerState& server);

// ACL DELUSER: the connections of `user` lose it; the caller's own connection closes after its
// reply, the others at once. Then `user` may be freed.
void DropUserClients(ServerState& server, Session& caller, const AclUser& user);
// ACL SETUSER that narrowed a user's channels: its subscribers whose subscriptions are no longer
// allowed are closed (Redis's ACLKillPubsubClientsIfNeeded).
void DropRevokedSubscribers(ServerState& server, Session& caller, const AclUser& user);

}  // namespace warden::server
