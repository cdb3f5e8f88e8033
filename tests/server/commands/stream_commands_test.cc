// The stream commands through the dispatcher (stream_commands.cc, stream_group_commands.cc,
// stream_info_commands.cc, stream_read_commands.cc), on the fixture's ManualClock: ids that *
// takes from the clock, idle and delivery times read from it, and replies with explicit ids
// checked against redis-server 7.0.15. Redis's own tests are tests/unit/type/stream.tcl and
// stream-cgroups.tcl; tests/differential/cases/stream*.txt compare everything that does not
// depend on the time with redis-server in the same run.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

// An entry of one field as XRANGE replies it.
std::string Entry(std::string_view id, std::string_view field, std::string_view value) {
  return "*2\r\n" + BulkReply(id) + "*2\r\n" + BulkReply(field) + BulkReply(value);
}

class StreamCommandsTest : public CommandTest {
 protected:
  // The id * gives now: the clock's milliseconds and a sequence.
  std::string IdNow(int seq = 0) const {
    return std::to_string(now_ms()) + "-" + std::to_string(seq);
  }

  void AddThree() {
    ASSERT_EQ(Run({"XADD", "s", "1-0", "f", "a"}), BulkReply("1-0"));
    ASSERT_EQ(Run({"XADD", "s", "2-0", "f", "b"}), BulkReply("2-0"));
    ASSERT_EQ(Run({"XADD", "s", "3-0", "f", "c"}), BulkReply("3-0"));
  }
};

// XADD

TEST_F(StreamCommandsTest, XaddStarTakesTheClocksMillisecondsAndCountsWithinOne) {
  EXPECT_EQ(Run({"XADD", "s", "*", "f", "v"}), BulkReply(IdNow(0)));
  EXPECT_EQ(Run({"XADD", "s", "*", "f", "v"}), BulkReply(IdNow(1)));

  clock_.AdvanceMs(5);

  EXPECT_EQ(Run({"XADD", "s", "*", "f", "v"}), BulkReply(IdNow(0)));
}

TEST_F(StreamCommandsTest, XaddStarNeverGoesBackWhenTheClockDoes) {
  const std::string first = IdNow(0);
  ASSERT_EQ(Run({"XADD", "s", "*", "f", "v"}), BulkReply(first));

  clock_.AdvanceMs(-1000);

  // The last id's milliseconds, one sequence on.
  EXPECT_EQ(Run({"XADD", "s", "*", "f", "v"}), BulkReply(first.substr(0, first.size() - 1) + "1"));
}

TEST_F(StreamCommandsTest, XaddExplicitIdsMustGrow) {
  EXPECT_EQ(Run({"XADD", "s", "5-1", "f", "v"}), BulkReply("5-1"));
  EXPECT_EQ(Run({"XADD", "s", "5-*", "f", "v"}), BulkReply("5-2"));
  EXPECT_EQ(Run({"XADD", "s", "4-0", "f", "v"}),
            "-ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item\r\n");
  EXPECT_EQ(Run({"XADD", "s", "5-2", "f", "v"}),
            "-ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item\r\n");
  EXPECT_EQ(Run({"XADD", "t", "0-0", "f", "v"}),
            "-ERR The ID specified in XADD must be greater than 0-0\r\n");
}

TEST_F(StreamCommandsTest, XaddNomkstreamLeavesAMissingKeyMissing) {
  EXPECT_EQ(Run({"XADD", "none", "NOMKSTREAM", "1-0", "a", "b"}), "$-1\r\n");
  EXPECT_EQ(Run({"EXISTS", "none"}), ":0\r\n");
}

TEST_F(StreamCommandsTest, XaddWantsFieldValuePairs) {
  EXPECT_EQ(Run({"XADD", "s", "1-0", "odd"}),
            "-ERR wrong number of arguments for 'xadd' command\r\n");
  EXPECT_EQ(Run({"XADD", "s", "1-0", "f", "v", "odd"}),
            "-ERR wrong number of arguments for 'xadd' command\r\n");
}

TEST_F(StreamCommandsTest, XaddMaxlenTrimsExactly) {
  ASSERT_EQ(Run({"XADD", "s", "MAXLEN", "2", "1-0", "a", "1"}), BulkReply("1-0"));
  ASSERT_EQ(Run({"XADD", "s", "MAXLEN", "2", "2-0", "a", "2"}), BulkReply("2-0"));
  ASSERT_EQ(Run({"XADD", "s", "MAXLEN", "=", "2", "3-0", "a", "3"}), BulkReply("3-0"));

  EXPECT_EQ(Run({"XRANGE", "s", "-", "+"}),
            "*2\r\n" + Entry("2-0", "a", "2") + Entry("3-0", "a", "3"));
}

TEST_F(StreamCommandsTest, StreamCommandsRefuseOtherTypes) {
  ASSERT_EQ(Run({"SET", "str", "v"}), "+OK\r\n");

  EXPECT_EQ(Run({"XADD", "str", "1-0", "a", "b"}), kWrongType);
  EXPECT_EQ(Run({"XLEN", "str"}), kWrongType);
  EXPECT_EQ(Run({"XRANGE", "str", "-", "+"}), kWrongType);
  EXPECT_EQ(Run({"XREAD", "STREAMS", "str", "0"}), kWrongType);
}

// XRANGE, XREVRANGE, XLEN, XDEL, XTRIM, XSETID

TEST_F(StreamCommandsTest, XrangeBoundsCountsAndExclusiveStarts) {
  AddThree();

  EXPECT_EQ(Run({"XRANGE", "s", "-", "+", "COUNT", "2"}),
            "*2\r\n" + Entry("1-0", "f", "a") + Entry("2-0", "f", "b"));
  EXPECT_EQ(Run({"XRANGE", "s", "(1-0", "+"}),
            "*2\r\n" + Entry("2-0", "f", "b") + Entry("3-0", "f", "c"));
  EXPECT_EQ(Run({"XREVRANGE", "s", "+", "-", "COUNT", "1"}), "*1\r\n" + Entry("3-0", "f", "c"));
  // An id without a sequence covers every sequence of its millisecond.
  EXPECT_EQ(Run({"XRANGE", "s", "2", "2"}), "*1\r\n" + Entry("2-0", "f", "b"));
  EXPECT_EQ(Run({"XRANGE", "s", "x", "+"}),
            "-ERR Invalid stream ID specified as stream command argument\r\n");
  EXPECT_EQ(Run({"XRANGE", "nokey", "-", "+"}), "*0\r\n");
}

TEST_F(StreamCommandsTest, XdelCountsWhatWasThere) {
  AddThree();

  EXPECT_EQ(Run({"XDEL", "s", "2-0", "9-9"}), ":1\r\n");
  EXPECT_EQ(Run({"XLEN", "s"}), ":2\r\n");
  EXPECT_EQ(Run({"XRANGE", "s", "-", "+"}),
            "*2\r\n" + Entry("1-0", "f", "a") + Entry("3-0", "f", "c"));
}

TEST_F(StreamCommandsTest, AStreamTrimmedEmptyStaysAKey) {
  AddThree();

  EXPECT_EQ(Run({"XTRIM", "s", "MINID", "3"}), ":2\r\n");
  EXPECT_EQ(Run({"XTRIM", "s", "MAXLEN", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"XLEN", "s"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "s"}), ":1\r\n");
  EXPECT_EQ(Run({"TYPE", "s"}), "+stream\r\n");
}

TEST_F(StreamCommandsTest, XsetidMovesTheLastIdEvenBackwardsOnAnEmptyStream) {
  AddThree();
  ASSERT_EQ(Run({"XTRIM", "s", "MAXLEN", "0"}), ":3\r\n");

  EXPECT_EQ(Run({"XSETID", "s", "5-0"}), "+OK\r\n");
  EXPECT_EQ(Run({"XADD", "s", "4-0", "a", "b"}),
            "-ERR The ID specified in XADD is equal or smaller than the target stream top "
            "item\r\n");
  ASSERT_EQ(Run({"XADD", "s", "6-0", "a", "b"}), BulkReply("6-0"));
  EXPECT_EQ(Run({"XSETID", "s", "9-0", "ENTRIESADDED", "0", "MAXDELETEDID", "0-0"}),
            "-ERR The entries_added specified in XSETID is smaller than the target stream "
            "length\r\n");
  // With an entry in it, the last id can no longer go below it.
  EXPECT_EQ(Run({"XSETID", "s", "5-0"}),
            "-ERR The ID specified in XSETID is smaller than the target stream top item\r\n");
}

// Consumer groups

TEST_F(StreamCommandsTest, XreadgroupDeliversNewEntriesAndRereadsThePendingOnes) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");

  EXPECT_EQ(Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"}),
            "*1\r\n*2\r\n$1\r\ns\r\n*2\r\n" + Entry("1-0", "f", "a") + Entry("2-0", "f", "b"));
  EXPECT_EQ(Run({"XREADGROUP", "GROUP", "g", "bob", "STREAMS", "s", ">"}),
            "*1\r\n*2\r\n$1\r\ns\r\n*1\r\n" + Entry("3-0", "f", "c"));
  EXPECT_EQ(Run({"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", "0"}),
            "*1\r\n*2\r\n$1\r\ns\r\n*2\r\n" + Entry("1-0", "f", "a") + Entry("2-0", "f", "b"));
  EXPECT_EQ(Run({"XACK", "s", "g", "1-0", "9-0"}), ":1\r\n");
  EXPECT_EQ(Run({"XPENDING", "s", "g"}),
            "*4\r\n:2\r\n$3\r\n2-0\r\n$3\r\n3-0\r\n*2\r\n*2\r\n$5\r\nalice\r\n$1\r\n1\r\n"
            "*2\r\n$3\r\nbob\r\n$1\r\n1\r\n");
  EXPECT_EQ(Run({"XINFO", "GROUPS", "s"}),
            "*1\r\n*12\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:2\r\n$7\r\npending\r\n"
            ":2\r\n$17\r\nlast-delivered-id\r\n$3\r\n3-0\r\n$12\r\nentries-read\r\n:3\r\n"
            "$3\r\nlag\r\n:0\r\n");
}

TEST_F(StreamCommandsTest, XreadgroupWithoutAGroupNamesKeyAndGroup) {
  AddThree();

  EXPECT_EQ(Run({"XREADGROUP", "GROUP", "nog", "alice", "STREAMS", "s", ">"}),
            "-NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP "
            "option\r\n");
  EXPECT_EQ(Run({"XGROUP", "DESTROY", "s", "nog"}), ":0\r\n");
}

TEST_F(StreamCommandsTest, XpendingIdleTimesFollowTheClock) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");
  ASSERT_EQ(
      Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"}).substr(0, 4),
      "*1\r\n");

  clock_.AdvanceMs(1500);

  EXPECT_EQ(Run({"XPENDING", "s", "g", "-", "+", "10"}),
            "*1\r\n*4\r\n$3\r\n1-0\r\n$5\r\nalice\r\n:1500\r\n:1\r\n");
  // IDLE filters on the same reading.
  EXPECT_EQ(Run({"XPENDING", "s", "g", "IDLE", "1501", "-", "+", "10"}), "*0\r\n");
  EXPECT_EQ(Run({"XPENDING", "s", "g", "IDLE", "1500", "-", "+", "10"}).substr(0, 4), "*1\r\n");
}

TEST_F(StreamCommandsTest, XinfoConsumersIdleIsSinceTheLastRead) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");
  ASSERT_EQ(Run({"XGROUP", "CREATECONSUMER", "s", "g", "bob"}), ":1\r\n");
  clock_.AdvanceMs(200);
  ASSERT_EQ(
      Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"}).substr(0, 4),
      "*1\r\n");
  clock_.AdvanceMs(300);

  EXPECT_EQ(Run({"XINFO", "CONSUMERS", "s", "g"}),
            "*2\r\n*6\r\n$4\r\nname\r\n$5\r\nalice\r\n$7\r\npending\r\n:2\r\n$4\r\nidle\r\n"
            ":300\r\n*6\r\n$4\r\nname\r\n$3\r\nbob\r\n$7\r\npending\r\n:0\r\n$4\r\nidle\r\n"
            ":500\r\n");
}

TEST_F(StreamCommandsTest, XclaimTakesEntriesIdleLongEnoughAndCountsTheDelivery) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");
  ASSERT_EQ(Run({"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"}).substr(0, 4), "*1\r\n");
  clock_.AdvanceMs(1000);

  // Not idle long enough: nothing moves.
  EXPECT_EQ(Run({"XCLAIM", "s", "g", "bob", "1001", "1-0"}), "*0\r\n");
  EXPECT_EQ(Run({"XCLAIM", "s", "g", "bob", "1000", "1-0"}), "*1\r\n" + Entry("1-0", "f", "a"));
  EXPECT_EQ(Run({"XPENDING", "s", "g", "-", "+", "1"}),
            "*1\r\n*4\r\n$3\r\n1-0\r\n$3\r\nbob\r\n:0\r\n:2\r\n");
  // JUSTID leaves the delivery count alone; IDLE sets the idle time it starts from.
  EXPECT_EQ(Run({"XCLAIM", "s", "g", "carol", "0", "2-0", "IDLE", "5000", "JUSTID"}),
            "*1\r\n$3\r\n2-0\r\n");
  EXPECT_EQ(Run({"XPENDING", "s", "g", "2-0", "2-0", "1"}),
            "*1\r\n*4\r\n$3\r\n2-0\r\n$5\r\ncarol\r\n:5000\r\n:1\r\n");
}

TEST_F(StreamCommandsTest, XautoclaimScansFromTheStartIdAndReturnsTheNextOne) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");
  ASSERT_EQ(Run({"XREADGROUP", "GROUP", "g", "alice", "STREAMS", "s", ">"}).substr(0, 4), "*1\r\n");
  clock_.AdvanceMs(60'000);

  EXPECT_EQ(Run({"XAUTOCLAIM", "s", "g", "bob", "60000", "0", "COUNT", "2", "JUSTID"}),
            "*3\r\n$3\r\n3-0\r\n*2\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n*0\r\n");
  EXPECT_EQ(Run({"XAUTOCLAIM", "s", "g", "bob", "60000", "3-0", "JUSTID"}),
            "*3\r\n$3\r\n0-0\r\n*1\r\n$3\r\n3-0\r\n*0\r\n");
  // A deleted pending entry is dropped from the group and named in the third element.
  ASSERT_EQ(Run({"XDEL", "s", "1-0"}), ":1\r\n");
  clock_.AdvanceMs(60'000);
  EXPECT_EQ(Run({"XAUTOCLAIM", "s", "g", "carol", "60000", "0", "COUNT", "1"}),
            "*3\r\n$3\r\n2-0\r\n*0\r\n*1\r\n$3\r\n1-0\r\n");
}

TEST_F(StreamCommandsTest, XgroupSetidAndEntriesReadDecideTheLag) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "$"}), "+OK\r\n");
  EXPECT_EQ(Run({"XGROUP", "SETID", "s", "g", "1-0", "ENTRIESREAD", "1"}), "+OK\r\n");

  EXPECT_EQ(Run({"XINFO", "GROUPS", "s"}),
            "*1\r\n*12\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:0\r\n$7\r\npending\r\n"
            ":0\r\n$17\r\nlast-delivered-id\r\n$3\r\n1-0\r\n$12\r\nentries-read\r\n:1\r\n"
            "$3\r\nlag\r\n:2\r\n");
}

// Redis's increment would overflow a count at the max (undefined behaviour): warden derives the
// count from the stream instead, as it does past a tombstone.
TEST_F(StreamCommandsTest, EntriesReadAtTheMaxIsDerivedAgainOnTheNextRead) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0", "ENTRIESREAD", "9223372036854775807"}),
            "+OK\r\n");
  ASSERT_NE(Run({"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"}), "*-1\r\n");

  EXPECT_EQ(Run({"XINFO", "GROUPS", "s"}),
            "*1\r\n*12\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:1\r\n$7\r\npending\r\n"
            ":1\r\n$17\r\nlast-delivered-id\r\n$3\r\n1-0\r\n$12\r\nentries-read\r\n:1\r\n"
            "$3\r\nlag\r\n:2\r\n");
}

// XREAD

TEST_F(StreamCommandsTest, XreadReturnsEntriesAfterTheGivenIds) {
  AddThree();
  ASSERT_EQ(Run({"XADD", "t", "7-0", "g", "x"}), BulkReply("7-0"));

  EXPECT_EQ(Run({"XREAD", "COUNT", "1", "STREAMS", "s", "t", "1-0", "0"}),
            "*2\r\n*2\r\n$1\r\ns\r\n*1\r\n" + Entry("2-0", "f", "b") + "*2\r\n$1\r\nt\r\n*1\r\n" +
                Entry("7-0", "g", "x"));
  EXPECT_EQ(Run({"XREAD", "STREAMS", "s", "3-0"}), "*-1\r\n");
  EXPECT_EQ(Run({"XREAD", "STREAMS", "s", "t", "0"}),
            "-ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
            "specified.\r\n");
}

TEST_F(StreamCommandsTest, XreadBlockInsideMultiAnswersAtOnce) {
  AddThree();
  ASSERT_EQ(Run({"MULTI"}), "+OK\r\n");
  ASSERT_EQ(Run({"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}), "+QUEUED\r\n");

  EXPECT_EQ(Run({"EXEC"}), "*1\r\n*-1\r\n");
}

// XINFO STREAM

TEST_F(StreamCommandsTest, XinfoStreamShowsLengthIdsAndEnds) {
  AddThree();

  const std::string info = Run({"XINFO", "STREAM", "s"});

  EXPECT_EQ(info.substr(0, 5), "*20\r\n");
  EXPECT_NE(info.find("$6\r\nlength\r\n:3\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("$17\r\nlast-generated-id\r\n$3\r\n3-0\r\n"), std::string::npos);
  EXPECT_NE(info.find("$13\r\nentries-added\r\n:3\r\n"), std::string::npos);
  EXPECT_NE(info.find("$11\r\nfirst-entry\r\n" + Entry("1-0", "f", "a")), std::string::npos);
  EXPECT_NE(info.find("$10\r\nlast-entry\r\n" + Entry("3-0", "f", "c")), std::string::npos);
  EXPECT_EQ(Run({"XINFO", "STREAM", "nokey"}), "-ERR no such key\r\n");
}

TEST_F(StreamCommandsTest, XinfoStreamFullShowsGroupsWithTheirPendingEntries) {
  AddThree();
  ASSERT_EQ(Run({"XGROUP", "CREATE", "s", "g", "0"}), "+OK\r\n");
  ASSERT_EQ(
      Run({"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "s", ">"}).substr(0, 4),
      "*1\r\n");
  const std::string delivered = std::to_string(now_ms());

  const std::string full = Run({"XINFO", "STREAM", "s", "FULL"});

  // The group with the same position fields as XINFO GROUPS, and its one pending entry with
  // the delivery time on the fixture's clock.
  EXPECT_NE(full.find("$17\r\nlast-delivered-id\r\n$3\r\n1-0\r\n$12\r\nentries-read\r\n:1\r\n"
                      "$3\r\nlag\r\n:2\r\n$9\r\npel-count\r\n:1\r\n"),
            std::string::npos)
      << full;
  EXPECT_NE(full.find("*4\r\n$3\r\n1-0\r\n$5\r\nalice\r\n:" + delivered + "\r\n:1\r\n"),
            std::string::npos)
      << full;
}

}  // namespace
}  // namespace warden::server
