// Commands about the connection itself: PING, ECHO, QUIT, RESET, SELECT, HELLO and AUTH.
#include "protocol/request_parser.h"
#include "server/acl/acl_gate.h"
#include "server/command_table.h"
#include "server/commands/client_name.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/version.h"

namespace warden::server {
namespace {

// Redis's ACLAuthenticateUser: a failure is logged (reason auth, object the command's name).
[[nodiscard]] bool Authenticate(CommandContext& ctx, std::string_view user,
                                std::string_view password) {
  AclUser* found = ctx.server.acl.Authenticate(user, password);
  if (found == nullptr) {
    LogAclDenial(ctx.server, ctx.session, AclDenial::kAuth,
                 ctx.session.in_multi ? AclContext::kMulti : AclContext::kTopLevel, ctx.arg(0),
                 user);
    return false;
  }
  ctx.session.authenticated = true;
  ctx.session.user = found;
  return true;
}

}  // namespace

void PingCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    errors::WrongArity(ctx.reply, "ping");
    return;
  }
  // A RESP2 subscriber can only read message-shaped arrays.
  if (ctx.session.subscribed() && ctx.session.resp == 2) {
    ctx.reply.Raw("*2\r\n$4\r\npong\r\n");
    ctx.reply.Bulk(ctx.argc() == 1 ? std::string_view() : ctx.arg(1));
    return;
  }
  if (ctx.argc() == 1) {
    ctx.reply.Raw("+PONG\r\n");
  } else {
    ctx.reply.Bulk(ctx.arg(1));
  }
}

void EchoCommand(CommandContext& ctx) { ctx.reply.Bulk(ctx.arg(1)); }

void QuitCommand(CommandContext& ctx) {
  ctx.reply.Ok();
  ctx.session.close_after_reply = true;
}

void ResetCommand(CommandContext& ctx) {
  Session& s = ctx.session;
  DiscardTransaction(ctx.server, s);
  // Subscriptions and MONITOR end silently (no unsubscribe confirmations).
  ctx.server.monitors.Remove(s);
  ctx.server.pubsub.RemoveClient(s);
  ctx.server.tracking.Disable(s);
  s.reply_silence = 0;
  s.name.clear();
  s.db = 0;
  s.resp = 2;
  ctx.reply.set_protocol(2);
  SetDefaultAuth(ctx.server, s);
  ctx.reply.Raw("+RESET\r\n");
}

void SelectCommand(CommandContext& ctx) {
  std::int64_t index = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(1), index)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (index < INT32_MIN || index > INT32_MAX) {
    ctx.reply.Error(errors::kIntOutOfRange);
    return;
  }
  if (index < 0 || index >= ctx.server.config.databases) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return;
  }
  ctx.session.db = static_cast<int>(index);
  ctx.reply.Ok();
}

void HelloCommand(CommandContext& ctx) {
  std::int64_t version = 0;
  if (ctx.argc() >= 2) {
    if (!protocol::ParseStrictInt64(ctx.arg(1), version)) {
      ctx.reply.Error(errors::kHelloProtoNotInteger);
      return;
    }
    if (version < 2 || version > 3) {
      ctx.reply.Error(errors::kNoProto);
      return;
    }
  }
  std::string_view user;
  std::string_view password;
  bool has_auth = false;
  for (std::size_t j = 2; j < ctx.argc(); ++j) {
    const std::size_t more = ctx.argc() - 1 - j;
    const std::string_view opt = ctx.arg(j);
    if (ArgIs(opt, "auth") && more >= 2) {
      user = ctx.arg(j + 1);
      password = ctx.arg(j + 2);
      has_auth = true;
      j += 2;
    } else if (ArgIs(opt, "setname") && more >= 1) {
      // Applied at once, as Redis does: it stays even if a later option fails.
      const std::string_view name = ctx.arg(j + 1);
      if (!ValidClientName(name)) {
        ctx.reply.Error(errors::kBadClientName);
        return;
      }
      ctx.session.name.assign(name);
      ++j;
    } else {
      ctx.reply.Error({"ERR Syntax error in HELLO option '", errors::CString(opt), "'"});
      return;
    }
  }
  if (has_auth && !Authenticate(ctx, user, password)) {
    ctx.reply.Error(errors::kWrongPass);
    return;
  }
  if (!ctx.session.authenticated) {
    ctx.reply.Error(errors::kHelloNoAuth);
    return;
  }
  if (version != 0) {
    ctx.session.resp = static_cast<int>(version);
    ctx.reply.set_protocol(ctx.session.resp);
  }
  protocol::ReplyWriter& r = ctx.reply;
  r.MapHeader(7);
  r.Bulk("server");
  r.Bulk("redis");
  r.Bulk("version");
  r.Bulk(kRedisVersion);
  r.Bulk("proto");
  r.Integer(ctx.session.resp);
  r.Bulk("id");
  r.Integer(static_cast<std::int64_t>(ctx.session.id));
  r.Bulk("mode");
  r.Bulk("standalone");
  r.Bulk("role");
  r.Bulk("master");
  r.Bulk("modules");
  r.ArrayHeader(0);
}

void AuthCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::string_view user = "default";
  std::string_view password = ctx.arg(1);
  if (ctx.argc() == 2) {
    if ((ctx.server.acl.default_user().flags & AclUser::kNoPass) != 0) {
      ctx.reply.Error(errors::kAuthNoPassword);
      return;
    }
  } else {
    user = ctx.arg(1);
    password = ctx.arg(2);
  }
  if (!Authenticate(ctx, user, password)) {
    ctx.reply.Error(errors::kWrongPass);
    return;
  }
  ctx.reply.Ok();
}

}  // namespace warden::server
