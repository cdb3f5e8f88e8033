// COMMAND and its subcommands through the dispatcher (redis-semantics.md 7.6). COMMAND INFO
// entries carry Redis 7.0's tips and key specifications (the bytes below are redis-server
// 7.0.15's); COMMAND DOCS has no argument trees.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_reader.h"
#include "server/command_table.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

// Parses a whole reply; views point into `bytes`.
protocol::Reply Parse(const std::string& bytes) {
  protocol::Reply reply;
  EXPECT_EQ(protocol::ReadReply(bytes, reply), std::optional<std::size_t>(bytes.size()));
  return reply;
}

std::vector<std::string> BulkStrings(const protocol::Reply& array) {
  std::vector<std::string> out;
  for (const protocol::Reply& e : array.elements) out.emplace_back(e.text);
  return out;
}

constexpr std::string_view kGetInfoResp2 =
    "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n"
    "*3\r\n+@read\r\n+@string\r\n+@fast\r\n*0\r\n"
    "*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n"
    "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:"
    "1\r\n"
    "$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n"
    "$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n";

class CommandCommandsTest : public CommandTest {};

TEST_F(CommandCommandsTest, InfoOfGet) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "get"}), "*1\r\n" + std::string(kGetInfoResp2));
}

TEST_F(CommandCommandsTest, InfoLookupIsCaseInsensitive) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "GET"}), "*1\r\n" + std::string(kGetInfoResp2));
}

// Redis sends flags, categories, tips, key specs and subcommands as sets, key specs as maps.
TEST_F(CommandCommandsTest, InfoUsesSetsInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(
      Run({"COMMAND", "INFO", "del"}),
      "*1\r\n*10\r\n$3\r\ndel\r\n:-2\r\n~1\r\n+write\r\n:1\r\n:-1\r\n:1\r\n"
      "~3\r\n+@keyspace\r\n+@write\r\n+@slow\r\n~2\r\n$26\r\nrequest_policy:multi_shard\r\n"
      "$23\r\nresponse_policy:agg_sum\r\n~1\r\n%3\r\n$5\r\nflags\r\n~2\r\n+RM\r\n+delete\r\n"
      "$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n"
      "$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n"
      "%3\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n~0\r\n");
}

TEST_F(CommandCommandsTest, InfoOfEvalHasKeynumSpec) {
  EXPECT_EQ(
      Run({"COMMAND", "INFO", "evalsha_ro"}),
      "*1\r\n*10\r\n$10\r\nevalsha_ro\r\n:-3\r\n*6\r\n+readonly\r\n+noscript\r\n+stale\r\n"
      "+skip_monitor\r\n+no_mandatory_keys\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n"
      "*2\r\n+@slow\r\n+@scripting\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n"
      "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n"
      "$5\r\nindex\r\n:2\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$6\r\nkeynum\r\n$4\r\nspec\r\n"
      "*6\r\n$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n*0\r\n");
}

TEST_F(CommandCommandsTest, InfoOfSubcommandByFullName) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "client|list"}),
            "*1\r\n*10\r\n$11\r\nclient|list\r\n:-2\r\n"
            "*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n"
            "*4\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n+@connection\r\n"
            "*1\r\n$23\r\nnondeterministic_output\r\n*0\r\n*0\r\n");
}

TEST_F(CommandCommandsTest, InfoOfUnknownNamesIsNull) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "nosuch"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"COMMAND", "INFO", "get|key"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"COMMAND", "INFO", "client|nosuch"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"COMMAND", "INFO", "client|list|x"}), "*1\r\n$-1\r\n");
}

TEST_F(CommandCommandsTest, InfoOfSeveralNames) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "get", "nosuch"}),
            "*2\r\n" + std::string(kGetInfoResp2) + "$-1\r\n");
}

TEST_F(CommandCommandsTest, InfoOfContainerListsSubcommands) {
  const std::string bytes = Run({"COMMAND", "INFO", "client"});

  const protocol::Reply reply = Parse(bytes);
  ASSERT_EQ(reply.elements.size(), 1u);
  const protocol::Reply& entry = reply.elements[0];
  ASSERT_EQ(entry.elements.size(), 10u);
  EXPECT_EQ(entry.elements[0].text, "client");
  EXPECT_EQ(entry.elements[1].integer, -2);
  EXPECT_TRUE(entry.elements[2].elements.empty());
  std::vector<std::string> subcommands;
  for (const protocol::Reply& sub : entry.elements[9].elements) {
    subcommands.emplace_back(sub.elements[0].text);
  }
  EXPECT_EQ(subcommands, (std::vector<std::string>{"client|id", "client|getname", "client|setname",
                                                   "client|setinfo", "client|info", "client|list",
                                                   "client|no-evict", "client|help"}));
}

TEST_F(CommandCommandsTest, InfoWithoutNamesIsCommand) {
  EXPECT_EQ(Run({"COMMAND", "INFO"}), Run({"COMMAND"}));
}

TEST_F(CommandCommandsTest, CountMatchesCommandEntries) {
  const std::string count = Run({"COMMAND", "COUNT"});
  const std::string all = Run({"COMMAND"});

  EXPECT_EQ(count, ":" + std::to_string(Parse(all).elements.size()) + "\r\n");
  EXPECT_EQ(count, ":" + std::to_string(Commands().size()) + "\r\n");
}

TEST_F(CommandCommandsTest, CommandListsEveryTopLevelCommandOnce) {
  const std::string bytes = Run({"COMMAND"});

  std::set<std::string> names;
  for (const protocol::Reply& entry : Parse(bytes).elements) names.emplace(entry.elements[0].text);
  EXPECT_EQ(names.size(), Commands().size());
  EXPECT_EQ(names.count("get"), 1u);
  EXPECT_EQ(names.count("client"), 1u);
  EXPECT_EQ(names.count("client|list"), 0u);
}

TEST_F(CommandCommandsTest, DocsOfGet) {
  EXPECT_EQ(Run({"COMMAND", "DOCS", "get"}),
            "*2\r\n$3\r\nget\r\n*8\r\n$7\r\nsummary\r\n$22\r\nGet the value of a key\r\n"
            "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n"
            "$10\r\ncomplexity\r\n$4\r\nO(1)\r\n");
}

TEST_F(CommandCommandsTest, DocsAreMapsInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"COMMAND", "DOCS", "echo"}),
            "%1\r\n$4\r\necho\r\n%4\r\n$7\r\nsummary\r\n$21\r\nEcho the given string\r\n"
            "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$10\r\nconnection\r\n"
            "$10\r\ncomplexity\r\n$4\r\nO(1)\r\n");
}

TEST_F(CommandCommandsTest, DocsSkipsUnknownNamesAndKeepsRepeats) {
  const std::string get_doc = Run({"COMMAND", "DOCS", "get"}).substr(4);

  EXPECT_EQ(Run({"COMMAND", "DOCS", "nosuch"}), "*0\r\n");
  EXPECT_EQ(Run({"COMMAND", "DOCS", "get", "nosuch", "get"}), "*4\r\n" + get_doc + get_doc);
}

TEST_F(CommandCommandsTest, DocsOfSubcommandByFullName) {
  EXPECT_EQ(Run({"COMMAND", "DOCS", "client|list"}), "*2\r\n$11\r\nclient|list\r\n*0\r\n");
}

TEST_F(CommandCommandsTest, DocsOfContainerNamesSubcommands) {
  EXPECT_EQ(Run({"COMMAND", "DOCS", "config"}),
            "*2\r\n$6\r\nconfig\r\n*10\r\n$7\r\nsummary\r\n"
            "$45\r\nA container for server configuration commands\r\n$5\r\nsince\r\n$5\r\n2.0.0\r\n"
            "$5\r\ngroup\r\n$6\r\nserver\r\n$10\r\ncomplexity\r\n$22\r\nDepends on subcommand.\r\n"
            "$11\r\nsubcommands\r\n*4\r\n$10\r\nconfig|get\r\n*0\r\n$11\r\nconfig|help\r\n*0\r\n");
}

TEST_F(CommandCommandsTest, DocsWithoutNamesCoversEveryCommand) {
  const std::string bytes = Run({"COMMAND", "DOCS"});

  EXPECT_EQ(Parse(bytes).elements.size(), 2 * Commands().size());
}

TEST_F(CommandCommandsTest, ListNamesEveryCommandAndSubcommand) {
  const std::string bytes = Run({"COMMAND", "LIST"});

  const std::vector<std::string> names = BulkStrings(Parse(bytes));
  std::size_t expected = 0;
  for (const CommandSpec& spec : Commands()) {
    expected += 1 + (spec.is_container() ? spec.subcommands().size() : 0);
  }
  EXPECT_EQ(names.size(), expected);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), expected);
  EXPECT_EQ(names.front(), "get");
}

TEST_F(CommandCommandsTest, ListFilterByPattern) {
  const std::string bytes = Run({"COMMAND", "LIST", "FILTERBY", "PATTERN", "client*"});

  EXPECT_EQ(BulkStrings(Parse(bytes)),
            (std::vector<std::string>{"client", "client|id", "client|getname", "client|setname",
                                      "client|setinfo", "client|info", "client|list",
                                      "client|no-evict", "client|help"}));
}

TEST_F(CommandCommandsTest, ListFilterByPatternIgnoresCase) {
  EXPECT_EQ(Run({"COMMAND", "LIST", "filterby", "pattern", "CLIENT|S*"}),
            "*2\r\n$14\r\nclient|setname\r\n$14\r\nclient|setinfo\r\n");
}

TEST_F(CommandCommandsTest, ListFilterByAclCategory) {
  const std::string bytes = Run({"COMMAND", "LIST", "FILTERBY", "ACLCAT", "STRING"});

  EXPECT_EQ(BulkStrings(Parse(bytes)),
            (std::vector<std::string>{"get", "set", "setnx", "setex", "psetex", "incr", "incrby",
                                      "decr", "decrby", "delex", "digest"}));
}

TEST_F(CommandCommandsTest, ListFilterByModuleIsEmpty) {
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "MODULE", "x"}), "*0\r\n");
}

TEST_F(CommandCommandsTest, ListSyntaxErrors) {
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "BOGUS", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "x"}), "-ERR syntax error\r\n");
  EXPECT_EQ(Run({"COMMAND", "LIST", "FILTERBY", "PATTERN"}), "-ERR syntax error\r\n");
}

TEST_F(CommandCommandsTest, UnknownSubcommand) {
  EXPECT_EQ(Run({"COMMAND", "FOO"}), "-ERR unknown subcommand 'FOO'. Try COMMAND HELP.\r\n");
}

TEST_F(CommandCommandsTest, SubcommandArity) {
  EXPECT_EQ(Run({"COMMAND", "COUNT", "x"}),
            "-ERR wrong number of arguments for 'command|count' command\r\n");
  EXPECT_EQ(Run({"COMMAND", "HELP", "x"}),
            "-ERR wrong number of arguments for 'command|help' command\r\n");
}

TEST_F(CommandCommandsTest, Help) {
  EXPECT_EQ(Run({"COMMAND", "HELP"}),
            "*17\r\n"
            "+COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
            "+(no subcommand)\r\n"
            "+    Return details about all Redis commands.\r\n"
            "+COUNT\r\n"
            "+    Return the total number of commands in this Redis server.\r\n"
            "+LIST\r\n"
            "+    Return a list of all commands in this Redis server.\r\n"
            "+INFO [<command-name> ...]\r\n"
            "+    Return details about multiple Redis commands.\r\n"
            "+    If no command names are given, documentation details for all\r\n"
            "+    commands are returned.\r\n"
            "+DOCS [<command-name> ...]\r\n"
            "+    Return documentation details about multiple Redis commands.\r\n"
            "+    If no command names are given, documentation details for all\r\n"
            "+    commands are returned.\r\n"
            "+HELP\r\n"
            "+    Print this help.\r\n");
}

}  // namespace
}  // namespace warden::server
