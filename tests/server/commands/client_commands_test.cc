// CLIENT and its subcommands through the dispatcher (Redis 7.0's networking.c, clientCommand;
// SETINFO as Redis 7.2 has it, documented at redis.io/commands/client-setinfo).
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

class ClientCommandsTest : public CommandTest {
 protected:
  // This session's CLIENT INFO / CLIENT LIST line, as the command test session has it: no socket,
  // created at the current time.
  std::string Line(std::string_view cmd, std::string_view name = "", std::string_view lib_name = "",
                   std::string_view lib_ver = "", int age_s = 0) {
    const std::string age = std::to_string(age_s);
    return "id=1 addr= laddr= fd=-1 name=" + std::string(name) + " age=" + age + " idle=" + age +
           " flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 "
           "argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=" +
           std::string(cmd) + " user=default redir=-1 resp=" + std::to_string(session_.resp) +
           " lib-name=" + std::string(lib_name) + " lib-ver=" + std::string(lib_ver) + "\n";
  }
};

TEST_F(ClientCommandsTest, Id) { EXPECT_EQ(Run({"CLIENT", "ID"}), ":1\r\n"); }

TEST_F(ClientCommandsTest, GetnameWithoutNameIsNull) {
  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
}

TEST_F(ClientCommandsTest, SetnameThenGetname) {
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "worker-1"}), "+OK\r\n");

  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$8\r\nworker-1\r\n");
}

TEST_F(ClientCommandsTest, SetnameEmptyClearsName) {
  Run({"CLIENT", "SETNAME", "worker"});

  EXPECT_EQ(Run({"CLIENT", "SETNAME", ""}), "+OK\r\n");

  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$-1\r\n");
}

TEST_F(ClientCommandsTest, SetnameAcceptsEveryPrintableNonSpaceByte) {
  EXPECT_EQ(Run({"CLIENT", "SETNAME", "~!#$%&()*+,-./:;<=>?@[]^_{|}"}), "+OK\r\n");
}

class BadClientNameTest : public CommandTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(BadClientNameTest, SetnameRefusesAndKeepsName) {
  Run({"CLIENT", "SETNAME", "before"});

  EXPECT_EQ(Run({"CLIENT", "SETNAME", GetParam()}),
            "-ERR Client names cannot contain spaces, newlines or special characters.\r\n");

  EXPECT_EQ(Run({"CLIENT", "GETNAME"}), "$6\r\nbefore\r\n");
}

INSTANTIATE_TEST_SUITE_P(Names, BadClientNameTest,
                         ::testing::Values("a b", "a\nb", "tab\tname", "a\x7f", "\xc3\xa9",
                                           std::string("a\0b", 3)));

TEST_F(ClientCommandsTest, SetinfoLibNameAndVersionShowInInfo) {
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "lib-name", "redis-py"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "LIB-VER", "5.0.0"}), "+OK\r\n");

  EXPECT_EQ(Run({"CLIENT", "INFO"}), BulkReply(Line("client|info", "", "redis-py", "5.0.0")));
}

TEST_F(ClientCommandsTest, SetinfoEmptyValueClears) {
  Run({"CLIENT", "SETINFO", "lib-name", "redis-py"});

  EXPECT_EQ(Run({"CLIENT", "SETINFO", "LIB-NAME", ""}), "+OK\r\n");

  EXPECT_EQ(Run({"CLIENT", "INFO"}), BulkReply(Line("client|info")));
}

TEST_F(ClientCommandsTest, SetinfoUnknownAttribute) {
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "badger", "hamster"}),
            "-ERR Unrecognized option 'badger'\r\n");
}

TEST_F(ClientCommandsTest, SetinfoBadValueNamesAttributeAsSent) {
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "LIB-NAME", "redis py"}),
            "-ERR LIB-NAME cannot contain spaces, newlines or special characters.\r\n");
}

TEST_F(ClientCommandsTest, SetinfoArity) {
  EXPECT_EQ(Run({"CLIENT", "SETINFO", "lib-name"}),
            "-ERR wrong number of arguments for 'client|setinfo' command\r\n");
}

TEST_F(ClientCommandsTest, InfoDescribesThisClient) {
  Run({"CLIENT", "SETNAME", "worker"});

  EXPECT_EQ(Run({"CLIENT", "INFO"}), BulkReply(Line("client|info", "worker")));
}

TEST_F(ClientCommandsTest, InfoShowsAgeAndIdleInSeconds) {
  clock_.AdvanceMs(5'999);

  EXPECT_EQ(Run({"CLIENT", "INFO"}), BulkReply(Line("client|info", "", "", "", 5)));
}

TEST_F(ClientCommandsTest, InfoIsVerbatimInResp3) {
  Run({"HELLO", "3"});
  const std::string line = Line("client|info");

  EXPECT_EQ(Run({"CLIENT", "INFO"}),
            "=" + std::to_string(line.size() + 4) + "\r\ntxt:" + line + "\r\n");
}

TEST_F(ClientCommandsTest, ListWithoutConnectionsShowsThisSession) {
  EXPECT_EQ(Run({"CLIENT", "LIST"}), BulkReply(Line("client|list")));
}

TEST_F(ClientCommandsTest, ListTypeNormal) {
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "normal"}), BulkReply(Line("client|list")));
}

TEST_F(ClientCommandsTest, ListOtherTypesAreEmpty) {
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "master"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "replica"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "TYPE", "PUBSUB"}), "$0\r\n\r\n");
}

TEST_F(ClientCommandsTest, ListById) {
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "1"}), BulkReply(Line("client|list")));
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "2", "1"}), BulkReply(Line("client|list")));
}

TEST_F(ClientCommandsTest, ListByIdOfNoClientIsEmpty) {
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "999"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "0"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"CLIENT", "LIST", "ID", "-5"}), "$0\r\n\r\n");
}

struct ClientErrorCase {
  const char* name;
  std::vector<std::string_view> args;
  std::string reply;
};

const ClientErrorCase kClientErrors[] = {
    {"ListUnknownType",
     {"CLIENT", "LIST", "TYPE", "bogus"},
     "-ERR Unknown client type 'bogus'\r\n"},
    {"ListBadId", {"CLIENT", "LIST", "ID", "abc"}, "-ERR Invalid client ID\r\n"},
    {"ListBadSecondId", {"CLIENT", "LIST", "ID", "1", "x"}, "-ERR Invalid client ID\r\n"},
    {"ListUnknownOption", {"CLIENT", "LIST", "FOO"}, "-ERR syntax error\r\n"},
    {"ListIdWithoutIds", {"CLIENT", "LIST", "ID"}, "-ERR syntax error\r\n"},
    {"ListTypeExtraArgument", {"CLIENT", "LIST", "TYPE", "normal", "x"}, "-ERR syntax error\r\n"},
    {"NoEvictBadValue", {"CLIENT", "NO-EVICT", "maybe"}, "-ERR syntax error\r\n"},
    {"NoSubcommand", {"CLIENT"}, "-ERR wrong number of arguments for 'client' command\r\n"},
    {"UnknownSubcommand", {"CLIENT", "FOO"}, "-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n"},
    {"IdArity",
     {"CLIENT", "ID", "x"},
     "-ERR wrong number of arguments for 'client|id' command\r\n"},
    {"GetnameArity",
     {"CLIENT", "GETNAME", "x"},
     "-ERR wrong number of arguments for 'client|getname' command\r\n"},
    {"SetnameArity",
     {"CLIENT", "SETNAME"},
     "-ERR wrong number of arguments for 'client|setname' command\r\n"},
    {"InfoArity",
     {"CLIENT", "INFO", "x"},
     "-ERR wrong number of arguments for 'client|info' command\r\n"},
    {"NoEvictArity",
     {"CLIENT", "NO-EVICT"},
     "-ERR wrong number of arguments for 'client|no-evict' command\r\n"},
};

class ClientErrorTest : public CommandTest,
                        public ::testing::WithParamInterface<ClientErrorCase> {};

TEST_P(ClientErrorTest, RepliesError) { EXPECT_EQ(RunView(GetParam().args), GetParam().reply); }

INSTANTIATE_TEST_SUITE_P(Table, ClientErrorTest, ::testing::ValuesIn(kClientErrors),
                         [](const ::testing::TestParamInfo<ClientErrorCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(ClientCommandsTest, NoEvictOnAndOff) {
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "on"}), "+OK\r\n");
  EXPECT_EQ(Run({"CLIENT", "NO-EVICT", "OFF"}), "+OK\r\n");
}

// CLIENT REPLY (Redis's introspection.tcl): OFF silences every reply until ON, whose own +OK
// is sent; SKIP silences the next command's only; errors are silenced too.
TEST_F(ClientCommandsTest, ReplyOffSilencesUntilOn) {
  EXPECT_EQ(Run({"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(Run({"SET", "k", "v"}), "");
  EXPECT_EQ(Run({"GET", "k"}), "");
  EXPECT_EQ(Run({"NOSUCHCOMMAND"}), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "SKIP"}), "");  // no effect while OFF
  EXPECT_EQ(Run({"CLIENT", "REPLY", "ON"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
}

TEST_F(ClientCommandsTest, ReplySkipSilencesOneCommand) {
  EXPECT_EQ(Run({"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(Run({"INCR", "n"}), "");
  EXPECT_EQ(Run({"INCR", "n"}), ":2\r\n");

  EXPECT_EQ(Run({"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(Run({"INCR", "n"}), "");
  EXPECT_EQ(Run({"INCR", "n"}), ":4\r\n");
}

TEST_F(ClientCommandsTest, ReplyOnClearsSkip) {
  EXPECT_EQ(Run({"CLIENT", "REPLY", "SKIP"}), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "ON"}), "+OK\r\n");
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(ClientCommandsTest, ReplyOffSilencesATransactionAndCountsItsErrors) {
  EXPECT_EQ(Run({"CLIENT", "REPLY", "OFF"}), "");
  EXPECT_EQ(Run({"MULTI"}), "");
  EXPECT_EQ(Run({"INCR", "n"}), "");
  EXPECT_EQ(Run({"EXEC"}), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "BOGUS"}), "");
  EXPECT_EQ(Run({"CLIENT", "REPLY", "ON"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "n"}), "$1\r\n1\r\n");
  EXPECT_NE(Run({"INFO", "errorstats"}).find("errorstat_ERR:count=1"), std::string::npos);
}

TEST_F(ClientCommandsTest, ReplyRejectsOtherModes) {
  EXPECT_EQ(Run({"CLIENT", "REPLY", "maybe"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"CLIENT", "REPLY"}),
            "-ERR wrong number of arguments for 'client|reply' command\r\n");
}

TEST_F(ClientCommandsTest, Help) {
  const std::string reply = Run({"CLIENT", "HELP"});

  EXPECT_EQ(reply,
            "*54\r\n"
            "+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+CACHING (YES|NO)\r\n"
            "+    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.\r\n"
            "+GETREDIR\r\n"
            "+    Return the client ID we are redirecting to when tracking is enabled.\r\n"
            "+GETNAME\r\n"
            "+    Return the name of the current connection.\r\n"
            "+ID\r\n"
            "+    Return the ID of the current connection.\r\n"
            "+INFO\r\n"
            "+    Return information about the current client connection.\r\n"
            "+KILL <ip:port>\r\n"
            "+    Kill connection made from <ip:port>.\r\n"
            "+KILL <option> <value> [<option> <value> [...]]\r\n"
            "+    Kill connections. Options are:\r\n"
            "+    * ADDR (<ip:port>|<unixsocket>:0)\r\n"
            "+      Kill connections made from the specified address\r\n"
            "+    * LADDR (<ip:port>|<unixsocket>:0)\r\n"
            "+      Kill connections made to specified local address\r\n"
            "+    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)\r\n"
            "+      Kill connections by type.\r\n"
            "+    * USER <username>\r\n"
            "+      Kill connections authenticated by <username>.\r\n"
            "+    * SKIPME (YES|NO)\r\n"
            "+      Skip killing current connection (default: yes).\r\n"
            "+LIST [options ...]\r\n"
            "+    Return information about client connections. Options:\r\n"
            "+    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)\r\n"
            "+      Return clients of specified type.\r\n"
            "+UNPAUSE\r\n"
            "+    Stop the current client pause, resuming traffic.\r\n"
            "+PAUSE <timeout> [WRITE|ALL]\r\n"
            "+    Suspend all, or just write, clients for <timeout> milliseconds.\r\n"
            "+REPLY (ON|OFF|SKIP)\r\n"
            "+    Control the replies sent to the current connection.\r\n"
            "+SETNAME <name>\r\n"
            "+    Assign the name <name> to the current connection.\r\n"
            "+SETINFO <option> <value>\r\n"
            "+    Set client meta attr. Options are:\r\n"
            "+    * LIB-NAME: the client lib name.\r\n"
            "+    * LIB-VER: the client lib version.\r\n"
            "+UNBLOCK <clientid> [TIMEOUT|ERROR]\r\n"
            "+    Unblock the specified blocked client.\r\n"
            "+TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]\r\n"
            "+         [OPTIN] [OPTOUT] [NOLOOP]\r\n"
            "+    Control server assisted client side caching.\r\n"
            "+TRACKINGINFO\r\n"
            "+    Report tracking status for the current connection.\r\n"
            "+NO-EVICT (ON|OFF)\r\n"
            "+    Protect current client connection from eviction.\r\n"
            "+NO-TOUCH (ON|OFF)\r\n"
            "+    Will not touch LRU/LFU stats when this mode is on.\r\n"
            "+HELP\r\n"
            "+    Prints this help.\r\n");
}

}  // namespace
}  // namespace warden::server
