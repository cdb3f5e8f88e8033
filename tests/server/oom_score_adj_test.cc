// The OOM killer's score as Redis's setOOMScoreAdj computes and writes it; the adjuster works
// on a file of the test's own in place of /proc/self/oom_score_adj.
#include "server/oom_score_adj.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace warden::server {
namespace {

constexpr std::array<int, 3> kDefaults = {0, 200, 800};

TEST(OomScoreForTest, RelativeAddsTheValueToTheScoreAtTakeover) {
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kRelative, kDefaults, OomClass::kMaster, 100), 100);
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kRelative, kDefaults, OomClass::kReplica, 100), 300);
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kRelative, kDefaults, OomClass::kChild, 100), 900);
}

TEST(OomScoreForTest, AbsoluteIgnoresTheScoreAtTakeover) {
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kAbsolute, kDefaults, OomClass::kReplica, 100), 200);
}

TEST(OomScoreForTest, StaysWithinTheKernelsRange) {
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kRelative, kDefaults, OomClass::kChild, 500), 1000);
  EXPECT_EQ(OomScoreFor(OomScoreAdj::kAbsolute, {-2000, 0, 0}, OomClass::kMaster, 0), -1000);
}

TEST(OomScoreForTest, ValuesShouldRiseFromMasterToChild) {
  EXPECT_TRUE(OomValuesRise(kDefaults));
  EXPECT_TRUE(OomValuesRise({5, 5, 5}));
  EXPECT_FALSE(OomValuesRise({300, 200, 800}));
  EXPECT_FALSE(OomValuesRise({0, 200, 100}));
}

class OomScoreAdjusterTest : public ::testing::Test {
 protected:
  OomScoreAdjusterTest() {
    char path[] = "/tmp/warden-oom-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = path;
    Write("50\n");
  }
  ~OomScoreAdjusterTest() override { std::remove(path_.c_str()); }

  void Write(const std::string& text) { std::ofstream(path_) << text; }
  int Score() const {
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return std::atoi(text.str().c_str());
  }

  std::string path_;
};

TEST_F(OomScoreAdjusterTest, OffLeavesTheScoreAlone) {
  OomScoreAdjuster adjuster(path_);
  Write("x\n");

  EXPECT_FALSE(adjuster.Apply(OomScoreAdj::kNo, kDefaults, OomClass::kMaster).has_value());

  std::ifstream in(path_);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "x");
}

TEST_F(OomScoreAdjusterTest, RelativeCountsFromTheScoreItFound) {
  OomScoreAdjuster adjuster(path_);

  ASSERT_FALSE(adjuster.Apply(OomScoreAdj::kRelative, kDefaults, OomClass::kReplica).has_value());
  EXPECT_EQ(Score(), 250);
  // The base is read once: the score it wrote is not taken for a new base.
  ASSERT_FALSE(adjuster.Apply(OomScoreAdj::kRelative, kDefaults, OomClass::kChild).has_value());
  EXPECT_EQ(Score(), 850);
}

TEST_F(OomScoreAdjusterTest, TurnedOffItRestoresTheScoreItFound) {
  OomScoreAdjuster adjuster(path_);
  ASSERT_FALSE(adjuster.Apply(OomScoreAdj::kAbsolute, kDefaults, OomClass::kChild).has_value());
  EXPECT_EQ(Score(), 800);

  ASSERT_FALSE(adjuster.Apply(OomScoreAdj::kNo, kDefaults, OomClass::kMaster).has_value());

  EXPECT_EQ(Score(), 50);
}

TEST(OomScoreAdjusterFailureTest, SaysWhatFailedAsRedisLogsIt) {
  OomScoreAdjuster adjuster("/nonexistent/oom_score_adj");

  const auto error = adjuster.Apply(OomScoreAdj::kRelative, kDefaults, OomClass::kMaster);

  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "Unable to read oom_score_adj: No such file or directory");
}

}  // namespace
}  // namespace warden::server
