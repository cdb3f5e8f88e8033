// Client-side caching, as Redis 7.0's tracking.c: which clients may hold which keys, and telling
// them when a key changes.
//
// Default mode: a read-only command run by a tracking client records its keys (by name, in any
// database, as Redis does) with the client's id; the first change to such a key sends every
// recorded client one invalidation and forgets the key. BCAST mode records nothing: every change
// to a key under one of the client's prefixes is collected during the loop turn and sent, one
// array per prefix, before the loop sleeps. An invalidation is a RESP3 push `invalidate [keys]`,
// or, for a client that redirects to another in RESP2 pub/sub mode, a `message` on
// `__redis__:invalidate`; FLUSHALL and FLUSHDB send a null in place of the keys (SWAPDB sends
// nothing, as in Redis 7.0).
//
// Changes are heard through the databases' KeyObserverHub, only while something is tracked, so
// a server without tracking clients pays nothing per write.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/session.h"
#include "storage/keyspace.h"

namespace warden::server {

struct CommandSpec;
class KeyObserverHub;
class ServerState;

class Tracking final : public storage::KeyObserver {
 public:
  Tracking(ServerState& server, KeyObserverHub& hub) : server_(server), hub_(hub) {}
  Tracking(const Tracking&) = delete;
  Tracking& operator=(const Tracking&) = delete;

  // CLIENT TRACKING ON with options already checked (Redis's enableTracking): `options` holds
  // the BCAST, OPTIN, OPTOUT and NOLOOP bits of Session::TrackingFlag.
  void Enable(Session& session, std::uint64_t redirect, std::uint8_t options,
              std::span<const std::string_view> prefixes);
  // CLIENT TRACKING OFF, RESET, and a client going away.
  void Disable(Session& session);

  // After a read-only command of a tracking client: remembers the keys of `args` (the client's
  // own command, the EVAL for a script's reads) unless OPTIN/OPTOUT and CLIENT CACHING say not.
  void RememberKeys(Session& client, const CommandSpec& spec,
                    std::span<const std::string_view> args);
  // The client a command is running for (Redis's server.current_client): NOLOOP spares it, and
  // its own invalidations wait until its reply is written (FlushPending). Null between commands.
  void set_current(Session* session) { current_ = session; }
  Session* current() const { return current_; }
  // The current client's top-level command (EVAL, for the reads of its script).
  void set_top_command(const CommandSpec* spec, std::span<const std::string_view> args) {
    top_spec_ = spec;
    top_args_ = args;
  }
  // After any read-only command: Redis's call() remembering the keys its caller fetched.
  void AfterRead(Session& session, const CommandSpec& spec, std::span<const std::string_view> args);
  bool has_pending() const { return !pending_.empty(); }
  // A blocked client served from inside another's turn runs as the current client for the
  // while: Enter saves who was, Leave sends the served client its own invalidations (after its
  // reply) and restores.
  struct Saved {
    Session* current = nullptr;
    const CommandSpec* top_spec = nullptr;
    std::span<const std::string_view> top_args;
    std::vector<std::optional<std::string>> pending;
  };
  Saved Enter(Session& session);
  void Leave(Session& session, Saved saved);
  // Sends the current client its own invalidations, after its command's reply.
  void FlushPending(Session& session);

  // Redis's trackingInvalidateKeysOnFlush: FLUSHALL, FLUSHDB.
  void Flushed();
  // Before the loop sleeps: the BCAST invalidations collected in this turn.
  void BroadcastPending();
  // From the cron: forgets keys (invalidating them) while the table is past
  // tracking-table-max-keys, with an effort that grows while it stays past.
  void LimitTable();
  // The same before each command while tracking clients exist, as Redis's processCommand does.
  void LimitBeforeCommand();

  void KeyModified(const storage::Keyspace& keyspace, std::string_view key, bool removed) override;

  // INFO's tracking_clients, tracking_total_keys, _items and _prefixes.
  std::size_t clients() const { return clients_.size(); }
  std::size_t total_keys() const { return table_.size(); }
  std::uint64_t total_items() const { return total_items_; }
  std::size_t total_prefixes() const { return prefixes_.size(); }
  // Prefixes that overlap one of `prefixes` or each other: Redis's error text, or empty.
  std::string PrefixCollision(const Session& session,
                              std::span<const std::string_view> prefixes) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // The keys changed under a prefix in this loop turn, each with the last client that changed
  // it (NOLOOP), in key order as Redis's radix tree lists them; and the prefix's clients.
  struct Bcast {
    std::map<std::string, const Session*, std::less<>> keys;
    std::vector<Session*> clients;
  };

  // `changer`: the client whose command changed the key (NOLOOP spares it in BCAST), or null
  // for an expiry or eviction.
  void Invalidate(std::string_view key, bool bcast, const Session* changer);
  // Redis's sendTrackingMessage: `keys` is one key's name, or (raw) the frame of the value.
  void Send(Session& client, std::string_view keys, bool raw);
  Session* Find(std::uint64_t id) const;
  void UpdateObserving();

  ServerState& server_;
  KeyObserverHub& hub_;
  bool observing_ = false;
  std::unordered_map<std::uint64_t, Session*> clients_;
  std::unordered_map<std::string, std::vector<std::uint64_t>, Hash, std::equal_to<>> table_;
  std::uint64_t total_items_ = 0;
  std::map<std::string, Bcast, std::less<>> prefixes_;
  Session* current_ = nullptr;
  const CommandSpec* top_spec_ = nullptr;
  std::span<const std::string_view> top_args_;
  // The current client's own invalidations; nullopt for a flush.
  std::vector<std::optional<std::string>> pending_;
  unsigned limit_rounds_ = 0;
  bool before_command_ = false;
  std::string frame_;
};

}  // namespace warden::server
