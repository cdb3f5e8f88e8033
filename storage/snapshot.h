// A point-in-time copy of every database (DEBUG SNAPSHOT), so a test suite can put its data back
// between two tests faster than it could write it again.
//
// A snapshot holds one keyspace per database on the databases' own entry pool: every value is
// copied with its encoding (a packed hash stays packed, a table is duplicated), deadlines as
// absolute times on the server's clock. Restoring flushes each database (large ones go to the
// reclaimer, as FLUSHALL's do) and copies the snapshot's keys back, leaving out those whose
// deadline has passed by then; the snapshot stays as it was, for the next restore.
//
// Destroying a snapshot hands its keyspaces to the reclaimer, so dropping a large one returns at
// once; the Databases it was taken from must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "storage/databases.h"
#include "storage/keyspace.h"

namespace warden::storage {

class Snapshot {
 public:
  // Copies every key of `dbs` that is live at `now_ms`. Returns nullptr, once the partial copy
  // is handed to the reclaimer, as soon as the copy would take more than `max_bytes` (0: no cap).
  static std::unique_ptr<Snapshot> Take(Databases& dbs, std::int64_t now_ms, std::size_t max_bytes);
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Replaces the contents of every database of `dbs` (the one it was taken from) with the
  // snapshot's keys, except those expired at `now_ms`. Returns how many were left out that way.
  // A database's observer hears of each key stored, not of the keys flushed.
  std::size_t RestoreInto(Databases& dbs, std::int64_t now_ms) const;

  std::size_t keys() const;
  // Bytes the copy holds: entries (fields and members too), bucket arrays, list chunks and
  // sorted-set trees.
  std::size_t bytes() const { return bytes_; }
  std::int64_t taken_ms() const { return taken_ms_; }
  const Keyspace& db(int index) const { return *dbs_[static_cast<std::size_t>(index)]; }

 private:
  Snapshot(Reclaimer& reclaimer, std::int64_t taken_ms)
      : reclaimer_(reclaimer), taken_ms_(taken_ms) {}

  Reclaimer& reclaimer_;
  std::vector<std::unique_ptr<Keyspace>> dbs_;
  std::size_t bytes_ = 0;
  std::int64_t taken_ms_;
};

// Stores a copy of `e` (key, value of any encoding, deadline, access stamp) in `to`, where the key
// must be absent. A large value is duplicated on `to`'s pool. Returns the new entry and adds to
// `outside_pool` the bytes the copy holds outside the pool and its entries.
Entry* CopyEntry(const Entry& e, Keyspace& to, std::size_t& outside_pool);

}  // namespace warden::storage
