// Blocking pops through the dispatcher, without sockets: waiters are sessions with a fake
// connection (their replies collect in a string), the clock is a ManualClock moved by the test.
// The same scenarios run against redis-server in tests/clients/python/test_blocking.py.
#include <memory>
#include <vector>

#include "server/blocking.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class FakeConnection final : public BlockedClientHost {
 public:
  std::string& reply_buffer() override { return out; }
  void Unblocked() override { ++unblocked; }
  void ScheduleFlush() override { ++flushes; }

  std::string out;
  int unblocked = 0;
  int flushes = 0;
};

struct Waiter {
  Session session;
  FakeConnection connection;
};

class BlockingCommandsTest : public CommandTest {
 protected:
  // A client that can block; its first reply (if it did not block) is returned.
  Waiter& NewWaiter() {
    auto& w = *waiters_.emplace_back(std::make_unique<Waiter>());
    w.session.id = state_.NewClientId();
    w.session.host = &w.connection;
    return w;
  }

  std::string RunAs(Waiter& w, std::initializer_list<std::string_view> args) {
    std::string out;
    protocol::ReplyWriter writer(&out, w.session.resp);
    Dispatch(state_, w.session, std::span<const std::string_view>(args.begin(), args.size()),
             writer);
    return out;
  }

  std::size_t Blocked() const { return state_.blocking.blocked_clients(); }

  void Advance(std::int64_t ms) {
    clock_.AdvanceMs(ms);
    state_.blocking.ExpireTimeouts(clock_.NowMs());
  }

  std::vector<std::unique_ptr<Waiter>> waiters_;
};

TEST_F(BlockingCommandsTest, ServesAtOnceWhenAKeyHasElements) {
  Run({"RPUSH", "q", "a", "b"});
  Waiter& w = NewWaiter();

  EXPECT_EQ(RunAs(w, {"BLPOP", "missing", "q", "0"}), "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
  EXPECT_EQ(RunAs(w, {"BRPOP", "q", "0"}), "*2\r\n$1\r\nq\r\n$1\r\nb\r\n");
  EXPECT_FALSE(w.session.blocked);
  EXPECT_EQ(Run({"EXISTS", "q"}), ":0\r\n");
}

TEST_F(BlockingCommandsTest, APushWakesTheWaiterBeforeThePusherIsAnswered) {
  Waiter& w = NewWaiter();
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", "0"}), "");
  EXPECT_TRUE(w.session.blocked);
  EXPECT_EQ(Blocked(), 1u);

  // The pusher sees the length its push made, before the waiter took the element.
  EXPECT_EQ(Run({"LPUSH", "q", "x"}), ":1\r\n");

  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
  EXPECT_EQ(w.connection.unblocked, 1);
  EXPECT_FALSE(w.session.blocked);
  EXPECT_EQ(Blocked(), 0u);
  EXPECT_EQ(Run({"EXISTS", "q"}), ":0\r\n");
}

TEST_F(BlockingCommandsTest, WaitersOnAKeyAreServedFirstComeFirstServed) {
  Waiter& first = NewWaiter();
  Waiter& second = NewWaiter();
  Waiter& third = NewWaiter();
  RunAs(first, {"BLPOP", "q", "0"});
  RunAs(second, {"BRPOP", "q", "0"});
  RunAs(third, {"BLPOP", "q", "0"});

  EXPECT_EQ(Run({"RPUSH", "q", "1", "2"}), ":2\r\n");

  EXPECT_EQ(first.connection.out, "*2\r\n$1\r\nq\r\n$1\r\n1\r\n");
  EXPECT_EQ(second.connection.out, "*2\r\n$1\r\nq\r\n$1\r\n2\r\n");
  EXPECT_EQ(third.connection.out, "");
  EXPECT_TRUE(third.session.blocked);
}

TEST_F(BlockingCommandsTest, AWaiterOnSeveralKeysIsServedByTheFirstToReceiveData) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "a", "b", "0"});

  // The script pushes to b, then to a: b received data first.
  EXPECT_EQ(Run({"EVAL", "redis.call('rpush', KEYS[1], 'y') redis.call('rpush', KEYS[2], 'z')", "2",
                 "b", "a"}),
            "$-1\r\n");

  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nb\r\n$1\r\ny\r\n");
  EXPECT_EQ(Run({"LRANGE", "a", "0", "-1"}), "*1\r\n$1\r\nz\r\n");
}

TEST_F(BlockingCommandsTest, AScriptThatPushesAndPopsLeavesTheWaiterWaiting) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "q", "0"});

  Run({"EVAL", "redis.call('lpush', KEYS[1], 'x') redis.call('lpop', KEYS[1])", "1", "q"});

  EXPECT_TRUE(w.session.blocked);
  EXPECT_EQ(w.connection.out, "");
}

TEST_F(BlockingCommandsTest, AKeyOfAnotherTypeLeavesTheWaiterWaiting) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "q", "0"});

  Run({"SET", "q", "string"});
  EXPECT_TRUE(w.session.blocked);
  EXPECT_EQ(w.connection.out, "");

  Run({"DEL", "q"});
  Run({"RPUSH", "q", "x"});
  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nq\r\n$1\r\nx\r\n");
}

TEST_F(BlockingCommandsTest, AWrongTypeWhenFirstRunIsAnError) {
  Run({"SET", "s", "string"});
  Waiter& w = NewWaiter();

  EXPECT_EQ(RunAs(w, {"BLPOP", "missing", "s", "0"}),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_FALSE(w.session.blocked);
}

TEST_F(BlockingCommandsTest, BlmoveServesTheNextWaiterInTheSameRound) {
  Waiter& mover = NewWaiter();
  Waiter& popper = NewWaiter();
  RunAs(mover, {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"});
  RunAs(popper, {"BLPOP", "dst", "0"});

  EXPECT_EQ(Run({"LPUSH", "src", "x"}), ":1\r\n");

  EXPECT_EQ(mover.connection.out, "$1\r\nx\r\n");
  EXPECT_EQ(popper.connection.out, "*2\r\n$3\r\ndst\r\n$1\r\nx\r\n");
  EXPECT_EQ(Blocked(), 0u);
}

TEST_F(BlockingCommandsTest, BlmoveIntoADestinationOfAnotherTypeAnswersWrongTypeAndKeepsTheSource) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLMOVE", "src", "dst", "LEFT", "LEFT", "0"});
  Run({"SET", "dst", "string"});

  Run({"LPUSH", "src", "x"});

  EXPECT_EQ(w.connection.out,
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  EXPECT_FALSE(w.session.blocked);
  EXPECT_EQ(Run({"LRANGE", "src", "0", "-1"}), "*1\r\n$1\r\nx\r\n");
}

TEST_F(BlockingCommandsTest, BlmpopTakesUpToCountFromTheKeyThatReceivedData) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLMPOP", "0", "2", "a", "b", "RIGHT", "COUNT", "2"});

  Run({"RPUSH", "b", "1", "2", "3"});

  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nb\r\n*2\r\n$1\r\n3\r\n$1\r\n2\r\n");
  EXPECT_EQ(Run({"LRANGE", "b", "0", "-1"}), "*1\r\n$1\r\n1\r\n");
}

TEST_F(BlockingCommandsTest, ZaddWakesBzpopminAndBzmpop) {
  Waiter& min = NewWaiter();
  Waiter& mpop = NewWaiter();
  RunAs(min, {"BZPOPMIN", "z", "0"});
  RunAs(mpop, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "5"});

  EXPECT_EQ(Run({"ZADD", "z", "1.5", "a", "2", "b", "3", "c"}), ":3\r\n");

  EXPECT_EQ(min.connection.out, "*3\r\n$1\r\nz\r\n$1\r\na\r\n$3\r\n1.5\r\n");
  EXPECT_EQ(mpop.connection.out,
            "*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\nc\r\n$1\r\n3\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
  EXPECT_EQ(Run({"EXISTS", "z"}), ":0\r\n");
}

TEST_F(BlockingCommandsTest, AListWaiterIgnoresASortedSetAndTheOtherWayRound) {
  Waiter& list = NewWaiter();
  Waiter& zset = NewWaiter();
  RunAs(list, {"BLPOP", "k", "0"});
  RunAs(zset, {"BZPOPMAX", "k", "0"});

  Run({"ZADD", "k", "1", "m"});

  EXPECT_TRUE(list.session.blocked);
  EXPECT_EQ(zset.connection.out, "*3\r\n$1\r\nk\r\n$1\r\nm\r\n$1\r\n1\r\n");
}

TEST_F(BlockingCommandsTest, TimesOutOnWardensClockAtTheDeadline) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "q", "1.5"});
  EXPECT_EQ(state_.blocking.clients_with_deadline(), 1u);

  Advance(1499);
  EXPECT_TRUE(w.session.blocked);

  Advance(1);
  EXPECT_FALSE(w.session.blocked);
  EXPECT_EQ(w.connection.out, "*-1\r\n");
  EXPECT_EQ(state_.blocking.clients_with_deadline(), 0u);
}

TEST_F(BlockingCommandsTest, ATimeoutInRESP3IsANull) {
  Waiter& w = NewWaiter();
  w.session.resp = 3;
  RunAs(w, {"BRPOPLPUSH", "q", "d", "0.01"});

  Advance(10);

  EXPECT_EQ(w.connection.out, "_\r\n");
}

TEST_F(BlockingCommandsTest, ZeroWaitsForeverAndTheEarliestDeadlineGoesFirst) {
  Waiter& forever = NewWaiter();
  Waiter& late = NewWaiter();
  Waiter& early = NewWaiter();
  RunAs(forever, {"BLPOP", "q", "0"});
  RunAs(late, {"BLPOP", "q", "20"});
  RunAs(early, {"BLPOP", "q", "10"});
  EXPECT_EQ(state_.blocking.next_deadline(), now_ms() + 10000);

  Advance(10000);
  EXPECT_EQ(early.connection.out, "*-1\r\n");
  EXPECT_TRUE(late.session.blocked);

  Advance(1000000);
  EXPECT_EQ(late.connection.out, "*-1\r\n");
  EXPECT_TRUE(forever.session.blocked);
}

TEST_F(BlockingCommandsTest, TimeoutsAreParsedAsRedis70Does) {
  Waiter& w = NewWaiter();
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", "-1"}), ErrorReply("ERR timeout is negative"));
  // Past the range of a 64-bit millisecond count: 7.0 calls these negative too.
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", "inf"}), ErrorReply("ERR timeout is negative"));
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", "1e16"}), ErrorReply("ERR timeout is negative"));
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", "nan"}),
            ErrorReply("ERR timeout is not a float or out of range"));
  EXPECT_EQ(RunAs(w, {"BLPOP", "q", " 1"}),
            ErrorReply("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Blocked(), 0u);

  // A fraction of a millisecond rounds up; a negative one rounds to zero, which waits forever.
  RunAs(w, {"BLPOP", "q", "0.0001"});
  EXPECT_EQ(state_.blocking.next_deadline(), now_ms() + 1);
  Advance(1);
  EXPECT_EQ(w.connection.out, "*-1\r\n");
  RunAs(w, {"BLPOP", "q", "-0.0001"});
  EXPECT_TRUE(w.session.blocked);
  EXPECT_EQ(state_.blocking.clients_with_deadline(), 0u);
}

TEST_F(BlockingCommandsTest, ClientUnblockEndsTheWaitWithATimeoutOrAnError) {
  Waiter& a = NewWaiter();
  Waiter& b = NewWaiter();
  RunAs(a, {"BLPOP", "q", "0"});
  RunAs(b, {"BZPOPMIN", "z", "0"});
  const std::string a_id = std::to_string(a.session.id);
  const std::string b_id = std::to_string(b.session.id);

  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", a_id}), ":1\r\n");
  EXPECT_EQ(a.connection.out, "*-1\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", b_id, "ERROR"}), ":1\r\n");
  EXPECT_EQ(b.connection.out, "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", a_id}), ":0\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", "x", "FOO"}),
            ErrorReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
  EXPECT_EQ(Run({"CLIENT", "UNBLOCK", "x"}),
            ErrorReply("ERR value is not an integer or out of range"));
}

// The line of an INFO reply that starts with `name` (without its CRLF), or "".
std::string InfoLine(std::string_view info, std::string_view name) {
  const std::size_t at = info.find("\n" + std::string(name));
  if (at == std::string_view::npos) return "";
  const std::size_t end = info.find("\r\n", at);
  return std::string(info.substr(at + 1, end - at - 1));
}

// Redis's "errorstats: blocking commands": the UNBLOCKED error counts in errorstats and
// total_error_replies, and as a failure of the CLIENT UNBLOCK that wrote it; CLIENT UNBLOCK
// counts the blocked command as failed with either reply (updateStatsOnUnblock), a deadline
// that passes does not.
TEST_F(BlockingCommandsTest, ClientUnblockCountsTheErrorAndTheFailedCall) {
  Waiter& w = NewWaiter();
  const std::string id = std::to_string(w.session.id);
  RunAs(w, {"BLPOP", "q", "0"});
  Run({"CLIENT", "UNBLOCK", id, "ERROR"});
  RunAs(w, {"BLPOP", "q", "0"});
  Run({"CLIENT", "UNBLOCK", id});
  RunAs(w, {"BLPOP", "q", "1"});
  Advance(1000);

  const std::string info = Run({"INFO", "all"});
  EXPECT_EQ(InfoLine(info, "errorstat_UNBLOCKED:"), "errorstat_UNBLOCKED:count=1");
  EXPECT_EQ(InfoLine(info, "total_error_replies:"), "total_error_replies:1");
  EXPECT_TRUE(InfoLine(info, "cmdstat_blpop:").starts_with("cmdstat_blpop:calls=3,"));
  EXPECT_TRUE(InfoLine(info, "cmdstat_blpop:").ends_with(",rejected_calls=0,failed_calls=2"));
  EXPECT_TRUE(
      InfoLine(info, "cmdstat_client|unblock:").ends_with(",rejected_calls=0,failed_calls=1"));
}

TEST_F(BlockingCommandsTest, AClientThatGoesAwayLeavesNothingBehind) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "q", "a", "5"});

  state_.blocking.Remove(w.session);

  EXPECT_EQ(Blocked(), 0u);
  EXPECT_EQ(state_.blocking.clients_with_deadline(), 0u);
  EXPECT_EQ(Run({"LPUSH", "q", "x"}), ":1\r\n");
  EXPECT_EQ(Run({"LLEN", "q"}), ":1\r\n");
  EXPECT_EQ(w.connection.out, "");
}

TEST_F(BlockingCommandsTest, WaitersBelongToTheirDatabase) {
  Waiter& w = NewWaiter();
  RunAs(w, {"SELECT", "1"});
  RunAs(w, {"BLPOP", "q", "0"});

  Run({"RPUSH", "q", "in-db-0"});
  EXPECT_TRUE(w.session.blocked);

  // MOVE brings the list to the waiter's database.
  EXPECT_EQ(Run({"MOVE", "q", "1"}), ":1\r\n");
  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nq\r\n$7\r\nin-db-0\r\n");
}

TEST_F(BlockingCommandsTest, SwapdbWakesWaitersOnKeysTheOtherDatabaseHeld) {
  Waiter& w = NewWaiter();
  RunAs(w, {"BLPOP", "q", "0"});
  Run({"SELECT", "1"});
  Run({"RPUSH", "q", "from-db-1"});
  EXPECT_TRUE(w.session.blocked);

  EXPECT_EQ(Run({"SWAPDB", "0", "1"}), "+OK\r\n");

  EXPECT_EQ(w.connection.out, "*2\r\n$1\r\nq\r\n$9\r\nfrom-db-1\r\n");
}

TEST_F(BlockingCommandsTest, WithoutAConnectionTheCommandsDoNotWait) {
  // The fixture's own client has no connection to wait on, like a script.
  EXPECT_EQ(Run({"BLPOP", "q", "0"}), "*-1\r\n");
  EXPECT_EQ(Run({"BLMPOP", "0", "1", "q", "LEFT"}), "*-1\r\n");
  EXPECT_EQ(Blocked(), 0u);
}

TEST_F(BlockingCommandsTest, ScriptsRefuseTheBlockingPopsButRunTheMpopsAtOnce) {
  EXPECT_EQ(Run({"EVAL", "return redis.pcall('blpop', 'q', 0)", "0"}),
            ErrorReply("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(Run({"EVAL", "return redis.call('blmpop', 0, 1, 'q', 'LEFT')", "0"}), "$-1\r\n");
  Run({"RPUSH", "q", "x"});
  EXPECT_EQ(Run({"EVAL", "return redis.call('blmpop', 0, 1, 'q', 'LEFT')", "0"}),
            "*2\r\n$1\r\nq\r\n*1\r\n$1\r\nx\r\n");
  EXPECT_EQ(Blocked(), 0u);
}

}  // namespace
}  // namespace warden::server
