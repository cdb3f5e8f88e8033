// DEBUG UNSUPPORTED and DEBUG WAIT-BLOCKED through the dispatcher, and what moving the clock does
// at once (clock_moves.h). Waiting clients have a fake connection; the server loop's part (the
// answers after each batch, the real-time timer) is played by calling BlockedClientWaits::Answer
// as Server does. tests/clients/python/test_debug_clock.py runs the same through redis-py.
#include <memory>
#include <string>
#include <vector>

#include "server/debug/clock_moves.h"
#include "server/debug/debug_controls.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class FakeConnection final : public BlockedClientHost {
 public:
  std::string& reply_buffer() override { return out; }
  void Unblocked() override { ++unblocked; }
  void ScheduleFlush() override {}

  std::string out;
  int unblocked = 0;
};

struct Client {
  Session session;
  FakeConnection connection;
};

Config DebugEnabled() {
  Config config = TestConfig();
  config.enable_debug_command = DebugCommandPolicy::kYes;
  return config;
}

class DebugObserveTest : public CommandTest {
 protected:
  DebugObserveTest() : CommandTest(DebugEnabled()) {}

  Client& NewClient() {
    auto& c = *clients_.emplace_back(std::make_unique<Client>());
    c.session.id = state_.NewClientId();
    c.session.host = &c.connection;
    return c;
  }

  std::string RunAs(Client& c, std::initializer_list<std::string_view> args) {
    std::string out;
    protocol::ReplyWriter writer(&out, c.session.resp);
    Dispatch(state_, c.session, std::span<const std::string_view>(args.begin(), args.size()),
             writer);
    return out;
  }

  // What the server loop does after each batch of commands.
  void AnswerWaits() {
    state_.debug->blocked_waits.Answer(state_.blocking.blocked_clients(), clock_.MonotonicUs());
  }

  std::vector<std::unique_ptr<Client>> clients_;
};

TEST_F(DebugObserveTest, UnsupportedIsEmptyAtStart) {
  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "*0\r\n");
}

TEST_F(DebugObserveTest, UnsupportedCountsUnknownCommandsAndSubcommandsByName) {
  Run({"FOO", "a"});
  Run({"foo"});
  Run({"CONFIG", "Frobnicate"});
  Run({"DEBUG", "CHANGE-REPL-ID"});

  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}),
            "*6\r\n$17\r\nconfig|frobnicate\r\n:1\r\n$20\r\ndebug|change-repl-id\r\n:1\r\n"
            "$3\r\nfoo\r\n:2\r\n");
}

TEST_F(DebugObserveTest, UnsupportedIgnoresKnownCommandsRefusedForOtherReasons) {
  Run({"GET"});
  Run({"CONFIG"});
  Run({"DEBUG", "SLEEP"});
  Run({"SET", "k", "v", "BOGUS"});

  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "*0\r\n");
}

TEST_F(DebugObserveTest, UnsupportedIsAMapForResp3) {
  Run({"FOO"});
  session_.resp = 3;

  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "%1\r\n$3\r\nfoo\r\n:1\r\n");
}

TEST_F(DebugObserveTest, UnsupportedCountsScriptCalls) {
  Run({"EVAL", "return redis.pcall('nosuch', 'x')", "0"});

  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "*2\r\n$6\r\nnosuch\r\n:1\r\n");
}

TEST_F(DebugObserveTest, UnsupportedStartsAgainAfterResetstatButTheShutdownSummaryDoesNot) {
  Run({"FOO"});
  Run({"CONFIG", "RESETSTAT"});
  Run({"BAR"});

  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "*2\r\n$3\r\nbar\r\n:1\r\n");
  EXPECT_EQ(state_.debug->unsupported.SummarySinceStart(), "bar (1), foo (1)");
}

TEST_F(DebugObserveTest, UnsupportedNamesAreCutAt128BytesAndLoggedPrintable) {
  Run({std::string(200, 'X')});
  Run({"A\nB"});

  EXPECT_EQ(state_.debug->unsupported.SummarySinceStart(),
            "a\\x0ab (1), " + std::string(128, 'x') + " (1)");
}

TEST_F(DebugObserveTest, UnsupportedKeepsABoundedNumberOfNames) {
  for (std::size_t i = 0; i < UnsupportedCommands::kMaxNames + 2; ++i) {
    Run({"nosuch" + std::to_string(i)});
  }
  Run({"nosuch0"});

  const std::string reply = Run({"DEBUG", "UNSUPPORTED"});
  EXPECT_TRUE(reply.starts_with("*2002\r\n$7\r\n(other)\r\n:2\r\n$7\r\nnosuch0\r\n:2\r\n"))
      << reply.substr(0, 80);
}

TEST_F(DebugObserveTest, WaitBlockedAnswersAtOnceWhenEnoughAreBlocked) {
  Client& worker = NewClient();
  ASSERT_EQ(RunAs(worker, {"BLPOP", "q", "0"}), "");

  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "0"}), ":1\r\n");
}

TEST_F(DebugObserveTest, WaitBlockedWaitsUntilTheCountIsReached) {
  Client& tester = NewClient();
  Client& first = NewClient();
  Client& second = NewClient();
  ASSERT_EQ(RunAs(tester, {"DEBUG", "WAIT-BLOCKED", "2"}), "");
  EXPECT_TRUE(tester.session.blocked);

  RunAs(first, {"BLPOP", "q", "0"});
  AnswerWaits();
  EXPECT_EQ(tester.connection.out, "");
  RunAs(second, {"BZPOPMIN", "z", "0"});
  AnswerWaits();

  EXPECT_EQ(tester.connection.out, ":2\r\n");
  EXPECT_EQ(tester.connection.unblocked, 1);
  EXPECT_FALSE(tester.session.blocked);
  EXPECT_TRUE(state_.debug->blocked_waits.empty());
}

TEST_F(DebugObserveTest, WaitBlockedTimesOutNamingBothNumbers) {
  Client& tester = NewClient();
  Client& worker = NewClient();
  RunAs(worker, {"BLPOP", "q", "0"});
  ASSERT_EQ(RunAs(tester, {"DEBUG", "WAIT-BLOCKED", "3", "250"}), "");

  clock_.AdvanceMs(249);
  AnswerWaits();
  EXPECT_EQ(tester.connection.out, "");
  clock_.AdvanceMs(1);
  AnswerWaits();

  EXPECT_EQ(tester.connection.out, "-ERR timed out waiting for 3 blocked clients (1 blocked)\r\n");
  EXPECT_FALSE(tester.session.blocked);
}

TEST_F(DebugObserveTest, WaitBlockedDoesNotCountItselfOrOtherWaiters) {
  Client& a = NewClient();
  Client& b = NewClient();
  RunAs(a, {"DEBUG", "WAIT-BLOCKED", "1", "0"});
  RunAs(b, {"DEBUG", "WAIT-BLOCKED", "1", "0"});
  AnswerWaits();

  EXPECT_EQ(a.connection.out, "");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1", "1"}).substr(0, 5), "-ERR ");
  EXPECT_EQ(state_.debug->blocked_waits.next_deadline_us(), 0);
}

TEST_F(DebugObserveTest, WaitBlockedWithoutAConnectionAnswersWhatIs) {
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1"}),
            "-ERR timed out waiting for 1 blocked clients (0 blocked)\r\n");
}

TEST_F(DebugObserveTest, WaitBlockedArgumentErrors) {
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "x"}),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "-1"}),
            "-ERR value is out of range, must be positive\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1", "1.5"}),
            "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1", "-1"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "1", "2", "3"}),
            "-ERR unknown subcommand or wrong number of arguments for 'WAIT-BLOCKED'. Try DEBUG "
            "HELP.\r\n");
}

TEST_F(DebugObserveTest, ForgettingAWaiterThatDisconnects) {
  Client& tester = NewClient();
  RunAs(tester, {"DEBUG", "WAIT-BLOCKED", "1"});

  state_.debug->blocked_waits.Remove(tester.session);

  EXPECT_TRUE(state_.debug->blocked_waits.empty());
}

// --- moving the clock -----------------------------------------------------------------------

class ClockMovesTest : public DebugObserveTest {};

TEST_F(ClockMovesTest, ExpiresEveryDueKeyAtOnce) {
  for (int i = 0; i < 100; ++i) Run({"SET", "k" + std::to_string(i), "v", "PX", "1000"});
  Run({"SET", "later", "v", "PX", "1001"});

  clock_.AdvanceMs(1000);

  EXPECT_EQ(CatchUpWithClock(state_), 100u);
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(ClockMovesTest, LeavesKeysToLazyExpiryWhenActiveExpiryIsOff) {
  Run({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  Run({"SET", "k", "v", "PX", "1000"});

  clock_.AdvanceMs(1001);

  EXPECT_EQ(CatchUpWithClock(state_), 0u);
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
}

TEST_F(ClockMovesTest, ExpiresNothingWhileAPauseHolds) {
  Run({"SET", "k", "v", "PX", "1000"});
  Run({"CLIENT", "PAUSE", "5000", "WRITE"});

  clock_.AdvanceMs(1000);

  EXPECT_EQ(CatchUpWithClock(state_), 0u);
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
}

TEST_F(ClockMovesTest, EndsAPauseOfExactlyTheTimeAdvancedAndThenExpires) {
  Run({"SET", "k", "v", "PX", "1000"});
  Run({"CLIENT", "PAUSE", "1000", "WRITE"});

  clock_.AdvanceMs(1000);

  EXPECT_EQ(CatchUpWithClock(state_), 1u);
  EXPECT_FALSE(state_.pause.active());
}

TEST_F(ClockMovesTest, TimesOutABlockedClientOfExactlyTheTimeAdvanced) {
  Client& worker = NewClient();
  RunAs(worker, {"BLPOP", "q", "1"});

  clock_.AdvanceMs(999);
  CatchUpWithClock(state_);
  EXPECT_EQ(worker.connection.out, "");
  clock_.AdvanceMs(1);
  CatchUpWithClock(state_);

  EXPECT_EQ(worker.connection.out, "*-1\r\n");
  EXPECT_FALSE(worker.session.blocked);
}

TEST_F(ClockMovesTest, AnAllPauseDoesNotHoldTheClockControls) {
  Run({"CLIENT", "PAUSE", "1000", "ALL"});

  // This fixture's clock is not a controllable one, but the command ran instead of waiting.
  EXPECT_EQ(Run({"DEBUG", "CLOCK", "ADVANCE", "1000"}),
            "-ERR this server's clock cannot be controlled\r\n");
  EXPECT_EQ(Run({"DEBUG", "WAIT-BLOCKED", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"DEBUG", "UNSUPPORTED"}), "");
}

}  // namespace
}  // namespace warden::server
