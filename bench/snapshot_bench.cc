// DEBUG SNAPSHOT's copies at 100k keys: taking one, and restoring one over data of the same size
// (the flush is deferred to the reclaimer, as the command leaves it; the Reclaim variant adds
// freeing the replaced data, which the server otherwise spreads over its cron ticks).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "storage/clock.h"
#include "storage/databases.h"
#include "storage/hash.h"
#include "storage/snapshot.h"

namespace {

using warden::storage::Databases;
using warden::storage::EncodingLimits;
using warden::storage::Entry;
using warden::storage::ManualClock;
using warden::storage::Random;
using warden::storage::Snapshot;

constexpr std::string_view kToken = "0123456789abcdef0123456789abcdef0123";

// `n` keys in database 0: locks with 10-minute leases, and every tenth key a small hash of
// four fields instead, so packed values are copied too.
struct Fixture {
  explicit Fixture(std::int64_t n) : random(42), dbs(random, 16) {
    auto& ks = dbs.db(0);
    for (std::int64_t i = 0; i < n; ++i) {
      const std::string key = "key:" + std::to_string(i);
      if (i % 10 == 0) {
        Entry* h = nullptr;
        for (int f = 0; f < 4; ++f) {
          warden::storage::HashSet(ks, h, key, "field" + std::to_string(f), kToken, limits);
        }
      } else {
        ks.Store(key, kToken, clock.NowMs() + 600'000, nullptr);
      }
    }
    while (ks.RehashSteps(1000)) {
    }
  }
  ManualClock clock;
  Random random;
  Databases dbs;
  EncodingLimits limits;
};

void BM_SnapshotSave(benchmark::State& state) {
  Fixture f(state.range(0));
  for (auto _ : state) {
    std::unique_ptr<Snapshot> snap = Snapshot::Take(f.dbs, f.clock.NowMs(), 0);
    benchmark::DoNotOptimize(snap.get());
    state.PauseTiming();
    snap.reset();
    f.dbs.reclaimer().Drain();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SnapshotSave)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_SnapshotLoad(benchmark::State& state) {
  Fixture f(state.range(0));
  std::unique_ptr<Snapshot> snap = Snapshot::Take(f.dbs, f.clock.NowMs(), 0);
  for (auto _ : state) {
    snap->RestoreInto(f.dbs, f.clock.NowMs());
    state.PauseTiming();
    f.dbs.reclaimer().Drain();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SnapshotLoad)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_SnapshotLoadReclaim(benchmark::State& state) {
  Fixture f(state.range(0));
  std::unique_ptr<Snapshot> snap = Snapshot::Take(f.dbs, f.clock.NowMs(), 0);
  for (auto _ : state) {
    snap->RestoreInto(f.dbs, f.clock.NowMs());
    f.dbs.reclaimer().Drain();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SnapshotLoadReclaim)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace
