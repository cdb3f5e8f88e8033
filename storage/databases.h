// The numbered databases (Redis's `databases`, 16 by default) and what they share: one entry
// pool for every key and every large value's fields, and one reclaimer that frees large values
// and flushed databases in slices.
//
// A database is addressed by index; SWAPDB exchanges two databases' contents, so a Keyspace&
// taken from db() keeps naming the same index, not the same keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "storage/entry_pool.h"
#include "storage/keyspace.h"
#include "storage/random.h"
#include "storage/reclaimer.h"

namespace warden::storage {

class Databases {
 public:
  Databases(Random& random, int count);
  ~Databases();
  Databases(const Databases&) = delete;
  Databases& operator=(const Databases&) = delete;

  int count() const { return static_cast<int>(dbs_.size()); }
  Keyspace& db(int index) { return *dbs_[static_cast<std::size_t>(index)]; }
  const Keyspace& db(int index) const { return *dbs_[static_cast<std::size_t>(index)]; }

  void Swap(int a, int b);
  // Tells `listener` of every key that expires in any database (see ExpiryListener).
  void SetExpiryListener(ExpiryListener* listener);
  // Keyspace::set_keep_expired on every database (a read-only replica).
  void SetKeepExpired(bool keep);
  // Empties one database, or all: large ones are handed to the reclaimer, so a flush of ten
  // million keys returns at once and is freed in slices.
  void Flush(int index);
  void FlushAll();

  // Keys in every database.
  std::size_t total_keys() const;
  // Removes every key whose deadline is at or before `now_ms`, in every database.
  std::size_t ExpireDue(std::int64_t now_ms);
  // Moves up to `buckets` buckets of each database's resize; returns whether one goes on.
  bool RehashSteps(int buckets);
  // Bytes of every entry and every database's buckets.
  std::size_t memory_bytes() const;
  std::uint64_t expired_keys() const;

  EntryPool& pool() { return pool_; }
  Reclaimer& reclaimer() { return reclaimer_; }
  // What every database stamps accessed keys with; the server sets it before each command.
  AccessClock& access_clock() { return access_clock_; }
  const AccessClock& access_clock() const { return access_clock_; }
  // Changes made to keys in any database, expiry aside (Keyspace::set_change_counter). Flushes
  // and swaps count one each.
  std::uint64_t changes() const { return changes_; }
  void CountChange() { ++changes_; }
  // What every database's keyspace draws its hash seed from; new keyspaces on this pool use it.
  Random& random() { return random_; }

 private:
  // Declared first: destroyed last, after every keyspace has given its entries back.
  EntryPool pool_;
  Reclaimer reclaimer_;
  Random& random_;
  ExpiryListener* expiry_listener_ = nullptr;
  AccessClock access_clock_;
  std::uint64_t changes_ = 0;
  std::vector<std::unique_ptr<Keyspace>> dbs_;
};

}  // namespace warden::storage
