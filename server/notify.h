// Keyspace notifications (Redis's notify.c): the notify-keyspace-events classes, and the two
// PUBLISHes a change makes, on __keyspace@<db>__:<key> (carrying the event name) and on
// __keyevent@<db>__:<event> (carrying the key).
//
// Commands call NotifyKeyspaceEvent where Redis calls notifyKeyspaceEvent, in the same order.
// With notifications off (the default) a call is one test of the configured flags: nothing is
// built or looked up. Channel names are built on the stack unless the key is long.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/command_context.h"
#include "server/server_state.h"

namespace warden::server {

// Redis's NOTIFY_* bits (server.h), so flags read the same in both code bases.
namespace notify {
inline constexpr int kKeyspace = 1 << 0;  // K
inline constexpr int kKeyevent = 1 << 1;  // E
inline constexpr int kGeneric = 1 << 2;   // g
inline constexpr int kString = 1 << 3;    // $
inline constexpr int kList = 1 << 4;      // l
inline constexpr int kSet = 1 << 5;       // s
inline constexpr int kHash = 1 << 6;      // h
inline constexpr int kZset = 1 << 7;      // z
inline constexpr int kExpired = 1 << 8;   // x
inline constexpr int kEvicted = 1 << 9;   // e
inline constexpr int kStream = 1 << 10;   // t
inline constexpr int kKeyMiss = 1 << 11;  // m (not part of A)
inline constexpr int kModule = 1 << 13;   // d
inline constexpr int kNew = 1 << 14;      // n (not part of A)
inline constexpr int kAll =
    kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule;
}  // namespace notify

// Redis's keyspaceEventsStringToFlags: every byte must be a class letter (the string ends at a
// NUL, as Redis reads it as a C string); nullopt for any other byte.
std::optional<int> ParseNotifyKeyspaceEvents(std::string_view classes);
// Redis's keyspaceEventsFlagsToString, CONFIG GET's value: "A" or the class letters in Redis's
// order, then K, E and m. (As in 7.0, "A" hides n.)
std::string FormatNotifyKeyspaceEvents(int flags);

// The error CONFIG SET and the config file give for a bad class letter.
inline constexpr std::string_view kBadNotifyClass =
    "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

// Publishes the PUBLISHes of one event of class `type`, as the configured flags ask.
void PublishKeyspaceEvent(ServerState& server, int type, std::string_view event,
                          std::string_view key, int db);

inline void NotifyKeyspaceEvent(ServerState& server, int type, std::string_view event,
                                std::string_view key, int db) {
  if ((server.config.notify_keyspace_events & type) == 0) [[likely]] {
    return;
  }
  PublishKeyspaceEvent(server, type, event, key, db);
}

// An event on `key` in the client's database. `key` must not be a view into an entry the
// command has changed since (use the argument).
inline void Notify(CommandContext& ctx, int type, std::string_view event, std::string_view key) {
  NotifyKeyspaceEvent(ctx.server, type, event, key, ctx.session.db);
}
// Redis's dbAdd: a key was created.
inline void NotifyNew(CommandContext& ctx, std::string_view key) {
  Notify(ctx, notify::kNew, "new", key);
}
// Redis's lookupKeyRead on a missing key (not a write lookup).
inline void NotifyKeyMiss(CommandContext& ctx, std::string_view key) {
  Notify(ctx, notify::kKeyMiss, "keymiss", key);
}

}  // namespace warden::server
