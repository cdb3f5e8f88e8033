// Reclaimer: large values and taken-apart keyspaces are freed in bounded slices, small ones at
// once, and everything comes back to the pool in the end.
#include "storage/reclaimer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/entry_pool.h"
#include "storage/hash.h"
#include "storage/keyspace.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

class ReclaimerTest : public ::testing::Test {
 protected:
  // A table of `n` string entries on the shared pool.
  std::unique_ptr<Keyspace> Table(int n) {
    auto table = std::make_unique<Keyspace>(random_, &pool_, &reclaimer_);
    for (int i = 0; i < n; ++i) {
      table->Store("k" + std::to_string(i), "value", kNoDeadline, nullptr);
    }
    return table;
  }

  // A hash of `fields` fields, past any packed limit, under `key` in `keyspace`.
  void PutTableHash(Keyspace& keyspace, std::string_view key, int fields) {
    EncodingLimits limits;
    limits.hash_max_listpack_entries = 0;
    Entry* hash = nullptr;
    for (int i = 0; i < fields; ++i) {
      HashSet(keyspace, hash, key, "f" + std::to_string(i), "v", limits);
    }
  }

  // Steps of `max_entries` until the reclaimer is idle; returns how many steps it took.
  int StepsToIdle(std::size_t max_entries) {
    int steps = 1;
    while (reclaimer_.Step(max_entries)) ++steps;
    return steps;
  }

  Random random_{3};
  EntryPool pool_;
  Reclaimer reclaimer_;
};

TEST_F(ReclaimerTest, StartsIdle) {
  EXPECT_TRUE(reclaimer_.idle());
  EXPECT_FALSE(reclaimer_.Step(100));
}

TEST_F(ReclaimerTest, SmallTableIsFreedOnTheSpot) {
  const std::size_t baseline = pool_.bytes_in_use();

  reclaimer_.Defer(Table(Reclaimer::kDeferAbove - 1));

  EXPECT_TRUE(reclaimer_.idle());
  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

TEST_F(ReclaimerTest, LargeTableIsQueued) {
  const std::size_t baseline = pool_.bytes_in_use();

  reclaimer_.Defer(Table(1000));

  EXPECT_FALSE(reclaimer_.idle());
  EXPECT_EQ(reclaimer_.pending(), 1u);
  EXPECT_GT(pool_.bytes_in_use(), baseline);
}

TEST_F(ReclaimerTest, StepReturnsTrueWhileWorkRemains) {
  reclaimer_.Defer(Table(1000));

  EXPECT_TRUE(reclaimer_.Step(100));
  EXPECT_FALSE(reclaimer_.idle());
}

TEST_F(ReclaimerTest, StepFreesOnlyPartOfALargeTable) {
  const std::size_t baseline = pool_.bytes_in_use();
  reclaimer_.Defer(Table(1000));
  const std::size_t full = pool_.bytes_in_use() - baseline;

  reclaimer_.Step(100);

  const std::size_t left = pool_.bytes_in_use() - baseline;
  EXPECT_LT(left, full);
  // About 100 of 1000 entries: whole chains go at once, so allow some slack.
  EXPECT_GT(left, full / 2);
}

TEST_F(ReclaimerTest, BoundedStepsFreeEverything) {
  const std::size_t baseline = pool_.bytes_in_use();
  reclaimer_.Defer(Table(1000));

  const int steps = StepsToIdle(100);

  EXPECT_GE(steps, 5);
  EXPECT_TRUE(reclaimer_.idle());
  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

TEST_F(ReclaimerTest, StepOfZeroFreesNothing) {
  reclaimer_.Defer(Table(1000));
  const std::size_t before = pool_.bytes_in_use();

  EXPECT_TRUE(reclaimer_.Step(0));
  EXPECT_EQ(pool_.bytes_in_use(), before);
}

TEST_F(ReclaimerTest, DrainFreesEverything) {
  const std::size_t baseline = pool_.bytes_in_use();
  reclaimer_.Defer(Table(1000));
  reclaimer_.Defer(Table(500));

  reclaimer_.Drain();

  EXPECT_TRUE(reclaimer_.idle());
  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

TEST_F(ReclaimerTest, TablesQueuedTogetherAreAllFreed) {
  const std::size_t baseline = pool_.bytes_in_use();
  reclaimer_.Defer(Table(200));
  reclaimer_.Defer(Table(300));

  StepsToIdle(64);

  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

// A flushed database holding large hashes: freeing it defers each hash's table in turn.
TEST_F(ReclaimerTest, LargeValuesInsideATakenKeyspaceAreFreedToo) {
  const std::size_t baseline = pool_.bytes_in_use();
  auto db = std::make_unique<Keyspace>(random_, &pool_, &reclaimer_);
  for (int i = 0; i < 70; ++i) db->Store("s" + std::to_string(i), "v", kNoDeadline, nullptr);
  PutTableHash(*db, "h1", 100);
  PutTableHash(*db, "h2", 100);

  reclaimer_.Defer(db->TakeAll());
  const int steps = StepsToIdle(50);

  EXPECT_GE(steps, 5);
  EXPECT_EQ(db->size(), 0u);
  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

TEST_F(ReclaimerTest, DestructorFreesWhatIsLeft) {
  const std::size_t baseline = pool_.bytes_in_use();
  {
    Reclaimer reclaimer;
    auto table = std::make_unique<Keyspace>(random_, &pool_, &reclaimer);
    for (int i = 0; i < 100; ++i) table->Store(std::to_string(i), "v", kNoDeadline, nullptr);
    reclaimer.Defer(std::move(table));
    ASSERT_FALSE(reclaimer.idle());
  }

  EXPECT_EQ(pool_.bytes_in_use(), baseline);
}

}  // namespace
}  // namespace warden::storage
