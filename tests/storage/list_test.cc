// List values without the server: the inline form and its one-way conversion to chunks, the key
// going with its last element, Redis's index arithmetic, node bounds, copies, and a randomized
// run of every operation against a std::deque model across the conversion.
#include "storage/list.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

using Elements = std::vector<std::string>;

class ListTest : public ::testing::Test {
 protected:
  std::int64_t now() const { return clock_.NowMs(); }

  Entry* List(std::string_view key) { return keyspace_.Find(key, now()); }

  std::size_t Push(std::string_view key, std::string_view element, ListEnd end = ListEnd::kTail) {
    Entry* list = List(key);
    return ListPush(keyspace_, list, key, element, end, limits_);
  }

  void PushMany(std::string_view key, int n, std::string_view prefix = "e") {
    for (int i = 0; i < n; ++i) Push(key, std::string(prefix) + std::to_string(i));
  }

  std::string Pop(std::string_view key, ListEnd end) {
    Entry* list = List(key);
    std::string out;
    ListPop(keyspace_, list, end, out);
    return out;
  }

  Elements Contents(std::string_view key) {
    Elements out;
    ListForEachFrom(*List(key), 0, [&](std::string_view e) {
      out.emplace_back(e);
      return true;
    });
    return out;
  }

  ManualClock clock_;
  Random random_{42};
  Keyspace keyspace_{random_};
  EncodingLimits limits_;
};

TEST_F(ListTest, FirstPushCreatesPackedList) {
  EXPECT_EQ(Push("l", "a"), 1u);

  ASSERT_NE(List("l"), nullptr);
  EXPECT_EQ(List("l")->type(), ValueType::kList);
  EXPECT_EQ(List("l")->encoding(), Encoding::kListPacked);
}

TEST_F(ListTest, PushAtBothEndsKeepsOrder) {
  Push("l", "b");
  Push("l", "a", ListEnd::kHead);
  Push("l", "c");

  EXPECT_EQ(Contents("l"), (Elements{"a", "b", "c"}));
}

TEST_F(ListTest, SmallListCostsTwoValueBytes) {
  Push("l", "1");

  EXPECT_EQ(List("l")->value().size(), 2u);
}

TEST_F(ListTest, MoreThanNodeEntriesBecomesChunked) {
  PushMany("l", static_cast<int>(kMaxListNodeEntries));
  ASSERT_EQ(List("l")->encoding(), Encoding::kListPacked);

  Push("l", "x");

  EXPECT_EQ(List("l")->encoding(), Encoding::kListChunked);
  EXPECT_EQ(ListLength(*List("l")), kMaxListNodeEntries + 1);
  EXPECT_EQ(*ListIndex(*List("l"), -1), "x");
}

TEST_F(ListTest, BytesPastNodeSizeBecomeChunked) {
  Push("l", std::string(8000, 'a'));
  ASSERT_EQ(List("l")->encoding(), Encoding::kListPacked);

  Push("l", std::string(200, 'b'));

  EXPECT_EQ(List("l")->encoding(), Encoding::kListChunked);
}

TEST_F(ListTest, ElementLargerThanANodeStartsChunked) {
  Push("l", std::string(100'000, 'a'));

  EXPECT_EQ(List("l")->encoding(), Encoding::kListChunked);
  EXPECT_EQ(ListIndex(*List("l"), 0)->size(), 100'000u);
}

TEST_F(ListTest, ChunkedListStaysChunkedWhenSmall) {
  PushMany("l", 200);

  Entry* list = List("l");
  ListTrim(keyspace_, list, 0, 0);

  EXPECT_EQ(List("l")->encoding(), Encoding::kListChunked);
  EXPECT_EQ(Contents("l"), (Elements{"e0"}));
}

TEST_F(ListTest, PoppingLastElementDeletesKey) {
  Push("l", "a");

  Entry* list = List("l");
  std::string out;
  ListPop(keyspace_, list, ListEnd::kTail, out);

  EXPECT_EQ(out, "a");
  EXPECT_EQ(list, nullptr);
  EXPECT_EQ(List("l"), nullptr);
}

TEST_F(ListTest, PoppingChunkedListToEmptyDeletesKey) {
  PushMany("l", 300);

  Entry* list = List("l");
  std::vector<std::string> out;
  ListPopMany(keyspace_, list, ListEnd::kHead, 1000, out);

  EXPECT_EQ(out.size(), 300u);
  EXPECT_EQ(out.front(), "e0");
  EXPECT_EQ(out.back(), "e299");
  EXPECT_EQ(list, nullptr);
  EXPECT_EQ(List("l"), nullptr);
}

TEST_F(ListTest, PopManyFromTailComesInPopOrder) {
  PushMany("l", 3);

  Entry* list = List("l");
  std::vector<std::string> out;
  ListPopMany(keyspace_, list, ListEnd::kTail, 2, out);

  EXPECT_EQ(out, (std::vector<std::string>{"e2", "e1"}));
  EXPECT_EQ(Contents("l"), (Elements{"e0"}));
}

TEST_F(ListTest, IndexCountsNegativeFromTail) {
  PushMany("l", 3);

  EXPECT_EQ(*ListIndex(*List("l"), -3), "e0");
  EXPECT_EQ(ListIndex(*List("l"), -4), std::nullopt);
  EXPECT_EQ(ListIndex(*List("l"), 3), std::nullopt);
  EXPECT_EQ(ListIndex(*List("l"), INT64_MIN), std::nullopt);
}

TEST_F(ListTest, InsertMissingPivotReturnsMinusOne) {
  PushMany("l", 2);

  Entry* list = List("l");

  EXPECT_EQ(ListInsert(keyspace_, list, "zz", "x", false, limits_), -1);
}

TEST_F(ListTest, RemoveNegativeCountRemovesFromTail) {
  for (const char* e : {"a", "b", "a", "c", "a"}) Push("l", e);

  Entry* list = List("l");

  EXPECT_EQ(ListRemove(keyspace_, list, "a", -2), 2u);
  EXPECT_EQ(Contents("l"), (Elements{"a", "b", "c"}));
}

TEST_F(ListTest, RemoveInt64MinRemovesEveryMatch) {
  for (const char* e : {"a", "b", "a"}) Push("l", e);

  Entry* list = List("l");

  EXPECT_EQ(ListRemove(keyspace_, list, "a", INT64_MIN), 2u);
  EXPECT_EQ(Contents("l"), (Elements{"b"}));
}

TEST_F(ListTest, TrimOutOfRangeDeletesKey) {
  PushMany("l", 3);

  Entry* list = List("l");
  ListTrim(keyspace_, list, 5, 10);

  EXPECT_EQ(list, nullptr);
  EXPECT_EQ(List("l"), nullptr);
}

TEST_F(ListTest, CopyOfChunkedListIsIndependent) {
  PushMany("l", 300);
  const std::string value = ListCopyValue(*List("l"));
  keyspace_.Store("c", value, kNoDeadline, nullptr, Encoding::kListChunked);

  Pop("l", ListEnd::kHead);

  EXPECT_EQ(ListLength(*List("c")), 300u);
  EXPECT_EQ(ListLength(*List("l")), 299u);
}

TEST_F(ListTest, ReverseVisitsTailFirst) {
  PushMany("l", 300);
  Elements out;

  ListForEachReverse(*List("l"), [&](std::string_view e) {
    out.emplace_back(e);
    return out.size() < 2;
  });

  EXPECT_EQ(out, (Elements{"e299", "e298"}));
}

TEST_F(ListTest, ClearSomeFreesInSlices) {
  PushMany("l", 1000);
  storage::List copy = *ListOf(*List("l"));

  EXPECT_FALSE(copy.ClearSome(100));
  EXPECT_LT(copy.element_count(), 1000u);
  EXPECT_TRUE(copy.ClearSome(100000));
  EXPECT_EQ(copy.element_count(), 0u);
}

struct BoundsCase {
  std::int64_t fill;
  std::size_t max_bytes;
  std::size_t max_entries;
};

class ListNodeBoundsTest : public ::testing::TestWithParam<BoundsCase> {};

TEST_P(ListNodeBoundsTest, FollowRedisFill) {
  const ListNodeBounds b = NodeBoundsFor(GetParam().fill);

  EXPECT_EQ(b.max_bytes, GetParam().max_bytes);
  EXPECT_EQ(b.max_entries, GetParam().max_entries);
}

INSTANTIATE_TEST_SUITE_P(Fills, ListNodeBoundsTest,
                         ::testing::Values(BoundsCase{-1, 4096, 128}, BoundsCase{-2, 8192, 128},
                                           BoundsCase{-5, 65536, 128}, BoundsCase{-100, 65536, 128},
                                           BoundsCase{0, 8192, 1}, BoundsCase{5, 8192, 5},
                                           BoundsCase{1000, 8192, 128}));

// Every operation, drawn at random, on a list and on a std::deque model; the two must agree
// after each step. Elements vary in size so both bounds of a node are crossed, and the list
// grows past the inline form and shrinks again.
class ListModelTest : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(ListModelTest, MatchesDequeModel) {
  ManualClock clock;
  Random random(7);
  Keyspace keyspace(random);
  EncodingLimits limits;
  limits.list_max_listpack_size = GetParam();
  Random draw(2024);
  std::deque<std::string> model;
  const std::string key = "l";
  const auto element = [&] {
    const std::size_t len = draw.Below(10) == 0 ? 300 + draw.Below(3000) : draw.Below(6);
    std::string e(len, 'a');
    if (len > 0) e[0] = static_cast<char>('a' + draw.Below(4));
    return e;
  };
  const auto index_of = [&](std::size_t size) {
    // In range or a little past either end, from either end.
    const auto n = static_cast<std::int64_t>(size);
    return static_cast<std::int64_t>(draw.Below(static_cast<std::uint64_t>(2 * n + 4))) - n - 2;
  };
  bool was_chunked = false;
  for (int step = 0; step < 20000; ++step) {
    Entry* list = keyspace.Find(key, clock.NowMs());
    ASSERT_EQ(list == nullptr, model.empty()) << step;
    const std::uint64_t op = draw.Below(model.size() > 600 ? 16 : 12);
    if (op < 4 || op == 10 || op == 11 || list == nullptr) {
      const std::string e = element();
      const ListEnd end = draw.Below(2) == 0 ? ListEnd::kHead : ListEnd::kTail;
      ListPush(keyspace, list, key, e, end, limits);
      end == ListEnd::kHead ? model.push_front(e) : model.push_back(e);
    } else if (op < 6 || op >= 12) {
      const ListEnd end = draw.Below(2) == 0 ? ListEnd::kHead : ListEnd::kTail;
      std::string out;
      ListPop(keyspace, list, end, out);
      ASSERT_EQ(out, end == ListEnd::kHead ? model.front() : model.back()) << step;
      end == ListEnd::kHead ? model.pop_front() : model.pop_back();
    } else if (op == 6) {
      const std::int64_t i = index_of(model.size());
      const std::string e = element();
      const auto n = static_cast<std::int64_t>(model.size());
      const std::int64_t at = i < 0 ? i + n : i;
      const bool in_range = at >= 0 && at < n;
      ASSERT_EQ(ListSet(keyspace, list, i, e, limits), in_range) << step;
      if (in_range) model[static_cast<std::size_t>(at)] = e;
    } else if (op == 7) {
      const std::string pivot = element();
      const std::string e = element();
      const bool after = draw.Below(2) == 0;
      auto it = std::find(model.begin(), model.end(), pivot);
      const std::int64_t got = ListInsert(keyspace, list, pivot, e, after, limits);
      if (it == model.end()) {
        ASSERT_EQ(got, -1) << step;
      } else {
        model.insert(after ? it + 1 : it, e);
        ASSERT_EQ(got, static_cast<std::int64_t>(model.size())) << step;
      }
    } else if (op == 8) {
      const std::string e = element();
      // Mostly one or two from either end: removing every match would keep the list small.
      const std::int64_t count = draw.Below(8) == 0 ? 0 : draw.Below(2) == 0 ? 1 : -2;
      std::size_t expected = 0;
      const std::size_t limit =
          count == 0 ? model.size() : static_cast<std::size_t>(std::abs(count));
      if (count >= 0) {
        for (auto it = model.begin(); it != model.end() && expected < limit;) {
          if (*it == e) {
            it = model.erase(it);
            ++expected;
          } else {
            ++it;
          }
        }
      } else {
        for (std::size_t i = model.size(); i-- > 0 && expected < limit;) {
          if (model[i] == e) {
            model.erase(model.begin() + static_cast<std::ptrdiff_t>(i));
            ++expected;
          }
        }
      }
      ASSERT_EQ(ListRemove(keyspace, list, e, count), expected) << step;
    } else {
      // Trims mostly keep most of the list, so it keeps growing past the inline form.
      const auto n = static_cast<std::int64_t>(model.size());
      // A trim to any range now and then, once the list is well past the inline form.
      const bool wild = model.size() > 400 && draw.Below(8) == 0;
      std::int64_t start = wild ? index_of(model.size()) : static_cast<std::int64_t>(draw.Below(3));
      std::int64_t stop =
          wild ? index_of(model.size()) : n - 1 - static_cast<std::int64_t>(draw.Below(3));
      ListTrim(keyspace, list, start, stop);
      if (start < 0) start += n;
      if (stop < 0) stop += n;
      if (start < 0) start = 0;
      if (start > stop || start >= n) {
        model.clear();
      } else {
        if (stop >= n) stop = n - 1;
        model.erase(model.begin() + stop + 1, model.end());
        model.erase(model.begin(), model.begin() + start);
      }
    }
    list = keyspace.Find(key, clock.NowMs());
    ASSERT_EQ(list == nullptr, model.empty()) << step;
    if (list == nullptr) continue;
    was_chunked |= list->encoding() == Encoding::kListChunked;
    ASSERT_EQ(ListLength(*list), model.size()) << step;
    const std::int64_t probe = index_of(model.size());
    const auto n = static_cast<std::int64_t>(model.size());
    const std::int64_t at = probe < 0 ? probe + n : probe;
    if (at >= 0 && at < n) {
      ASSERT_EQ(*ListIndex(*list, probe), model[static_cast<std::size_t>(at)]) << step;
    } else {
      ASSERT_EQ(ListIndex(*list, probe), std::nullopt) << step;
    }
    if (step % 50 == 0) {
      const std::size_t start = draw.Below(model.size());
      std::deque<std::string> range;
      ListForEachFrom(*list, start, [&](std::string_view e) {
        range.emplace_back(e);
        return true;
      });
      ASSERT_TRUE(std::equal(range.begin(), range.end(),
                             model.begin() + static_cast<std::ptrdiff_t>(start), model.end()))
          << step;
      std::deque<std::string> reversed;
      ListForEachReverse(*list, [&](std::string_view e) {
        reversed.emplace_front(e);
        return true;
      });
      ASSERT_EQ(reversed, model) << step;
    }
  }
  EXPECT_TRUE(was_chunked);
}

INSTANTIATE_TEST_SUITE_P(Fills, ListModelTest, ::testing::Values(-2, -1, 3));

}  // namespace
}  // namespace warden::storage
