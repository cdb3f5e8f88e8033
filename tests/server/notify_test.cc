// notify-keyspace-events: Redis 7.0's class letters both ways, and the option through the config
// file, CONFIG SET and CONFIG GET. (What each command publishes is compared with redis-server in
// tests/clients/python/test_notifications.py.)
#include "server/notify.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "server/config/config.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

struct Letter {
  char letter;
  int flag;
};

class NotifyLetterTest : public ::testing::TestWithParam<Letter> {};

TEST_P(NotifyLetterTest, ParsesToItsClass) {
  EXPECT_EQ(ParseNotifyKeyspaceEvents(std::string(1, GetParam().letter)), GetParam().flag);
}

INSTANTIATE_TEST_SUITE_P(
    EveryLetter, NotifyLetterTest,
    ::testing::Values(Letter{'K', notify::kKeyspace}, Letter{'E', notify::kKeyevent},
                      Letter{'g', notify::kGeneric}, Letter{'$', notify::kString},
                      Letter{'l', notify::kList}, Letter{'s', notify::kSet},
                      Letter{'h', notify::kHash}, Letter{'z', notify::kZset},
                      Letter{'x', notify::kExpired}, Letter{'e', notify::kEvicted},
                      Letter{'t', notify::kStream}, Letter{'m', notify::kKeyMiss},
                      Letter{'d', notify::kModule}, Letter{'n', notify::kNew},
                      Letter{'A', notify::kAll}));

TEST(NotifyFlagsTest, AllLeavesOutKeyMissAndNew) {
  EXPECT_EQ(notify::kAll & (notify::kKeyMiss | notify::kNew | notify::kKeyspace), 0);
}

TEST(NotifyFlagsTest, EmptyIsNone) { EXPECT_EQ(ParseNotifyKeyspaceEvents(""), 0); }

TEST(NotifyFlagsTest, AnyOtherByteIsRejected) {
  EXPECT_EQ(ParseNotifyKeyspaceEvents("Q"), std::nullopt);
  EXPECT_EQ(ParseNotifyKeyspaceEvents("KE A"), std::nullopt);
  EXPECT_EQ(ParseNotifyKeyspaceEvents("k"), std::nullopt);
}

TEST(NotifyFlagsTest, ANulEndsTheClassesAsInRedisCString) {
  EXPECT_EQ(ParseNotifyKeyspaceEvents(std::string("K\0Q", 3)), notify::kKeyspace);
}

struct Spelling {
  const char* set;
  const char* get;
};

class NotifyFormatTest : public ::testing::TestWithParam<Spelling> {};

TEST_P(NotifyFormatTest, ConfigGetSpellsItAsRedis) {
  EXPECT_EQ(FormatNotifyKeyspaceEvents(*ParseNotifyKeyspaceEvents(GetParam().set)), GetParam().get);
}

// Redis 7.0's keyspaceEventsFlagsToString, quirks included: "A" hides n.
INSTANTIATE_TEST_SUITE_P(RedisSpellings, NotifyFormatTest,
                         ::testing::Values(Spelling{"KEA", "AKE"}, Spelling{"AKE", "AKE"},
                                           Spelling{"Kg$", "g$K"}, Spelling{"KEAm", "AKEm"},
                                           Spelling{"Kn", "nK"}, Spelling{"KEAn", "AKE"},
                                           Spelling{"gg", "g"}, Spelling{"A$", "A"},
                                           Spelling{"", ""}, Spelling{"EK", "KE"},
                                           Spelling{"mnzhslx$gdt", "g$lshzxtdnm"},
                                           Spelling{"mnzhslx$gedt", "Am"}));

TEST(NotifyConfigTest, ConfigFileDirectiveSetsTheFlags) {
  Config config;

  EXPECT_FALSE(ApplyDirective(config, {"notify-keyspace-events", {"Ex"}, 0, {}}).has_value());

  EXPECT_EQ(config.notify_keyspace_events, notify::kKeyevent | notify::kExpired);
}

TEST(NotifyConfigTest, ConfigFileDirectiveRejectsABadLetter) {
  Config config;

  const auto error = ApplyDirective(config, {"notify-keyspace-events", {"KQ"}, 0, {}});

  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->message.find("Invalid event class character"), std::string::npos);
}

class NotifyConfigCommandTest : public CommandTest {};

TEST_F(NotifyConfigCommandTest, SetThenGetIsNormalised) {
  EXPECT_EQ(Run({"CONFIG", "SET", "notify-keyspace-events", "KEAm"}), "+OK\r\n");

  EXPECT_EQ(Run({"CONFIG", "GET", "notify-keyspace-events"}),
            "*2\r\n$22\r\nnotify-keyspace-events\r\n$4\r\nAKEm\r\n");
}

TEST_F(NotifyConfigCommandTest, SetRejectsABadLetterWithRedisError) {
  EXPECT_EQ(Run({"CONFIG", "SET", "notify-keyspace-events", "Q"}),
            "-ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
            "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.\r\n");
  EXPECT_EQ(state_.config.notify_keyspace_events, 0);
}

TEST_F(NotifyConfigCommandTest, ABadValueElsewhereLeavesTheFlagsUnchanged) {
  EXPECT_EQ(Run({"CONFIG", "SET", "notify-keyspace-events", "KEA", "hash-max-listpack-value", "x"})
                .substr(0, 21),
            "-ERR CONFIG SET faile");

  EXPECT_EQ(state_.config.notify_keyspace_events, 0);
}

TEST_F(NotifyConfigCommandTest, NotificationsAreOffByDefault) {
  EXPECT_EQ(Run({"CONFIG", "GET", "notify-keyspace-events"}),
            "*2\r\n$22\r\nnotify-keyspace-events\r\n$0\r\n\r\n");
}

}  // namespace
}  // namespace warden::server
