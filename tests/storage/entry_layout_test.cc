// The entry header: short keys and values keep their lengths in it, longer ones ("wide"
// entries) in a word after the deadline, and growing a value past the short limit moves the
// entry without losing its key, deadline, value or access time. Access stamps: set by a store,
// renewed by a lookup that touches, kept by MoveTo.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "storage/clock.h"
#include "storage/keyspace.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

constexpr std::size_t kShortKeyMax = 1023;
constexpr std::size_t kShortValueMax = (std::size_t{1} << 24) - 1;

class EntryLayoutTest : public ::testing::Test {
 protected:
  EntryLayoutTest() { keyspace_.set_access_clock(&access_); }

  std::int64_t now() const { return clock_.NowMs(); }

  Entry* Put(std::string_view key, std::string_view value, std::int64_t deadline_ms = kNoDeadline) {
    return keyspace_.Store(key, value, deadline_ms, keyspace_.Find(key, now()));
  }

  void Advance(std::int64_t ms) {
    clock_.AdvanceMs(ms);
    access_.Set(now(), true);
  }

  ManualClock clock_;
  AccessClock access_;
  Random random_{42};
  Keyspace keyspace_{random_};
};

TEST_F(EntryLayoutTest, KeysAtAndPastTheShortLimitAreStoredWhole) {
  const std::string at_limit(kShortKeyMax, 'a');
  const std::string past_limit(kShortKeyMax + 1, 'b');
  Put(at_limit, "one", now() + 5000);
  Put(past_limit, "two", now() + 6000);

  const Entry* a = keyspace_.Find(at_limit, now());
  const Entry* b = keyspace_.Find(past_limit, now());

  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->key(), at_limit);
  EXPECT_EQ(a->value(), "one");
  EXPECT_EQ(b->key(), past_limit);
  EXPECT_EQ(b->value(), "two");
  EXPECT_EQ(b->deadline_ms(), now() + 6000);
  EXPECT_EQ(Keyspace::BlockBytes(*b), Keyspace::BlockBytes(*a) + 1 + 8);
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(EntryLayoutTest, ValueGrownPastTheShortLimitKeepsKeyDeadlineAndBytes) {
  Entry* e = Put("k", std::string(kShortValueMax, 'x'), now() + 1000);

  e = keyspace_.ResizeValue(e, kShortValueMax + 3, Encoding::kStringRaw);
  std::memcpy(Keyspace::ValueBytes(e) + kShortValueMax, "end", 3);

  const Entry* found = keyspace_.Find("k", now());
  ASSERT_EQ(found, e);
  EXPECT_EQ(found->key(), "k");
  EXPECT_EQ(found->value().size(), kShortValueMax + 3);
  EXPECT_EQ(found->value().substr(0, 4), "xxxx");
  EXPECT_EQ(found->value().substr(kShortValueMax), "end");
  EXPECT_EQ(found->deadline_ms(), now() + 1000);
  EXPECT_EQ(found->encoding(), Encoding::kStringRaw);
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(EntryLayoutTest, SetValuePastTheShortLimitAndBackDown) {
  Entry* e = Put("k", "small");
  const std::string big(kShortValueMax + 1, 'y');

  e = keyspace_.SetValue(e, big, Encoding::kString);
  EXPECT_EQ(keyspace_.Find("k", now())->value(), big);

  e = keyspace_.SetValue(e, "small again", Encoding::kString);
  EXPECT_EQ(keyspace_.Find("k", now())->value(), "small again");
  EXPECT_EQ(e->key(), "k");
  EXPECT_TRUE(keyspace_.Verify());
}

TEST_F(EntryLayoutTest, WideEntriesMoveErasesAndChainWithShortOnes) {
  const std::string long_key(4000, 'L');
  for (int i = 0; i < 200; ++i) Put("short:" + std::to_string(i), "v");
  Put(long_key, "long", now() + 9000);

  Entry* e = keyspace_.Find(long_key, now());
  ASSERT_NE(e, nullptr);
  Keyspace other(random_);
  Entry* moved = keyspace_.MoveTo(e, other, long_key + "!", nullptr);

  EXPECT_EQ(moved->key(), long_key + "!");
  EXPECT_EQ(moved->value(), "long");
  EXPECT_EQ(moved->deadline_ms(), now() + 9000);
  EXPECT_EQ(keyspace_.Find(long_key, now()), nullptr);
  EXPECT_TRUE(other.Erase(long_key + "!", now()));
  for (int i = 0; i < 200; ++i) {
    ASSERT_NE(keyspace_.Find("short:" + std::to_string(i), now()), nullptr) << i;
  }
  EXPECT_TRUE(keyspace_.Verify());
  EXPECT_TRUE(other.Verify());
}

TEST_F(EntryLayoutTest, UntimedTablesHoldWideEntriesToo) {
  Keyspace fields(random_, nullptr, nullptr, /*timed=*/false);
  const std::string field(2000, 'f');

  fields.Store(field, "value", kNoDeadline, nullptr);

  const Entry* e = fields.Find(field, now());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->key(), field);
  EXPECT_EQ(e->value(), "value");
  EXPECT_EQ(e->deadline_ms(), kNoDeadline);
}

TEST_F(EntryLayoutTest, StoreStampsAndTouchingLookupRestamps) {
  access_.Set(now(), true);
  Put("k", "v");
  const std::uint32_t stored = AccessClock::StampAt(now());
  Advance(3000);

  EXPECT_EQ(keyspace_.Find("k", now(), Touch::kNo)->access_stamp(), stored);
  EXPECT_EQ(keyspace_.Find("k", now())->access_stamp(), stored + 3);
}

TEST_F(EntryLayoutTest, ClockThatForbidsTouchingLeavesStampsAlone) {
  access_.Set(now(), true);
  Put("k", "v");
  const std::uint32_t stored = access_.now;
  clock_.AdvanceMs(4000);
  access_.Set(now(), false);

  EXPECT_EQ(keyspace_.Find("k", now())->access_stamp(), stored);
}

TEST_F(EntryLayoutTest, WideningKeepsTheAccessStamp) {
  access_.Set(now(), true);
  Entry* e = Put("k", "v");
  const std::uint32_t stored = e->access_stamp();
  Advance(2000);

  e = keyspace_.ResizeValue(e, kShortValueMax + 1, Encoding::kStringRaw);

  EXPECT_EQ(e->access_stamp(), stored);
}

TEST_F(EntryLayoutTest, MoveToKeepsTheStamp) {
  access_.Set(now(), true);
  Entry* e = Put("k", "v");
  const std::uint32_t stored = e->access_stamp();
  Advance(8000);

  Entry* moved = keyspace_.MoveTo(e, keyspace_, "k2", keyspace_.Find("k2", now()));

  EXPECT_EQ(moved->access_stamp(), stored);
}

TEST(AccessClockTest, IdleSecondsAcrossTheWrapAsRedisCountsThem) {
  EXPECT_EQ(AccessClock::IdleSeconds(10, 10), 0);
  EXPECT_EQ(AccessClock::IdleSeconds(10, 25), 15);
  // Redis's estimateObjectIdleTime: now + (LRU_CLOCK_MAX - stamp) once the clock wrapped.
  EXPECT_EQ(AccessClock::IdleSeconds(AccessClock::kMax - 1, 2), 3);
  EXPECT_EQ(AccessClock::StampAt(std::int64_t{AccessClock::kMax + 1} * 1000 + 999), 0u);
  EXPECT_EQ(AccessClock::StampAt(1'700'000'000'999), 1'700'000'000u % (1u << 24));
}

}  // namespace
}  // namespace warden::storage
