#include "server/eviction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "server/notify.h"
#include "server/server_state.h"
#include "server/stats/memory_meter.h"

namespace warden::server {
namespace {

// Entries the reclaimer frees between two looks at used memory.
constexpr std::size_t kReclaimBatch = 256;
// Past this, more samples change little (the pool holds 16) but each eviction would cost more:
// a client's maxmemory-samples 2147483647 must not stall the loop.
constexpr std::int64_t kMaxSamples = 64;
// Keys evicted between two looks at the clock, as Redis checks every 16.
constexpr int kKeysPerClockCheck = 16;

// Redis's evictionTimeLimitUs: 50 us per step of tenacity up to 10 (500 us by default), then
// growing 15% a step, and no limit at 100.
std::int64_t TimeLimitUs(std::int64_t tenacity) {
  if (tenacity <= 10) return 50 * tenacity;
  if (tenacity < 100) return static_cast<std::int64_t>(500.0 * std::pow(1.15, tenacity - 10));
  return std::numeric_limits<std::int64_t>::max();
}

bool OverLimit(const ServerState& server) {
  return UsedMemory(server) > static_cast<std::size_t>(server.config.maxmemory);
}

// Deletes the victim as Redis's performEvictions does: WATCH sees it modified, then the
// `evicted` event.
void Evict(ServerState& server, const storage::EvictionVictim& victim) {
  storage::Keyspace& keyspace = server.dbs.db(victim.db);
  // A key found expired is removed by the lookup, as expired: memory is freed either way.
  storage::Entry* e = keyspace.Find(victim.key, server.NowMs(), storage::Touch::kNo);
  if (e == nullptr) return;
  keyspace.EraseUnattributed(e);
  ++server.eviction.evicted_keys;
  // At once, outside the running command's MULTI/EXEC, as an expiry's (notify.cc).
  server.propagation.Add(victim.db, {"DEL", victim.key}, /*depth=*/0);
  NotifyKeyspaceEvent(server, notify::kEvicted, "evicted", victim.key, victim.db);
}

}  // namespace

EvictResult PerformEvictions(ServerState& server) {
  EvictionState& state = server.eviction;
  state.running = false;
  if (server.config.maxmemory == 0 || !OverLimit(server)) return EvictResult::kOk;
  // A replica's data set is its master's (replica-ignore-maxmemory, Redis's default).
  if (server.replication.is_replica() && server.config.repl.ignore_maxmemory) {
    return EvictResult::kOk;
  }
  // Paused clients expect the data set to hold still, as Redis's performEvictions does.
  if (server.pause.active()) return EvictResult::kOk;
  storage::Reclaimer& reclaimer = server.dbs.reclaimer();
  const bool may_evict = state.policy != storage::EvictionPolicy::kNoEviction;
  const std::int64_t start_us = server.clock.MonotonicUs();
  const std::int64_t limit_us = TimeLimitUs(server.config.maxmemory_eviction_tenacity);
  // The access clock stamps idle times against now, as a command would see it.
  if (may_evict) server.dbs.access_clock().Set(server.NowMs(), false);
  const int samples =
      static_cast<int>(std::min<std::int64_t>(server.config.maxmemory_samples, kMaxSamples));
  int since_check = 0;
  while (OverLimit(server)) {
    // Values already deleted and waiting to be freed come back first: evicting more keys for
    // memory that is on its way back would evict too many. Under noeviction this is all there
    // is, as Redis waits a moment for its lazy-free thread before refusing.
    if (!reclaimer.idle()) {
      reclaimer.Step(kReclaimBatch);
    } else if (may_evict &&
               state.pool.Select(server.dbs, state.policy, samples, server.NowMs(), state.victim)) {
      Evict(server, state.victim);
    } else {
      return EvictResult::kFail;
    }
    if (++since_check == kKeysPerClockCheck) {
      since_check = 0;
      if (server.clock.MonotonicUs() - start_us >= limit_us) {
        if (!may_evict) return EvictResult::kFail;
        state.running = true;
        return EvictResult::kRunning;
      }
    }
  }
  return EvictResult::kOk;
}

void ApplyEvictionConfig(ServerState& server) {
  const std::optional<storage::EvictionPolicy> policy =
      storage::ParseEvictionPolicy(server.config.maxmemory_policy);
  server.eviction.policy = policy.value_or(storage::EvictionPolicy::kNoEviction);
  storage::AccessClock& clock = server.dbs.access_clock();
  clock.lfu = storage::IsLfu(server.eviction.policy);
  clock.lfu_log_factor = static_cast<double>(server.config.lfu_log_factor);
  clock.lfu_decay_time = static_cast<std::uint32_t>(server.config.lfu_decay_time);
}

}  // namespace warden::server
