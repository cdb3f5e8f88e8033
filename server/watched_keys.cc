#include "server/watched_keys.h"

#include <algorithm>

namespace warden::server {
namespace {

bool IsExpired(const storage::Keyspace& keyspace, std::string_view key, std::int64_t now_ms) {
  const storage::Entry* e = keyspace.Peek(key);
  return e != nullptr && e->ExpiredAt(now_ms);
}

}  // namespace

WatchedKeys::WatchedKeys(storage::Databases& dbs, KeyObserverHub& hub)
    : dbs_(dbs), hub_(hub), by_db_(static_cast<std::size_t>(dbs.count())) {}

WatchedKeys::~WatchedKeys() { Observe(false); }

void WatchedKeys::Observe(bool on) {
  if (on) {
    hub_.Add(this);
  } else {
    hub_.Remove(this);
  }
}

void WatchedKeys::Watch(Session& session, std::string_view key, std::int64_t now_ms) {
  const int db = session.db;
  for (const WatchedKeyName& w : session.multi.watched) {
    if (w.db == db && w.key == key) return;
  }
  KeyMap& map = by_db_[static_cast<std::size_t>(db)];
  auto it = map.find(key);
  if (it == map.end()) it = map.emplace(std::string(key), std::vector<Watcher>()).first;
  it->second.push_back({&session, IsExpired(dbs_.db(db), key, now_ms)});
  session.multi.watched.push_back({db, std::string(key)});
  if (count_++ == 0) Observe(true);
}

void WatchedKeys::UnwatchAll(Session& session) {
  if (session.multi.watched.empty()) return;
  for (const WatchedKeyName& w : session.multi.watched) {
    KeyMap& map = by_db_[static_cast<std::size_t>(w.db)];
    auto it = map.find(w.key);
    if (it == map.end()) continue;
    std::vector<Watcher>& watchers = it->second;
    const auto mine = std::find_if(watchers.begin(), watchers.end(),
                                   [&](const Watcher& x) { return x.session == &session; });
    if (mine == watchers.end()) continue;
    watchers.erase(mine);
    if (watchers.empty()) map.erase(it);
    --count_;
  }
  session.multi.watched.clear();
  if (count_ == 0) Observe(false);
}

const WatchedKeys::Watcher* WatchedKeys::Find(const Session& session, int db,
                                              std::string_view key) const {
  const KeyMap& map = by_db_[static_cast<std::size_t>(db)];
  auto it = map.find(key);
  if (it == map.end()) return nullptr;
  for (const Watcher& w : it->second) {
    if (w.session == &session) return &w;
  }
  return nullptr;
}

bool WatchedKeys::AnyExpiredSince(const Session& session, std::int64_t now_ms) const {
  for (const WatchedKeyName& w : session.multi.watched) {
    const Watcher* watcher = Find(session, w.db, w.key);
    if (watcher != nullptr && !watcher->expired && IsExpired(dbs_.db(w.db), w.key, now_ms)) {
      return true;
    }
  }
  return false;
}

void WatchedKeys::KeyModified(const storage::Keyspace& keyspace, std::string_view key,
                              bool removed) {
  int db = 0;
  while (db < dbs_.count() && &dbs_.db(db) != &keyspace) ++db;
  if (db == dbs_.count()) return;
  KeyMap& map = by_db_[static_cast<std::size_t>(db)];
  auto it = map.find(key);
  if (it == map.end()) return;
  std::vector<Session*> touched;
  for (Watcher& w : it->second) {
    if (w.expired) {
      // Redis's touchWatchedKey: an already expired key that is now removed changed nothing
      // logically; one that is still there stops the walk (7.0 breaks out of the loop there).
      if (removed) {
        w.expired = false;
        continue;
      }
      break;
    }
    touched.push_back(w.session);
  }
  // Marked clients stop watching, so a key written again costs nothing more (as Redis).
  for (Session* s : touched) {
    s->multi.watch_touched = true;
    UnwatchAll(*s);
  }
}

void WatchedKeys::TouchDb(int emptied, int replaced_with, std::int64_t now_ms) {
  KeyMap& map = by_db_[static_cast<std::size_t>(emptied)];
  if (map.empty()) return;
  const storage::Keyspace& from = dbs_.db(emptied);
  const storage::Keyspace* with = replaced_with < 0 ? nullptr : &dbs_.db(replaced_with);
  // Redis's touchAllWatchedKeysInDb, rule for rule: a key counts as present while it is in the
  // table, expired or not.
  for (auto& [key, watchers] : map) {
    const bool in_emptied = from.Peek(key) != nullptr;
    const bool in_other = with != nullptr && with->Peek(key) != nullptr;
    if (!in_emptied && !in_other) continue;
    for (Watcher& w : watchers) {
      if (w.expired) {
        if (!in_other) {
          w.expired = false;
          continue;
        }
        if (IsExpired(*with, key, now_ms)) continue;
      } else if (!in_emptied && IsExpired(*with, key, now_ms)) {
        w.expired = true;
        continue;
      }
      w.session->multi.watch_touched = true;
    }
  }
}

}  // namespace warden::server
