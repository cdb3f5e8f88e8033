#include "storage/databases.h"

#include <utility>

namespace warden::storage {

// Below this many keys a flush frees at once: cheaper than a trip through the reclaimer.
constexpr std::size_t kFlushInPlaceBelow = 4096;

Databases::Databases(Random& random, int count) : random_(random) {
  dbs_.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    dbs_.push_back(std::make_unique<Keyspace>(random, &pool_, &reclaimer_));
    dbs_.back()->set_access_clock(&access_clock_);
    dbs_.back()->set_change_counter(&changes_);
  }
}

Databases::~Databases() {
  dbs_.clear();
  reclaimer_.Drain();
}

void Databases::Swap(int a, int b) {
  ++changes_;
  std::swap(dbs_[a], dbs_[b]);
  dbs_[a]->SetExpiryListener(expiry_listener_, a);
  dbs_[b]->SetExpiryListener(expiry_listener_, b);
}

void Databases::SetExpiryListener(ExpiryListener* listener) {
  expiry_listener_ = listener;
  for (int i = 0; i < count(); ++i)
    dbs_[static_cast<std::size_t>(i)]->SetExpiryListener(listener, i);
}

void Databases::SetKeepExpired(bool keep) {
  for (auto& ks : dbs_) ks->set_keep_expired(keep);
}

void Databases::Flush(int index) {
  ++changes_;
  Keyspace& ks = db(index);
  if (ks.size() < kFlushInPlaceBelow) {
    ks.Clear();
    return;
  }
  std::unique_ptr<Keyspace> taken = ks.TakeAll();
  // Defer keeps only tables of some size; this one is.
  reclaimer_.Defer(std::move(taken));
}

void Databases::FlushAll() {
  for (int i = 0; i < count(); ++i) Flush(i);
}

std::size_t Databases::total_keys() const {
  std::size_t n = 0;
  for (const auto& ks : dbs_) n += ks->size();
  return n;
}

std::size_t Databases::ExpireDue(std::int64_t now_ms) {
  std::size_t n = 0;
  for (auto& ks : dbs_) {
    if (ks->volatile_size() > 0) n += ks->ExpireDue(now_ms);
  }
  return n;
}

bool Databases::RehashSteps(int buckets) {
  bool more = false;
  for (auto& ks : dbs_) {
    if (ks->rehashing()) more |= ks->RehashSteps(buckets);
  }
  return more;
}

std::size_t Databases::memory_bytes() const {
  std::size_t n = pool_.bytes_in_use();
  for (const auto& ks : dbs_) n += ks->bucket_bytes();
  return n;
}

std::uint64_t Databases::expired_keys() const {
  std::uint64_t n = 0;
  for (const auto& ks : dbs_) n += ks->stats().expired_keys;
  return n;
}

}  // namespace warden::storage
