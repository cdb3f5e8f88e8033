// MULTI/EXEC/WATCH through the dispatcher, without sockets: a second client is a Session of its
// own, time is a ManualClock. The same behaviour is compared with redis-server in
// tests/differential/cases/transactions.txt and tests/clients/python/test_transactions.py.
#include <memory>

#include "server/blocking.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class FakeConnection final : public BlockedClientHost {
 public:
  std::string& reply_buffer() override { return out; }
  void Unblocked() override {}
  void ScheduleFlush() override {}
  std::string out;
};

class TransactionCommandsTest : public CommandTest {
 protected:
  TransactionCommandsTest() {
    other_.id = state_.NewClientId();
    other_.host = &other_connection_;
  }

  std::string RunAsOther(std::initializer_list<std::string_view> args) {
    std::string out;
    protocol::ReplyWriter writer(&out, other_.resp);
    Dispatch(state_, other_, std::span<const std::string_view>(args.begin(), args.size()), writer);
    return out;
  }

  // WATCH key, a change by the other client, then MULTI/PING/EXEC: EXEC's reply.
  std::string ExecAfterOther(std::string_view key, std::initializer_list<std::string_view> write) {
    EXPECT_EQ(Run({"WATCH", key}), "+OK\r\n");
    RunAsOther(write);
    Run({"MULTI"});
    Run({"PING"});
    return Run({"EXEC"});
  }

  FakeConnection other_connection_;
  Session other_;
};

constexpr std::string_view kNullArray = "*-1\r\n";
constexpr std::string_view kPong = "*1\r\n+PONG\r\n";

TEST_F(TransactionCommandsTest, QueuesThenRunsInOrder) {
  EXPECT_EQ(Run({"MULTI"}), "+OK\r\n");
  EXPECT_EQ(Run({"SET", "k", "1"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"INCR", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(RunAsOther({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"EXEC"}), "*2\r\n+OK\r\n:2\r\n");
}

TEST_F(TransactionCommandsTest, QueuedArgumentsAreCopies) {
  std::string key = "first";
  std::string value = "v1";
  Run({"MULTI"});
  Run({"SET", key, value});
  key.assign("xxxxx");
  value.assign("zz");
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n+OK\r\n");
  EXPECT_EQ(Run({"GET", "first"}), "$2\r\nv1\r\n");
}

TEST_F(TransactionCommandsTest, RefusalWhileQueueingAbortsExec) {
  Run({"MULTI"});
  EXPECT_EQ(Run({"INCR", "n"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"SET", "k"}), "-ERR wrong number of arguments for 'set' command\r\n");
  EXPECT_EQ(Run({"EXEC"}), "-EXECABORT Transaction discarded because of previous errors.\r\n");
  EXPECT_EQ(Run({"EXISTS", "n"}), ":0\r\n");
}

TEST_F(TransactionCommandsTest, RunTimeErrorsAreElementsOfTheReply) {
  Run({"MULTI"});
  Run({"SET", "k", "v"});
  Run({"INCR", "k"});
  Run({"GET", "k"});
  EXPECT_EQ(Run({"EXEC"}),
            "*3\r\n+OK\r\n-ERR value is not an integer or out of range\r\n$1\r\nv\r\n");
}

TEST_F(TransactionCommandsTest, RefusedExecEndsTheTransactionWithItsReason) {
  Run({"MULTI"});
  EXPECT_EQ(Run({"EXEC", "x"}),
            "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
            "command\r\n");
  EXPECT_EQ(Run({"EXEC"}), "-ERR EXEC without MULTI\r\n");
}

TEST_F(TransactionCommandsTest, NestedMultiAndWatchInsideMultiDoNotAbort) {
  Run({"MULTI"});
  EXPECT_EQ(Run({"MULTI"}), "-ERR MULTI calls can not be nested\r\n");
  EXPECT_EQ(Run({"WATCH", "k"}), "-ERR WATCH inside MULTI is not allowed\r\n");
  Run({"PING"});
  EXPECT_EQ(Run({"EXEC"}), kPong);
}

TEST_F(TransactionCommandsTest, ResetLeavesMultiAndUnwatches) {
  Run({"WATCH", "k"});
  Run({"MULTI"});
  Run({"INCR", "k"});
  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");
  EXPECT_TRUE(state_.watched_keys.empty());
  EXPECT_EQ(Run({"EXEC"}), "-ERR EXEC without MULTI\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(TransactionCommandsTest, WriteByAnotherClientFailsExec) {
  Run({"SET", "k", "v"});
  EXPECT_EQ(ExecAfterOther("k", {"SET", "k", "v"}), kNullArray);
}

TEST_F(TransactionCommandsTest, FailedExecIsANullInResp3) {
  Run({"HELLO", "3"});
  EXPECT_EQ(ExecAfterOther("k", {"SET", "k", "v"}), "_\r\n");
}

TEST_F(TransactionCommandsTest, WriteThatChangesNothingDoesNotFailExec) {
  Run({"SET", "k", "v"});
  Run({"SADD", "s", "m"});
  Run({"WATCH", "s"});
  RunAsOther({"SADD", "s", "m"});
  EXPECT_EQ(ExecAfterOther("k", {"SET", "k", "other", "NX"}), kPong);
}

TEST_F(TransactionCommandsTest, InPlaceChangeOfALargeValueFailsExec) {
  PutTableHash("h", 4);
  EXPECT_EQ(ExecAfterOther("h", {"HSET", "h", "f0", "v0"}), kNullArray);  // the same value
  EXPECT_EQ(ExecAfterOther("h", {"HINCRBY", "h", "n", "1"}), kNullArray);
  EXPECT_EQ(ExecAfterOther("h", {"HDEL", "h", "nofield"}), kPong);
}

TEST_F(TransactionCommandsTest, OwnWritesInsideTheTransactionDoNotFailIt) {
  Run({"WATCH", "k"});
  Run({"MULTI"});
  Run({"SET", "k", "1"});
  Run({"INCR", "k"});
  EXPECT_EQ(Run({"EXEC"}), "*2\r\n+OK\r\n:2\r\n");
}

TEST_F(TransactionCommandsTest, KeyExpiringAfterWatchFailsExec) {
  Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  Run({"SET", "k", "v", "PX", "100"});
  Run({"WATCH", "k"});
  clock_.AdvanceMs(200);
  Run({"MULTI"});
  Run({"PING"});
  EXPECT_EQ(Run({"EXEC"}), kNullArray);
}

TEST_F(TransactionCommandsTest, KeyAlreadyExpiredAtWatchDoesNotFailExec) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(200);
  Run({"WATCH", "k"});
  EXPECT_EQ(RunAsOther({"GET", "k"}), "$-1\r\n");  // removes it: no logical change
  Run({"MULTI"});
  Run({"PING"});
  EXPECT_EQ(Run({"EXEC"}), kPong);
}

TEST_F(TransactionCommandsTest, FlushTouchesOnlyKeysThatExist) {
  EXPECT_EQ(ExecAfterOther("absent", {"FLUSHDB"}), kPong);
  Run({"SET", "k", "v"});
  EXPECT_EQ(ExecAfterOther("k", {"FLUSHALL"}), kNullArray);
}

TEST_F(TransactionCommandsTest, SwapdbTouchesKeysInEitherDatabase) {
  EXPECT_EQ(ExecAfterOther("k", {"SWAPDB", "0", "1"}), kPong);
  Run({"SELECT", "1"});
  Run({"SET", "k", "v"});
  Run({"SELECT", "0"});
  EXPECT_EQ(ExecAfterOther("k", {"SWAPDB", "0", "1"}), kNullArray);
}

TEST_F(TransactionCommandsTest, NothingObservesTheKeyspaceOnceNoKeyIsWatched) {
  Run({"WATCH", "a", "b"});
  EXPECT_FALSE(state_.watched_keys.empty());
  Run({"UNWATCH"});
  EXPECT_TRUE(state_.watched_keys.empty());
  Run({"WATCH", "a"});
  RunAsOther({"SET", "a", "1"});  // marks this client and stops its watching
  EXPECT_TRUE(state_.watched_keys.empty());
}

TEST_F(TransactionCommandsTest, BlockingCommandInsideExecDoesNotWait) {
  session_.host = &other_connection_;  // a connection that could block
  Run({"MULTI"});
  Run({"BLPOP", "q", "0"});
  Run({"BLMOVE", "q", "d", "LEFT", "LEFT", "0"});
  EXPECT_EQ(Run({"EXEC"}), "*2\r\n*-1\r\n$-1\r\n");
  EXPECT_EQ(state_.blocking.blocked_clients(), 0u);
}

TEST_F(TransactionCommandsTest, PushesInExecServeWaitersAfterward) {
  FakeConnection waiter_connection;
  Session waiter;
  waiter.id = state_.NewClientId();
  waiter.host = &waiter_connection;
  std::string out;
  protocol::ReplyWriter writer(&out, 2);
  const std::string_view blpop[] = {"BLPOP", "q", "0"};
  Dispatch(state_, waiter, blpop, writer);
  ASSERT_EQ(state_.blocking.blocked_clients(), 1u);
  Run({"MULTI"});
  Run({"RPUSH", "q", "a"});
  Run({"LPOP", "q"});
  Run({"RPUSH", "q", "b"});
  EXPECT_EQ(Run({"EXEC"}), "*3\r\n:1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(waiter_connection.out, "*2\r\n$1\r\nq\r\n$1\r\nb\r\n");
}

TEST_F(TransactionCommandsTest, ClientListShowsTheTransaction) {
  Run({"MULTI"});
  Run({"PING"});
  Run({"PING"});
  Run({"EXEC"});
  EXPECT_NE(Run({"CLIENT", "LIST"}).find("flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 "),
            std::string::npos);
  Run({"MULTI"});
  Run({"CLIENT", "LIST"});
  const std::string inside = Run({"EXEC"});
  EXPECT_NE(inside.find("flags=x db=0 sub=0 psub=0 ssub=0 multi=1 "), std::string::npos);
}

TEST_F(TransactionCommandsTest, ExecCountsEveryConfirmationOfASubscribe) {
  // In RESP2 PSUBSCRIBE answers once per pattern. Redis 7.0 announces one element for it all
  // the same ("*1" before two confirmations), so the stream is misread from there on; warden's
  // array counts the values that follow (found by fuzz_commands).
  ASSERT_EQ(Run({"MULTI"}), "+OK\r\n");
  ASSERT_EQ(Run({"PSUBSCRIBE", "a", "b"}), "+QUEUED\r\n");
  ASSERT_EQ(Run({"PING"}), "+QUEUED\r\n");

  EXPECT_EQ(Run({"EXEC"}),
            "*3\r\n*3\r\n$10\r\npsubscribe\r\n$1\r\na\r\n:1\r\n"
            "*3\r\n$10\r\npsubscribe\r\n$1\r\nb\r\n:2\r\n"
            "*2\r\n$4\r\npong\r\n$0\r\n\r\n");
}

TEST_F(TransactionCommandsTest, ExecOfASubscribeToOneChannelIsRedissOwn) {
  ASSERT_EQ(Run({"MULTI"}), "+OK\r\n");
  ASSERT_EQ(Run({"SUBSCRIBE", "a"}), "+QUEUED\r\n");

  // Byte for byte what redis-server 7.0.15 sends.
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n");
}

}  // namespace
}  // namespace warden::server
