// WATCH's registry: which clients watch which keys, per database, and marking them when a key
// changes (Redis's touchWatchedKey and touchAllWatchedKeysInDb).
//
// Only keys a command actually changed count, as Redis's signalModifiedKey: the registry is the
// databases' storage::KeyObserver, told by the keyspace of every value written, deadline set and
// key removed (expiry included), and by the value types of their in-place changes. A `SET k v NX`
// on an existing key, an SADD of a member already there or a failed EXPIRE GT changes nothing and
// so touches nothing. While no key is watched the databases have no observer, so nothing else
// pays for WATCH. FLUSHDB, FLUSHALL and SWAPDB call TouchDb before they act.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/key_observers.h"
#include "server/session.h"
#include "storage/databases.h"

namespace warden::server {

class WatchedKeys final : public storage::KeyObserver {
 public:
  WatchedKeys(storage::Databases& dbs, KeyObserverHub& hub);
  ~WatchedKeys();
  WatchedKeys(const WatchedKeys&) = delete;
  WatchedKeys& operator=(const WatchedKeys&) = delete;

  // WATCH of `key` in the session's database, at `now_ms`.
  void Watch(Session& session, std::string_view key, std::int64_t now_ms);
  // Forgets every key the session watches (UNWATCH, EXEC, DISCARD, RESET, disconnect).
  void UnwatchAll(Session& session);
  // EXEC's check (isWatchedKeyExpired): a key that was live when watched has expired since,
  // even if nothing removed it yet.
  bool AnyExpiredSince(const Session& session, std::int64_t now_ms) const;
  // Database `emptied` is about to be flushed, or swapped with `replaced_with` (-1: flushed).
  void TouchDb(int emptied, int replaced_with, std::int64_t now_ms);

  void KeyModified(const storage::Keyspace& keyspace, std::string_view key, bool removed) override;

  bool empty() const { return count_ == 0; }

 private:
  struct Watcher {
    Session* session;
    // The key was already expired when watched: its removal is no change (Redis 7.0).
    bool expired;
  };
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using KeyMap = std::unordered_map<std::string, std::vector<Watcher>, KeyHash, std::equal_to<>>;

  void Observe(bool on);
  const Watcher* Find(const Session& session, int db, std::string_view key) const;

  storage::Databases& dbs_;
  KeyObserverHub& hub_;
  std::vector<KeyMap> by_db_;
  std::size_t count_ = 0;  // (client, key) pairs
};

}  // namespace warden::server
