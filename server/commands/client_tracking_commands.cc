// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO: client-side caching's controls
// (tracking.h), with Redis 7.0's checks in its order and its error texts.
#include <algorithm>
#include <string>
#include <vector>

#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/server_state.h"

namespace warden::server {

void ClientTrackingCommand(CommandContext& ctx) {
  Session& s = ctx.session;
  std::int64_t redirect = 0;
  std::uint8_t options = 0;
  std::vector<std::string_view> prefixes;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    const std::string_view opt = ctx.arg(j);
    if (ArgIs(opt, "redirect") && more) {
      ++j;
      if (redirect != 0) {
        ctx.reply.Error("ERR A client can only redirect to a single other client");
        return;
      }
      if (!IntegerArg(ctx, ctx.arg(j), redirect)) return;
      // The target must exist now, though it may go away later.
      const bool exists =
          redirect > 0 && ctx.server.connections != nullptr &&
          ctx.server.connections->FindSession(static_cast<std::uint64_t>(redirect)) != nullptr;
      if (!exists) {
        ctx.reply.Error("ERR The client ID you want redirect to does not exist");
        return;
      }
    } else if (ArgIs(opt, "bcast")) {
      options |= Session::kTrackingBcast;
    } else if (ArgIs(opt, "optin")) {
      options |= Session::kTrackingOptin;
    } else if (ArgIs(opt, "optout")) {
      options |= Session::kTrackingOptout;
    } else if (ArgIs(opt, "noloop")) {
      options |= Session::kTrackingNoloop;
    } else if (ArgIs(opt, "prefix") && more) {
      prefixes.push_back(ctx.arg(++j));
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (ArgIs(ctx.arg(2), "on")) {
    const bool bcast = (options & Session::kTrackingBcast) != 0;
    if (!bcast && !prefixes.empty()) {
      ctx.reply.Error("ERR PREFIX option requires BCAST mode to be enabled");
      return;
    }
    if ((s.tracking & Session::kTrackingOn) != 0 &&
        ((s.tracking & Session::kTrackingBcast) != 0) != bcast) {
      ctx.reply.Error(
          "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and "
          "then re-enabling it with a different mode.");
      return;
    }
    if (bcast && (options & (Session::kTrackingOptin | Session::kTrackingOptout)) != 0) {
      ctx.reply.Error("ERR OPTIN and OPTOUT are not compatible with BCAST");
      return;
    }
    if ((options & Session::kTrackingOptin) != 0 && (options & Session::kTrackingOptout) != 0) {
      ctx.reply.Error("ERR You can't specify both OPTIN mode and OPTOUT mode");
      return;
    }
    if (((options & Session::kTrackingOptin) != 0 && (s.tracking & Session::kTrackingOptout)) ||
        ((options & Session::kTrackingOptout) != 0 && (s.tracking & Session::kTrackingOptin))) {
      ctx.reply.Error(
          "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and "
          "then re-enabling it with a different mode.");
      return;
    }
    if (bcast) {
      const std::string collision = ctx.server.tracking.PrefixCollision(s, prefixes);
      if (!collision.empty()) {
        ctx.reply.Error(collision);
        return;
      }
    }
    ctx.server.tracking.Enable(s, static_cast<std::uint64_t>(redirect), options, prefixes);
  } else if (ArgIs(ctx.arg(2), "off")) {
    ctx.server.tracking.Disable(s);
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.reply.Ok();
}

void ClientCachingCommand(CommandContext& ctx) {
  Session& s = ctx.session;
  if ((s.tracking & Session::kTrackingOn) == 0) {
    ctx.reply.Error(
        "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
        "OPTOUT mode enabled");
    return;
  }
  if (ArgIs(ctx.arg(2), "yes")) {
    if ((s.tracking & Session::kTrackingOptin) == 0) {
      ctx.reply.Error(
          "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
      return;
    }
  } else if (ArgIs(ctx.arg(2), "no")) {
    if ((s.tracking & Session::kTrackingOptout) == 0) {
      ctx.reply.Error(
          "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
      return;
    }
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  s.tracking |= Session::kTrackingCaching;
  ctx.reply.Ok();
}

void ClientGetredirCommand(CommandContext& ctx) {
  const Session& s = ctx.session;
  ctx.reply.Integer((s.tracking & Session::kTrackingOn) != 0
                        ? static_cast<std::int64_t>(s.tracking_redirect)
                        : -1);
}

void ClientTrackinginfoCommand(CommandContext& ctx) {
  const Session& s = ctx.session;
  const std::uint8_t t = s.tracking;
  std::vector<std::string_view> flags;
  flags.push_back((t & Session::kTrackingOn) != 0 ? "on" : "off");
  if ((t & Session::kTrackingBcast) != 0) flags.push_back("bcast");
  if ((t & Session::kTrackingOptin) != 0) {
    flags.push_back("optin");
    if ((t & Session::kTrackingCaching) != 0) flags.push_back("caching-yes");
  }
  if ((t & Session::kTrackingOptout) != 0) {
    flags.push_back("optout");
    if ((t & Session::kTrackingCaching) != 0) flags.push_back("caching-no");
  }
  if ((t & Session::kTrackingNoloop) != 0) flags.push_back("noloop");
  if ((t & Session::kTrackingBrokenRedirect) != 0) flags.push_back("broken_redirect");
  ctx.reply.MapHeader(3);
  ctx.reply.Bulk("flags");
  ctx.reply.SetHeader(flags.size());
  for (std::string_view f : flags) ctx.reply.Bulk(f);
  ctx.reply.Bulk("redirect");
  ctx.reply.Integer((t & Session::kTrackingOn) != 0 ? static_cast<std::int64_t>(s.tracking_redirect)
                                                    : -1);
  ctx.reply.Bulk("prefixes");
  // In byte order, as Redis's radix tree lists them.
  std::vector<std::string_view> prefixes(s.tracking_prefixes.begin(), s.tracking_prefixes.end());
  std::sort(prefixes.begin(), prefixes.end());
  ctx.reply.ArrayHeader(prefixes.size());
  for (std::string_view p : prefixes) ctx.reply.Bulk(p);
}

}  // namespace warden::server
