// Keyspace without the server: storage, lazy expiry, deadline bookkeeping, sampling, and SCAN's
// guarantee across resizes.
#include "storage/keyspace.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

using namespace std::string_literals;

class KeyspaceTest : public ::testing::Test {
 protected:
  std::int64_t now() const { return clock_.NowMs(); }

  Entry* Put(std::string_view key, std::string_view value, std::int64_t deadline_ms = kNoDeadline) {
    return keyspace_.Store(key, value, deadline_ms, keyspace_.Find(key, now()));
  }

  ManualClock clock_;
  Random random_{42};
  Keyspace keyspace_{random_};
};

TEST_F(KeyspaceTest, StoredKeyIsFound) {
  Put("lock", "me");

  const Entry* e = keyspace_.Find("lock", now());

  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key(), "lock");
  EXPECT_EQ(e->value(), "me");
  EXPECT_FALSE(e->has_deadline());
  EXPECT_EQ(keyspace_.size(), 1u);
}

// Reserve sizes an empty table for a load: the keys go in without a resize, and a keyspace
// that holds keys is left alone.
TEST_F(KeyspaceTest, ReserveSizesAnEmptyTableOnce) {
  keyspace_.Reserve(5000);
  for (int i = 0; i < 5000; ++i) {
    Put("key:" + std::to_string(i), "v");
    ASSERT_FALSE(keyspace_.rehashing()) << "after key " << i;
  }
  EXPECT_TRUE(keyspace_.Verify());
  keyspace_.Reserve(1 << 20);
  EXPECT_FALSE(keyspace_.rehashing());
  EXPECT_EQ(keyspace_.size(), 5000u);
  ASSERT_NE(keyspace_.Find("key:4999", now()), nullptr);
}

TEST_F(KeyspaceTest, ResizeValueKeepsTheBytesAndDeadline) {
  Entry* e = Put("k", "abc", now() + 1000);

  e = keyspace_.ResizeValue(e, 6, Encoding::kStringRaw);
  std::memcpy(Keyspace::ValueBytes(e) + 3, "def", 3);

  EXPECT_EQ(keyspace_.Find("k", now())->value(), "abcdef");
  EXPECT_EQ(e->deadline_ms(), now() + 1000);
  EXPECT_EQ(e->encoding(), Encoding::kStringRaw);
  EXPECT_TRUE(keyspace_.Verify());
}

// Growing a large value moves its block half again as large, so the next appends fit in place.
TEST_F(KeyspaceTest, ResizeValueLeavesRoomToGrowInPlace) {
  Entry* e = Put("k", std::string(4096, 'x'));
  e = keyspace_.ResizeValue(e, 8192, Encoding::kStringRaw);
  Entry* const grown = e;

  e = keyspace_.ResizeValue(e, 12000, Encoding::kStringRaw);

  EXPECT_EQ(e, grown);
  EXPECT_EQ(e->value().substr(0, 4096), std::string(4096, 'x'));
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(KeyspaceTest, MissingKeyIsNotFound) {
  Put("a", "1");

  EXPECT_EQ(keyspace_.Find("b", now()), nullptr);
}

TEST_F(KeyspaceTest, EmptyKeyspaceFindsNothing) {
  EXPECT_EQ(keyspace_.Find("a", now()), nullptr);
  EXPECT_EQ(keyspace_.Peek("a"), nullptr);
}

TEST_F(KeyspaceTest, KeysAndValuesAreBinarySafe) {
  Put("k\0a"s, "v\0\r\n"s);
  Put("k\0b"s, "other");

  const Entry* e = keyspace_.Find("k\0a"s, now());

  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->value(), "v\0\r\n"s);
  EXPECT_EQ(keyspace_.Find("k"s, now()), nullptr);
}

TEST_F(KeyspaceTest, EmptyKeyAndValueAreStored) {
  Put("", "");

  const Entry* e = keyspace_.Find("", now());

  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->value(), "");
}

TEST_F(KeyspaceTest, StoreReplacesValue) {
  Put("k", "old");

  Put("k", "new");

  EXPECT_EQ(keyspace_.Find("k", now())->value(), "new");
  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, EraseByKeyRemovesLiveKey) {
  Put("k", "v");

  EXPECT_TRUE(keyspace_.Erase("k", now()));

  EXPECT_EQ(keyspace_.Find("k", now()), nullptr);
  EXPECT_EQ(keyspace_.size(), 0u);
}

TEST_F(KeyspaceTest, EraseByKeyOfMissingKeyIsFalse) {
  Put("k", "v");

  EXPECT_FALSE(keyspace_.Erase("other", now()));
  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, EraseByKeyOfExpiredKeyIsFalseButRemovesIt) {
  Put("k", "v", now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_FALSE(keyspace_.Erase("k", now()));

  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 1u);
}

TEST_F(KeyspaceTest, EraseEntryRemovesIt) {
  Entry* e = Put("k", "v", now() + 1000);

  keyspace_.Erase(e);

  EXPECT_EQ(keyspace_.Peek("k"), nullptr);
  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.volatile_size(), 0u);
}

TEST_F(KeyspaceTest, KeyIsLiveAtItsDeadline) {
  const std::int64_t deadline = now() + 1000;
  Put("k", "v", deadline);
  clock_.SetMs(deadline);

  EXPECT_NE(keyspace_.Find("k", now()), nullptr);
}

TEST_F(KeyspaceTest, KeyExpiresOneMillisecondAfterItsDeadline) {
  const std::int64_t deadline = now() + 1000;
  Put("k", "v", deadline);
  clock_.SetMs(deadline + 1);

  EXPECT_EQ(keyspace_.Find("k", now()), nullptr);

  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 1u);
}

TEST_F(KeyspaceTest, ExpiredKeyCountsInSizeUntilTouched) {
  Put("k", "v", now() + 1);
  clock_.AdvanceMs(5);

  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, PeekDoesNotExpire) {
  Put("k", "v", now() + 1);
  clock_.AdvanceMs(5);

  const Entry* e = keyspace_.Peek("k");

  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->ExpiredAt(now()));
  EXPECT_EQ(keyspace_.size(), 1u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 0u);
}

TEST_F(KeyspaceTest, EntryWithoutDeadlineNeverExpires) {
  const Entry* e = Put("k", "v");

  EXPECT_FALSE(e->ExpiredAt(INT64_MAX));
}

TEST_F(KeyspaceTest, StoreWithDeadlineMakesKeyVolatile) {
  Put("a", "1", now() + 100);
  Put("b", "1");

  EXPECT_EQ(keyspace_.volatile_size(), 1u);
  EXPECT_EQ(keyspace_.Find("a", now())->deadline_ms(), now() + 100);
}

TEST_F(KeyspaceTest, SetDeadlineTwiceCountsOnce) {
  Entry* e = Put("k", "v");

  keyspace_.SetDeadline(e, now() + 100);
  keyspace_.SetDeadline(e, now() + 200);

  EXPECT_EQ(keyspace_.volatile_size(), 1u);
  EXPECT_EQ(e->deadline_ms(), now() + 200);
}

TEST_F(KeyspaceTest, PersistRemovesFromVolatile) {
  Entry* e = Put("k", "v", now() + 100);

  keyspace_.SetDeadline(e, kNoDeadline);

  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_FALSE(e->has_deadline());
}

TEST_F(KeyspaceTest, StoreWithoutDeadlineClearsOldDeadline) {
  Put("k", "v", now() + 100);

  Put("k", "w");

  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_FALSE(keyspace_.Find("k", now())->has_deadline());
}

TEST_F(KeyspaceTest, PersistInTheMiddleKeepsOthersSampled) {
  Entry* first = Put("a", "1", now() + 10);
  Put("b", "1", now() + 10);
  Put("c", "1", now() + 10);
  keyspace_.SetDeadline(first, kNoDeadline);
  clock_.AdvanceMs(11);

  keyspace_.SampleExpired(now(), 1000);

  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_EQ(keyspace_.size(), 1u);
  EXPECT_NE(keyspace_.Find("a", now()), nullptr);
}

TEST_F(KeyspaceTest, ValueMovingBetweenSlabAndMallocSizesKeepsKeyAndValue) {
  // 24-byte header + 1-byte key: values up to 231 bytes live in slabs, larger ones in malloc.
  for (const std::size_t size : {10u, 231u, 232u, 5000u, 300u, 232u, 231u, 10u, 0u, 100000u, 7u}) {
    const std::string value(size, static_cast<char>('a' + size % 26));
    Put("k", value, now() + 1000);
    const Entry* e = keyspace_.Find("k", now());
    ASSERT_NE(e, nullptr) << size;
    EXPECT_EQ(e->key(), "k");
    EXPECT_EQ(e->value(), value) << size;
    EXPECT_EQ(e->deadline_ms(), now() + 1000);
  }
  EXPECT_EQ(keyspace_.size(), 1u);
  EXPECT_EQ(keyspace_.volatile_size(), 1u);
}

TEST_F(KeyspaceTest, HundredThousandKeysAreFoundAndMissesAreMissed) {
  for (int i = 0; i < 100000; ++i) Put("lock:" + std::to_string(i), std::to_string(i));

  for (int i = 0; i < 100000; ++i) {
    const Entry* e = keyspace_.Find("lock:" + std::to_string(i), now());
    ASSERT_NE(e, nullptr) << i;
    ASSERT_EQ(e->value(), std::to_string(i));
  }
  for (int i = 100000; i < 200000; ++i) {
    ASSERT_EQ(keyspace_.Find("lock:" + std::to_string(i), now()), nullptr) << i;
  }
  // Erase every other key, through a shrink, and look again.
  for (int i = 0; i < 100000; i += 2)
    ASSERT_TRUE(keyspace_.Erase("lock:" + std::to_string(i), now()));
  for (int i = 0; i < 100000; ++i) {
    EXPECT_EQ(keyspace_.Find("lock:" + std::to_string(i), now()) != nullptr, i % 2 == 1) << i;
  }
  EXPECT_EQ(keyspace_.size(), 50000u);
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(KeyspaceTest, LinksStayConsistentThroughRandomInsertsErasesAndResizes) {
  Random pick{7};
  for (int step = 0; step < 200000; ++step) {
    const std::string key = "k" + std::to_string(pick.Below(3000));
    switch (pick.Below(4)) {
      case 0:
      case 1:
        Put(key, std::string(pick.Below(300), 'v'), pick.Below(2) == 0 ? kNoDeadline : now() + 5);
        break;
      case 2:
        keyspace_.Erase(key, now());
        break;
      default:
        clock_.AdvanceMs(1);
        keyspace_.SampleExpired(now(), 20);
        break;
    }
    if (step % 10000 == 0) {
      ASSERT_TRUE(keyspace_.Verify()) << step;
    }
  }
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(KeyspaceTest, ExpirySweepFindsEveryExpiredKeyAcrossResizes) {
  for (int i = 0; i < 5000; ++i) Put("k" + std::to_string(i), "v", now() + 10);
  for (int i = 0; i < 5000; ++i) Put("p" + std::to_string(i), "v");
  clock_.AdvanceMs(11);

  // Sweeping on while keys are added (so the table grows under the cursor) still reaches them
  // all; as they go, the table shrinks again.
  int added = 0;
  for (int call = 0; call < 100000 && keyspace_.volatile_size() > 0; ++call) {
    keyspace_.SampleExpired(now(), 20);
    for (int k = 0; k < 20; ++k) Put("n" + std::to_string(added++), "v");
  }

  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 5000u);
  EXPECT_EQ(keyspace_.size(), 5000u + static_cast<std::size_t>(added));
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(KeyspaceTest, SweepReportsWrappingAroundTheTable) {
  Put("a", "v", now() + 100000);
  bool wrapped = false;
  for (int call = 0; call < 100 && !wrapped; ++call)
    wrapped = keyspace_.SampleExpired(now(), 20).wrapped;

  EXPECT_TRUE(wrapped);
  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, ShorterValueIsReplacedInPlace) {
  Entry* before = Put("k", std::string(100, 'x'), now() + 100);

  Entry* after = Put("k", "short", now() + 200);

  EXPECT_EQ(after, before);
  const Entry* found = keyspace_.Find("k", now());
  ASSERT_EQ(found, after);
  EXPECT_EQ(found->value(), "short");
  EXPECT_EQ(found->deadline_ms(), now() + 200);
  EXPECT_EQ(keyspace_.volatile_size(), 1u);
}

TEST_F(KeyspaceTest, LongerValueIsReallocatedAndStaysFindable) {
  Entry* before = Put("k", "short", now() + 100);
  const std::string long_value(1000, 'y');

  Entry* after = Put("k", long_value, now() + 100);

  EXPECT_NE(after, before);
  const Entry* found = keyspace_.Find("k", now());
  ASSERT_EQ(found, after);
  EXPECT_EQ(found->key(), "k");
  EXPECT_EQ(found->value(), long_value);
  EXPECT_EQ(keyspace_.size(), 1u);
  EXPECT_EQ(keyspace_.volatile_size(), 1u);
}

TEST_F(KeyspaceTest, ReallocatedVolatileEntryIsStillSampled) {
  Put("k", "short", now() + 100);
  Put("k", std::string(1000, 'y'), now() + 100);
  clock_.AdvanceMs(101);

  const ExpireSample sample = keyspace_.SampleExpired(now(), 1);

  EXPECT_EQ(sample.expired, 1);
  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.volatile_size(), 0u);
}

TEST_F(KeyspaceTest, ReallocationInsideChainsKeepsEveryKeyFindable) {
  for (int i = 0; i < 1000; ++i) Put("k" + std::to_string(i), "v", now() + 1000 + i);

  for (int i = 0; i < 1000; i += 3) Put("k" + std::to_string(i), std::string(500, 'z'), now() + 5);

  for (int i = 0; i < 1000; ++i) {
    const Entry* e = keyspace_.Find("k" + std::to_string(i), now());
    ASSERT_NE(e, nullptr) << i;
    EXPECT_EQ(e->value(), i % 3 == 0 ? std::string(500, 'z') : "v") << i;
  }
  EXPECT_EQ(keyspace_.size(), 1000u);
  EXPECT_EQ(keyspace_.volatile_size(), 1000u);
}

TEST_F(KeyspaceTest, ClearEmptiesEverything) {
  for (int i = 0; i < 100; ++i) Put("k" + std::to_string(i), "v", i % 2 ? now() + 10 : kNoDeadline);

  keyspace_.Clear();

  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.volatile_size(), 0u);
  EXPECT_EQ(keyspace_.memory_bytes(), 0u);
  EXPECT_EQ(keyspace_.Find("k1", now()), nullptr);
}

TEST_F(KeyspaceTest, StoreWorksAfterClear) {
  Put("a", "1");
  keyspace_.Clear();

  Put("b", "2");

  EXPECT_EQ(keyspace_.Find("b", now())->value(), "2");
  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, ForEachVisitsEveryEntryIncludingExpired) {
  Put("a", "1");
  Put("b", "1", now() + 1);
  clock_.AdvanceMs(2);
  std::set<std::string> seen;

  keyspace_.ForEach([&](const Entry& e) { seen.emplace(e.key()); });

  EXPECT_EQ(seen, (std::set<std::string>{"a", "b"}));
}

TEST_F(KeyspaceTest, RandomEntryOfEmptyKeyspaceIsNull) {
  EXPECT_EQ(keyspace_.RandomEntry(now()), nullptr);
}

TEST_F(KeyspaceTest, RandomEntryReturnsAStoredKey) {
  Put("a", "1");
  Put("b", "2");
  Put("c", "3");

  const Entry* e = keyspace_.RandomEntry(now());

  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->key() == "a" || e->key() == "b" || e->key() == "c") << e->key();
}

TEST_F(KeyspaceTest, RandomEntryReturnsNullWhenAllExpiredAndRemovesThem) {
  for (int i = 0; i < 50; ++i) Put("k" + std::to_string(i), "v", now() + 1);
  clock_.AdvanceMs(2);

  EXPECT_EQ(keyspace_.RandomEntry(now()), nullptr);

  EXPECT_EQ(keyspace_.size(), 0u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 50u);
}

TEST_F(KeyspaceTest, RandomEntrySkipsExpiredKeys) {
  for (int i = 0; i < 50; ++i) Put("k" + std::to_string(i), "v", now() + 1);
  Put("live", "v");
  clock_.AdvanceMs(2);

  const Entry* e = keyspace_.RandomEntry(now());

  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key(), "live");
  EXPECT_EQ(keyspace_.stats().expired_keys, 51u - keyspace_.size());
}

TEST_F(KeyspaceTest, SampleExpiredWithoutVolatileKeysSamplesNothing) {
  Put("a", "1");

  const ExpireSample sample = keyspace_.SampleExpired(now(), 20);

  EXPECT_EQ(sample.sampled, 0);
  EXPECT_EQ(sample.expired, 0);
}

TEST_F(KeyspaceTest, SampleExpiredRemovesOnlyExpiredKeys) {
  for (int i = 0; i < 10; ++i) Put("dead" + std::to_string(i), "v", now() + 1);
  for (int i = 0; i < 10; ++i) Put("live" + std::to_string(i), "v", now() + 1000);
  for (int i = 0; i < 10; ++i) Put("persistent" + std::to_string(i), "v");
  clock_.AdvanceMs(2);

  const ExpireSample sample = keyspace_.SampleExpired(now(), 10000);

  EXPECT_EQ(sample.sampled, 10000);
  EXPECT_EQ(sample.expired, 10);
  EXPECT_EQ(keyspace_.size(), 20u);
  EXPECT_EQ(keyspace_.volatile_size(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_NE(keyspace_.Peek("live" + std::to_string(i)), nullptr) << i;
    EXPECT_NE(keyspace_.Peek("persistent" + std::to_string(i)), nullptr) << i;
  }
}

TEST_F(KeyspaceTest, SampleExpiredSumsRemainingTtlOfLiveSamples) {
  for (int i = 0; i < 5; ++i) Put("k" + std::to_string(i), "v", now() + 1000);
  clock_.AdvanceMs(400);

  const ExpireSample sample = keyspace_.SampleExpired(now(), 20);

  EXPECT_EQ(sample.sampled, 20);
  EXPECT_EQ(sample.expired, 0);
  EXPECT_EQ(sample.ttl_sum_ms, 20 * 600);
}

TEST_F(KeyspaceTest, SampleExpiredStopsWhenNoVolatileKeysRemain) {
  for (int i = 0; i < 3; ++i) Put("k" + std::to_string(i), "v", now() + 1);
  clock_.AdvanceMs(2);

  const ExpireSample sample = keyspace_.SampleExpired(now(), 20);

  EXPECT_EQ(sample.sampled, 3);
  EXPECT_EQ(sample.expired, 3);
}

TEST_F(KeyspaceTest, ExpireDueRemovesKeysAtOrBeforeNow) {
  for (int i = 0; i < 10; ++i) Put("due" + std::to_string(i), "v", now() + 100 - i);
  for (int i = 0; i < 10; ++i) Put("later" + std::to_string(i), "v", now() + 101 + i);
  Put("persistent", "v");

  EXPECT_EQ(keyspace_.ExpireDue(now() + 100), 10u);

  EXPECT_EQ(keyspace_.size(), 11u);
  EXPECT_EQ(keyspace_.volatile_size(), 10u);
  EXPECT_EQ(keyspace_.stats().expired_keys, 10u);
  for (int i = 0; i < 10; ++i) EXPECT_NE(keyspace_.Peek("later" + std::to_string(i)), nullptr);
}

TEST_F(KeyspaceTest, ExpireDueWithNothingDueRemovesNothing) {
  Put("k", "v", now() + 100);

  EXPECT_EQ(keyspace_.ExpireDue(now() + 99), 0u);
  EXPECT_EQ(keyspace_.size(), 1u);
}

TEST_F(KeyspaceTest, ScanOfEmptyKeyspaceEndsAtOnce) {
  std::vector<Entry*> out;

  EXPECT_EQ(keyspace_.Scan(0, 10, out), 0u);
  EXPECT_TRUE(out.empty());
}

TEST_F(KeyspaceTest, ScanWithLargeCountReturnsAllKeysAndCursorZero) {
  for (int i = 0; i < 20; ++i) Put("k" + std::to_string(i), "v");
  while (keyspace_.RehashSteps(100)) {
  }
  std::vector<Entry*> out;

  EXPECT_EQ(keyspace_.Scan(0, 1000, out), 0u);

  std::set<std::string> keys;
  for (const Entry* e : out) keys.emplace(e->key());
  EXPECT_EQ(keys.size(), 20u);
  EXPECT_EQ(out.size(), 20u);
}

TEST_F(KeyspaceTest, ScanReturnsExpiredEntriesForTheCallerToFilter) {
  Put("k", "v", now() + 1);
  clock_.AdvanceMs(2);
  std::vector<Entry*> out;

  keyspace_.Scan(0, 10, out);

  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->key(), "k");
  EXPECT_EQ(keyspace_.size(), 1u);
}

// SCAN's guarantee: a full iteration (cursor 0 back to 0) returns every key that was present
// from start to end at least once, however the table resizes between calls.
class KeyspaceScanTest : public KeyspaceTest, public ::testing::WithParamInterface<int> {
 protected:
  // Runs one full iteration with COUNT GetParam(), calling `between` after each call with the
  // number of calls so far. Returns every key seen.
  std::set<std::string> FullScan(const std::function<void(int)>& between) {
    std::set<std::string> seen;
    std::uint64_t cursor = 0;
    int calls = 0;
    std::vector<Entry*> out;
    do {
      out.clear();
      if (keyspace_.rehashing()) ++calls_while_rehashing_;
      cursor = keyspace_.Scan(cursor, static_cast<std::size_t>(GetParam()), out);
      for (const Entry* e : out) seen.emplace(e->key());
      between(++calls);
    } while (cursor != 0 && calls < 1'000'000);
    EXPECT_EQ(cursor, 0u) << "the iteration did not end";
    return seen;
  }

  void ExpectContainsAll(const std::set<std::string>& seen, const std::vector<std::string>& keys) {
    for (const std::string& k : keys) EXPECT_TRUE(seen.count(k) == 1) << "missed " << k;
  }

  std::vector<std::string> PutMany(std::string_view prefix, int n) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) {
      keys.push_back(std::string(prefix) + std::to_string(i));
      Put(keys.back(), "v");
    }
    return keys;
  }

  void FinishRehash() {
    while (keyspace_.RehashSteps(1000)) {
    }
  }

  int calls_while_rehashing_ = 0;
};

TEST_P(KeyspaceScanTest, StableTableReturnsEveryKeyExactlyOnce) {
  const std::vector<std::string> keys = PutMany("k", 500);
  FinishRehash();
  std::multiset<std::string> seen;
  std::uint64_t cursor = 0;
  std::vector<Entry*> out;

  do {
    out.clear();
    cursor = keyspace_.Scan(cursor, static_cast<std::size_t>(GetParam()), out);
    for (const Entry* e : out) seen.emplace(e->key());
  } while (cursor != 0);

  EXPECT_EQ(seen.size(), 500u);
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 500u);
}

TEST_P(KeyspaceScanTest, ReturnsEveryKeyWhileTableGrows) {
  const std::vector<std::string> keys = PutMany("k", 100);
  FinishRehash();
  int added = 0;

  const std::set<std::string> seen = FullScan([&](int) {
    for (int i = 0; i < 200 && added < 20'000; ++i) Put("n" + std::to_string(added++), "v");
    FinishRehash();
  });

  ExpectContainsAll(seen, keys);
  EXPECT_GT(keyspace_.size(), 300u);
}

TEST_P(KeyspaceScanTest, ReturnsEveryKeyWhileTableShrinks) {
  std::vector<std::string> stable;
  std::vector<std::string> doomed;
  for (int i = 0; i < 4000; ++i) {
    (i % 40 == 0 ? stable : doomed).push_back("k" + std::to_string(i));
    Put((i % 40 == 0 ? stable : doomed).back(), "v");
  }
  FinishRehash();

  const std::set<std::string> seen = FullScan([&](int) {
    for (int i = 0; i < 300 && !doomed.empty(); ++i) {
      keyspace_.Erase(doomed.back(), now());
      doomed.pop_back();
    }
    FinishRehash();
  });

  ExpectContainsAll(seen, stable);
}

TEST_P(KeyspaceScanTest, ReturnsEveryKeyWhileGrowingMidRehash) {
  const std::vector<std::string> keys = PutMany("k", 200);
  int added = 0;

  const std::set<std::string> seen = FullScan([&](int) {
    for (int i = 0; i < 40 && added < 20'000; ++i) {
      Put("n" + std::to_string(added++), "v");
      keyspace_.RehashSteps(1);
    }
  });

  ExpectContainsAll(seen, keys);
  EXPECT_GT(calls_while_rehashing_, 0);
}

TEST_P(KeyspaceScanTest, ReturnsEveryKeyWhileShrinkingMidRehash) {
  std::vector<std::string> stable;
  std::vector<std::string> doomed;
  for (int i = 0; i < 4000; ++i) {
    (i % 40 == 0 ? stable : doomed).push_back("k" + std::to_string(i));
    Put((i % 40 == 0 ? stable : doomed).back(), "v");
  }
  FinishRehash();

  // The first batch leaves under 10% of the buckets used, which starts a shrink; the later
  // calls run while it is in progress.
  const std::set<std::string> seen = FullScan([&](int call) {
    for (int i = 0; i < (call == 1 ? 3650 : 20) && !doomed.empty(); ++i) {
      keyspace_.Erase(keyspace_.Find(doomed.back(), now()));
      doomed.pop_back();
    }
    keyspace_.RehashSteps(1);
  });

  ExpectContainsAll(seen, stable);
  EXPECT_GT(calls_while_rehashing_, 0);
}

TEST_P(KeyspaceScanTest, ReturnsEveryKeyWhileGrowingAndShrinking) {
  std::vector<std::string> stable = PutMany("s", 100);
  std::vector<std::string> churn = PutMany("c", 1000);
  int added = 0;

  const std::set<std::string> seen = FullScan([&](int call) {
    if (call % 4 < 2) {
      for (int i = 0; i < 300 && added < 20'000; ++i) {
        churn.push_back("n" + std::to_string(added++));
        Put(churn.back(), "v");
      }
    } else {
      for (int i = 0; i < 400 && !churn.empty(); ++i) {
        keyspace_.Erase(churn.back(), now());
        churn.pop_back();
      }
    }
    keyspace_.RehashSteps(3);
  });

  ExpectContainsAll(seen, stable);
}

// Right after a growth the new table is twice the old and nearly empty. Taking the keyspace
// apart, a call crosses at most 64 empty buckets per entry of its budget: before, one call
// crossed the whole empty stretch (10 ms for the 16M buckets of a 10M-field hash).
TEST_F(KeyspaceTest, ClearSomeIsBoundedAcrossEmptyBuckets) {
  // Until a growth starts: both tables then, the old one of S buckets and the new one of 2S.
  std::size_t before = keyspace_.bucket_bytes();
  int i = 0;
  while (keyspace_.bucket_bytes() <= before || i < 10000) {
    before = keyspace_.bucket_bytes();
    Put("key:" + std::to_string(i++), "v");
  }
  const std::size_t new_table = (keyspace_.bucket_bytes() - before) / sizeof(std::uintptr_t);
  std::size_t position = 0;
  std::size_t largest_step = 0;
  bool in_new_table = false;
  std::size_t calls_in_new_table = 0;
  bool done = false;
  while (!done) {
    done = keyspace_.ClearSome(1);
    const std::size_t now = keyspace_.clear_position();
    if (now < position) in_new_table = true;  // the old table is done: the index starts again
    if (in_new_table) ++calls_in_new_table;
    if (!done && now > position) largest_step = std::max(largest_step, now - position);
    position = now;
  }
  EXPECT_LE(largest_step, 64u + 1);
  EXPECT_GE(calls_in_new_table, new_table / 64 - 1) << new_table << " buckets";
  EXPECT_EQ(keyspace_.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(CountHints, KeyspaceScanTest, ::testing::Values(1, 10, 100));

}  // namespace
}  // namespace warden::storage
