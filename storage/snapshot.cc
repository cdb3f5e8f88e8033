#include "storage/snapshot.h"

#include <string>
#include <utility>

#include "storage/hash.h"
#include "storage/list.h"
#include "storage/reclaimer.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/zset.h"

namespace warden::storage {

Entry* CopyEntry(const Entry& e, Keyspace& to, std::size_t& outside_pool) {
  if (!IsLarge(e.encoding())) {
    Entry* copy = to.Store(e.key(), e.value(), e.deadline_ms(), nullptr, e.encoding());
    Keyspace::SetAccessStamp(copy, e.access_stamp());
    return copy;
  }
  std::string value;
  switch (e.encoding()) {
    case Encoding::kHashTable:
      value = HashCopyValue(e, to);
      break;
    case Encoding::kSetTable:
      value = SetCopyValue(e, to);
      break;
    case Encoding::kZsetSorted:
      value = ZsetCopyValue(e, to);
      break;
    case Encoding::kStream:
      value = StreamCopyValue(e);
      break;
    default:
      value = ListCopyValue(e);
      break;
  }
  Entry* copy = to.Store(e.key(), value, e.deadline_ms(), nullptr, e.encoding());
  Keyspace::SetAccessStamp(copy, e.access_stamp());
  switch (copy->encoding()) {
    case Encoding::kHashTable:
    case Encoding::kSetTable:
      outside_pool += sizeof(Keyspace) + copy->table()->bucket_bytes();
      break;
    case Encoding::kZsetSorted: {
      const auto* set = static_cast<const SortedSet*>(copy->large());
      outside_pool += sizeof(SortedSet) + sizeof(Keyspace) + set->members().bucket_bytes() +
                      set->tree().memory_bytes();
      break;
    }
    case Encoding::kStream:
      outside_pool += StreamOf(*copy)->memory_bytes();
      break;
    default:
      outside_pool += ListOf(*copy)->memory_bytes();
      break;
  }
  return copy;
}

std::unique_ptr<Snapshot> Snapshot::Take(Databases& dbs, std::int64_t now_ms,
                                         std::size_t max_bytes) {
  std::unique_ptr<Snapshot> snap(new Snapshot(dbs.reclaimer(), now_ms));
  // Every entry the copy makes comes from the shared pool, and nothing else allocates from it
  // meanwhile: its growth is the copy's entries.
  const std::size_t pool_before = dbs.pool().bytes_in_use();
  std::size_t outside_pool = 0;
  std::size_t done_buckets = 0;
  snap->dbs_.reserve(static_cast<std::size_t>(dbs.count()));
  for (int i = 0; i < dbs.count(); ++i) {
    auto copy = std::make_unique<Keyspace>(dbs.random(), &dbs.pool(), &dbs.reclaimer());
    Keyspace& to = *copy;
    snap->dbs_.push_back(std::move(copy));
    bool over = false;
    dbs.db(i).ForEachUntil([&](const Entry& e) {
      if (e.ExpiredAt(now_ms)) return true;
      CopyEntry(e, to, outside_pool);
      const std::size_t used =
          dbs.pool().bytes_in_use() - pool_before + outside_pool + done_buckets + to.bucket_bytes();
      over = max_bytes != 0 && used > max_bytes;
      return !over;
    });
    if (over) return nullptr;  // the destructor hands what was copied to the reclaimer
    // Finish the resize the copy started, so a restore reads one table.
    while (to.RehashSteps(1024)) {
    }
    done_buckets += to.bucket_bytes();
  }
  snap->bytes_ = dbs.pool().bytes_in_use() - pool_before + outside_pool + done_buckets;
  return snap;
}

Snapshot::~Snapshot() {
  for (std::unique_ptr<Keyspace>& ks : dbs_) reclaimer_.Defer(std::move(ks));
}

std::size_t Snapshot::RestoreInto(Databases& dbs, std::int64_t now_ms) const {
  std::size_t expired = 0;
  std::size_t outside_pool = 0;
  for (int i = 0; i < dbs.count() && i < static_cast<int>(dbs_.size()); ++i) {
    dbs.Flush(i);
    Keyspace& to = dbs.db(i);
    db(i).ForEach([&](const Entry& e) {
      if (e.ExpiredAt(now_ms)) {
        ++expired;
      } else {
        CopyEntry(e, to, outside_pool);
      }
    });
  }
  return expired;
}

std::size_t Snapshot::keys() const {
  std::size_t n = 0;
  for (const auto& ks : dbs_) n += ks->size();
  return n;
}

}  // namespace warden::storage
