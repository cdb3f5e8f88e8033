// Eviction under maxmemory (Redis's performEvictions): before each command, while used memory
// is past the limit, keys the policy chooses are deleted, each told as an `evicted` keyspace
// event and counted in INFO's evicted_keys. A pass stops after a time limit set by
// maxmemory-eviction-tenacity and goes on between I/O, so a large overshoot never stalls the
// loop; the command that found memory short runs meanwhile, as in Redis.
#pragma once

#include "storage/eviction.h"

namespace warden::server {

class ServerState;

struct EvictionState {
  storage::EvictionPolicy policy = storage::EvictionPolicy::kNoEviction;
  storage::EvictionPool pool;
  storage::EvictionVictim victim;
  std::uint64_t evicted_keys = 0;  // since start; INFO subtracts what CONFIG RESETSTAT saw
  bool running = false;            // a pass ran out of time with memory still past the limit
};

enum class EvictResult {
  kOk,       // used memory is within the limit (or there is none)
  kRunning,  // still past it, but the pass ran out of time: it goes on later
  kFail,     // past it with nothing left that the policy may evict
};

EvictResult PerformEvictions(ServerState& server);

// Carries maxmemory-policy, lfu-log-factor and lfu-decay-time to the eviction state and to
// the access clock (an LFU policy makes access stamps LFU words).
void ApplyEvictionConfig(ServerState& server);

}  // namespace warden::server
