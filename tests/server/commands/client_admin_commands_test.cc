// CLIENT KILL, PAUSE, UNPAUSE, NO-EVICT, NO-TOUCH, SHUTDOWN and ACL through the dispatcher, with
// one client and no sockets (the multi-connection behaviour is in
// tests/clients/python/test_client_admin.py). Texts checked against redis-server 7.0.15.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ClientAdminTest : public CommandTest {
 protected:
  std::string Id() const { return std::to_string(session_.id); }
};

TEST_F(ClientAdminTest, KillFilterErrors) {
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "x"}), "-ERR client-id should be greater than 0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "0"}), "-ERR client-id should be greater than 0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "TYPE", "bogus"}), "-ERR Unknown client type 'bogus'\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "USER", "nosuchuser"}), "-ERR No such user 'nosuchuser'\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "FOO", "bar"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", "1", "TYPE"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "MAXAGE", "1"}), "-ERR syntax error\r\n");
}

TEST_F(ClientAdminTest, OldFormWithOneArgumentIsAnAddress) {
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID"}), "-ERR No such client\r\n");
}

TEST_F(ClientAdminTest, KillSkipsTheCallerByDefault) {
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", Id()}), ":0\r\n");
  EXPECT_FALSE(session_.close_after_reply);
}

TEST_F(ClientAdminTest, KillSkipmeNoClosesTheCallerAfterItsReply) {
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", Id(), "SKIPME", "no"}), ":1\r\n");
  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(ClientAdminTest, KillFiltersCombineWithAnd) {
  EXPECT_EQ(Run({"CLIENT", "KILL", "ID", Id(), "TYPE", "pubsub", "SKIPME", "no"}), ":0\r\n");
  EXPECT_EQ(Run({"CLIENT", "KILL", "USER", "default", "TYPE", "normal", "SKIPME", "no"}), ":1\r\n");
}

TEST_F(ClientAdminTest, PauseArgumentErrors) {
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "abc"}), "-ERR timeout is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "-1"}), "-ERR timeout is negative\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "100", "FOO"}),
            "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n");
  // The mode is checked before the timeout.
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "abc", "FOO"}),
            "-ERR CLIENT PAUSE mode must be WRITE or ALL\r\n");
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "100", "WRITE", "x"}),
            "-ERR unknown subcommand or wrong number of arguments for 'PAUSE'. Try CLIENT "
            "HELP.\r\n");
  EXPECT_EQ(Run({"CLIENT", "UNPAUSE", "x"}),
            "-ERR wrong number of arguments for 'client|unpause' command\r\n");
  EXPECT_FALSE(state_.pause.active());
}

TEST_F(ClientAdminTest, PauseZeroIsOverAtOnce) {
  EXPECT_EQ(Run({"CLIENT", "PAUSE", "0"}), "+OK\r\n");
  EXPECT_FALSE(state_.pause.active());
}

TEST_F(ClientAdminTest, WritePauseHoldsWritesUntilItEnds) {
  ASSERT_EQ(Run({"CLIENT", "PAUSE", "1000", "WRITE"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  EXPECT_TRUE(session_.blocked);
  clock_.AdvanceMs(1000);
  EXPECT_FALSE(state_.pause.ExpireIfDue(now_ms()));  // its last instant
  clock_.AdvanceMs(1);
  EXPECT_TRUE(state_.pause.ExpireIfDue(now_ms()));
  state_.pause.DispatchReleased(state_);

  EXPECT_FALSE(session_.blocked);
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(ClientAdminTest, UnpauseReleasesHeldCommands) {
  Run({"CLIENT", "PAUSE", "100000", "WRITE"});
  Run({"INCR", "n"});
  session_.blocked = false;  // as if another client sends CLIENT UNPAUSE

  EXPECT_EQ(Run({"CLIENT", "UNPAUSE"}), "+OK\r\n");
  state_.pause.DispatchReleased(state_);

  EXPECT_EQ(Run({"GET", "n"}), "$1\r\n1\r\n");
}

TEST_F(ClientAdminTest, WritePauseHoldsScriptsThatMayWrite) {
  Run({"CLIENT", "PAUSE", "1000", "WRITE"});

  EXPECT_EQ(Run({"EVAL", "#!lua flags=no-writes\nreturn 1", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"EVAL_RO", "return 2", "0"}), ":2\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"EVAL", "return 3", "0"}), "");
}

TEST_F(ClientAdminTest, AllPauseHoldsEverything) {
  Run({"CLIENT", "PAUSE", "1000"});

  EXPECT_EQ(Run({"PING"}), "");
}

// Redis keeps the dataset still while clients are paused (tests/unit/pause.tcl): a key past its
// deadline reads as absent but is not removed, counted or propagated until the pause ends.
TEST_F(ClientAdminTest, APauseHoldsExpiriesUntilItEnds) {
  ASSERT_EQ(Run({"SET", "k", "v", "PX", "10"}), "+OK\r\n");
  ASSERT_EQ(Run({"CLIENT", "PAUSE", "100000", "WRITE"}), "+OK\r\n");
  clock_.AdvanceMs(20);

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":1\r\n");
  EXPECT_NE(Run({"INFO", "stats"}).find("\r\nexpired_keys:0\r\n"), std::string::npos);

  EXPECT_EQ(Run({"CLIENT", "UNPAUSE"}), "+OK\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"DBSIZE"}), ":0\r\n");
  EXPECT_NE(Run({"INFO", "stats"}).find("\r\nexpired_keys:1\r\n"), std::string::npos);
}

// A client a pause holds is a blocked client to INFO, as Redis's BLOCKED_POSTPONE.
TEST_F(ClientAdminTest, AHeldClientCountsAsBlocked) {
  Run({"CLIENT", "PAUSE", "100000", "WRITE"});
  EXPECT_EQ(Run({"SET", "k", "v"}), "");

  session_.blocked = false;  // as if another client asks
  EXPECT_NE(Run({"INFO", "clients"}).find("\r\nblocked_clients:1\r\n"), std::string::npos);
  EXPECT_EQ(state_.BlockedClients(), 1u);
}

TEST_F(ClientAdminTest, PausesCombineToTheStricterModeAndLaterEnd) {
  Run({"CLIENT", "PAUSE", "300", "ALL"});
  state_.pause.Pause(PausePurpose::kClientCommand, PauseMode::kWrite, now_ms() + 100, now_ms());

  EXPECT_EQ(state_.pause.mode(), PauseMode::kAll);
  EXPECT_EQ(state_.pause.end_ms(), now_ms() + 300);
}

// As Redis's pause purposes: CLIENT UNPAUSE ends the client command's pause only, so a FAILOVER's
// write pause holds on; the first purpose to end sets when the pause next changes.
TEST_F(ClientAdminTest, UnpauseLeavesAFailoversPauseInForce) {
  state_.pause.Pause(PausePurpose::kFailover, PauseMode::kWrite,
                     std::numeric_limits<std::int64_t>::max(), now_ms());
  ASSERT_EQ(Run({"CLIENT", "PAUSE", "500", "ALL"}), "+OK\r\n");
  EXPECT_EQ(state_.pause.mode(), PauseMode::kAll);
  EXPECT_EQ(state_.pause.end_ms(), now_ms() + 500);

  session_.blocked = false;
  state_.pause.Unpause(PausePurpose::kClientCommand);  // CLIENT UNPAUSE, from another client

  EXPECT_EQ(state_.pause.mode(), PauseMode::kWrite);
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  state_.pause.Unpause(PausePurpose::kFailover);
  EXPECT_FALSE(state_.pause.active());
  state_.pause.DispatchReleased(state_);
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

// A client command's pause that runs out leaves the other purpose's.
TEST_F(ClientAdminTest, EachPurposesPauseEndsOnItsOwn) {
  state_.pause.Pause(PausePurpose::kFailover, PauseMode::kWrite, now_ms() + 1000, now_ms());
  ASSERT_EQ(Run({"CLIENT", "PAUSE", "100", "ALL"}), "+OK\r\n");
  clock_.AdvanceMs(101);

  EXPECT_TRUE(state_.pause.ExpireIfDue(now_ms()));
  EXPECT_EQ(state_.pause.mode(), PauseMode::kWrite);
  EXPECT_EQ(state_.pause.end_ms(), now_ms() + 899);
}

TEST_F(ClientAdminTest, NoEvictAndNoTouchShowInClientFlags) {
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "on"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "NO-TOUCH", "ON"}), "+OK\r\n");

  EXPECT_NE(Run({"CLIENT", "INFO"}).find(" flags=eT "), std::string::npos);
  Run({"CLIENT", "NO-EVICT", "off"});
  Run({"CLIENT", "NO-TOUCH", "off"});
  EXPECT_NE(Run({"CLIENT", "INFO"}).find(" flags=N "), std::string::npos);
}

TEST_F(ClientAdminTest, ShutdownArgumentErrors) {
  EXPECT_EQ(Run({"SHUTDOWN", "ABORT"}), "-ERR No shutdown in progress.\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "NOSAVE", "SAVE"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "ABORT", "NOW"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "FOO"}), "-ERR syntax error\r\n");
}

TEST_F(ClientAdminTest, ShutdownWhoseSaveFailsKeepsTheServerRunning) {
  state_.config.dir = "/nonexistent/warden-test-dir";
  EXPECT_EQ(Run({"SHUTDOWN", "SAVE"}), "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
  EXPECT_FALSE(session_.blocked);
  // Save points make the plain SHUTDOWN save too; FORCE exits whatever the save did.
  EXPECT_EQ(Run({"SHUTDOWN"}), "-ERR Errors trying to SHUTDOWN. Check logs.\r\n");
  EXPECT_EQ(Run({"SHUTDOWN", "FORCE"}), "");
  EXPECT_TRUE(session_.blocked);
}

TEST_F(ClientAdminTest, ShutdownSaveWritesTheSnapshot) {
  char dir[] = "/tmp/warden-shutdown-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  state_.config.dir = dir;
  state_.config.save_points.clear();
  Run({"SET", "k", "v"});
  EXPECT_EQ(Run({"SHUTDOWN", "SAVE"}), "");
  EXPECT_TRUE(session_.blocked);
  const std::string path = std::string(dir) + "/dump.rdb";
  std::ifstream in(path, std::ios::binary);
  std::string head(9, '\0');
  in.read(head.data(), 9);
  EXPECT_EQ(head, "REDIS0010");
  std::remove(path.c_str());
  rmdir(dir);
}

TEST_F(ClientAdminTest, ShutdownAnswersNothing) {
  EXPECT_EQ(Run({"SHUTDOWN", "NOSAVE", "NOW", "FORCE"}), "");
  EXPECT_TRUE(session_.blocked);
}

TEST_F(ClientAdminTest, AclWhoami) {
  EXPECT_EQ(Run({"ACL", "WHOAMI"}), "$7\r\ndefault\r\n");
  EXPECT_EQ(Run({"ACL", "WHOAMI", "x"}),
            "-ERR wrong number of arguments for 'acl|whoami' command\r\n");
}

TEST_F(ClientAdminTest, AclCatListsRedisCategories) {
  const std::string reply = Run({"ACL", "CAT"});
  EXPECT_EQ(reply.substr(0, 21), "*21\r\n$8\r\nkeyspace\r\n$4");
  EXPECT_EQ(Run({"ACL", "CAT", "foo"}), "-ERR Unknown category 'foo'\r\n");
  EXPECT_EQ(Run({"ACL", "CAT", "a", "b"}),
            "-ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.\r\n");
}

TEST_F(ClientAdminTest, AclCatOfACategoryListsSubcommands) {
  const std::string reply = Run({"ACL", "CAT", "ADMIN"});

  EXPECT_NE(reply.find("$11\r\nclient|kill\r\n"), std::string::npos);
  EXPECT_NE(reply.find("$8\r\nshutdown\r\n"), std::string::npos);
  EXPECT_EQ(reply.find("$3\r\nget\r\n"), std::string::npos);
}

}  // namespace
}  // namespace warden::server
