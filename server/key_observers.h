// The one storage::KeyObserver the databases have: it passes each changed key (Redis's
// signalModifiedKey) on to the features that listen, WATCH and client-side caching, and is
// installed only while one of them listens, so writes pay nothing otherwise.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "storage/databases.h"
#include "storage/keyspace.h"

namespace warden::server {

class KeyObserverHub final : public storage::KeyObserver {
 public:
  explicit KeyObserverHub(storage::Databases& dbs) : dbs_(dbs) {}
  KeyObserverHub(const KeyObserverHub&) = delete;
  KeyObserverHub& operator=(const KeyObserverHub&) = delete;

  static constexpr std::size_t kMaxObservers = 4;

  void Add(storage::KeyObserver* observer) {
    if (std::find(observers_.begin(), observers_.end(), observer) != observers_.end()) return;
    if (observers_.size() == kMaxObservers) return;
    observers_.push_back(observer);
    if (observers_.size() == 1) Install(this);
  }
  void Remove(storage::KeyObserver* observer) {
    const auto it = std::find(observers_.begin(), observers_.end(), observer);
    if (it == observers_.end()) return;
    observers_.erase(it);
    if (observers_.empty()) Install(nullptr);
  }

  void KeyModified(const storage::Keyspace& keyspace, std::string_view key, bool removed) override {
    // A listener may leave during its call (the last tracked key invalidated): walk a copy.
    storage::KeyObserver* now[kMaxObservers];
    const std::size_t n = observers_.size();
    std::copy(observers_.begin(), observers_.end(), now);
    for (std::size_t i = 0; i < n; ++i) now[i]->KeyModified(keyspace, key, removed);
  }

 private:
  void Install(storage::KeyObserver* observer) {
    for (int i = 0; i < dbs_.count(); ++i) dbs_.db(i).set_observer(observer);
  }

  storage::Databases& dbs_;
  std::vector<storage::KeyObserver*> observers_;
};

}  // namespace warden::server
