// PING, ECHO, QUIT, RESET, SELECT, HELLO and AUTH through the dispatcher, with and without
// requirepass (Redis 7.0's networking.c and acl.c, tests/unit/auth.tcl; checked against
// redis-server 7.0.15).
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

// HELLO's reply for client id 1: a map in RESP3, a flat array in RESP2.
std::string HelloReply(int proto) {
  return std::string(proto == 3 ? "%7\r\n" : "*14\r\n") +
         "$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:" +
         std::to_string(proto) +
         "\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
         "$7\r\nmodules\r\n*0\r\n";
}

constexpr std::string_view kHelloNoAuth =
    "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
    "AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
    "protocol version at the same time\r\n";

class ConnectionCommandsTest : public CommandTest {};

TEST_F(ConnectionCommandsTest, Ping) { EXPECT_EQ(Run({"PING"}), "+PONG\r\n"); }

TEST_F(ConnectionCommandsTest, PingWithMessageIsBulk) {
  EXPECT_EQ(Run({"PING", "hi"}), "$2\r\nhi\r\n");
}

TEST_F(ConnectionCommandsTest, PingWithTwoArgumentsIsArityError) {
  EXPECT_EQ(Run({"PING", "a", "b"}), "-ERR wrong number of arguments for 'ping' command\r\n");
}

TEST_F(ConnectionCommandsTest, Echo) {
  EXPECT_EQ(Run({"ECHO", std::string_view("a\0\r\n", 4)}),
            std::string_view("$4\r\na\0\r\n\r\n", 10));
}

TEST_F(ConnectionCommandsTest, EchoArity) {
  EXPECT_EQ(Run({"ECHO"}), "-ERR wrong number of arguments for 'echo' command\r\n");
  EXPECT_EQ(Run({"ECHO", "a", "b"}), "-ERR wrong number of arguments for 'echo' command\r\n");
}

TEST_F(ConnectionCommandsTest, QuitRepliesOkAndClosesAfterReply) {
  EXPECT_EQ(Run({"QUIT"}), "+OK\r\n");

  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(ConnectionCommandsTest, QuitIgnoresArguments) {
  EXPECT_EQ(Run({"QUIT", "now", "please"}), "+OK\r\n");

  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(ConnectionCommandsTest, ResetClearsNameAndProtocol) {
  Run({"HELLO", "3", "SETNAME", "worker"});

  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");

  EXPECT_EQ(session_.resp, 2);
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
}

TEST_F(ConnectionCommandsTest, ResetArity) {
  EXPECT_EQ(Run({"RESET", "x"}), "-ERR wrong number of arguments for 'reset' command\r\n");
}

TEST_F(ConnectionCommandsTest, SelectZero) { EXPECT_EQ(Run({"SELECT", "0"}), "+OK\r\n"); }

TEST_F(ConnectionCommandsTest, SelectEachOfSixteenDatabases) {
  EXPECT_EQ(Run({"SELECT", "1"}), "+OK\r\n");
  EXPECT_EQ(Run({"SELECT", "15"}), "+OK\r\n");
}

TEST_F(ConnectionCommandsTest, SelectPastTheLastDatabaseIsOutOfRange) {
  EXPECT_EQ(Run({"SELECT", "16"}), "-ERR DB index is out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "-1"}), "-ERR DB index is out of range\r\n");
}

TEST_F(ConnectionCommandsTest, SelectedDatabaseHoldsItsOwnKeys) {
  Run({"SET", "k", "zero"});
  Run({"SELECT", "3"});
  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
  Run({"SET", "k", "three"});
  Run({"SELECT", "0"});
  EXPECT_EQ(Run({"GET", "k"}), "$4\r\nzero\r\n");
}

TEST_F(ConnectionCommandsTest, SelectNotInteger) {
  EXPECT_EQ(Run({"SELECT", "abc"}), "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Run({"SELECT", "01"}), "-ERR value is not an integer or out of range\r\n");
}

TEST_F(ConnectionCommandsTest, SelectOutsideIntRange) {
  EXPECT_EQ(Run({"SELECT", "2147483648"}),
            "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
  EXPECT_EQ(Run({"SELECT", "-2147483649"}),
            "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n");
}

TEST_F(ConnectionCommandsTest, HelloWithoutVersionKeepsResp2) {
  EXPECT_EQ(Run({"HELLO"}), HelloReply(2));
}

TEST_F(ConnectionCommandsTest, Hello3SwitchesToResp3) {
  EXPECT_EQ(Run({"HELLO", "3"}), HelloReply(3));

  EXPECT_EQ(session_.resp, 3);
  EXPECT_EQ(Run({"GET", "nokey"}), "_\r\n");
}

TEST_F(ConnectionCommandsTest, HelloWithoutVersionKeepsResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"HELLO"}), HelloReply(3));
}

TEST_F(ConnectionCommandsTest, Hello2SwitchesBack) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"HELLO", "2"}), HelloReply(2));
  EXPECT_EQ(Run({"GET", "nokey"}), "$-1\r\n");
}

TEST_F(ConnectionCommandsTest, HelloVersionNotInteger) {
  EXPECT_EQ(Run({"HELLO", "abc"}), "-ERR Protocol version is not an integer or out of range\r\n");
}

TEST_F(ConnectionCommandsTest, HelloUnsupportedVersions) {
  EXPECT_EQ(Run({"HELLO", "1"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "4"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(Run({"HELLO", "-1"}), "-NOPROTO unsupported protocol version\r\n");
  EXPECT_EQ(session_.resp, 2);
}

TEST_F(ConnectionCommandsTest, HelloSetname) {
  EXPECT_EQ(Run({"HELLO", "3", "SETNAME", "worker"}), HelloReply(3));

  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$6\r\nworker\r\n");
}

TEST_F(ConnectionCommandsTest, HelloBadNameIsError) {
  EXPECT_EQ(Run({"HELLO", "3", "SETNAME", "a b"}),
            "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
  EXPECT_EQ(session_.resp, 2);
}

TEST_F(ConnectionCommandsTest, HelloSetnameAppliesBeforeLaterSyntaxError) {
  EXPECT_EQ(Run({"HELLO", "2", "SETNAME", "ok", "foo"}),
            "-ERR Syntax error in HELLO option 'foo'\r\n");

  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$2\r\nok\r\n");
}

TEST_F(ConnectionCommandsTest, HelloOptionMissingItsArguments) {
  EXPECT_EQ(Run({"HELLO", "2", "auth", "default"}), "-ERR Syntax error in HELLO option 'auth'\r\n");
  EXPECT_EQ(Run({"HELLO", "2", "setname"}), "-ERR Syntax error in HELLO option 'setname'\r\n");
}

TEST_F(ConnectionCommandsTest, HelloOptionTextStopsAtNul) {
  EXPECT_EQ(Run({"HELLO", "3", std::string_view("a\0b", 3)}),
            "-ERR Syntax error in HELLO option 'a'\r\n");
}

TEST_F(ConnectionCommandsTest, HelloAuthDefaultUserWithoutPasswordConfigured) {
  EXPECT_EQ(Run({"HELLO", "2", "AUTH", "default", "anything"}), HelloReply(2));
}

TEST_F(ConnectionCommandsTest, HelloAuthUnknownUser) {
  EXPECT_EQ(Run({"HELLO", "2", "AUTH", "bob", "x"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
}

TEST_F(ConnectionCommandsTest, AuthWithoutPasswordConfigured) {
  EXPECT_EQ(Run({"AUTH", "x"}),
            "-ERR AUTH <password> called without any password configured for the default user. "
            "Are you sure your configuration is correct?\r\n");
}

TEST_F(ConnectionCommandsTest, AuthDefaultUserAcceptsAnyPasswordWithoutRequirepass) {
  EXPECT_EQ(Run({"AUTH", "default", "x"}), "+OK\r\n");
}

TEST_F(ConnectionCommandsTest, AuthUnknownUser) {
  EXPECT_EQ(Run({"AUTH", "bob", "x"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
}

TEST_F(ConnectionCommandsTest, AuthTooManyArgumentsIsSyntaxError) {
  EXPECT_EQ(Run({"AUTH", "a", "b", "c"}), "-ERR syntax error\r\n");
}

TEST_F(ConnectionCommandsTest, AuthArity) {
  EXPECT_EQ(Run({"AUTH"}), "-ERR wrong number of arguments for 'auth' command\r\n");
}

// With requirepass configured, a new connection starts unauthenticated.
Config RequirepassConfig() {
  Config config = TestConfig();
  config.requirepass = "secret";
  return config;
}

class AuthRequiredTest : public CommandTest {
 protected:
  AuthRequiredTest() : CommandTest(RequirepassConfig()) {}
};

TEST_F(AuthRequiredTest, CommandsBeforeAuthGetNoauth) {
  EXPECT_EQ(Run({"GET", "k"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"PING"}), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(Run({"CLIENT", "ID"}), "-NOAUTH Authentication required.\r\n");
}

TEST_F(AuthRequiredTest, NoauthCommandDoesNotRun) {
  Run({"SET", "k", "v"});

  EXPECT_EQ(state_.dbs.db(0).size(), 0u);
}

TEST_F(AuthRequiredTest, UnknownCommandAndArityComeBeforeNoauth) {
  EXPECT_EQ(Run({"NOSUCH"}), "-ERR unknown command 'NOSUCH', with args beginning with: \r\n");
  EXPECT_EQ(Run({"GET"}), "-ERR wrong number of arguments for 'get' command\r\n");
}

TEST_F(AuthRequiredTest, WrongPassword) {
  EXPECT_EQ(Run({"AUTH", "nope"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"AUTH", "default", "nope"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_FALSE(session_.authenticated);
}

TEST_F(AuthRequiredTest, UnknownUserWithRightPassword) {
  EXPECT_EQ(Run({"AUTH", "bob", "secret"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
}

TEST_F(AuthRequiredTest, AuthWithPasswordUnlocksCommands) {
  EXPECT_EQ(Run({"AUTH", "secret"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$-1\r\n");
}

TEST_F(AuthRequiredTest, AuthWithDefaultUser) {
  EXPECT_EQ(Run({"AUTH", "default", "secret"}), "+OK\r\n");

  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(AuthRequiredTest, PasswordPrefixIsWrong) {
  EXPECT_EQ(Run({"AUTH", "secre"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_EQ(Run({"AUTH", "secrets"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
}

TEST_F(AuthRequiredTest, HelloWithoutAuthIsRefused) {
  EXPECT_EQ(Run({"HELLO"}), kHelloNoAuth);
  EXPECT_EQ(Run({"HELLO", "3"}), kHelloNoAuth);
  EXPECT_EQ(session_.resp, 2);
}

TEST_F(AuthRequiredTest, HelloSetnameAppliesBeforeNoauth) {
  EXPECT_EQ(Run({"HELLO", "2", "SETNAME", "n1"}), kHelloNoAuth);

  EXPECT_EQ(session_.name, "n1");
}

TEST_F(AuthRequiredTest, HelloAuthWrongPassword) {
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "bad"}),
            "-WRONGPASS invalid username-password pair or user is disabled.\r\n");
  EXPECT_FALSE(session_.authenticated);
}

TEST_F(AuthRequiredTest, HelloAuthAuthenticatesAndSwitches) {
  EXPECT_EQ(Run({"HELLO", "3", "AUTH", "default", "secret"}), HelloReply(3));

  EXPECT_EQ(Run({"GET", "k"}), "_\r\n");
}

TEST_F(AuthRequiredTest, QuitWorksBeforeAuth) {
  EXPECT_EQ(Run({"QUIT"}), "+OK\r\n");

  EXPECT_TRUE(session_.close_after_reply);
}

TEST_F(AuthRequiredTest, ResetDropsAuthentication) {
  Run({"AUTH", "secret"});

  EXPECT_EQ(Run({"RESET"}), "+RESET\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "-NOAUTH Authentication required.\r\n");
}

TEST_F(AuthRequiredTest, DebugRefusalComesBeforeNoauth) {
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0"}),
            "-ERR DEBUG command not allowed. If the enable-debug-command option is set to "
            "\"local\", you can run it from a local connection, otherwise you need to set this "
            "option in the configuration file, and then restart the server.\r\n");
}

}  // namespace
}  // namespace warden::server
