#include "server/acl/acl_gate.h"

#include "protocol/reply_writer.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {

bool AuthRequired(ServerState& server, const Session& session) {
  const AclUser& def = server.acl.default_user();
  return ((def.flags & AclUser::kNoPass) == 0 || (def.flags & AclUser::kDisabled) != 0) &&
         !session.authenticated;
}

void SetDefaultAuth(ServerState& server, Session& session) {
  AclUser& def = server.acl.default_user();
  session.user = &def;
  session.authenticated =
      (def.flags & AclUser::kNoPass) != 0 && (def.flags & AclUser::kDisabled) == 0;
}

void LogAclDenial(ServerState& server, Session& session, AclDenial reason, AclContext context,
                  std::string_view object, std::string_view username) {
  AclLogEntry entry;
  entry.reason = reason;
  entry.context = context;
  entry.object.assign(object);
  entry.username.assign(username);
  entry.ctime_ms = server.clock.NowMs();
  const Session* real = &session;
  if (session.is_script && server.scripts->caller() != nullptr) real = server.scripts->caller();
  AppendClientInfo(*real, entry.ctime_ms, entry.client_info);
  // acllog-max-len is at least 0.
  server.acl.AddLogEntry(std::move(entry), static_cast<std::size_t>(server.config.acllog_max_len));
}

namespace {

// What ACL LOG names as refused: the command, or the key or channel at `pos`.
std::string_view DenialObject(AclDenial reason, const CommandSpec& spec,
                              std::span<const std::string_view> args, int pos) {
  if (reason == AclDenial::kCommand) return spec.name;
  return args[static_cast<std::size_t>(pos)];
}

// The check, and the ACL LOG entry of a denial (Redis logs before it replies).
AclDenial CheckAndLog(ServerState& server, Session& session, const CommandSpec& spec,
                      std::span<const std::string_view> args, AclContext context) {
  int pos = 0;
  const AclDenial denial = AclCheck(*session.user, spec, args, pos);
  if (denial != AclDenial::kNone) {
    LogAclDenial(server, session, denial, context, DenialObject(denial, spec, args, pos),
                 session.user->name);
  }
  return denial;
}

}  // namespace

bool RefusedByAcl(ServerState& server, Session& session, const CommandSpec& spec,
                  std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  // Redis has already made this the client's current command when it logs.
  const CommandSpec* previous = session.last_command;
  session.last_command = &spec;
  const AclDenial denial = CheckAndLog(
      server, session, spec, args, session.in_multi ? AclContext::kMulti : AclContext::kTopLevel);
  switch (denial) {
    case AclDenial::kNone:
      session.last_command = previous;
      return false;
    case AclDenial::kCommand:
      reply.Error({"NOPERM this user has no permissions to run the '", spec.name, "' command"});
      break;
    case AclDenial::kKey:
      reply.Error(
          "NOPERM this user has no permissions to access one of the keys used as arguments");
      break;
    default:
      reply.Error(
          "NOPERM this user has no permissions to access one of the channels used as arguments");
      break;
  }
  return true;
}

bool RefusedInScript(ServerState& server, Session& session, const CommandSpec& spec,
                     std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  // Redis's getAclErrorMessage, after "The user executing the script ".
  switch (CheckAndLog(server, session, spec, args, AclContext::kLua)) {
    case AclDenial::kNone:
      return false;
    case AclDenial::kCommand:
      reply.Error("ERR The user executing the script can't run this command or subcommand");
      break;
    case AclDenial::kKey:
      reply.Error(
          "ERR The user executing the script can't access at least one of the keys mentioned in "
          "the command arguments");
      break;
    default:
      reply.Error(
          "ERR The user executing the script can't publish to the channel mentioned in the "
          "command");
      break;
  }
  return true;
}

bool RefusedSinceQueued(ServerState& server, Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  std::string_view reason;
  switch (CheckAndLog(server, session, spec, args, AclContext::kMulti)) {
    case AclDenial::kNone:
      return false;
    case AclDenial::kCommand:
      reason = "no permission to execute the command or subcommand";
      break;
    case AclDenial::kKey:
      reason = "no permission to touch the specified keys";
      break;
    default:
      reason = "no permission to access one of the channels used as arguments";
      break;
  }
  reply.Error(
      {"NOPERM ACLs rules changed between the moment the transaction was accumulated and "
       "the EXEC call. This command is no longer allowed for the following reason: ",
       reason});
  return true;
}

std::optional<std::string> LoadStartupUsers(ServerState& server) {
  const Config& config = server.config;
  if (!config.aclfile.empty() && !config.users.empty()) {
    return "Configuring Redis with users defined in redis.conf and at the same setting an ACL "
           "file path is invalid. This setup is very likely to lead to configuration errors and "
           "security holes, please define either an ACL file or declare users directly in your "
           "redis.conf, but not both.";
  }
  for (const std::vector<std::string>& line : config.users) {
    if (auto error = server.acl.AddConfiguredUser(line)) {
      return *error + ". Critical error while loading ACLs. Exiting.";
    }
  }
  if (!config.aclfile.empty()) {
    std::vector<std::unique_ptr<AclUser>> dropped;
    if (auto error =
            server.acl.LoadFile(PathUnderDir(config, config.aclfile), config.aclfile, dropped)) {
      return "Aborting Redis startup because of ACL errors: " + *error;
    }
  }
  return std::nullopt;
}

void DropUserClients(ServerState& server, Session& caller, const AclUser& user) {
  if (caller.user == &user) {
    caller.user = &server.acl.default_user();
    caller.authenticated = false;
    caller.close_after_reply = true;
  }
  if (server.connections == nullptr) return;
  server.connections->KillClients([&user](const Session& s) { return s.user == &user; }, &caller);
}

void DropRevokedSubscribers(ServerState& server, Session& caller, const AclUser& user) {
  const auto revoked = [&server, &user](const Session& s) {
    if (s.user != &user || !s.subscribed()) return false;
    using Kind = PubSub::Kind;
    for (Kind kind : {Kind::kPattern, Kind::kChannel, Kind::kShard}) {
      for (const std::string& name : server.pubsub.SubscriptionsOf(s, kind)) {
        if (!AclChannelAllowed(user, name, kind == Kind::kPattern)) return true;
      }
    }
    return false;
  };
  if (revoked(caller)) caller.close_after_reply = true;
  if (server.connections != nullptr) server.connections->KillClients(revoked, &caller);
}

}  // namespace warden::server
