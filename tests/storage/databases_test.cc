// Databases without the server: SWAPDB, FLUSHDB and FLUSHALL, large values handed to the shared
// reclaimer, values moved between databases with their deadlines, and expiry of typed values.
#include "storage/databases.h"

#include <gtest/gtest.h>

#include <string>

#include "storage/clock.h"
#include "storage/hash.h"
#include "storage/random.h"
#include "storage/set.h"

namespace warden::storage {
namespace {

// Tables of this many fields are past Reclaimer::kDeferAbove: freeing them is deferred.
constexpr int kLargeFields = 100;
// A flush of this many keys is past the size freed in place.
constexpr int kLargeFlushKeys = 5000;

class DatabasesTest : public ::testing::Test {
 protected:
  DatabasesTest() { limits_.hash_max_listpack_entries = 4; }

  std::int64_t now() const { return clock_.NowMs(); }

  Keyspace& db(int index) { return dbs_.db(index); }

  void Put(int index, std::string_view key, std::string_view value,
           std::int64_t deadline_ms = kNoDeadline) {
    db(index).Store(key, value, deadline_ms, db(index).Find(key, now()));
  }

  void PutMany(int index, int n) {
    for (int i = 0; i < n; ++i) Put(index, "key:" + std::to_string(i), "v");
  }

  // A hash of `fields` fields under `key`: a table once past the packed limit.
  Entry* PutHash(int index, std::string_view key, int fields) {
    Entry* hash = db(index).Find(key, now());
    for (int i = 0; i < fields; ++i) {
      HashSet(db(index), hash, key, "f" + std::to_string(i), "v" + std::to_string(i), limits_);
    }
    return hash;
  }

  // Steps of `max_entries` until the reclaimer is idle; returns how many steps it took.
  int StepsToIdle(std::size_t max_entries) {
    int steps = 1;
    while (dbs_.reclaimer().Step(max_entries)) ++steps;
    return steps;
  }

  std::size_t pool_bytes() { return dbs_.pool().bytes_in_use(); }

  ManualClock clock_;
  Random random_{11};
  Databases dbs_{random_, 16};
  EncodingLimits limits_;
};

TEST_F(DatabasesTest, StartsWithSixteenEmptyDatabases) {
  EXPECT_EQ(dbs_.count(), 16);
  EXPECT_EQ(dbs_.total_keys(), 0u);
}

TEST_F(DatabasesTest, DatabasesHoldSeparateKeys) {
  Put(0, "k", "zero");
  Put(5, "k", "five");

  EXPECT_EQ(db(0).Find("k", now())->value(), "zero");
  EXPECT_EQ(db(5).Find("k", now())->value(), "five");
  EXPECT_EQ(db(1).Find("k", now()), nullptr);
  EXPECT_EQ(dbs_.total_keys(), 2u);
}

TEST_F(DatabasesTest, SwapExchangesContents) {
  Put(0, "a", "1");
  Put(1, "b", "2");
  Put(1, "c", "3");

  dbs_.Swap(0, 1);

  EXPECT_EQ(db(0).size(), 2u);
  EXPECT_EQ(db(0).Find("b", now())->value(), "2");
  EXPECT_EQ(db(0).Find("a", now()), nullptr);
  EXPECT_EQ(db(1).size(), 1u);
  EXPECT_EQ(db(1).Find("a", now())->value(), "1");
}

TEST_F(DatabasesTest, SwapCarriesDeadlines) {
  Put(0, "a", "1", now() + 1000);

  dbs_.Swap(0, 2);

  EXPECT_EQ(db(2).volatile_size(), 1u);
  EXPECT_EQ(db(0).volatile_size(), 0u);
  EXPECT_EQ(db(2).Find("a", now())->deadline_ms(), now() + 1000);
}

TEST_F(DatabasesTest, KeyspaceSwapExchangesContents) {
  Put(0, "a", "1");
  PutMany(1, 100);

  db(0).Swap(db(1));

  EXPECT_EQ(db(0).size(), 100u);
  EXPECT_NE(db(0).Find("key:42", now()), nullptr);
  EXPECT_EQ(db(1).size(), 1u);
  EXPECT_NE(db(1).Find("a", now()), nullptr);
  EXPECT_TRUE(db(0).Verify());
  EXPECT_TRUE(db(1).Verify());
}

TEST_F(DatabasesTest, FlushOfOneDatabaseLeavesTheOthers) {
  Put(0, "a", "1");
  Put(1, "b", "2");
  Put(15, "c", "3");

  dbs_.Flush(1);

  EXPECT_EQ(db(1).size(), 0u);
  EXPECT_EQ(db(0).size(), 1u);
  EXPECT_EQ(db(15).size(), 1u);
}

TEST_F(DatabasesTest, FlushAllEmptiesEveryDatabase) {
  Put(0, "a", "1");
  Put(7, "b", "2", now() + 1000);
  PutHash(15, "h", kLargeFields);

  dbs_.FlushAll();
  dbs_.reclaimer().Drain();

  EXPECT_EQ(dbs_.total_keys(), 0u);
  EXPECT_EQ(db(7).volatile_size(), 0u);
}

TEST_F(DatabasesTest, SmallFlushFreesAtOnce) {
  const std::size_t baseline = pool_bytes();
  PutMany(0, 100);

  dbs_.Flush(0);

  EXPECT_TRUE(dbs_.reclaimer().idle());
  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, LargeFlushEmptiesDatabaseAtOnce) {
  PutMany(0, kLargeFlushKeys);

  dbs_.Flush(0);

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(db(0).Find("key:1", now()), nullptr);
  EXPECT_FALSE(dbs_.reclaimer().idle());
}

TEST_F(DatabasesTest, LargeFlushedDatabaseTakesNewKeysAtOnce) {
  PutMany(0, kLargeFlushKeys);
  dbs_.Flush(0);

  Put(0, "key:1", "new");

  EXPECT_EQ(db(0).size(), 1u);
  EXPECT_EQ(db(0).Find("key:1", now())->value(), "new");
  EXPECT_TRUE(db(0).Verify());
}

TEST_F(DatabasesTest, LargeFlushIsFreedInBoundedSteps) {
  const std::size_t baseline = pool_bytes();
  PutMany(0, kLargeFlushKeys);
  const std::size_t full = pool_bytes() - baseline;
  dbs_.Flush(0);

  ASSERT_TRUE(dbs_.reclaimer().Step(500));
  const std::size_t after_one_step = pool_bytes() - baseline;
  const int steps = 1 + StepsToIdle(500);

  EXPECT_LT(after_one_step, full);
  EXPECT_GT(after_one_step, full / 2);
  EXPECT_GE(steps, kLargeFlushKeys / 1000);
  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, LargeFlushDuringResizeIsFreedCompletely) {
  const std::size_t baseline = pool_bytes();
  PutMany(0, kLargeFlushKeys);
  for (int n = kLargeFlushKeys; !db(0).rehashing(); ++n) Put(0, "key:" + std::to_string(n), "v");

  dbs_.Flush(0);
  StepsToIdle(500);

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, KeyspaceSwapDuringResizeKeepsEveryKey) {
  int n = 0;
  while (n < 100 || !db(0).rehashing()) Put(0, "key:" + std::to_string(n++), "v");

  db(0).Swap(db(1));

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(db(1).size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_NE(db(1).Find("key:" + std::to_string(i), now()), nullptr) << i;
  }
  EXPECT_TRUE(db(1).Verify());
}

TEST_F(DatabasesTest, ErasingLargeHashDefersItsTable) {
  const std::size_t baseline = pool_bytes();
  PutHash(0, "h", kLargeFields);

  db(0).Erase("h", now());

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(dbs_.reclaimer().pending(), 1u);
  EXPECT_GT(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, DeferredHashIsFreedBySteps) {
  const std::size_t baseline = pool_bytes();
  PutHash(0, "h", kLargeFields);
  db(0).Erase("h", now());

  StepsToIdle(10);

  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, ErasingSmallTableFreesItAtOnce) {
  const std::size_t baseline = pool_bytes();
  PutHash(0, "h", 10);
  ASSERT_EQ(db(0).Find("h", now())->encoding(), Encoding::kHashTable);

  db(0).Erase("h", now());

  EXPECT_TRUE(dbs_.reclaimer().idle());
  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, OverwritingLargeHashDefersItsTable) {
  PutHash(0, "h", kLargeFields);

  Put(0, "h", "now a string");

  EXPECT_EQ(dbs_.reclaimer().pending(), 1u);
  EXPECT_EQ(db(0).Find("h", now())->value(), "now a string");
  EXPECT_TRUE(db(0).Find("h", now())->is_string());
}

TEST_F(DatabasesTest, MoveToAnotherDatabaseCarriesLargeValueAndDeadline) {
  Entry* hash = PutHash(0, "h", kLargeFields);
  db(0).SetDeadline(hash, now() + 30'000);
  const Keyspace* table = hash->table();

  const Entry* moved = db(0).MoveTo(hash, db(3), "h", nullptr);

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(db(0).volatile_size(), 0u);
  ASSERT_EQ(moved, db(3).Find("h", now()));
  EXPECT_EQ(moved->encoding(), Encoding::kHashTable);
  EXPECT_EQ(moved->table(), table);
  EXPECT_EQ(moved->deadline_ms(), now() + 30'000);
  EXPECT_EQ(db(3).volatile_size(), 1u);
  EXPECT_EQ(HashLength(*moved), static_cast<std::size_t>(kLargeFields));
  EXPECT_TRUE(dbs_.reclaimer().idle());
}

TEST_F(DatabasesTest, MovedLargeValueIsFreedOnceWhenErased) {
  const std::size_t baseline = pool_bytes();
  Entry* hash = PutHash(0, "h", kLargeFields);
  db(0).MoveTo(hash, db(3), "h", nullptr);

  db(3).Erase("h", now());
  dbs_.reclaimer().Drain();

  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, MoveToReplacesExistingKeyInDestination) {
  Entry* hash = PutHash(0, "h", kLargeFields);
  PutHash(3, "h", kLargeFields);

  db(0).MoveTo(hash, db(3), "h", db(3).Find("h", now()));

  EXPECT_EQ(db(3).size(), 1u);
  EXPECT_EQ(dbs_.reclaimer().pending(), 1u);
  EXPECT_EQ(HashLength(*db(3).Find("h", now())), static_cast<std::size_t>(kLargeFields));
}

TEST_F(DatabasesTest, MoveToRenamesWithinADatabase) {
  Put(0, "a", "v", now() + 500);

  db(0).MoveTo(db(0).Find("a", now()), db(0), "b", nullptr);

  EXPECT_EQ(db(0).Find("a", now()), nullptr);
  ASSERT_NE(db(0).Find("b", now()), nullptr);
  EXPECT_EQ(db(0).Find("b", now())->deadline_ms(), now() + 500);
  EXPECT_EQ(db(0).volatile_size(), 1u);
  EXPECT_TRUE(db(0).Verify());
}

TEST_F(DatabasesTest, FindAfterDeadlineRemovesHashKey) {
  Entry* hash = PutHash(0, "h", 2);
  db(0).SetDeadline(hash, now() + 100);
  clock_.AdvanceMs(101);

  EXPECT_EQ(db(0).Find("h", now()), nullptr);
  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(db(0).volatile_size(), 0u);
}

TEST_F(DatabasesTest, ExpiredLargeHashIsDeferredAndFreed) {
  const std::size_t baseline = pool_bytes();
  Entry* hash = PutHash(0, "h", kLargeFields);
  db(0).SetDeadline(hash, now() + 100);
  clock_.AdvanceMs(101);

  db(0).Find("h", now());
  dbs_.reclaimer().Drain();

  EXPECT_EQ(db(0).size(), 0u);
  EXPECT_EQ(pool_bytes(), baseline);
}

TEST_F(DatabasesTest, ExpiredSetKeyIsRemoved) {
  Entry* set = nullptr;
  SetAdd(db(2), set, "s", "member", limits_);
  db(2).SetDeadline(set, now() + 100);
  clock_.AdvanceMs(101);

  EXPECT_EQ(db(2).Find("s", now()), nullptr);
  EXPECT_EQ(db(2).size(), 0u);
}

TEST_F(DatabasesTest, ExpireDueCoversEveryDatabase) {
  Put(0, "a", "1", now() + 100);
  PutHash(3, "h", kLargeFields);
  db(3).SetDeadline(db(3).Find("h", now()), now() + 100);
  Put(15, "c", "3", now() + 100);
  Put(15, "kept", "4");
  Put(9, "later", "5", now() + 1000);

  EXPECT_EQ(dbs_.ExpireDue(now() + 100), 3u);

  EXPECT_EQ(dbs_.total_keys(), 2u);
  EXPECT_NE(db(15).Find("kept", now()), nullptr);
  EXPECT_NE(db(9).Find("later", now()), nullptr);
  EXPECT_EQ(dbs_.expired_keys(), 3u);
}

TEST_F(DatabasesTest, StructureStaysValidThroughTypedOperations) {
  PutMany(0, 300);
  PutHash(0, "h", kLargeFields);
  Entry* set = nullptr;
  for (int i = 0; i < 20; ++i) SetAdd(db(0), set, "s", std::to_string(i), limits_);
  db(0).SetDeadline(db(0).Find("s", now()), now() + 10);
  for (int i = 0; i < 200; ++i) db(0).Erase("key:" + std::to_string(i), now());
  db(0).MoveTo(db(0).Find("h", now()), db(1), "h", nullptr);
  clock_.AdvanceMs(11);
  db(0).Find("s", now());

  EXPECT_TRUE(db(0).Verify());
  EXPECT_TRUE(db(1).Verify());
  EXPECT_EQ(db(0).size(), 100u);
}

TEST_F(DatabasesTest, MemoryBytesCountsTheSharedPool) {
  const std::size_t before = dbs_.memory_bytes();

  PutMany(4, 10);

  EXPECT_GT(dbs_.memory_bytes(), before);
}

}  // namespace
}  // namespace warden::storage
