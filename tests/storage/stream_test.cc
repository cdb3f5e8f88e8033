// Stream values without the server: ids, appends into nodes, deletion marks, exact and
// approximate trimming, ranges both ways, copies, the radix tree's node count, and a randomized
// run of every operation against a std::map model.
#include "storage/stream.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "storage/radix_shape.h"
#include "storage/random.h"
#include "storage/stream_group.h"

namespace warden::storage {
namespace {

using Pairs = std::vector<std::string>;
using Model = std::map<StreamId, Pairs>;

std::vector<std::string_view> Views(const Pairs& pairs) {
  return std::vector<std::string_view>(pairs.begin(), pairs.end());
}

Model Contents(const Stream& s, StreamId start = {}, StreamId end = StreamId::Max(),
               bool reverse = false, std::vector<StreamId>* order = nullptr) {
  Model out;
  s.Range(start, end, reverse, [&](StreamId id, std::span<const Stream::Field> fields) {
    Pairs p;
    for (const auto& [f, v] : fields) {
      p.emplace_back(f);
      p.emplace_back(v);
    }
    out[id] = p;
    if (order != nullptr) order->push_back(id);
    return true;
  });
  return out;
}

TEST(StreamIdTest, IncrementAndDecrementCarryAndStopAtTheEnds) {
  StreamId id{5, UINT64_MAX};
  EXPECT_TRUE(id.Increment());
  EXPECT_EQ(id, (StreamId{6, 0}));
  EXPECT_TRUE(id.Decrement());
  EXPECT_EQ(id, (StreamId{5, UINT64_MAX}));
  StreamId max = StreamId::Max();
  EXPECT_FALSE(max.Increment());
  EXPECT_EQ(max, StreamId{});
  StreamId zero;
  EXPECT_FALSE(zero.Decrement());
  EXPECT_EQ(zero, StreamId::Max());
  char buf[48];
  EXPECT_EQ(StreamId::Max().Format(buf), "18446744073709551615-18446744073709551615");
}

TEST(StreamIdTest, NumbersAreReadAsRedisStringToUnsignedDoes) {
  std::uint64_t v = 0;
  EXPECT_TRUE(ParseStreamUint("42", v));
  EXPECT_EQ(v, 42u);
  EXPECT_TRUE(ParseStreamUint("18446744073709551615", v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_TRUE(ParseStreamUint("007", v));
  EXPECT_EQ(v, 7u);
  EXPECT_TRUE(ParseStreamUint("+3", v));
  EXPECT_EQ(v, 3u);
  EXPECT_FALSE(ParseStreamUint("-1", v));
  EXPECT_FALSE(ParseStreamUint("", v));
  EXPECT_FALSE(ParseStreamUint("18446744073709551616", v));
  EXPECT_FALSE(ParseStreamUint("1x", v));
}

TEST(StreamTest, EntriesWithTheFirstEntrysFieldsAndOthersReadBack) {
  Stream s;
  const StreamNodeLimits limits;
  const Pairs a = {"f", "1", "g", "2"};
  const Pairs b = {"other", "x"};
  s.Append({1, 0}, Views(a), limits);
  s.Append({1, 1}, Views(b), limits);
  s.Append({2, 0}, Views(a), limits);
  EXPECT_EQ(s.length(), 3u);
  EXPECT_EQ(s.node_count(), 1u);
  const Model want = {{{1, 0}, a}, {{1, 1}, b}, {{2, 0}, a}};
  EXPECT_EQ(Contents(s), want);
  std::vector<StreamId> order;
  Contents(s, {}, StreamId::Max(), true, &order);
  EXPECT_EQ(order, (std::vector<StreamId>{{2, 0}, {1, 1}, {1, 0}}));
  EXPECT_EQ(s.last_id(), (StreamId{2, 0}));
  EXPECT_EQ(s.first_id(), (StreamId{1, 0}));
}

TEST(StreamTest, ANodeClosesAtItsEntryLimitCountingDeletedEntries) {
  Stream s;
  const StreamNodeLimits limits{4096, 2};
  const Pairs p = {"f", "v"};
  s.Append({1, 0}, Views(p), limits);
  s.Append({2, 0}, Views(p), limits);
  ASSERT_TRUE(s.Delete({2, 0}));
  s.Append({3, 0}, Views(p), limits);
  EXPECT_EQ(s.node_count(), 2u);
  EXPECT_EQ(s.length(), 2u);
}

TEST(StreamTest, ANodeClosesWhenRedisListpackWouldReachItsByteLimit) {
  Stream s;
  const StreamNodeLimits limits{100, 0};
  const Pairs p = {"field", std::string(30, 'x')};
  for (std::uint64_t i = 1; i <= 6; ++i) s.Append({i, 0}, Views(p), limits);
  // A node's listpack: 7 bytes of header and end, the master entry (count, deleted, field
  // count, "field", 0: 2+2+2+7+2), then 2+2+2+32+2 = 40 bytes for each entry after the first.
  // 55 bytes with one entry; a second makes 95; 95 + 35 >= 100 closes it.
  EXPECT_EQ(s.node_count(), 3u);
}

TEST(StreamTest, DeletingTheLastLiveEntryOfANodeRemovesIt) {
  Stream s;
  const StreamNodeLimits limits{4096, 2};
  const Pairs p = {"f", "v"};
  for (std::uint64_t i = 1; i <= 4; ++i) s.Append({i, 0}, Views(p), limits);
  EXPECT_EQ(s.node_count(), 2u);
  EXPECT_TRUE(s.Delete({1, 0}));
  EXPECT_FALSE(s.Delete({1, 0}));
  EXPECT_TRUE(s.Delete({2, 0}));
  EXPECT_EQ(s.node_count(), 1u);
  EXPECT_FALSE(s.Contains({2, 0}));
  EXPECT_TRUE(s.Contains({3, 0}));
  StreamId first;
  ASSERT_TRUE(s.EdgeId(true, first));
  EXPECT_EQ(first, (StreamId{3, 0}));
}

TEST(StreamTest, ATombstoneAboveALaterEntryDoesNotHideIt) {
  // XSETID may lower the last id below a deleted tail entry: the next append lands after the
  // tombstone in the same node, with a smaller id.
  Stream s;
  const Pairs p = {"a", "1"};
  s.Append({1, 0}, Views(p), {});
  s.Append({5, 0}, Views(p), {});
  ASSERT_TRUE(s.Delete({5, 0}));
  s.SetLastId({2, 0});
  s.Append({3, 0}, Views(p), {});
  EXPECT_EQ(Contents(s, {2, 0}, {4, 0}).size(), 1u);
  EXPECT_EQ(Contents(s, {2, 0}, {4, 0}, true).size(), 1u);
  EXPECT_TRUE(s.Contains({3, 0}));
  EXPECT_TRUE(s.Delete({3, 0}));
  EXPECT_EQ(s.length(), 1u);
}

TEST(StreamTest, ApproximateTrimmingDropsOnlyWholeNodes) {
  Stream s;
  const StreamNodeLimits limits{4096, 10};
  const Pairs p = {"f", "v"};
  for (std::uint64_t i = 1; i <= 25; ++i) s.Append({i, 0}, Views(p), limits);
  StreamTrim trim;
  trim.strategy = StreamTrim::Strategy::kMaxLength;
  trim.max_length = 12;
  trim.approx = true;
  EXPECT_EQ(s.Trim(trim), 10);
  EXPECT_EQ(s.length(), 15u);
  trim.approx = false;
  EXPECT_EQ(s.Trim(trim), 3);
  EXPECT_EQ(s.length(), 12u);
  EXPECT_EQ(s.first_id(), (StreamId{14, 0}));
  StreamTrim by_id;
  by_id.strategy = StreamTrim::Strategy::kMinId;
  by_id.min_id = {20, 0};
  EXPECT_EQ(s.Trim(by_id), 6);
  EXPECT_EQ(s.first_id(), (StreamId{20, 0}));
}

TEST(StreamTest, ACopyIsIndependentAndKeepsGroups) {
  Stream s;
  const Pairs p = {"f", "v"};
  s.Append({1, 0}, Views(p), {});
  StreamGroup* g = s.groups().Create("g", {0, 0}, 0);
  ASSERT_NE(g, nullptr);
  StreamConsumer* c = g->GetConsumer("alice", 10, nullptr);
  g->Deliver({1, 0}, c, 20);
  auto copy = s.Clone();
  s.Delete({1, 0});
  g->Ack({1, 0});
  EXPECT_EQ(Contents(*copy).size(), 1u);
  const StreamGroup* cg = copy->groups().Find("g");
  ASSERT_NE(cg, nullptr);
  ASSERT_EQ(cg->pel.size(), 1u);
  EXPECT_EQ(cg->pel.begin()->second.consumer->name, "alice");
  EXPECT_EQ(cg->pel.begin()->second.delivery_time, 20);
}

TEST(StreamGroupTest, DeliveryToAnotherConsumerMovesThePendingEntry) {
  StreamGroup g;
  StreamConsumer* a = g.GetConsumer("a", 0, nullptr);
  StreamConsumer* b = g.GetConsumer("b", 0, nullptr);
  g.Deliver({1, 0}, a, 5).delivery_count = 7;
  g.Deliver({1, 0}, b, 6);
  EXPECT_TRUE(a->pel.empty());
  ASSERT_EQ(b->pel.size(), 1u);
  EXPECT_EQ(g.pel.at({1, 0}).delivery_count, 1u);
  EXPECT_EQ(g.DeleteConsumer("b"), 1u);
  EXPECT_TRUE(g.pel.empty());
  EXPECT_FALSE(g.Ack({1, 0}));
}

// Redis 7.0's rax node counts for the same insertions and removals, read from redis-server's
// XINFO STREAM (radix-tree-nodes) with one entry per node.
TEST(RadixShapeTest, CountsNodesAsRedisRaxDoes) {
  RadixShape shape;
  EXPECT_EQ(shape.nodes(), 1u);
  auto key = [](std::uint64_t ms) {
    std::string k(16, '\0');
    for (int i = 0; i < 8; ++i)
      k[static_cast<std::size_t>(i)] = static_cast<char>(ms >> (56 - 8 * i));
    return k;
  };
  shape.Insert(key(1));
  EXPECT_EQ(shape.nodes(), 2u);
  shape.Insert(key(3));
  shape.Insert(key(5));
  shape.Insert(key(7));
  EXPECT_EQ(shape.nodes(), 10u);
  shape.Insert(key(7));
  EXPECT_EQ(shape.nodes(), 10u);
  shape.Remove(key(3));
  shape.Remove(key(5));
  shape.Remove(key(7));
  EXPECT_EQ(shape.nodes(), 2u);
  shape.Remove(key(1));
  EXPECT_EQ(shape.nodes(), 1u);

  // Keys that share more and less: ms 300, 301, 556, 70000, 70001, each with seq 0 and 5.
  RadixShape mixed;
  auto id_key = [](StreamId id) {
    std::string k(16, '\0');
    for (int i = 0; i < 8; ++i) {
      k[static_cast<std::size_t>(i)] = static_cast<char>(id.ms >> (56 - 8 * i));
      k[static_cast<std::size_t>(8 + i)] = static_cast<char>(id.seq >> (56 - 8 * i));
    }
    return k;
  };
  for (std::uint64_t ms : {300, 301, 556, 70000, 70001}) {
    mixed.Insert(id_key({ms, 0}));
    mixed.Insert(id_key({ms, 5}));
  }
  EXPECT_EQ(mixed.nodes(), 26u);
  for (StreamId id : {StreamId{301, 0}, StreamId{556, 5}, StreamId{70000, 0}, StreamId{70000, 5}}) {
    mixed.Remove(id_key(id));
  }
  EXPECT_EQ(mixed.nodes(), 16u);
}

TEST(StreamTest, RandomOperationsMatchAMapModel) {
  Random random(42);
  for (int round = 0; round < 20; ++round) {
    Stream s;
    Model model;
    const StreamNodeLimits limits{static_cast<std::size_t>(64 + random.Below(400)),
                                  static_cast<std::int64_t>(1 + random.Below(8))};
    std::uint64_t ms = 1;
    for (int step = 0; step < 600; ++step) {
      const std::uint64_t op = random.Below(10);
      if (op < 6) {
        ms += random.Below(3);
        StreamId id{ms, 0};
        if (id <= s.last_id()) {
          id = s.last_id();
          id.Increment();
        }
        Pairs p = {"f" + std::to_string(random.Below(2)), std::to_string(random.Below(1000))};
        if (random.Below(4) == 0) p.insert(p.end(), {"extra", std::string(random.Below(50), 'z')});
        s.Append(id, Views(p), limits);
        model[id] = p;
      } else if (op < 8 && !model.empty()) {
        auto it = model.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(random.Below(model.size())));
        EXPECT_TRUE(s.Delete(it->first));
        model.erase(it);
      } else if (op == 8) {
        StreamTrim trim;
        trim.strategy = StreamTrim::Strategy::kMaxLength;
        trim.max_length = random.Below(model.size() + 1);
        s.Trim(trim);
        while (model.size() > trim.max_length) model.erase(model.begin());
      } else {
        StreamTrim trim;
        trim.strategy = StreamTrim::Strategy::kMinId;
        trim.min_id = {random.Below(ms + 1), 0};
        s.Trim(trim);
        model.erase(model.begin(), model.lower_bound(trim.min_id));
      }
      ASSERT_EQ(s.length(), model.size());
    }
    EXPECT_EQ(Contents(s), model);
    std::vector<StreamId> reversed;
    Contents(s, {}, StreamId::Max(), true, &reversed);
    std::vector<StreamId> want;
    for (auto it = model.rbegin(); it != model.rend(); ++it) want.push_back(it->first);
    EXPECT_EQ(reversed, want);
    if (!model.empty()) {
      const StreamId lo =
          std::next(model.begin(), static_cast<std::ptrdiff_t>(model.size() / 3))->first;
      Model sub(model.lower_bound(lo), model.end());
      EXPECT_EQ(Contents(s, lo), sub);
    }
    EXPECT_EQ(Contents(*s.Clone()), model);
  }
}

}  // namespace
}  // namespace warden::storage
