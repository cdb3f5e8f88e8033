// The dispatcher: lookup, arity and their error texts for every command of the table, the
// cross-protocol guard, and what changes after HELLO 3. Each command family has its own
// <family>_commands_test.cc beside this file.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/command_table.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

using namespace std::string_literals;

struct CommandCase {
  std::string name;
  std::vector<std::string> args;
  std::string reply;
};

class CommandTableTest : public CommandTest, public ::testing::WithParamInterface<CommandCase> {
 protected:
  std::string RunCase() {
    const std::vector<std::string_view> views(GetParam().args.begin(), GetParam().args.end());
    return std::string(RunView(views));
  }
};

TEST_P(CommandTableTest, RepliesExactly) { EXPECT_EQ(RunCase(), GetParam().reply); }

std::string CaseName(const ::testing::TestParamInfo<CommandCase>& info) { return info.param.name; }

std::string WrongArity(std::string_view fullname) {
  // A refused EXEC ends the transaction and says so, even outside MULTI (execCommandAbort).
  if (fullname == "exec") {
    return "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' "
           "command\r\n";
  }
  return "-ERR wrong number of arguments for '" + std::string(fullname) + "' command\r\n";
}

std::string Identifier(std::string_view name) {
  std::string out;
  for (char c : name) out.push_back(c == '|' || c == '-' ? '_' : c);
  return out;
}

// For every command and subcommand of the table: one argument too few (when that still names
// it) and, for a fixed arity, one too many, with the wrong-arity error naming it.
std::vector<CommandCase> ArityCases() {
  std::vector<CommandCase> cases;
  auto add = [&](const CommandSpec& spec, std::vector<std::string> prefix) {
    const std::size_t minimum = spec.arity > 0 ? spec.arity : -spec.arity;
    if (minimum > prefix.size()) {
      std::vector<std::string> args = prefix;
      while (args.size() < minimum - 1) args.push_back("x");
      cases.push_back({Identifier(spec.name) + "_TooFew", args, WrongArity(spec.name)});
    }
    if (spec.arity > 0) {
      std::vector<std::string> args = prefix;
      while (args.size() < minimum + 1) args.push_back("x");
      cases.push_back({Identifier(spec.name) + "_TooMany", args, WrongArity(spec.name)});
    }
  };
  for (const CommandSpec& spec : Commands()) {
    add(spec, {std::string(spec.name)});
    if (spec.is_container()) {
      for (const CommandSpec& sub : spec.subcommands()) {
        add(sub, {std::string(spec.name), std::string(sub.short_name())});
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Arity, CommandTableTest, ::testing::ValuesIn(ArityCases()), CaseName);

const CommandCase kUnknownCommands[] = {
    {"WithArgs",
     {"foobar", "a", "b"},
     "-ERR unknown command 'foobar', with args beginning with: 'a' 'b' \r\n"},
    {"WithoutArgs", {"foobar"}, "-ERR unknown command 'foobar', with args beginning with: \r\n"},
    {"EmptyName", {""}, "-ERR unknown command '', with args beginning with: \r\n"},
    {"EmptyArgument",
     {"foobar", "", "b"},
     "-ERR unknown command 'foobar', with args beginning with: '' 'b' \r\n"},
    {"TrailingBar", {"GET|"}, "-ERR unknown command 'GET|', with args beginning with: \r\n"},
    {"FullNameIsNotACommand",
     {"GET|SET", "x"},
     "-ERR unknown command 'GET|SET', with args beginning with: 'x' \r\n"},
    {"SubcommandFullName",
     {"client|list"},
     "-ERR unknown command 'client|list', with args beginning with: \r\n"},
    {"CrLfBecomeSpaces",
     {"foo\r\nb", "a\r\n"},
     "-ERR unknown command 'foo  b', with args beginning with: 'a  ' \r\n"},
    {"NameCutAt128",
     {std::string(200, 'n')},
     "-ERR unknown command '" + std::string(128, 'n') + "', with args beginning with: \r\n"},
    {"LongerThanAnyCommandName",
     {std::string(40, 'g')},
     "-ERR unknown command '" + std::string(40, 'g') + "', with args beginning with: \r\n"},
    // The argument text, quotes and spaces included, stops growing once it reaches 128 bytes.
    {"LongArgumentsCut",
     {"foo", std::string(100, 'a'), std::string(100, 'b'), "c"},
     "-ERR unknown command 'foo', with args beginning with: '" + std::string(100, 'a') + "' '" +
         std::string(25, 'b') + "' \r\n"},
    {"OneHugeArgument",
     {"foo", std::string(200, 'a'), "b"},
     "-ERR unknown command 'foo', with args beginning with: '" + std::string(128, 'a') + "' \r\n"},
    {"ManyShortArguments", std::vector<std::string>(41, "a"),
     [] {
       std::string reply = "-ERR unknown command 'a', with args beginning with: ";
       for (int i = 0; i < 32; ++i) reply += "'a' ";
       return reply + "\r\n";
     }()},
    // Redis prints these with %s: each stops at its first NUL byte.
    {"NulCutsNameAndArguments",
     {"a\0b"s, "x\0y"s, "z"},
     "-ERR unknown command 'a', with args beginning with: 'x' 'z' \r\n"},
};

INSTANTIATE_TEST_SUITE_P(UnknownCommand, CommandTableTest, ::testing::ValuesIn(kUnknownCommands),
                         CaseName);

const CommandCase kUnknownSubcommands[] = {
    {"Client", {"CLIENT", "FOO"}, "-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n"},
    {"ClientLowerCase", {"client", "foo"}, "-ERR unknown subcommand 'foo'. Try CLIENT HELP.\r\n"},
    {"Config", {"config", "GET_XX", "a"}, "-ERR unknown subcommand 'GET_XX'. Try CONFIG HELP.\r\n"},
    {"Command", {"command", "foo"}, "-ERR unknown subcommand 'foo'. Try COMMAND HELP.\r\n"},
    {"ClientSetinfoIsNotSetname",
     {"CLIENT", "SET", "x"},
     "-ERR unknown subcommand 'SET'. Try CLIENT HELP.\r\n"},
    {"CrLfBecomeSpaces",
     {"CLIENT", "a\r\nb"},
     "-ERR unknown subcommand 'a  b'. Try CLIENT HELP.\r\n"},
    {"CutAt128",
     {"CLIENT", std::string(200, 's')},
     "-ERR unknown subcommand '" + std::string(128, 's') + "'. Try CLIENT HELP.\r\n"},
    {"NulCuts", {"client", "a\0b"s}, "-ERR unknown subcommand 'a'. Try CLIENT HELP.\r\n"},
};

INSTANTIATE_TEST_SUITE_P(UnknownSubcommand, CommandTableTest,
                         ::testing::ValuesIn(kUnknownSubcommands), CaseName);

// After HELLO 3, null is "_", maps are "%", text is verbatim; the rest is unchanged.
const CommandCase kResp3Replies[] = {
    {"GetMissing", {"GET", "nokey"}, "_\r\n"},
    {"SetNxNotSet", {"SET", "k", "v", "NX"}, "_\r\n"},
    {"SetGetMissing", {"SET", "new", "v", "GET"}, "_\r\n"},
    {"DigestMissing", {"DIGEST", "nokey"}, "_\r\n"},
    {"ClientGetnameUnset", {"CLIENT", "GETNAME"}, "_\r\n"},
    {"CommandInfoUnknown", {"COMMAND", "INFO", "nosuch"}, "*1\r\n_\r\n"},
    {"ConfigGet", {"CONFIG", "GET", "hz"}, "%1\r\n$2\r\nhz\r\n$2\r\n10\r\n"},
    {"InfoKeyspace",
     {"INFO", "keyspace"},
     "=48\r\ntxt:# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n\r\n"},
    {"GetExisting", {"GET", "k"}, "$1\r\nv\r\n"},
    {"Randomkey", {"RANDOMKEY"}, "$1\r\nk\r\n"},
    {"Integer", {"EXISTS", "k"}, ":1\r\n"},
    {"Status", {"PING"}, "+PONG\r\n"},
    {"Error", {"GET"}, "-ERR wrong number of arguments for 'get' command\r\n"},
    {"ScanArray", {"SCAN", "0"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"},
};

class Resp3Test : public CommandTableTest {
 protected:
  void SetUp() override {
    Run({"SET", "k", "v"});
    Run({"HELLO", "3"});
  }
};

TEST_P(Resp3Test, RepliesExactly) { EXPECT_EQ(RunCase(), GetParam().reply); }

INSTANTIATE_TEST_SUITE_P(Replies, Resp3Test, ::testing::ValuesIn(kResp3Replies), CaseName);

class DispatcherTest : public CommandTest {};

TEST_F(DispatcherTest, CommandNamesAreCaseInsensitive) {
  Run({"sEt", "k", "v"});

  EXPECT_EQ(Run({"gEt", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(Run({"Client", "GetName"}), "$-1\r\n");
}

TEST_F(DispatcherTest, HttpPostIsDroppedWithoutReply) {
  EXPECT_EQ(Run({"POST", "/", "HTTP/1.1"}), "");

  EXPECT_TRUE(session_.close_now);
}

TEST_F(DispatcherTest, HostHeaderIsDroppedWithoutReply) {
  EXPECT_EQ(Run({"host:", "example.com"}), "");

  EXPECT_TRUE(session_.close_now);
}

TEST_F(DispatcherTest, OtherCommandsDoNotClose) {
  Run({"GET", "post"});
  Run({"posts"});

  EXPECT_FALSE(session_.close_now);
}

TEST_F(DispatcherTest, CountsOnlyCommandsThatRun) {
  Run({"GET", "k"});
  Run({"NOSUCH"});
  Run({"GET"});
  Run({"PING"});

  EXPECT_EQ(state_.stats.total_commands, 2u);
}

TEST_F(DispatcherTest, RemembersLastCommandByFullName) {
  Run({"CLIENT", "GETNAME"});

  ASSERT_NE(session_.last_command, nullptr);
  EXPECT_EQ(session_.last_command->name, "client|getname");
}

TEST_F(DispatcherTest, ContainerWithHandlerRunsWithoutSubcommand) {
  const std::string reply = Run({"COMMAND"});

  EXPECT_EQ(reply.substr(0, 1), "*");
  EXPECT_EQ(session_.last_command->name, "command");
}

TEST_F(DispatcherTest, ReadsTheClockOncePerCommand) {
  Run({"SET", "k", "v", "PX", "100"});
  clock_.AdvanceMs(100);

  // At its deadline the key is still alive, and stays alive for the whole command.
  EXPECT_EQ(Run({"EXISTS", "k", "k", "k"}), ":3\r\n");
}

TEST_F(DispatcherTest, FindTopLevelCommandMatchesTableScan) {
  for (const CommandSpec& spec : Commands()) {
    EXPECT_EQ(FindTopLevelCommand(spec.name), &spec) << spec.name;
    EXPECT_EQ(FindCommand(Commands(), spec.name), &spec) << spec.name;
  }
  EXPECT_EQ(FindTopLevelCommand("nosuch"), nullptr);
  EXPECT_EQ(FindTopLevelCommand(""), nullptr);
}

// rename-command set myset, config cfg, flushall "".
Config RenamedConfig() {
  Config config = TestConfig();
  config.rename_commands = {{"set", "myset"}, {"config", "cfg"}, {"flushall", ""}};
  return config;
}

class RenamedCommandTest : public CommandTest {
 protected:
  RenamedCommandTest() : CommandTest(RenamedConfig()) {}
};

TEST_F(RenamedCommandTest, TheOldNameIsAnUnknownCommand) {
  EXPECT_EQ(Run({"SET", "k", "v"}),
            "-ERR unknown command 'SET', with args beginning with: 'k' 'v' \r\n");
  EXPECT_EQ(Run({"flushall"}), "-ERR unknown command 'flushall', with args beginning with: \r\n");
}

TEST_F(RenamedCommandTest, TheNewNameRunsTheCommand) {
  EXPECT_EQ(Run({"MYSET", "k", "v"}), "+OK\r\n");

  EXPECT_EQ(Run({"GET", "k"}), "$1\r\nv\r\n");
  EXPECT_EQ(session_.last_command->name, "get");
}

TEST_F(RenamedCommandTest, ErrorsNameTheCommandAsRedisDoes) {
  // Arity by the command's own name (cmd->fullname), a subcommand by the name it was called.
  EXPECT_EQ(Run({"myset", "k"}), "-ERR wrong number of arguments for 'set' command\r\n");
  EXPECT_EQ(Run({"cfg", "nosuch"}), "-ERR unknown subcommand 'nosuch'. Try CFG HELP.\r\n");
}

TEST_F(RenamedCommandTest, ScriptsCallTheNewNames) {
  EXPECT_EQ(Run({"EVAL", "return redis.call('myset', 'k', 'v')", "0"}), "+OK\r\n");

  EXPECT_EQ(Run({"EVAL", "return redis.pcall('set', 'k', 'v')", "0"}),
            "-ERR Unknown Redis command called from script\r\n");
}

TEST_F(RenamedCommandTest, CommandCountLeavesTheDisabledOneOut) {
  EXPECT_EQ(Run({"COMMAND", "COUNT"}), ":" + std::to_string(Commands().size() - 1) + "\r\n");
}

TEST_F(RenamedCommandTest, CommandInfoFindsTheNewNameAndShowsTheOwnName) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "set"}), "*1\r\n$-1\r\n");

  EXPECT_EQ(Run({"COMMAND", "INFO", "cfg|get"}).substr(0, 24), "*1\r\n*10\r\n$10\r\nconfig|get");
}

}  // namespace
}  // namespace warden::server
