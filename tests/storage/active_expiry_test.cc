// ActiveExpiry::RunOnce: what it removes, what it leaves, and why it stops.
#include "storage/active_expiry.h"

#include <gtest/gtest.h>

#include <string>

#include "storage/clock.h"
#include "storage/keyspace.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

// A manual clock whose real-time reading moves 1 ms each time it is read, so a work budget runs
// out after a known number of readings without any real time passing.
class TickingClock final : public Clock {
 public:
  std::int64_t NowMs() const override { return now_ms_; }
  std::int64_t NowUs() const override { return now_ms_ * 1000; }
  std::int64_t MonotonicUs() const override { return (readings_++) * 1000; }
  void AdvanceMs(std::int64_t delta_ms) { now_ms_ += delta_ms; }

 private:
  std::int64_t now_ms_ = 1'700'000'000'000;
  mutable std::int64_t readings_ = 0;
};

class ActiveExpiryTest : public ::testing::Test {
 protected:
  std::int64_t now() const { return clock_.NowMs(); }

  void PutMany(std::string_view prefix, int n, std::int64_t deadline_ms) {
    for (int i = 0; i < n; ++i) {
      const std::string key = std::string(prefix) + std::to_string(i);
      keyspace_.Store(key, "v", deadline_ms, keyspace_.Find(key, now()));
    }
  }

  int CountPresent(std::string_view prefix, int n) const {
    int present = 0;
    for (int i = 0; i < n; ++i) {
      if (keyspace_.Peek(std::string(prefix) + std::to_string(i)) != nullptr) ++present;
    }
    return present;
  }

  TickingClock clock_;
  Random random_{7};
  Databases dbs_{random_, 2};
  Keyspace& keyspace_ = dbs_.db(0);
  ActiveExpiry expiry_{dbs_, clock_};
};

// A budget that the first check (after the first loop) always finds spent.
constexpr std::int64_t kTinyBudgetUs = 1;
// A budget no test reaches.
constexpr std::int64_t kLargeBudgetUs = 1'000'000'000;

TEST_F(ActiveExpiryTest, NothingToDoWithoutVolatileKeys) {
  PutMany("p", 100, kNoDeadline);

  EXPECT_FALSE(expiry_.RunOnce(now(), kLargeBudgetUs));

  EXPECT_EQ(keyspace_.size(), 100u);
  EXPECT_EQ(expiry_.slices(), 1u);
  EXPECT_EQ(expiry_.stale_percent(), 0.0);
}

TEST_F(ActiveExpiryTest, RemovesEveryExpiredKeyWhileAllAreStale) {
  PutMany("dead", 1000, now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_FALSE(expiry_.RunOnce(now(), kLargeBudgetUs));

  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 1000u);
}

TEST_F(ActiveExpiryTest, LeavesLiveAndPersistentKeys) {
  PutMany("dead", 1000, now() + 10);
  PutMany("live", 100, now() + 100'000);
  PutMany("persistent", 100, kNoDeadline);
  clock_.AdvanceMs(11);

  expiry_.RunOnce(now(), kLargeBudgetUs);

  EXPECT_EQ(CountPresent("live", 100), 100);
  EXPECT_EQ(CountPresent("persistent", 100), 100);
  EXPECT_EQ(keyspace_.stats().expired_keys,
            static_cast<std::uint64_t>(1000 - CountPresent("dead", 1000)));
}

TEST_F(ActiveExpiryTest, StopsAfterOneSampleWhenNoneIsStale) {
  PutMany("live", 1000, now() + 100'000);

  EXPECT_FALSE(expiry_.RunOnce(now(), kTinyBudgetUs));

  EXPECT_EQ(keyspace_.size(), 1000u);
  EXPECT_EQ(expiry_.slices_out_of_budget(), 0u);
}

TEST_F(ActiveExpiryTest, StopsWhenStaleShareIsExactlyTheAcceptableShare) {
  // At most 2 of a 20-key sample can be expired: 10%, which is acceptable.
  PutMany("dead", 2, now() + 10);
  PutMany("live", 1000, now() + 100'000);
  clock_.AdvanceMs(11);

  EXPECT_FALSE(expiry_.RunOnce(now(), kTinyBudgetUs));

  EXPECT_EQ(expiry_.slices_out_of_budget(), 0u);
  EXPECT_EQ(CountPresent("live", 1000), 1000);
}

TEST_F(ActiveExpiryTest, StopsOnBudgetWhileStaleShareStaysHigh) {
  PutMany("dead", 1000, now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_TRUE(expiry_.RunOnce(now(), kTinyBudgetUs));

  // The budget is checked after every loop of at least 20 samples (whole buckets, so a few
  // more), and every sample was an expired key.
  EXPECT_GE(keyspace_.stats().expired_keys, 20u);
  EXPECT_LE(keyspace_.stats().expired_keys, 30u);
  EXPECT_EQ(keyspace_.size(), 1000u - keyspace_.stats().expired_keys);
  EXPECT_EQ(expiry_.slices_out_of_budget(), 1u);
}

TEST_F(ActiveExpiryTest, NextSliceContinuesWhereBudgetStopped) {
  PutMany("dead", 1000, now() + 10);
  clock_.AdvanceMs(11);
  ASSERT_TRUE(expiry_.RunOnce(now(), kTinyBudgetUs));
  const std::size_t after_first = keyspace_.size();

  EXPECT_TRUE(expiry_.RunOnce(now(), kTinyBudgetUs));

  EXPECT_LE(keyspace_.size(), after_first - 20u);
  EXPECT_EQ(expiry_.slices(), 2u);
}

TEST_F(ActiveExpiryTest, StalePercentIsRunningAverage) {
  PutMany("dead", 1000, now() + 10);
  clock_.AdvanceMs(11);

  expiry_.RunOnce(now(), kTinyBudgetUs);

  // 100% stale this slice, weighed 5% against the previous 0%.
  EXPECT_DOUBLE_EQ(expiry_.stale_percent(), 5.0);
}

TEST_F(ActiveExpiryTest, AverageTtlOfSampledLiveKeys) {
  PutMany("live", 100, now() + 5000);

  expiry_.RunOnce(now(), kLargeBudgetUs);

  EXPECT_EQ(expiry_.average_ttl_ms(), 5000);
}

TEST_F(ActiveExpiryTest, KeysPerLoopOptionSetsSampleSize) {
  ActiveExpiry expiry(dbs_, clock_, ActiveExpiryOptions{.keys_per_loop = 5});
  PutMany("dead", 1000, now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_TRUE(expiry.RunOnce(now(), kTinyBudgetUs));

  EXPECT_GE(keyspace_.stats().expired_keys, 5u);
  EXPECT_LT(keyspace_.stats().expired_keys, 20u);
}

TEST_F(ActiveExpiryTest, UsesTheGivenNowNotTheClock) {
  PutMany("dead", 100, now() + 10);

  expiry_.RunOnce(now() + 11, kLargeBudgetUs);

  EXPECT_EQ(keyspace_.size(), 0u);
}

}  // namespace
}  // namespace warden::storage
