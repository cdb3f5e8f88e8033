// Snapshots without the server: every type and encoding copied and restored, deadlines kept on
// the clock, expired keys left out, the byte cap, and copies independent of the data they came
// from.
#include "storage/snapshot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/clock.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/random.h"
#include "storage/set.h"
#include "storage/zset.h"

namespace warden::storage {
namespace {

// Past the lowered packed limits below: every collection of this many elements is large.
constexpr int kLarge = 100;

class SnapshotTest : public ::testing::Test {
 protected:
  SnapshotTest() {
    limits_.hash_max_listpack_entries = 4;
    limits_.set_max_intset_entries = 4;
    limits_.zset_max_listpack_entries = 4;
    limits_.list_max_listpack_size = 4;
  }

  std::int64_t now() const { return clock_.NowMs(); }
  Keyspace& db(int index) { return dbs_.db(index); }

  void PutString(int index, std::string_view key, std::string_view value,
                 std::int64_t deadline_ms = kNoDeadline) {
    db(index).Store(key, value, deadline_ms, db(index).Find(key, now()));
  }
  void PutHash(std::string_view key, int n) {
    Entry* e = db(0).Find(key, now());
    for (int i = 0; i < n; ++i) HashSet(db(0), e, key, F(i), "v" + F(i), limits_);
  }
  void PutSet(std::string_view key, int n, bool ints) {
    Entry* e = db(0).Find(key, now());
    for (int i = 0; i < n; ++i) SetAdd(db(0), e, key, ints ? std::to_string(i) : F(i), limits_);
  }
  void PutZset(std::string_view key, int n) {
    Entry* e = db(0).Find(key, now());
    for (int i = 0; i < n; ++i) ZsetAdd(db(0), e, key, F(i), i * 1.5, {}, limits_);
  }
  void PutList(std::string_view key, int n) {
    Entry* e = db(0).Find(key, now());
    for (int i = 0; i < n; ++i) ListPush(db(0), e, key, F(i), ListEnd::kTail, limits_);
  }
  static std::string F(int i) { return "m" + std::to_string(i); }

  // Every key of database `index` with its encoding, deadline and contents, for comparing.
  std::vector<std::string> Dump(int index) {
    std::vector<std::string> out;
    db(index).ForEach([&](const Entry& e) {
      std::string s(e.key());
      s += " enc=" + std::to_string(static_cast<int>(e.encoding()));
      s += " deadline=" + std::to_string(e.deadline_ms()) + " :";
      switch (e.type()) {
        case ValueType::kString:
          s += e.value();
          break;
        case ValueType::kHash:
        case ValueType::kSet: {
          // A table's order follows its hash seed, which a copy does not share.
          std::vector<std::string> parts;
          if (e.type() == ValueType::kHash) {
            HashForEach(e, [&](std::string_view f, std::string_view v) {
              parts.push_back(std::string(f) + "=" + std::string(v));
            });
          } else {
            SetForEach(e, [&](std::string_view m) { parts.emplace_back(m); });
          }
          if (IsLarge(e.encoding())) std::sort(parts.begin(), parts.end());
          for (const std::string& p : parts) s += " " + p;
          break;
        }
        case ValueType::kZset:
          for (const ZsetItem& item : ZsetItems(e))
            s += " " + item.member + "@" + std::to_string(item.score);
          break;
        case ValueType::kList:
          ListForEachFrom(e, 0, [&](std::string_view m) {
            s += ' ';
            s += m;
            return true;
          });
          break;
        case ValueType::kStream:
          s += " stream";
          break;
      }
      out.push_back(std::move(s));
    });
    std::sort(out.begin(), out.end());
    return out;
  }

  ManualClock clock_;
  Random random_{7};
  Databases dbs_{random_, 4};
  EncodingLimits limits_;
};

TEST_F(SnapshotTest, RestoresEveryTypeAndEncoding) {
  PutString(0, "s", "hello");
  PutString(0, "n", "12345");
  PutHash("hp", 2);
  PutHash("ht", kLarge);
  PutSet("si", 3, true);
  PutSet("sp", 3, false);
  PutSet("st", kLarge, false);
  PutZset("zp", 3);
  PutZset("zs", kLarge);
  PutList("lp", 3);
  PutList("lc", kLarge);
  const std::vector<std::string> before = Dump(0);
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);
  ASSERT_NE(snap, nullptr);
  dbs_.FlushAll();
  PutString(0, "other", "x");

  snap->RestoreInto(dbs_, now());

  EXPECT_EQ(Dump(0), before);
  EXPECT_TRUE(db(0).Verify());
}

TEST_F(SnapshotTest, KeepsEachDatabaseApart) {
  PutString(0, "k", "zero");
  PutString(3, "k", "three");
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);
  dbs_.Swap(0, 3);

  snap->RestoreInto(dbs_, now());

  EXPECT_EQ(db(0).Find("k", now())->value(), "zero");
  EXPECT_EQ(db(3).Find("k", now())->value(), "three");
  EXPECT_EQ(snap->keys(), 2u);
}

TEST_F(SnapshotTest, KeepsDeadlinesOnTheClock) {
  PutString(0, "lease", "v", now() + 30'000);
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);
  clock_.AdvanceMs(10'000);

  snap->RestoreInto(dbs_, now());

  EXPECT_EQ(db(0).Find("lease", now())->deadline_ms(), now() + 20'000);
}

TEST_F(SnapshotTest, LeavesOutKeysExpiredByRestore) {
  PutString(0, "short", "v", now() + 1'000);
  PutString(0, "long", "v", now() + 60'000);
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);
  clock_.AdvanceMs(5'000);

  EXPECT_EQ(snap->RestoreInto(dbs_, now()), 1u);

  EXPECT_EQ(db(0).Peek("short"), nullptr);
  EXPECT_NE(db(0).Find("long", now()), nullptr);
  EXPECT_EQ(db(0).size(), 1u);
}

TEST_F(SnapshotTest, LeavesOutKeysAlreadyExpiredWhenTaken) {
  PutString(0, "gone", "v", now() + 1'000);
  clock_.AdvanceMs(2'000);

  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);

  EXPECT_EQ(snap->keys(), 0u);
}

TEST_F(SnapshotTest, CopyIsIndependentOfLiveData) {
  PutHash("h", kLarge);
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);
  Entry* h = db(0).Find("h", now());
  HashSet(db(0), h, "h", "m0", "changed", limits_);
  snap->RestoreInto(dbs_, now());
  h = db(0).Find("h", now());
  HashSet(db(0), h, "h", "m1", "changed again", limits_);

  snap->RestoreInto(dbs_, now());

  EXPECT_EQ(HashGet(*db(0).Find("h", now()), "m0"), "vm0");
  EXPECT_EQ(HashGet(*db(0).Find("h", now()), "m1"), "vm1");
}

TEST_F(SnapshotTest, RefusesPastByteCap) {
  for (int i = 0; i < 1000; ++i) PutString(0, "key:" + std::to_string(i), "value");
  const std::size_t pool_before = dbs_.pool().bytes_in_use();

  EXPECT_EQ(Snapshot::Take(dbs_, now(), 4096), nullptr);

  dbs_.reclaimer().Drain();
  EXPECT_EQ(dbs_.pool().bytes_in_use(), pool_before);
}

TEST_F(SnapshotTest, CountsItsBytes) {
  for (int i = 0; i < 1000; ++i) PutString(0, "key:" + std::to_string(i), "value");
  const std::size_t pool_before = dbs_.pool().bytes_in_use();

  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);

  EXPECT_GT(snap->bytes(), dbs_.pool().bytes_in_use() - pool_before);
  EXPECT_EQ(snap->bytes(), dbs_.pool().bytes_in_use() - pool_before + snap->db(0).bucket_bytes());
}

TEST_F(SnapshotTest, DropFreesThroughReclaimer) {
  PutHash("h", kLarge);
  for (int i = 0; i < 5000; ++i) PutString(1, "key:" + std::to_string(i), "v");
  const std::size_t pool_before = dbs_.pool().bytes_in_use();
  std::unique_ptr<Snapshot> snap = Snapshot::Take(dbs_, now(), 0);

  snap.reset();

  EXPECT_FALSE(dbs_.reclaimer().idle());
  dbs_.reclaimer().Drain();
  EXPECT_EQ(dbs_.pool().bytes_in_use(), pool_before);
}

}  // namespace
}  // namespace warden::storage
