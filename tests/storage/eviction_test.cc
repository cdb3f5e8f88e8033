// Eviction's choice of keys without the server: the pool's sampled approximation of LRU, LFU and
// soonest-deadline, the volatile policies' restriction to keys with a deadline, and the LFU
// counter's arithmetic (Redis's LFULogIncr and LFUDecrAndReturn).
#include "storage/eviction.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "storage/databases.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

constexpr std::int64_t kNowMs = 1'700'000'000'000;

class EvictionTest : public ::testing::Test {
 protected:
  EvictionTest() { dbs_.access_clock().Set(kNowMs, true); }

  void Put(int db, const std::string& key, std::int64_t deadline_ms = kNoDeadline) {
    Keyspace& ks = dbs_.db(db);
    ks.Store(key, "v", deadline_ms, ks.Find(key, kNowMs));
  }

  // Evicts `n` keys as the server would (select, then erase); returns them.
  std::set<std::string> EvictMany(EvictionPolicy policy, int n, int samples = 5) {
    std::set<std::string> evicted;
    EvictionVictim victim;
    for (int i = 0; i < n; ++i) {
      if (!pool_.Select(dbs_, policy, samples, kNowMs, victim)) break;
      evicted.insert(victim.key);
      EXPECT_TRUE(dbs_.db(victim.db).Erase(victim.key, kNowMs)) << victim.key;
    }
    return evicted;
  }

  Random random_{42};
  Databases dbs_{random_, 4};
  EvictionPool pool_;
};

TEST_F(EvictionTest, PolicyNamesAreRedisNames) {
  EXPECT_EQ(ParseEvictionPolicy("allkeys-lru"), EvictionPolicy::kAllkeysLru);
  EXPECT_EQ(ParseEvictionPolicy("volatile-ttl"), EvictionPolicy::kVolatileTtl);
  EXPECT_EQ(ParseEvictionPolicy("noeviction"), EvictionPolicy::kNoEviction);
  EXPECT_EQ(ParseEvictionPolicy("allkeys-LRU"), std::nullopt);
  EXPECT_TRUE(IsLfu(EvictionPolicy::kVolatileLfu));
  EXPECT_FALSE(IsLfu(EvictionPolicy::kAllkeysLru));
}

TEST_F(EvictionTest, NothingToEvictInEmptyDatabases) {
  EvictionVictim victim;
  EXPECT_FALSE(pool_.Select(dbs_, EvictionPolicy::kAllkeysLru, 5, kNowMs, victim));
  EXPECT_FALSE(pool_.Select(dbs_, EvictionPolicy::kAllkeysRandom, 5, kNowMs, victim));
  Put(0, "persistent");
  EXPECT_FALSE(pool_.Select(dbs_, EvictionPolicy::kVolatileLru, 5, kNowMs, victim));
  EXPECT_FALSE(pool_.Select(dbs_, EvictionPolicy::kVolatileRandom, 5, kNowMs, victim));
  EXPECT_FALSE(pool_.Select(dbs_, EvictionPolicy::kVolatileTtl, 5, kNowMs, victim));
}

// Keys idle for longer go first: with half the keys touched an hour later than the rest, the
// first evictions take (almost only) the old half.
TEST_F(EvictionTest, LruEvictsTheLongestIdleKeysFirst) {
  for (int i = 0; i < 1000; ++i) Put(0, "old:" + std::to_string(i));
  dbs_.access_clock().Set(kNowMs + 3'600'000, true);
  for (int i = 0; i < 1000; ++i) Put(0, "new:" + std::to_string(i));
  int old_evicted = 0;
  for (const std::string& key : EvictMany(EvictionPolicy::kAllkeysLru, 300)) {
    old_evicted += key.starts_with("old:") ? 1 : 0;
  }
  EXPECT_GE(old_evicted, 295);
}

TEST_F(EvictionTest, VolatilePoliciesLeaveKeysWithoutADeadline) {
  for (int i = 0; i < 500; ++i) Put(i % 4, "keep:" + std::to_string(i));
  for (int i = 0; i < 50; ++i) Put(i % 4, "lease:" + std::to_string(i), kNowMs + 60'000);
  for (EvictionPolicy policy : {EvictionPolicy::kVolatileLru, EvictionPolicy::kVolatileLfu,
                                EvictionPolicy::kVolatileRandom, EvictionPolicy::kVolatileTtl}) {
    for (int i = 0; i < 50; ++i) Put(i % 4, "lease:" + std::to_string(i), kNowMs + 60'000 + i);
    const std::set<std::string> evicted = EvictMany(policy, 1000);
    EXPECT_EQ(evicted.size(), 50u);
    for (const std::string& key : evicted) EXPECT_TRUE(key.starts_with("lease:")) << key;
  }
  EXPECT_EQ(dbs_.total_keys(), 500u);
}

// A lock server's keys are mostly leases; the ones whose deadline is nearest go first.
TEST_F(EvictionTest, VolatileTtlEvictsTheNearestDeadlinesFirst) {
  for (int i = 0; i < 2000; ++i) Put(0, std::to_string(i), kNowMs + 1000 + i);
  int early = 0;
  for (const std::string& key : EvictMany(EvictionPolicy::kVolatileTtl, 500)) {
    early += std::stoi(key) < 1000 ? 1 : 0;
  }
  EXPECT_GE(early, 480);
}

TEST_F(EvictionTest, RandomPoliciesEvictFromEveryDatabase) {
  for (int i = 0; i < 400; ++i) Put(i % 4, "k" + std::to_string(i));
  std::set<int> dbs_seen;
  EvictionVictim victim;
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(pool_.Select(dbs_, EvictionPolicy::kAllkeysRandom, 5, kNowMs, victim));
    dbs_seen.insert(victim.db);
    ASSERT_TRUE(dbs_.db(victim.db).Erase(victim.key, kNowMs));
  }
  EXPECT_EQ(dbs_seen.size(), 4u);
  EXPECT_EQ(EvictMany(EvictionPolicy::kAllkeysRandom, 1000).size(), 392u);
}

// A pool candidate deleted by a client before its turn is skipped, not evicted twice.
TEST_F(EvictionTest, CandidatesDeletedMeanwhileAreSkipped) {
  for (int i = 0; i < 20; ++i) Put(0, "k" + std::to_string(i));
  EvictionVictim victim;
  ASSERT_TRUE(pool_.Select(dbs_, EvictionPolicy::kAllkeysLru, 20, kNowMs, victim));
  ASSERT_TRUE(dbs_.db(0).Erase(victim.key, kNowMs));
  for (int i = 0; i < 20; i += 2) dbs_.db(0).Erase("k" + std::to_string(i), kNowMs);
  std::set<std::string> expected;
  for (int i = 1; i < 20; i += 2) expected.insert("k" + std::to_string(i));
  expected.erase(victim.key);
  EXPECT_EQ(EvictMany(EvictionPolicy::kAllkeysLru, 100, 20), expected);
  EXPECT_EQ(dbs_.total_keys(), 0u);
}

TEST(AccessClockLfuTest, NewKeysStartAtFiveAndTheFirstAccessAlwaysCounts) {
  AccessClock clock;
  clock.lfu = true;
  clock.Set(kNowMs, true);
  const std::uint32_t stamp = clock.NewStamp();
  EXPECT_EQ(clock.LfuCounter(stamp), 5u);
  // Probability 1 at or below the initial value, whatever the draw.
  EXPECT_EQ(clock.LfuCounter(clock.Touched(stamp, ~std::uint64_t{0})), 6u);
}

TEST(AccessClockLfuTest, CounterGrowsLogarithmicallyAndSaturates) {
  AccessClock clock;
  clock.lfu = true;
  clock.Set(kNowMs, true);
  Random random(7);
  std::uint32_t stamp = clock.NewStamp();
  for (int i = 0; i < 1000; ++i) stamp = clock.Touched(stamp, random.Next());
  // With lfu-log-factor 10, a thousand hits reach about 18 (Redis's table: 100 hits ~ 10).
  EXPECT_GT(clock.LfuCounter(stamp), 12u);
  EXPECT_LT(clock.LfuCounter(stamp), 25u);
  clock.lfu_log_factor = 0;
  for (int i = 0; i < 300; ++i) stamp = clock.Touched(stamp, random.Next());
  EXPECT_EQ(clock.LfuCounter(stamp), 255u);
}

TEST(AccessClockLfuTest, CounterDecaysOneStepPerDecayPeriod) {
  AccessClock clock;
  clock.lfu = true;
  clock.Set(kNowMs, true);
  const std::uint32_t stamp = (clock.minutes << 8) | 20;
  clock.Set(kNowMs + 3 * 60'000, true);
  EXPECT_EQ(clock.LfuCounter(stamp), 17u);
  clock.lfu_decay_time = 2;
  EXPECT_EQ(clock.LfuCounter(stamp), 19u);
  clock.lfu_decay_time = 0;
  EXPECT_EQ(clock.LfuCounter(stamp), 20u);
  clock.lfu_decay_time = 1;
  clock.Set(kNowMs + 300 * 60'000, true);
  EXPECT_EQ(clock.LfuCounter(stamp), 0u);
}

TEST(AccessClockLfuTest, UnderLruAStampIsTheSecond) {
  AccessClock clock;
  clock.Set(kNowMs, true);
  EXPECT_EQ(clock.NewStamp(), AccessClock::StampAt(kNowMs));
  EXPECT_EQ(clock.Touched(0, 0), AccessClock::StampAt(kNowMs));
}

}  // namespace
}  // namespace warden::storage
