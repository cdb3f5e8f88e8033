// Choosing keys to evict under a maxmemory policy, as Redis's evict.c does: sample a few keys,
// keep the best candidates seen so far in a small pool ordered by how evictable they are, and
// evict the best of the pool. The pool outlives a call, so each eviction draws on the samples
// of earlier ones and approximates true LRU (or LFU, or soonest deadline) closely with few
// samples. Deleting the key, and what a deletion tells clients, is the server's business.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/databases.h"

namespace warden::storage {

enum class EvictionPolicy : std::uint8_t {
  kNoEviction,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

// maxmemory-policy's value (lower case), or nullopt.
std::optional<EvictionPolicy> ParseEvictionPolicy(std::string_view name);
constexpr bool IsLfu(EvictionPolicy p) {
  return p == EvictionPolicy::kAllkeysLfu || p == EvictionPolicy::kVolatileLfu;
}

struct EvictionVictim {
  int db = 0;
  std::string key;  // a copy: the pool's entries may be gone by the time it is evicted
};

class EvictionPool {
 public:
  // Redis's EVPOOL_SIZE.
  static constexpr std::size_t kSize = 16;

  // The next key to evict under `policy` (not kNoEviction), sampling `samples` keys of each
  // database; false when no database holds a key the policy may evict. `victim` is reused, so
  // its key keeps its capacity from one eviction to the next. allkeys-random's draw removes
  // the expired keys it meets, as a lookup at `now_ms` would.
  bool Select(Databases& dbs, EvictionPolicy policy, int samples, std::int64_t now_ms,
              EvictionVictim& victim);

 private:
  struct Candidate {
    std::uint64_t score = 0;  // higher: evict sooner
    int db = 0;
    std::string key;
  };
  void Populate(Keyspace& keyspace, int db, EvictionPolicy policy, int samples,
                const AccessClock& clock);
  void Insert(std::uint64_t score, int db, std::string_view key);

  std::vector<Candidate> pool_;   // ascending by score; at most kSize
  std::vector<Candidate> spare_;  // candidates taken out, kept for their key buffers
  std::vector<Entry*> sample_;
  int next_db_ = 0;  // where the random policies look first, as Redis's static next_db
};

}  // namespace warden::storage
