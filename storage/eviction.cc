#include "storage/eviction.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace warden::storage {
namespace {

bool IsVolatile(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileLru || p == EvictionPolicy::kVolatileLfu ||
         p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kVolatileTtl;
}

bool IsRandom(EvictionPolicy p) {
  return p == EvictionPolicy::kAllkeysRandom || p == EvictionPolicy::kVolatileRandom;
}

// A sample can come back empty (a sparse table, few keys with a deadline) or the pool can hold
// only keys deleted since; the search is tried again, this many times at most, so that a key is
// found whenever one exists without the search ever running unbounded.
constexpr int kMaxRounds = 64;

}  // namespace

std::optional<EvictionPolicy> ParseEvictionPolicy(std::string_view name) {
  static constexpr std::pair<std::string_view, EvictionPolicy> kNames[] = {
      {"noeviction", EvictionPolicy::kNoEviction},
      {"allkeys-lru", EvictionPolicy::kAllkeysLru},
      {"allkeys-lfu", EvictionPolicy::kAllkeysLfu},
      {"allkeys-random", EvictionPolicy::kAllkeysRandom},
      {"volatile-lru", EvictionPolicy::kVolatileLru},
      {"volatile-lfu", EvictionPolicy::kVolatileLfu},
      {"volatile-random", EvictionPolicy::kVolatileRandom},
      {"volatile-ttl", EvictionPolicy::kVolatileTtl},
  };
  for (const auto& [text, policy] : kNames) {
    if (text == name) return policy;
  }
  return std::nullopt;
}

bool EvictionPool::Select(Databases& dbs, EvictionPolicy policy, int samples, std::int64_t now_ms,
                          EvictionVictim& victim) {
  const bool volatile_only = IsVolatile(policy);
  auto candidates = [volatile_only](const Keyspace& ks) {
    return volatile_only ? ks.volatile_size() : ks.size();
  };
  if (IsRandom(policy)) {
    // As Redis: one random key from the next database that has any, round robin.
    for (int i = 0; i < dbs.count(); ++i) {
      const int db = next_db_;
      next_db_ = (next_db_ + 1) % dbs.count();
      Keyspace& ks = dbs.db(db);
      if (candidates(ks) == 0) continue;
      const Entry* e = nullptr;
      if (!volatile_only) {
        e = ks.RandomEntry(now_ms);
      } else {
        for (int tries = 0; e == nullptr && tries < kMaxRounds; ++tries) {
          sample_.clear();
          ks.SampleEntries(1, true, sample_);
          if (!sample_.empty()) e = sample_[0];
        }
      }
      if (e == nullptr) continue;
      victim.db = db;
      victim.key.assign(e->key());
      return true;
    }
    return false;
  }
  const AccessClock& clock = dbs.access_clock();
  for (int round = 0; round < kMaxRounds; ++round) {
    bool any = false;
    for (int db = 0; db < dbs.count(); ++db) {
      Keyspace& ks = dbs.db(db);
      if (candidates(ks) == 0) continue;
      any = true;
      Populate(ks, db, policy, samples, clock);
    }
    if (!any) return false;
    // Best first; a candidate whose key is gone (or lost its deadline) is dropped.
    while (!pool_.empty()) {
      Candidate c = std::move(pool_.back());
      pool_.pop_back();
      const Entry* e = dbs.db(c.db).Peek(c.key);
      const bool usable = e != nullptr && (!volatile_only || e->has_deadline());
      if (usable) {
        victim.db = c.db;
        std::swap(victim.key, c.key);
      }
      spare_.push_back(std::move(c));
      if (usable) return true;
    }
  }
  return false;
}

void EvictionPool::Populate(Keyspace& keyspace, int db, EvictionPolicy policy, int samples,
                            const AccessClock& clock) {
  sample_.clear();
  keyspace.SampleEntries(static_cast<std::size_t>(samples), IsVolatile(policy), sample_);
  for (const Entry* e : sample_) {
    std::uint64_t score = 0;
    switch (policy) {
      case EvictionPolicy::kAllkeysLru:
      case EvictionPolicy::kVolatileLru:
        score = static_cast<std::uint64_t>(AccessClock::IdleSeconds(e->access_stamp(), clock.now));
        break;
      case EvictionPolicy::kAllkeysLfu:
      case EvictionPolicy::kVolatileLfu:
        score = 255 - clock.LfuCounter(e->access_stamp());
        break;
      case EvictionPolicy::kVolatileTtl:
        score = std::numeric_limits<std::uint64_t>::max() -
                static_cast<std::uint64_t>(e->deadline_ms());
        break;
      default:
        break;
    }
    Insert(score, db, e->key());
  }
}

void EvictionPool::Insert(std::uint64_t score, int db, std::string_view key) {
  // The first candidate at least as evictable: the new one goes before it.
  auto at = static_cast<std::size_t>(
      std::find_if(pool_.begin(), pool_.end(),
                   [score](const Candidate& c) { return c.score >= score; }) -
      pool_.begin());
  if (pool_.size() == kSize) {
    // Full: a candidate less evictable than every one held is not kept; otherwise the least
    // evictable one makes room.
    if (at == 0) return;
    spare_.push_back(std::move(pool_.front()));
    pool_.erase(pool_.begin());
    --at;
  }
  Candidate c;
  if (!spare_.empty()) {
    c = std::move(spare_.back());
    spare_.pop_back();
  }
  c.score = score;
  c.db = db;
  c.key.assign(key);
  pool_.insert(pool_.begin() + static_cast<std::ptrdiff_t>(at), std::move(c));
}

}  // namespace warden::storage
