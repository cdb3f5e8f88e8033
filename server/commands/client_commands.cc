// CLIENT and its subcommands.
#include <algorithm>
#include <cstdio>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/client_name.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"

namespace warden::server {
namespace {

// CLIENT LIST's flags, in Redis's order (those warden has); N for none.
const char* Flags(const Session& s, char (&buf)[16]) {
  char* p = buf;
  if (s.is_replica) *p++ = 'S';
  if (s.is_master) *p++ = 'M';
  if (s.monitoring()) *p++ = 'O';
  if (s.subscribed()) *p++ = 'P';
  if (s.in_multi) *p++ = 'x';
  if (s.blocked) *p++ = 'b';
  if ((s.tracking & Session::kTrackingOn) != 0) *p++ = 't';
  if ((s.tracking & Session::kTrackingBrokenRedirect) != 0) *p++ = 'R';
  if ((s.tracking & Session::kTrackingBcast) != 0) *p++ = 'B';
  if (s.multi.watch_touched) *p++ = 'd';
  if (s.no_evict) *p++ = 'e';
  if (s.no_touch) *p++ = 'T';
  if (p == buf) *p++ = 'N';
  *p = '\0';
  return buf;
}

}  // namespace

// One CLIENT LIST line, fields in Redis 7.2's order (7.0's plus lib-name and lib-ver).
void AppendClientInfo(const Session& s, std::int64_t now_ms, std::string& out) {
  char flags[16];
  const std::string_view cmd = s.last_command != nullptr ? s.last_command->name : "NULL";
  char buf[512];
  const int n = std::snprintf(
      buf, sizeof(buf),
      "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d sub=%u psub=%u "
      "ssub=%u multi=%lld qbuf=%zu qbuf-free=%zu argv-mem=0 multi-mem=%zu rbs=%zu rbp=%zu obl=0 "
      "oll=0 omem=%zu tot-mem=%zu events=%s cmd=%.*s",
      static_cast<unsigned long long>(s.id), s.addr.c_str(), s.laddr.c_str(), s.fd, s.name.c_str(),
      static_cast<long long>((now_ms - s.created_ms) / 1000),
      static_cast<long long>((now_ms - s.last_interaction_ms) / 1000), Flags(s, flags), s.db,
      s.sub_channels, s.sub_patterns, s.sub_shard_channels,
      s.in_multi ? static_cast<long long>(s.multi.queued.size() + s.multi.running) : -1LL,
      s.query_buffer_bytes, s.query_buffer_free, s.in_multi ? s.multi.queued.memory_bytes() : 0,
      s.query_buffer_bytes + s.query_buffer_free, s.query_buffer_bytes, s.output_bytes,
      s.query_buffer_bytes + s.query_buffer_free + s.output_bytes,
      s.reading ? (s.writing ? "rw" : "r") : (s.writing ? "w" : ""), static_cast<int>(cmd.size()),
      cmd.data());
  if (n > 0) out.append(buf, static_cast<std::size_t>(n) < sizeof(buf) ? n : sizeof(buf) - 1);
  // A user name has no length limit: appended, not formatted into the fixed buffer.
  out.append(" user=");
  out.append(s.user != nullptr ? std::string_view(s.user->name) : "(superuser)");
  out.append(" redir=");
  out.append((s.tracking & Session::kTrackingOn) != 0 ? std::to_string(s.tracking_redirect)
                                                      : std::string("-1"));
  out.append(" resp=");
  out.append(s.resp == 3 ? "3" : "2");
  out.append(" lib-name=");
  out.append(s.lib_name);
  out.append(" lib-ver=");
  out.append(s.lib_ver);
}

namespace {

void AppendClientLine(const Session& s, std::int64_t now_ms, std::string& out) {
  AppendClientInfo(s, now_ms, out);
  out.push_back('\n');
}

void ClientIdCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.session.id));
}

void ClientGetnameCommand(CommandContext& ctx) {
  if (ctx.session.name.empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(ctx.session.name);
  }
}

void ClientSetnameCommand(CommandContext& ctx) {
  if (!ValidClientName(ctx.arg(2))) {
    ctx.reply.Error(errors::kBadClientName);
    return;
  }
  ctx.session.name.assign(ctx.arg(2));
  ctx.reply.Ok();
}

// Redis 7.2's CLIENT SETINFO LIB-NAME|LIB-VER value: an empty value clears it.
void ClientSetinfoCommand(CommandContext& ctx) {
  const std::string_view attr = ctx.arg(2);
  std::string* field = nullptr;
  if (ArgIs(attr, "lib-name")) {
    field = &ctx.session.lib_name;
  } else if (ArgIs(attr, "lib-ver")) {
    field = &ctx.session.lib_ver;
  } else {
    ctx.reply.Error({"ERR Unrecognized option '", attr, "'"});
    return;
  }
  if (!ValidClientName(ctx.arg(3))) {
    ctx.reply.Error({"ERR ", attr, " cannot contain spaces, newlines or special characters."});
    return;
  }
  field->assign(ctx.arg(3));
  ctx.reply.Ok();
}

void ClientInfoCommand(CommandContext& ctx) {
  std::string line;
  AppendClientLine(ctx.session, ctx.server.clock.NowMs(), line);
  ctx.reply.Verbatim(line);
}

void ClientListCommand(CommandContext& ctx) {
  std::vector<std::uint64_t> ids;
  bool by_id = false;
  // TYPE: Redis's getClientType (a MONITOR client counts as normal): 0 normal, 1 pubsub,
  // 2 replica, 3 master.
  int want_type = -1;
  if (ctx.argc() == 4 && ArgIs(ctx.arg(2), "type")) {
    const std::string_view type = ctx.arg(3);
    if (!ArgIs(type, "normal") && !ArgIs(type, "master") && !ArgIs(type, "replica") &&
        !ArgIs(type, "slave") && !ArgIs(type, "pubsub")) {
      ctx.reply.Error({"ERR Unknown client type '", type, "'"});
      return;
    }
    want_type = ArgIs(type, "normal")   ? 0
                : ArgIs(type, "pubsub") ? 1
                : ArgIs(type, "master") ? 3
                                        : 2;
  } else if (ctx.argc() > 3 && ArgIs(ctx.arg(2), "id")) {
    by_id = true;
    for (std::size_t j = 3; j < ctx.argc(); ++j) {
      // Any integer is a valid id to ask for; ids below 1 just match no client.
      std::int64_t id = 0;
      if (!protocol::ParseStrictInt64(ctx.arg(j), id)) {
        ctx.reply.Error(errors::kInvalidClientId);
        return;
      }
      if (id > 0) ids.push_back(static_cast<std::uint64_t>(id));
    }
  } else if (ctx.argc() != 2) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const std::int64_t now_ms = ctx.server.clock.NowMs();
  std::string text;
  auto add = [&](const Session& s) {
    if (by_id && std::find(ids.begin(), ids.end(), s.id) == ids.end()) return;
    if (want_type >= 0) {
      const int type = s.is_master ? 3 : s.is_replica ? 2 : s.subscribed() ? 1 : 0;
      if (type != want_type) return;
    }
    AppendClientLine(s, now_ms, text);
  };
  if (ctx.server.connections != nullptr) {
    ctx.server.connections->ForEachSession(add);
  } else {
    add(ctx.session);
  }
  ctx.reply.Verbatim(text);
}

void ClientNoEvictCommand(CommandContext& ctx) {
  if (!ArgIs(ctx.arg(2), "on") && !ArgIs(ctx.arg(2), "off")) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.session.no_evict = ArgIs(ctx.arg(2), "on");
  ctx.reply.Ok();
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends another client's blocking command early. As in
// Redis, the reason is read before the id.
void ClientUnblockCommand(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '", ctx.arg(1),
                     "'. Try CLIENT HELP."});
    return;
  }
  bool with_error = false;
  if (ctx.argc() == 4) {
    if (ArgIs(ctx.arg(3), "error")) {
      with_error = true;
    } else if (!ArgIs(ctx.arg(3), "timeout")) {
      ctx.reply.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
      return;
    }
  }
  std::int64_t id = 0;
  if (!IntegerArg(ctx, ctx.arg(2), id)) return;
  const bool unblocked = ctx.server.blocking.Unblock(static_cast<std::uint64_t>(id), with_error);
  ctx.reply.Integer(unblocked ? 1 : 0);
}

// CLIENT REPLY ON|OFF|SKIP: OFF and SKIP reply nothing, ON clears both before its +OK.
void ClientReplyCommand(CommandContext& ctx) {
  Session& s = ctx.session;
  if (ArgIs(ctx.arg(2), "on")) {
    s.reply_silence &= static_cast<std::uint8_t>(~(Session::kReplyOff | Session::kReplySkip));
    ctx.reply.Ok();
  } else if (ArgIs(ctx.arg(2), "off")) {
    s.reply_silence |= Session::kReplyOff;
  } else if (ArgIs(ctx.arg(2), "skip")) {
    if ((s.reply_silence & Session::kReplyOff) == 0) s.reply_silence |= Session::kReplySkipNext;
  } else {
    ctx.reply.Error(errors::kSyntax);
  }
}

void ClientHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "SETINFO <option> <value>",
      "    Set client meta attr. Options are:",
      "    * LIB-NAME: the client lib name.",
      "    * LIB-VER: the client lib version.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "NO-TOUCH (ON|OFF)",
      "    Will not touch LRU/LFU stats when this mode is on.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kClientTable[] = {
    {"client|id",       2, kNoScript | kLoading | kStale,          ClientIdCommand,      0, 0, 0, "@slow @connection"},
    {"client|getname",  2, kNoScript | kLoading | kStale,          ClientGetnameCommand, 0, 0, 0, "@slow @connection"},
    {"client|setname",  3, kNoScript | kLoading | kStale,          ClientSetnameCommand, 0, 0, 0, "@slow @connection"},
    {"client|setinfo",  4, kNoScript | kLoading | kStale,          ClientSetinfoCommand, 0, 0, 0, "@slow @connection"},
    {"client|info",     2, kNoScript | kLoading | kStale,          ClientInfoCommand,    0, 0, 0, "@slow @connection"},
    {"client|list",    -2, kAdmin | kNoScript | kLoading | kStale, ClientListCommand,    0, 0, 0, "@admin @slow @dangerous @connection"},
    {"client|no-evict", 3, kAdmin | kNoScript | kLoading | kStale, ClientNoEvictCommand, 0, 0, 0, "@admin @slow @dangerous @connection"},
    {"client|tracking", -3, kNoScript | kLoading | kStale,         ClientTrackingCommand, 0, 0, 0, "@slow @connection"},
    {"client|caching",  3, kNoScript | kLoading | kStale,          ClientCachingCommand, 0, 0, 0, "@slow @connection"},
    {"client|getredir", 2, kNoScript | kLoading | kStale,          ClientGetredirCommand, 0, 0, 0, "@slow @connection"},
    {"client|trackinginfo", 2, kNoScript | kLoading | kStale,      ClientTrackinginfoCommand, 0, 0, 0, "@slow @connection"},
    {"client|reply",    3, kNoScript | kLoading | kStale,          ClientReplyCommand,   0, 0, 0, "@slow @connection"},
    {"client|unblock", -3, kAdmin | kNoScript | kLoading | kStale, ClientUnblockCommand, 0, 0, 0, "@admin @slow @dangerous @connection"},
    // The operator's subcommands (client_admin_commands.cc).
    {"client|kill",    -3, kAdmin | kNoScript | kLoading | kStale, ClientKillCommand,    0, 0, 0, "@admin @slow @dangerous @connection"},
    {"client|pause",   -3, kAdmin | kNoScript | kLoading | kStale, ClientPauseCommand,   0, 0, 0, "@admin @slow @dangerous @connection"},
    {"client|unpause",  2, kAdmin | kNoScript | kLoading | kStale, ClientUnpauseCommand, 0, 0, 0, "@admin @slow @dangerous @connection"},
    {"client|no-touch", 3, kNoScript | kLoading | kStale,          ClientNoTouchCommand, 0, 0, 0, "@slow @connection"},
    {"client|help",     2, kLoading | kStale,                      ClientHelpCommand,    0, 0, 0, "@slow @connection"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> ClientSubcommands() { return kClientTable; }

}  // namespace warden::server
