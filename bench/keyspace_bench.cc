// The keyspace at 1k, 1M and 10M keys: lock operations, SCAN and one active-expiry slice.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "storage/active_expiry.h"
#include "storage/clock.h"
#include "storage/keyspace.h"

namespace {

using warden::storage::ActiveExpiry;
using warden::storage::Databases;
using warden::storage::Entry;
using warden::storage::Keyspace;
using warden::storage::ManualClock;
using warden::storage::Random;

constexpr std::string_view kToken = "0123456789abcdef0123456789abcdef0123";

std::string Key(std::int64_t i) { return "lock:" + std::to_string(i); }

// A keyspace of `n` locks with 10-minute leases, built once per size.
struct Fixture {
  explicit Fixture(std::int64_t n) : random(42), dbs(random, 1), keyspace(dbs.db(0)) {
    for (std::int64_t i = 0; i < n; ++i) {
      keyspace.Store(Key(i), kToken, clock.NowMs() + 600'000, nullptr);
    }
    while (keyspace.RehashSteps(1000)) {
    }
    for (int i = 0; i < 4096; ++i)
      probes.push_back(Key(static_cast<std::int64_t>(random.Below(n))));
  }
  ManualClock clock;
  Random random;
  Databases dbs;
  Keyspace& keyspace;
  std::vector<std::string> probes;
};

Fixture& Get(std::int64_t n) {
  static std::vector<std::pair<std::int64_t, Fixture*>> built;
  for (auto& [size, f] : built) {
    if (size == n) return *f;
  }
  built.emplace_back(n, new Fixture(n));
  return *built.back().second;
}

void BM_KeyspaceGet(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    const Entry* e = f.keyspace.Find(f.probes[i++ & 4095], f.clock.NowMs());
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyspaceGet)->Arg(1000)->Arg(1000000)->Arg(10000000);

void BM_KeyspaceSetNxDel(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  const std::string key = "lock:bench-only";
  for (auto _ : state) {
    Entry* e = f.keyspace.Find(key, f.clock.NowMs());
    if (e == nullptr) f.keyspace.Store(key, kToken, f.clock.NowMs() + 30'000, nullptr);
    f.keyspace.Erase(key, f.clock.NowMs());
  }
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_KeyspaceSetNxDel)->Arg(1000)->Arg(1000000)->Arg(10000000);

void BM_KeyspacePexpire(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    Entry* e = f.keyspace.Find(f.probes[i++ & 4095], f.clock.NowMs());
    if (e != nullptr) f.keyspace.SetDeadline(e, f.clock.NowMs() + 600'000);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyspacePexpire)->Arg(1000)->Arg(1000000)->Arg(10000000);

void BM_KeyspaceScan(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  std::vector<Entry*> out;
  std::uint64_t cursor = 0;
  for (auto _ : state) {
    out.clear();
    cursor = f.keyspace.Scan(cursor, 100, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 100);
}
BENCHMARK(BM_KeyspaceScan)->Arg(1000)->Arg(1000000);

// One active-expiry slice over keys none of which have expired: the steady-state cost.
void BM_ActiveExpiryRunOnce(benchmark::State& state) {
  Fixture& f = Get(state.range(0));
  ActiveExpiry expiry(f.dbs, f.clock);
  for (auto _ : state) expiry.RunOnce(f.clock.NowMs(), 1000);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ActiveExpiryRunOnce)->Arg(1000)->Arg(1000000)->Arg(10000000);

}  // namespace
