// A runaway script against a real server (Redis 7.0's script.c, scriptInterrupt): past
// busy-reply-threshold other clients get BUSY for everything but the allow-busy commands, SCRIPT
// KILL stops a script that has not written, and one that has is UNKILLABLE, which leaves stopping
// the server: warden by SIGTERM (it stops a running script on that signal), redis-server by
// SHUTDOWN NOSAVE. A runaway function (FCALL) is the same with FUNCTION KILL, and each KILL refuses
// the other kind.
//
// The servers are started here with --busy-reply-threshold 200, which both accept, because the
// shared fixture's use the 5000 ms default. Nothing waits on the clock: client B's PING is
// answered only once the threshold has passed, so each wait is a read with a bounded deadline.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing {
namespace {

constexpr std::string_view kBusy =
    "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n";
constexpr std::string_view kBusyFunction =
    "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";
constexpr std::string_view kUnkillable =
    "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can "
    "either wait the script termination or kill the server in a hard way using the SHUTDOWN "
    "NOSAVE command.\r\n";
// An endless script, whose SHA-1 the kill error names.
constexpr std::string_view kRunaway = "local t=0 while true do t=t+1 end";
constexpr std::string_view kRunawaySha = "69e49ba5f2f384f0937667865500d1d24c236825";
// Bounds every wait; a healthy run needs a fraction of it.
constexpr int kWaitMs = 20000;

class ScriptBusyTest : public ::testing::TestWithParam<ServerKind> {
 protected:
  void SetUp() override {
    std::string binary = WARDEN_BINARY_PATH;
    if (GetParam() == ServerKind::kRedis) {
      binary = FindExecutable("redis-server");
      ASSERT_FALSE(binary.empty()) << "redis-server is not on PATH (Debian: apt-get install "
                                      "redis-server); every scenario here also runs against it.";
    }
    std::string error;
    server_ = ServerProcess::Start(binary, error, {"--busy-reply-threshold", "200"});
    ASSERT_NE(server_, nullptr) << error;
    a_ = RespClient::Connect(server_->port());
    b_ = RespClient::Connect(server_->port());
    ASSERT_TRUE(a_ && b_);
  }

  // Client A starts `script`; returns once client B gets BUSY, i.e. the script has run past the
  // threshold. B's PINGs before the script starts are answered PONG.
  // An empty `script` only waits: A has sent its own.
  void StartBusyScript(std::string_view script) {
    if (!script.empty()) {
      ASSERT_TRUE(a_->Send({"EVAL", std::string(script), "0"}));
    }
    WaitForBusy(kBusy);
  }

  // Loads a library with function `name` running `body`, and has client A call it; returns once
  // client B gets the functions' BUSY.
  void StartBusyFunction(std::string_view name, std::string_view body) {
    const std::string library = "#!lua name=lib_" + std::string(name) +
                                "\nredis.register_function('" + std::string(name) +
                                "', function(keys, args)\n" + std::string(body) + "\nend)";
    ASSERT_EQ(a_->Command({"FUNCTION", "LOAD", library}).bytes,
              "$" + std::to_string(4 + name.size()) + "\r\nlib_" + std::string(name) + "\r\n");
    ASSERT_TRUE(a_->Send({"FCALL", std::string(name), "1", "key1", "arg1"}));
    WaitForBusy(kBusyFunction);
  }

  void WaitForBusy(std::string_view busy) {
    const Deadline deadline(kWaitMs);
    while (true) {
      const ReadResult reply = b_->Command({"PING"}, deadline.RemainingMs());
      if (reply.bytes == busy) return;
      ASSERT_EQ(reply.bytes, "+PONG\r\n") << ReadStatusName(reply.status);
      ASSERT_FALSE(deadline.Expired()) << "the script never made the server busy";
    }
  }

  // Ends the server under a script SCRIPT KILL cannot stop, and checks that it is gone: warden on
  // SIGTERM (it has no SHUTDOWN), redis-server on SHUTDOWN NOSAVE (it does not act on SIGTERM
  // while a script runs).
  void StopServerWhileBusy() {
    if (GetParam() == ServerKind::kWarden) {
      ASSERT_EQ(kill(server_->pid(), SIGTERM), 0);
    } else {
      ASSERT_TRUE(b_->Send({"SHUTDOWN", "NOSAVE"}));
      EXPECT_EQ(b_->ReadUntilClose(kWaitMs).status, ReadStatus::kClosed);
    }
    const std::optional<int> status = server_->WaitForExit(kWaitMs);
    ASSERT_TRUE(status.has_value()) << "the server still runs; log:\n" << server_->LogTail();
    EXPECT_TRUE(WIFEXITED(*status)) << DescribeWaitStatus(*status);
  }

  std::unique_ptr<ServerProcess> server_;
  std::optional<RespClient> a_;
  std::optional<RespClient> b_;
};

TEST_P(ScriptBusyTest, OtherClientsGetBusyPastTheThreshold) {
  StartBusyScript(kRunaway);

  EXPECT_EQ(b_->Command({"GET", "k"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"SET", "k", "v"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"CLIENT", "ID"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"EVAL", "return 1", "0"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, HelloStillWorksWhileBusy) {
  StartBusyScript(kRunaway);

  EXPECT_TRUE(
      b_->Command({"HELLO", "2"}).bytes.starts_with("*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n"));
  EXPECT_EQ(b_->Command({"PING"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, NewConnectionsAreServedWhileBusy) {
  StartBusyScript(kRunaway);
  std::optional<RespClient> c = RespClient::Connect(server_->port());
  ASSERT_TRUE(c);

  EXPECT_EQ(c->Command({"PING"}).bytes, kBusy);
  EXPECT_EQ(c->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, ScriptKillStopsAScriptThatHasNotWritten) {
  StartBusyScript(kRunaway);

  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");

  EXPECT_EQ(a_->ReadReply(kWaitMs).bytes,
            "-ERR Script killed by user with SCRIPT KILL... script: " + std::string(kRunawaySha) +
                ", on @user_script:1.\r\n");
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes,
            "-NOTBUSY No scripts in execution right now.\r\n");
  EXPECT_EQ(b_->Command({"PING"}).bytes, "+PONG\r\n");
  EXPECT_EQ(a_->Command({"EVAL", "return 'after'", "0"}).bytes, "$5\r\nafter\r\n");
}

TEST_P(ScriptBusyTest, PcallCannotSwallowTheKill) {
  const std::string script =
      "local i = 0 while true do pcall(function() while true do i = i + 1 end end) end";
  StartBusyScript(script);

  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");

  EXPECT_EQ(a_->ReadReply(kWaitMs).bytes,
            "-ERR Script killed by user with SCRIPT KILL... script: "
            "bf7c35e77d5f811e61ac2c6bdadc05f8e891dde1, on @user_script:1.\r\n");
  EXPECT_EQ(b_->Command({"PING"}).bytes, "+PONG\r\n");
}

TEST_P(ScriptBusyTest, ScriptClientsPipelinedCommandsRunAfterTheScriptInOrder) {
  // Redis's test "Timedout script does not cause a false dead client".
  ASSERT_TRUE(
      a_->SendRaw(EncodeCommand({"EVAL", std::string(kRunaway), "0"}) + EncodeCommand({"PING"})));
  StartBusyScript("");  // A's script is already running: only wait for BUSY
  ASSERT_TRUE(a_->Send({"ECHO", "later"}));

  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");

  EXPECT_EQ(a_->ReadReply(kWaitMs).bytes,
            "-ERR Script killed by user with SCRIPT KILL... script: " + std::string(kRunawaySha) +
                ", on @user_script:1.\r\n");
  EXPECT_EQ(a_->ReadReply(kWaitMs).bytes, "+PONG\r\n");
  EXPECT_EQ(a_->ReadReply(kWaitMs).bytes, "$5\r\nlater\r\n");
}

TEST_P(ScriptBusyTest, AllowBusyCommandsRun) {
  StartBusyScript(kRunaway);

  EXPECT_EQ(b_->Command({"AUTH", "x"}).bytes,
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?\r\n");
  EXPECT_EQ(b_->Command({"RESET"}).bytes, "+RESET\r\n");
  std::optional<RespClient> c = RespClient::Connect(server_->port());
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->Send({"QUIT"}));
  const ReadResult quit = c->ReadUntilClose(kWaitMs);
  EXPECT_EQ(quit.status, ReadStatus::kClosed);
  EXPECT_EQ(quit.bytes, "+OK\r\n");
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, LookupAndArityErrorsComeBeforeBusy) {
  StartBusyScript(kRunaway);

  EXPECT_EQ(b_->Command({"nosuch"}).bytes,
            "-ERR unknown command 'nosuch', with args beginning with: \r\n");
  EXPECT_EQ(b_->Command({"GET"}).bytes, "-ERR wrong number of arguments for 'get' command\r\n");
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL", "x"}).bytes,
            "-ERR wrong number of arguments for 'script|kill' command\r\n");
  EXPECT_EQ(b_->Command({"SCRIPT", "LOAD", "return 1"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, ScriptThatWroteIsUnkillable) {
  StartBusyScript("redis.call('set', 'x', '1') while true do end");

  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, kUnkillable);
  EXPECT_EQ(b_->Command({"GET", "x"}).bytes, kBusy);

  StopServerWhileBusy();
}

TEST_P(ScriptBusyTest, FunctionKillStopsAFunctionThatHasNotWritten) {
  StartBusyFunction("spin", "local t = 0 while true do t = t + 1 end");

  EXPECT_EQ(b_->Command({"GET", "k"}).bytes, kBusyFunction);
  EXPECT_EQ(b_->Command({"FCALL", "spin", "0"}).bytes, kBusyFunction);
  // Each KILL stops only its own kind: SCRIPT KILL answers with the functions' BUSY.
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, kBusyFunction);
  EXPECT_EQ(b_->Command({"FUNCTION", "KILL"}).bytes, "+OK\r\n");

  EXPECT_EQ(
      a_->ReadReply(kWaitMs).bytes,
      "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3.\r\n");
  EXPECT_EQ(b_->Command({"FUNCTION", "KILL"}).bytes,
            "-NOTBUSY No scripts in execution right now.\r\n");
  EXPECT_EQ(b_->Command({"PING"}).bytes, "+PONG\r\n");
  EXPECT_EQ(a_->Command({"FCALL_RO", "spin", "0"}).bytes,
            "-ERR Can not execute a script with write flag using *_ro command.\r\n");
}

TEST_P(ScriptBusyTest, FunctionStatsNamesTheRunningFunction) {
  StartBusyFunction("spin2", "while true do end");

  const ReadResult stats = b_->Command({"FUNCTION", "STATS"});
  const std::string running =
      "*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n$5\r\nspin2\r\n"
      "$7\r\ncommand\r\n*5\r\n$5\r\nFCALL\r\n$5\r\nspin2\r\n$1\r\n1\r\n$4\r\nkey1\r\n"
      "$4\r\narg1\r\n$11\r\nduration_ms\r\n:";
  ASSERT_TRUE(stats.bytes.starts_with(running)) << stats.bytes;
  // The duration is past the threshold, then the engines.
  const std::string rest = stats.bytes.substr(running.size());
  const std::size_t end = rest.find("\r\n");
  ASSERT_NE(end, std::string::npos);
  EXPECT_GE(std::stoll(rest.substr(0, end)), 200);
  EXPECT_EQ(rest.substr(end),
            "\r\n$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n"
            "$15\r\nfunctions_count\r\n:1\r\n");
  EXPECT_EQ(b_->Command({"FUNCTION", "KILL"}).bytes, "+OK\r\n");
  EXPECT_TRUE(a_->ReadReply(kWaitMs).bytes.starts_with("-ERR Script killed by user"));
}

TEST_P(ScriptBusyTest, FunctionKillRefusesAScriptAndStatsTooWhileOneRuns) {
  StartBusyScript(kRunaway);

  EXPECT_EQ(b_->Command({"FUNCTION", "KILL"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"FUNCTION", "STATS"}).bytes, kBusy);
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, "+OK\r\n");
}

TEST_P(ScriptBusyTest, FunctionThatWroteIsUnkillable) {
  StartBusyFunction("wrote", "redis.call('set', keys[1], args[1]) while true do end");

  EXPECT_EQ(b_->Command({"FUNCTION", "KILL"}).bytes, kUnkillable);
  EXPECT_EQ(b_->Command({"SCRIPT", "KILL"}).bytes, kUnkillable);
  EXPECT_EQ(b_->Command({"GET", "key1"}).bytes, kBusyFunction);

  StopServerWhileBusy();
}

INSTANTIATE_TEST_SUITE_P(Servers, ScriptBusyTest, AllServers(), ServerKindName);

// warden's own bound: FUNCTION RESTORE holds a payload's library code to FUNCTION LOAD's 500 ms.
// Redis 7.0 runs it without a limit, so this payload stops redis-server for good: no client gets
// an answer, and FUNCTION KILL cannot reach a load.
TEST(WardenScriptBusyTest, ARestoredLibraryThatNeverReturnsTimesOut) {
  std::string error;
  auto server = ServerProcess::Start(WARDEN_BINARY_PATH, error, {"--enable-debug-command", "yes"});
  ASSERT_TRUE(server) << error;
  std::optional<RespClient> c = RespClient::Connect(server->port());
  ASSERT_TRUE(c);
  // FUNCTION LOAD would refuse this library the same way, so no FUNCTION DUMP holds it: the
  // payload is made here (FUNCTION2, the code, RDB version 10, no CRC, not checked).
  const std::string code = "#!lua name=spin\nwhile true do end";
  const std::string payload = std::string("\xf5", 1) + static_cast<char>(code.size()) + code +
                              std::string("\x0a\x00", 2) + std::string(8, '\0');
  ASSERT_EQ(c->Command({"DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1"}).bytes, "+OK\r\n");
  EXPECT_EQ(c->Command({"FUNCTION", "RESTORE", payload}, kWaitMs).bytes,
            "-ERR Error registering functions: ERR FUNCTION LOAD timeout\r\n");
  EXPECT_EQ(c->Command({"FUNCTION", "LIST"}).bytes, "*0\r\n");
  EXPECT_EQ(c->Command({"PING"}).bytes, "+PONG\r\n");
}

}  // namespace
}  // namespace warden::testing
