// Sorted set values without the server: the packed bytes, ZADD's flags, the one-way conversion
// to a SortedSet, the counted B+tree under it, and both checked against a simple model.
#include "storage/zset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "storage/random.h"

namespace warden::storage {
namespace {

using Model = std::set<std::pair<double, std::string>>;

class PackedScoreTest : public ::testing::TestWithParam<double> {};

TEST_P(PackedScoreTest, RoundTrips) {
  std::string bytes;
  AppendPackedZsetItem(bytes, "m", GetParam());

  PackedZsetReader r(bytes);
  r.Next();

  EXPECT_EQ(r.member(), "m");
  EXPECT_EQ(r.score(), GetParam());
  EXPECT_TRUE(r.done());
}

INSTANTIATE_TEST_SUITE_P(Scores, PackedScoreTest,
                         ::testing::Values(0.0, 1.0, -1.0, 1.5, 0.1, 1700000000000.0,
                                           9007199254740992.0, -9007199254740992.0,
                                           18014398509481988.0, 1e300, -1e-320,
                                           std::numeric_limits<double>::infinity(),
                                           -std::numeric_limits<double>::infinity()));

TEST(PackedZsetTest, NegativeZeroReadsBackAsZero) {
  std::string bytes;
  AppendPackedZsetItem(bytes, "m", -0.0);

  PackedZsetReader r(bytes);
  r.Next();

  EXPECT_FALSE(std::signbit(r.score()));
}

TEST(PackedZsetTest, LowerCaseUuidTakesSeventeenBytes) {
  std::string bytes;
  AppendPackedZsetItem(bytes, "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b", 1700000000000.0);

  PackedZsetReader r(bytes);
  r.Next();

  EXPECT_EQ(r.member(), "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b");
  EXPECT_EQ(bytes.size(), 17u + 7u);
}

TEST(PackedZsetTest, OtherUuidLikeMembersStayRaw) {
  for (std::string_view m :
       {"3F2B8C1E-9A4D-4E7F-8B6A-1C2D3E4F5A6B", "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6g",
        "3f2b8c1e+9a4d-4e7f-8b6a-1c2d3e4f5a6b"}) {
    std::string bytes;
    AppendPackedZsetItem(bytes, m, 1);
    PackedZsetReader r(bytes);
    r.Next();
    EXPECT_EQ(r.member(), m);
    EXPECT_EQ(bytes.size(), 1u + m.size() + 1u);
  }
}

class ZsetTest : public ::testing::Test {
 protected:
  ZaddResult Add(std::string_view member, double score, ZaddFlags flags = {}) {
    Entry* z = keyspace_.Find("z", 0);
    return ZsetAdd(keyspace_, z, "z", member, score, flags, limits_);
  }
  Entry* Z() { return keyspace_.Find("z", 0); }

  Random random_{7};
  Keyspace keyspace_{random_};
  EncodingLimits limits_;
};

TEST_F(ZsetTest, FirstMemberCreatesPackedSet) {
  EXPECT_TRUE(Add("a", 1).added);

  ASSERT_NE(Z(), nullptr);
  EXPECT_EQ(Z()->type(), ValueType::kZset);
  EXPECT_EQ(Z()->encoding(), Encoding::kZsetPacked);
}

TEST_F(ZsetTest, LongFirstMemberCreatesSortedSet) {
  Add(std::string(65, 'x'), 1);

  EXPECT_EQ(Z()->encoding(), Encoding::kZsetSorted);
}

TEST_F(ZsetTest, MemberPastTheEntryLimitConverts) {
  for (int i = 0; i < 128; ++i) Add("m" + std::to_string(i), i);
  ASSERT_EQ(Z()->encoding(), Encoding::kZsetPacked);

  Add("one-more", 0);

  EXPECT_EQ(Z()->encoding(), Encoding::kZsetSorted);
  EXPECT_EQ(ZsetSize(*Z()), 129u);
  EXPECT_EQ(ZsetRank(*Z(), "one-more"), 1u);  // after m0, also at 0
}

TEST_F(ZsetTest, ConversionIsOneWay) {
  for (int i = 0; i < 130; ++i) Add("m" + std::to_string(i), i);
  Entry* z = Z();

  ZsetRemoveRange(keyspace_, z, 0, 129);

  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->encoding(), Encoding::kZsetSorted);
}

TEST_F(ZsetTest, SortedSetKeepsNegativeZero) {
  Add(std::string(65, 'x'), -0.0);

  EXPECT_TRUE(std::signbit(*ZsetScore(*Z(), std::string(65, 'x'))));
}

TEST_F(ZsetTest, NxSkipsExistingMember) {
  Add("a", 1);

  const ZaddResult r = Add("a", 5, {.nx = true});

  EXPECT_TRUE(r.skipped);
  EXPECT_EQ(ZsetScore(*Z(), "a"), 1.0);
}

TEST_F(ZsetTest, XxSkipsNewMember) {
  Add("a", 1);

  EXPECT_TRUE(Add("b", 5, {.xx = true}).skipped);
  EXPECT_EQ(ZsetScore(*Z(), "b"), std::nullopt);
}

TEST_F(ZsetTest, GtAddsNewMemberButKeepsHigherScore) {
  Add("a", 5);

  EXPECT_TRUE(Add("b", 1, {.gt = true}).added);
  EXPECT_TRUE(Add("a", 3, {.gt = true}).skipped);
  EXPECT_TRUE(Add("a", 7, {.gt = true}).updated);
  EXPECT_EQ(ZsetScore(*Z(), "a"), 7.0);
}

TEST_F(ZsetTest, IncrAddsToScore) {
  Add("a", 1.5);

  const ZaddResult r = Add("a", 2, {.incr = true});

  EXPECT_EQ(r.score, 3.5);
  EXPECT_TRUE(r.updated);
}

TEST_F(ZsetTest, IncrToNanChangesNothing) {
  Add("a", std::numeric_limits<double>::infinity());

  const ZaddResult r = Add("a", -std::numeric_limits<double>::infinity(), {.incr = true});

  EXPECT_TRUE(r.nan);
  EXPECT_EQ(ZsetScore(*Z(), "a"), std::numeric_limits<double>::infinity());
}

TEST_F(ZsetTest, SameScoreIsNotAnUpdate) {
  Add("a", 1);

  const ZaddResult r = Add("a", 1);

  EXPECT_FALSE(r.updated);
  EXPECT_FALSE(r.skipped);
}

TEST_F(ZsetTest, RemovingLastMemberDeletesKey) {
  Add("a", 1);
  Entry* z = Z();

  EXPECT_TRUE(ZsetRemove(keyspace_, z, "a"));

  EXPECT_EQ(z, nullptr);
  EXPECT_EQ(Z(), nullptr);
}

TEST_F(ZsetTest, PopTakesLowestOrHighest) {
  Add("b", 2);
  Add("a", 1);
  Add("c", 3);
  Entry* z = Z();

  EXPECT_EQ(ZsetPop(keyspace_, z, false).member, "a");
  EXPECT_EQ(ZsetPop(keyspace_, z, true).member, "c");
  EXPECT_EQ(ZsetSize(*z), 1u);
}

TEST_F(ZsetTest, CopyOfSortedSetIsIndependent) {
  for (int i = 0; i < 200; ++i) Add("m" + std::to_string(i), i);
  keyspace_.Store("c", ZsetCopyValue(*Z(), keyspace_), kNoDeadline, nullptr, Encoding::kZsetSorted);

  Entry* z = Z();
  ZsetRemoveRange(keyspace_, z, 0, 100);

  EXPECT_EQ(ZsetSize(*keyspace_.Find("c", 0)), 200u);
  EXPECT_EQ(ZsetSize(*Z()), 100u);
}

// The set against a model, across the conversion, with every query checked after each step.
class ZsetModelTest : public ::testing::TestWithParam<int> {};

TEST_P(ZsetModelTest, MatchesModel) {
  Random random(static_cast<std::uint64_t>(GetParam()));
  Keyspace keyspace(random);
  EncodingLimits limits;
  limits.zset_max_listpack_entries = 24;
  Model model;
  std::map<std::string, double> scores;
  Entry* z = nullptr;
  auto member = [&] { return "m" + std::to_string(random.Below(60)); };
  auto score = [&] { return static_cast<double>(random.Below(12)) - 3; };
  auto check = [&] {
    ASSERT_EQ(z == nullptr, model.empty());
    if (z == nullptr) return;
    ASSERT_EQ(ZsetSize(*z), model.size());
    if (z->encoding() == Encoding::kZsetSorted) {
      ASSERT_TRUE(static_cast<SortedSet*>(z->large())->Verify());
    }
    std::vector<std::pair<double, std::string>> want(model.begin(), model.end());
    std::size_t i = 0;
    ZsetVisit(*z, 0, false, [&](std::string_view m, double s) {
      EXPECT_EQ(std::make_pair(s, std::string(m)), want[i++]);
      return true;
    });
    ASSERT_EQ(i, want.size());
    const std::size_t pick = random.Below(want.size());
    std::size_t seen = 0;
    ZsetVisit(*z, pick, true, [&](std::string_view m, double) {
      EXPECT_EQ(m, want[pick - seen].second);
      ++seen;
      return seen < 3;
    });
    EXPECT_EQ(ZsetRank(*z, want[pick].second), pick);
    const double bound = score();
    std::size_t below = 0;
    std::size_t at_most = 0;
    for (const auto& [s, m] : want) {
      below += s < bound;
      at_most += s <= bound;
    }
    EXPECT_EQ(ZsetCountBelowScore(*z, bound, false), below);
    EXPECT_EQ(ZsetCountBelowScore(*z, bound, true), at_most);
  };
  for (int step = 0; step < 3000; ++step) {
    const std::uint64_t op = random.Below(10);
    if (op < 5) {
      const std::string m = member();
      const double s = score();
      ZsetAdd(keyspace, z, "z", m, s, {}, limits);
      if (auto it = scores.find(m); it != scores.end()) model.erase({it->second, m});
      scores[m] = s;
      model.insert({s, m});
    } else if (op < 7 && z != nullptr) {
      const std::string m = member();
      EXPECT_EQ(ZsetRemove(keyspace, z, m), scores.count(m) == 1);
      if (auto it = scores.find(m); it != scores.end()) {
        model.erase({it->second, m});
        scores.erase(it);
      }
    } else if (op < 8 && z != nullptr) {
      const bool max = random.Below(2) == 1;
      const auto want = max ? *model.rbegin() : *model.begin();
      const ZsetItem got = ZsetPop(keyspace, z, max);
      EXPECT_EQ(got.member, want.second);
      EXPECT_EQ(got.score, want.first);
      model.erase(want);
      scores.erase(want.second);
    } else if (op < 9 && z != nullptr && random.Below(4) == 0) {
      const std::size_t start = random.Below(model.size());
      const std::size_t end = start + random.Below(4);
      const std::size_t removed = ZsetRemoveRange(keyspace, z, start, end);
      EXPECT_EQ(removed, std::min(end, model.size()) - start);
      auto it = std::next(model.begin(), static_cast<std::ptrdiff_t>(start));
      for (std::size_t k = 0; k < removed; ++k) {
        scores.erase(it->second);
        it = model.erase(it);
      }
    }
    check();
    if (::testing::Test::HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ZsetModelTest, ::testing::Values(1, 2, 3, 4));

TEST(ZsetLexTest, CountsAgainstEqualScores) {
  Random random(3);
  Keyspace keyspace(random);
  EncodingLimits limits;
  Entry* z = nullptr;
  for (std::string_view m : {"a", "b", "c", "d", "e"}) ZsetAdd(keyspace, z, "z", m, 0, {}, limits);
  for (int large = 0; large < 2; ++large) {
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kInclusive, "b"}, true), 1u);
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kExclusive, "b"}, true), 2u);
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kInclusive, "d"}, false), 4u);
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kExclusive, "d"}, false), 3u);
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kMinusInf, ""}, true), 0u);
    EXPECT_EQ(ZsetCountBelowLex(*z, {LexBound::kPlusInf, ""}, false), 5u);
    ZsetAdd(keyspace, z, "z", std::string(100, 'z'), 0, {}, limits);
    ZsetRemove(keyspace, z, std::string(100, 'z'));
    ASSERT_EQ(z->encoding(), Encoding::kZsetSorted);
  }
}

// The tree alone, at a size that makes it three levels deep, against a model.
TEST(OrderTreeTest, RandomInsertsAndErasesKeepItConsistent) {
  Random random(11);
  Keyspace members(random, nullptr, nullptr, false);
  OrderTree tree;
  std::map<std::string, const Entry*> live;
  Model model;
  for (int step = 0; step < 120000; ++step) {
    const std::string m = "k" + std::to_string(random.Below(20000));
    const double s = static_cast<double>(random.Below(500));
    if (auto it = live.find(m); it != live.end()) {
      const double old = SortedSet::ScoreOf(*it->second);
      tree.Erase({old, it->second});
      model.erase({old, m});
      members.Erase(const_cast<Entry*>(it->second));
      live.erase(it);
      if (random.Below(3) == 0) continue;
    }
    const Entry* e = members.Store(m, std::string_view(reinterpret_cast<const char*>(&s), 8),
                                   kNoDeadline, nullptr);
    live[m] = e;
    tree.Insert({s, e});
    model.insert({s, m});
    if (step % 10000 == 0) {
      ASSERT_TRUE(tree.Verify());
    }
  }
  ASSERT_TRUE(tree.Verify());
  ASSERT_EQ(tree.size(), model.size());
  std::size_t rank = 0;
  for (const auto& [s, m] : model) {
    if (rank % 97 == 0) {
      EXPECT_EQ(tree.Select(rank).slot().member(), m);
      EXPECT_EQ(tree.Rank({s, live[m]}), rank);
    }
    ++rank;
  }
  std::size_t walked = 0;
  for (OrderTree::Cursor c = tree.Last(); !c.done(); c.Prev()) ++walked;
  EXPECT_EQ(walked, model.size());
}

TEST(OrderTreeTest, InOrderInsertsFillLeaves) {
  Random random(5);
  Keyspace members(random, nullptr, nullptr, false);
  OrderTree tree;
  for (int i = 0; i < 100000; ++i) {
    const double s = i;
    tree.Insert({s, members.Store("m" + std::to_string(i),
                                  std::string_view(reinterpret_cast<const char*>(&s), 8),
                                  kNoDeadline, nullptr)});
  }

  EXPECT_TRUE(tree.Verify());
  EXPECT_LT(tree.memory_bytes(), 100000u * 18);
}

TEST(OrderTreeTest, ScatteredInsertsKeepLeavesMostlyFull) {
  Random random(8);
  Keyspace members(random, nullptr, nullptr, false);
  OrderTree tree;
  for (int i = 0; i < 100000; ++i) {
    const double s = static_cast<double>(random.Below(1000000));
    tree.Insert({s, members.Store("m" + std::to_string(i),
                                  std::string_view(reinterpret_cast<const char*>(&s), 8),
                                  kNoDeadline, nullptr)});
  }

  EXPECT_TRUE(tree.Verify());
  EXPECT_LT(tree.memory_bytes(), 100000u * 21);  // 16-byte slots, leaves about 80% full
}

TEST(OrderTreeTest, ErasingEverythingEmptiesTheTree) {
  Random random(6);
  Keyspace members(random, nullptr, nullptr, false);
  OrderTree tree;
  std::vector<const Entry*> entries;
  for (int i = 0; i < 5000; ++i) {
    const double s = static_cast<double>(random.Below(100));
    entries.push_back(members.Store("m" + std::to_string(i),
                                    std::string_view(reinterpret_cast<const char*>(&s), 8),
                                    kNoDeadline, nullptr));
    tree.Insert({s, entries.back()});
  }
  for (const Entry* e : entries) tree.Erase({SortedSet::ScoreOf(*e), e});

  EXPECT_EQ(tree.size(), 0u);
  EXPECT_TRUE(tree.Verify());
  EXPECT_EQ(tree.memory_bytes(), 0u);
}

TEST(SortedSetTest, ClearSomeFreesInSlices) {
  Random random(9);
  Keyspace owner(random);
  SortedSet set(owner);
  for (int i = 0; i < 20000; ++i) set.Insert("m" + std::to_string(i), i);

  int calls = 1;
  while (!set.ClearSome(1000)) ++calls;

  EXPECT_GT(calls, 10);
  EXPECT_EQ(owner.pool().bytes_in_use(), 0u);
}

}  // namespace
}  // namespace warden::storage
