// What a command handler gets: its arguments (views valid until it returns), the reply writer,
// its client's session, the server state, and one reading of the clock.
//
// One request, one reply. The helpers that parse an argument or look a key up for a handler
// (IntegerArg, LookupTyped, TimeoutArg, ...) share one contract, Redis's ...OrReply one: they
// take the context, and a false return means they have already written the error, so the
// handler returns without writing anything more:
//
//   std::int64_t count = 0;
//   if (!IntegerArg(ctx, ctx.arg(2), count)) return;
//
// (A few say the same the other way round, by name: RefusedByAcl, ScriptRefusedByDiskError.)
// Every such helper is [[nodiscard]], so a forgotten check is a warning, and an error under
// WARDEN_WERROR, rather than two replies to one request.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {

struct CommandSpec;

struct CommandContext {
  ServerState& server;
  Session& session;
  protocol::ReplyWriter& reply;
  std::span<const std::string_view> args;
  const CommandSpec& spec;
  std::int64_t now_ms;

  std::string_view arg(std::size_t i) const { return args[i]; }
  std::size_t argc() const { return args.size(); }
  // The client's selected database.
  storage::Keyspace& keyspace() const { return server.dbs.db(session.db); }
  const storage::EncodingLimits& limits() const { return server.config.encoding; }
  // The clock as it is now, for relative expiries and TTL arithmetic: Redis uses the live time
  // there even inside a script, whose expiry decisions use the frozen now_ms.
  std::int64_t live_now_ms() const {
    return server.call.frozen_now_ms >= 0 ? server.clock.NowMs() : now_ms;
  }
};

// Replies a HELP text: one status line per element, as Redis's addReplyHelp does.
void ReplyHelp(protocol::ReplyWriter& reply, std::span<const std::string_view> lines);

// Case-insensitive comparison of an argument with a lower-case option name.
bool ArgIs(std::string_view arg, std::string_view lower_name);
// Case-insensitive (ASCII) comparison of two strings, as strcasecmp.
bool EqualsNoCase(std::string_view a, std::string_view b);

}  // namespace warden::server
