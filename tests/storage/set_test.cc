// Set values without the server: which strings are intset integers, the sorted intset, the
// one-way conversion to a table, the key going with its last member, and random draws.
#include "storage/set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

using Members = std::vector<std::string>;

struct CanonicalCase {
  const char* text;
  std::int64_t value;
};

class CanonicalInt64AcceptedTest : public ::testing::TestWithParam<CanonicalCase> {};

TEST_P(CanonicalInt64AcceptedTest, ParsesToItsValue) {
  std::int64_t out = 12345;

  EXPECT_TRUE(ParseCanonicalInt64(GetParam().text, out));
  EXPECT_EQ(out, GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(Forms, CanonicalInt64AcceptedTest,
                         ::testing::Values(CanonicalCase{"0", 0}, CanonicalCase{"-1", -1},
                                           CanonicalCase{"7", 7}, CanonicalCase{"10", 10},
                                           CanonicalCase{"9223372036854775807", INT64_MAX},
                                           CanonicalCase{"-9223372036854775808", INT64_MIN}));

// Redis's string2ll refuses these, so such members never go into an intset.
class CanonicalInt64RejectedTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CanonicalInt64RejectedTest, IsNotAnInteger) {
  std::int64_t out = 0;

  EXPECT_FALSE(ParseCanonicalInt64(GetParam(), out));
}

INSTANTIATE_TEST_SUITE_P(Forms, CanonicalInt64RejectedTest,
                         ::testing::Values("01", "+1", "-0", " 1", "1 ", "", "-", "00",
                                           "9223372036854775808", "-9223372036854775809",
                                           "99999999999999999999", "1.0", "1e3", "0x10", "abc"));

class SetTest : public ::testing::Test {
 protected:
  SetTest() { limits_.set_max_intset_entries = 4; }

  std::int64_t now() const { return clock_.NowMs(); }

  bool Add(std::string_view key, std::string_view member) {
    Entry* set = keyspace_.Find(key, now());
    return SetAdd(keyspace_, set, key, member, limits_);
  }

  bool Remove(std::string_view key, std::string_view member) {
    Entry* set = keyspace_.Find(key, now());
    return SetRemove(keyspace_, set, member);
  }

  Entry* Set(std::string_view key) { return keyspace_.Find(key, now()); }

  Members Contents(std::string_view key) {
    Members out;
    SetForEach(*Set(key), [&](std::string_view m) { out.emplace_back(m); });
    return out;
  }

  Members SortedContents(std::string_view key) {
    Members out = Contents(key);
    std::sort(out.begin(), out.end());
    return out;
  }

  ManualClock clock_;
  Random random_{42};
  Keyspace keyspace_{random_};
  EncodingLimits limits_;
};

TEST_F(SetTest, IntegerMemberCreatesIntset) {
  Entry* set = nullptr;

  EXPECT_TRUE(SetAdd(keyspace_, set, "s", "5", limits_));

  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->type(), ValueType::kSet);
  EXPECT_EQ(set->encoding(), Encoding::kSetInts);
  EXPECT_EQ(SetSize(*set), 1u);
}

TEST_F(SetTest, TextMemberCreatesPackedSet) {
  Add("s", "a");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
  EXPECT_EQ(SetSize(*Set("s")), 1u);
}

TEST_F(SetTest, MemberLongerThanPackedLimitCreatesTable) {
  Add("s", std::string(kMaxPackedSetMember + 1, 'm'));

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetTable);
}

TEST_F(SetTest, PackedSetKeepsInsertionOrder) {
  Add("s", "b");
  Add("s", "a");
  Add("s", "c");

  EXPECT_EQ(Contents("s"), (Members{"b", "a", "c"}));
}

TEST_F(SetTest, PackedSetBecomesTablePastItsEntriesLimit) {
  for (std::size_t i = 0; i < kMaxPackedSetEntries; ++i) Add("s", "m" + std::to_string(i));
  ASSERT_EQ(Set("s")->encoding(), Encoding::kSetPacked);

  Add("s", "one-more");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetTable);
  EXPECT_EQ(SetSize(*Set("s")), kMaxPackedSetEntries + 1);
}

TEST_F(SetTest, PackedSetRemovesAndEmpties) {
  Add("s", "a");
  Add("s", "b");

  EXPECT_TRUE(Remove("s", "a"));
  EXPECT_FALSE(Remove("s", "a"));
  EXPECT_EQ(Contents("s"), (Members{"b"}));
  EXPECT_TRUE(Remove("s", "b"));
  EXPECT_EQ(Set("s"), nullptr);
}

TEST_F(SetTest, NonCanonicalIntegerCreatesPackedSet) {
  Add("s", "01");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
  EXPECT_EQ(Contents("s"), (Members{"01"}));
}

TEST_F(SetTest, IntsetListsMembersInAscendingOrder) {
  Add("s", "3");
  Add("s", "-10");
  Add("s", "100");
  Add("s", "0");

  EXPECT_EQ(Contents("s"), (Members{"-10", "0", "3", "100"}));
}

TEST_F(SetTest, IntsetHoldsInt64Extremes) {
  Add("s", "9223372036854775807");
  Add("s", "-9223372036854775808");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetInts);
  EXPECT_EQ(Contents("s"), (Members{"-9223372036854775808", "9223372036854775807"}));
}

TEST_F(SetTest, AddOfExistingIntegerReturnsFalse) {
  Add("s", "1");

  EXPECT_FALSE(Add("s", "1"));
  EXPECT_EQ(SetSize(*Set("s")), 1u);
}

TEST_F(SetTest, AddOfExistingTextMemberReturnsFalse) {
  Add("s", "a");

  EXPECT_FALSE(Add("s", "a"));
  EXPECT_EQ(SetSize(*Set("s")), 1u);
}

TEST_F(SetTest, TextMemberConvertsIntsetToPackedSet) {
  Add("s", "1");
  Add("s", "2");

  EXPECT_TRUE(Add("s", "x"));

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
  EXPECT_EQ(SortedContents("s"), (Members{"1", "2", "x"}));
}

TEST_F(SetTest, StaysIntsetAtEntriesLimit) {
  for (int i = 0; i < 4; ++i) Add("s", std::to_string(i));

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetInts);
}

TEST_F(SetTest, ConvertsToTablePastEntriesLimit) {
  for (int i = 0; i < 5; ++i) Add("s", std::to_string(i));

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetTable);
  EXPECT_EQ(SortedContents("s"), (Members{"0", "1", "2", "3", "4"}));
}

// Redis's set-max-intset-entries 0: even one integer is too many for an intset.
TEST_F(SetTest, ZeroEntriesLimitPacksIntegersAsText) {
  limits_.set_max_intset_entries = 0;

  Add("s", "1");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
}

TEST_F(SetTest, PackedSetStaysPackedWhenTextMemberIsRemoved) {
  Add("s", "1");
  Add("s", "x");

  Remove("s", "x");

  EXPECT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
  EXPECT_EQ(Contents("s"), (Members{"1"}));
}

TEST_F(SetTest, IntegerAddedToTableIsFoundAsText) {
  Add("s", "x");

  Add("s", "7");

  EXPECT_TRUE(SetContains(*Set("s"), "7"));
}

TEST_F(SetTest, IntsetContainsItsMembers) {
  Add("s", "1");
  Add("s", "-5");

  EXPECT_TRUE(SetContains(*Set("s"), "1"));
  EXPECT_TRUE(SetContains(*Set("s"), "-5"));
  EXPECT_FALSE(SetContains(*Set("s"), "2"));
}

TEST_F(SetTest, IntsetDoesNotContainANonCanonicalSpelling) {
  Add("s", "1");

  EXPECT_FALSE(SetContains(*Set("s"), "01"));
  EXPECT_FALSE(SetContains(*Set("s"), "+1"));
  EXPECT_FALSE(SetContains(*Set("s"), "x"));
}

TEST_F(SetTest, TableContainsItsMembers) {
  Add("s", "a");
  Add("s", "1");

  EXPECT_TRUE(SetContains(*Set("s"), "a"));
  EXPECT_TRUE(SetContains(*Set("s"), "1"));
  EXPECT_FALSE(SetContains(*Set("s"), "b"));
}

TEST_F(SetTest, RemoveFromIntsetKeepsOrder) {
  for (const char* m : {"4", "1", "3", "2"}) Add("s", m);

  EXPECT_TRUE(Remove("s", "3"));

  EXPECT_EQ(Contents("s"), (Members{"1", "2", "4"}));
}

TEST_F(SetTest, RemoveOfMissingMemberReturnsFalse) {
  Add("s", "1");

  EXPECT_FALSE(Remove("s", "2"));
  EXPECT_FALSE(Remove("s", "x"));
  EXPECT_EQ(SetSize(*Set("s")), 1u);
}

TEST_F(SetTest, RemovingLastIntegerRemovesKey) {
  Entry* set = nullptr;
  SetAdd(keyspace_, set, "s", "1", limits_);

  EXPECT_TRUE(SetRemove(keyspace_, set, "1"));

  EXPECT_EQ(set, nullptr);
  EXPECT_EQ(keyspace_.size(), 0u);
}

TEST_F(SetTest, RemovingLastTableMemberRemovesKey) {
  Entry* set = nullptr;
  SetAdd(keyspace_, set, "s", "a", limits_);

  EXPECT_TRUE(SetRemove(keyspace_, set, "a"));

  EXPECT_EQ(set, nullptr);
  EXPECT_EQ(keyspace_.size(), 0u);
}

TEST_F(SetTest, RandomMemberOfIntsetIsAMember) {
  for (const char* m : {"10", "20", "30"}) Add("s", m);

  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(SetContains(*Set("s"), SetRandomMember(*Set("s"), random_)));
  }
}

TEST_F(SetTest, RandomMemberOfTableIsAMember) {
  for (const char* m : {"a", "b", "c", "d", "e", "f"}) Add("s", m);

  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(SetContains(*Set("s"), SetRandomMember(*Set("s"), random_)));
  }
}

TEST_F(SetTest, RandomMemberOfOneMemberSetIsThatMember) {
  Add("s", "only");

  EXPECT_EQ(SetRandomMember(*Set("s"), random_), "only");
}

TEST_F(SetTest, CopyOfIntsetIsIndependent) {
  Add("s", "1");
  keyspace_.Store("c", SetCopyValue(*Set("s"), keyspace_), kNoDeadline, nullptr,
                  Encoding::kSetInts);

  Add("c", "2");

  EXPECT_EQ(Contents("s"), (Members{"1"}));
  EXPECT_EQ(Contents("c"), (Members{"1", "2"}));
}

TEST_F(SetTest, CopyOfTableIsIndependent) {
  Add("s", std::string(kMaxPackedSetMember + 1, 'a'));
  ASSERT_EQ(Set("s")->encoding(), Encoding::kSetTable);
  Add("s", "a");
  Remove("s", std::string(kMaxPackedSetMember + 1, 'a'));
  keyspace_.Store("c", SetCopyValue(*Set("s"), keyspace_), kNoDeadline, nullptr,
                  Encoding::kSetTable);

  Add("c", "b");
  Remove("c", "a");

  EXPECT_EQ(Contents("s"), (Members{"a"}));
  EXPECT_EQ(Contents("c"), (Members{"b"}));
}

TEST_F(SetTest, ConversionKeepsDeadline) {
  Add("s", "1");
  keyspace_.SetDeadline(Set("s"), now() + 30'000);

  Add("s", "x");

  ASSERT_EQ(Set("s")->encoding(), Encoding::kSetPacked);
  EXPECT_EQ(Set("s")->deadline_ms(), now() + 30'000);
  EXPECT_EQ(keyspace_.volatile_size(), 1u);
}

}  // namespace
}  // namespace warden::storage
