// The expiry hook: every key removed because its deadline passed is told to the listener with
// its database number, whichever path removed it (a lookup, active expiry, ExpireDue, a random
// draw), and a number follows the index across SWAPDB.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "storage/clock.h"
#include "storage/databases.h"
#include "storage/random.h"

namespace warden::storage {
namespace {

class Recorder final : public ExpiryListener {
 public:
  void KeyExpired(int db, std::string_view key) override { heard.emplace_back(db, key); }
  std::vector<std::pair<int, std::string>> heard;
};

class ExpiryListenerTest : public ::testing::Test {
 protected:
  ExpiryListenerTest() { dbs_.SetExpiryListener(&recorder_); }

  void Put(int db, std::string_view key, std::int64_t deadline_ms) {
    dbs_.db(db).Store(key, "v", deadline_ms, dbs_.db(db).Find(key, now()));
  }
  std::int64_t now() const { return clock_.NowMs(); }

  ManualClock clock_;
  Random random_{5};
  Databases dbs_{random_, 16};
  Recorder recorder_;
};

using Heard = std::vector<std::pair<int, std::string>>;

TEST_F(ExpiryListenerTest, LookupOfAnExpiredKeyTellsTheListener) {
  Put(3, "lease", now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_EQ(dbs_.db(3).Find("lease", now()), nullptr);

  EXPECT_EQ(recorder_.heard, (Heard{{3, "lease"}}));
}

TEST_F(ExpiryListenerTest, LiveKeysAndErasesAreNotExpiries) {
  Put(0, "a", now() + 10);
  Put(0, "b", kNoDeadline);

  EXPECT_NE(dbs_.db(0).Find("a", now()), nullptr);
  EXPECT_TRUE(dbs_.db(0).Erase("b", now()));

  EXPECT_TRUE(recorder_.heard.empty());
}

TEST_F(ExpiryListenerTest, ExpireDueTellsEveryDatabase) {
  Put(0, "a", now() + 10);
  Put(7, "b", now() + 10);
  Put(7, "later", now() + 100);
  clock_.AdvanceMs(10);

  EXPECT_EQ(dbs_.ExpireDue(now()), 2u);

  EXPECT_EQ(recorder_.heard, (Heard{{0, "a"}, {7, "b"}}));
}

TEST_F(ExpiryListenerTest, ActiveExpiryTellsTheListener) {
  Put(2, "a", now() + 10);
  clock_.AdvanceMs(11);

  const ExpireSample s = dbs_.db(2).SampleExpired(now(), 20);

  EXPECT_EQ(s.expired, 1);
  EXPECT_EQ(recorder_.heard, (Heard{{2, "a"}}));
}

TEST_F(ExpiryListenerTest, RandomEntryTellsTheListenerOfWhatItDrawsExpired) {
  Put(1, "a", now() + 10);
  clock_.AdvanceMs(11);

  EXPECT_EQ(dbs_.db(1).RandomEntry(now()), nullptr);

  EXPECT_EQ(recorder_.heard, (Heard{{1, "a"}}));
}

TEST_F(ExpiryListenerTest, SwapdbKeepsTheNumberWithTheIndex) {
  Put(0, "a", now() + 10);
  dbs_.Swap(0, 6);
  clock_.AdvanceMs(10);

  dbs_.ExpireDue(now());

  EXPECT_EQ(recorder_.heard, (Heard{{6, "a"}}));
}

TEST_F(ExpiryListenerTest, FlushedKeysAreNotExpiries) {
  for (int i = 0; i < 5000; ++i) Put(0, "k" + std::to_string(i), now() + 10);
  dbs_.Flush(0);
  clock_.AdvanceMs(11);

  dbs_.ExpireDue(now());
  while (!dbs_.reclaimer().idle()) dbs_.reclaimer().Step(1000);

  EXPECT_TRUE(recorder_.heard.empty());
}

}  // namespace
}  // namespace warden::storage
