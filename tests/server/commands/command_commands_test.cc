// COMMAND and its subcommands through the dispatcher (Redis 7.0's server.c). COMMAND INFO
// entries carry Redis 7.0's tips and key specifications, COMMAND DOCS entries Redis 7.0's docs
// with argument trees (the bytes below are redis-server 7.0.15's).
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

// The generated tables behind COMMAND INFO (command_info_data.cc).
std::string_view CommandTipsResp3(std::string_view full_name);
std::string_view CommandKeySpecsResp3(std::string_view full_name);

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

// SMOVE has two key specifications: the source (RW access delete) and the destination.
TEST_F(CommandCommandsTest, InfoOfSmoveHasTwoKeySpecs) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "smove"}),
            "*1\r\n*10\r\n$5\r\nsmove\r\n:4\r\n*2\r\n+write\r\n+fast\r\n:1\r\n:2\r\n:1\r\n*3\r\n"
            "+@write\r\n+@set\r\n+@fast\r\n*0\r\n*2\r\n*6\r\n$5\r\nflags\r\n*3\r\n+RW\r\n"
            "+access\r\n+delete\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n"
            "$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n"
            "$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n"
            "$5\r\nlimit\r\n:0\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RW\r\n+insert\r\n$12\r\n"
            "begin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\n"
            "index\r\n:2\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n"
            "*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n");
}

TEST_F(CommandCommandsTest, InfoOfRenameHasTwoKeySpecsInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"COMMAND", "INFO", "rename"}),
            "*1\r\n*10\r\n$6\r\nrename\r\n:3\r\n~1\r\n+write\r\n:1\r\n:2\r\n:1\r\n~3\r\n"
            "+@keyspace\r\n+@write\r\n+@slow\r\n~0\r\n~2\r\n%3\r\n$5\r\nflags\r\n~3\r\n+RW\r\n"
            "+access\r\n+delete\r\n$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n"
            "$4\r\nspec\r\n%1\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n"
            "$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n"
            "$5\r\nlimit\r\n:0\r\n%3\r\n$5\r\nflags\r\n~2\r\n+OW\r\n+update\r\n$12\r\n"
            "begin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\n"
            "index\r\n:2\r\n$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n"
            "%3\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n~0\r\n");
}

// LCS reads two keys through one range spec (lastkey 1).
TEST_F(CommandCommandsTest, InfoOfLcs) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "lcs"}),
            "*1\r\n*10\r\n$3\r\nlcs\r\n:-3\r\n*1\r\n+readonly\r\n:1\r\n:2\r\n:1\r\n*3\r\n"
            "+@read\r\n+@string\r\n+@slow\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n"
            "+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n"
            "*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
            "$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n"
            ":0\r\n*0\r\n");
}

// SINTERCARD finds its keys by the count at index 1, and so has no first/last/step.
TEST_F(CommandCommandsTest, InfoOfSintercardHasKeynumSpec) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "sintercard"}),
            "*1\r\n*10\r\n$10\r\nsintercard\r\n:-3\r\n*2\r\n+readonly\r\n+movablekeys\r\n:0\r\n"
            ":0\r\n:0\r\n*3\r\n+@read\r\n+@set\r\n+@slow\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n"
            "*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n"
            "$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n"
            "$6\r\nkeynum\r\n$4\r\nspec\r\n*6\r\n$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n"
            ":1\r\n$7\r\nkeystep\r\n:1\r\n*0\r\n");
}

// MSET's keys are every other argument: step 2 in the table and keystep 2 in the key spec.
TEST_F(CommandCommandsTest, InfoOfMsetStepsByTwo) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "mset"}),
            "*1\r\n*10\r\n$4\r\nmset\r\n:-3\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:-1\r\n:2\r\n"
            "*3\r\n+@write\r\n+@string\r\n+@slow\r\n*2\r\n$26\r\nrequest_policy:multi_shard\r\n"
            "$29\r\nresponse_policy:all_succeeded\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+OW\r\n"
            "+update\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n"
            "*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
            "$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n$5\r\nlimit\r\n"
            ":0\r\n*0\r\n");
}

// A subcommand's key is its second argument: first key 2, begin_search index 2.
TEST_F(CommandCommandsTest, InfoOfObjectEncoding) {
  EXPECT_EQ(Run({"COMMAND", "INFO", "object|encoding"}),
            "*1\r\n*10\r\n$15\r\nobject|encoding\r\n:3\r\n*1\r\n+readonly\r\n:2\r\n:2\r\n:1\r\n"
            "*3\r\n+@keyspace\r\n+@read\r\n+@slow\r\n*1\r\n$23\r\nnondeterministic_output\r\n"
            "*1\r\n*6\r\n$5\r\nflags\r\n*1\r\n+RO\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n"
            "$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:2\r\n$9\r\nfind_keys\r\n*4\r\n"
            "$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\n"
            "keystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n");
}

// DELEX and DIGEST (Redis 8.4) and CLIENT SETINFO (7.2): hand-written in the generator.
TEST_F(CommandCommandsTest, InfoOfCommandsRedis70Lacks) {
  const std::string_view range_spec =
      "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n"
      "$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n"
      "$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n";
  const std::string delex = Run({"COMMAND", "INFO", "delex"});
  const std::string digest = Run({"COMMAND", "INFO", "digest"});
  const std::string setinfo = Run({"COMMAND", "INFO", "client|setinfo"});

  EXPECT_NE(delex.find("*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RM\r\n+delete\r\n" +
                       std::string(range_spec) + "*0\r\n"),
            std::string::npos);
  EXPECT_NE(digest.find("*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n" +
                        std::string(range_spec) + "*0\r\n"),
            std::string::npos);
  EXPECT_EQ(setinfo.substr(setinfo.size() - 12), "*0\r\n*0\r\n*0\r\n");
}

// Every command and subcommand has its tips and key specs in the generated data: a new
// command needs scripts/gen_command_info.py rerun (or a WARDEN_ONLY entry there).
TEST_F(CommandCommandsTest, InfoDataCoversEveryCommand) {
  std::vector<std::string_view> names;
  for (const CommandSpec& spec : Commands()) {
    names.push_back(spec.name);
    if (spec.is_container()) {
      for (const CommandSpec& sub : spec.subcommands()) names.push_back(sub.name);
    }
  }
  for (std::string_view name : names) {
    EXPECT_FALSE(CommandTipsResp3(name).empty()) << name;
    EXPECT_FALSE(CommandKeySpecsResp3(name).empty()) << name;
  }
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
  EXPECT_EQ(subcommands, (std::vector<std::string>{
                             "client|id", "client|getname", "client|setname", "client|setinfo",
                             "client|info", "client|list", "client|no-evict", "client|tracking",
                             "client|caching", "client|getredir", "client|trackinginfo",
                             "client|reply", "client|unblock", "client|kill", "client|pause",
                             "client|unpause", "client|no-touch", "client|help"}));
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
            "*2\r\n$3\r\nget\r\n*10\r\n$7\r\nsummary\r\n$22\r\nGet the value of a key\r\n$5\r\n"
            "since\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n$4\r\n"
            "O(1)\r\n$9\r\narguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\n"
            "key\r\n$14\r\nkey_spec_index\r\n:0\r\n");
}

TEST_F(CommandCommandsTest, DocsAreMapsInResp3) {
  Run({"HELLO", "3"});

  EXPECT_EQ(Run({"COMMAND", "DOCS", "get"}),
            "%1\r\n$3\r\nget\r\n%5\r\n$7\r\nsummary\r\n$22\r\nGet the value of a key\r\n$5\r\n"
            "since\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n$4\r\n"
            "O(1)\r\n$9\r\narguments\r\n*1\r\n%3\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\n"
            "key\r\n$14\r\nkey_spec_index\r\n:0\r\n");
}

// History, nested arguments, tokens and flags: what `help SET` and redis-cli's hints read.
TEST_F(CommandCommandsTest, DocsOfSet) {
  EXPECT_EQ(
      Run({"COMMAND", "DOCS", "set"}),
      "*2\r\n$3\r\nset\r\n*12\r\n$7\r\nsummary\r\n$29\r\nSet the string value of a key\r\n"
      "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n$4\r\n"
      "O(1)\r\n$7\r\nhistory\r\n*4\r\n*2\r\n$6\r\n2.6.12\r\n$44\r\n"
      "Added the `EX`, `PX`, `NX` and `XX` options.\r\n*2\r\n$5\r\n6.0.0\r\n$27\r\n"
      "Added the `KEEPTTL` option.\r\n*2\r\n$5\r\n6.2.0\r\n$42\r\n"
      "Added the `GET`, `EXAT` and `PXAT` option.\r\n*2\r\n$5\r\n7.0.0\r\n$55\r\n"
      "Allowed the `NX` and `GET` options to be used together.\r\n$9\r\narguments\r\n*5\r\n"
      "*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n"
      ":0\r\n*4\r\n$4\r\nname\r\n$5\r\nvalue\r\n$4\r\ntype\r\n$6\r\nstring\r\n*10\r\n$4\r\n"
      "name\r\n$9\r\ncondition\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nsince\r\n$6\r\n2.6.12\r\n"
      "$5\r\nflags\r\n*1\r\n+optional\r\n$9\r\narguments\r\n*2\r\n*6\r\n$4\r\nname\r\n$2\r\n"
      "nx\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$2\r\nNX\r\n*6\r\n$4\r\nname\r\n"
      "$2\r\nxx\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$2\r\nXX\r\n*10\r\n$4\r\n"
      "name\r\n$3\r\nget\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$3\r\nGET\r\n"
      "$5\r\nsince\r\n$5\r\n6.2.0\r\n$5\r\nflags\r\n*1\r\n+optional\r\n*8\r\n$4\r\nname\r\n"
      "$10\r\nexpiration\r\n$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nflags\r\n*1\r\n+optional\r\n"
      "$9\r\narguments\r\n*5\r\n*8\r\n$4\r\nname\r\n$7\r\nseconds\r\n$4\r\ntype\r\n$7\r\n"
      "integer\r\n$5\r\ntoken\r\n$2\r\nEX\r\n$5\r\nsince\r\n$6\r\n2.6.12\r\n*8\r\n$4\r\n"
      "name\r\n$12\r\nmilliseconds\r\n$4\r\ntype\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$2\r\n"
      "PX\r\n$5\r\nsince\r\n$6\r\n2.6.12\r\n*8\r\n$4\r\nname\r\n$17\r\nunix-time-seconds\r\n"
      "$4\r\ntype\r\n$9\r\nunix-time\r\n$5\r\ntoken\r\n$4\r\nEXAT\r\n$5\r\nsince\r\n$5\r\n"
      "6.2.0\r\n*8\r\n$4\r\nname\r\n$22\r\nunix-time-milliseconds\r\n$4\r\ntype\r\n$9\r\n"
      "unix-time\r\n$5\r\ntoken\r\n$4\r\nPXAT\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n*8\r\n$4\r\n"
      "name\r\n$7\r\nkeepttl\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$7\r\n"
      "KEEPTTL\r\n$5\r\nsince\r\n$5\r\n6.0.0\r\n");
}

// Sets (history, argument flags) stay sets in RESP3.
TEST_F(CommandCommandsTest, DocsOfSetUsesSetsInResp3) {
  Run({"HELLO", "3"});
  const std::string bytes = Run({"COMMAND", "DOCS", "set"});

  EXPECT_NE(bytes.find("$7\r\nhistory\r\n~4\r\n*2\r\n$6\r\n2.6.12\r\n"), std::string::npos);
  EXPECT_NE(bytes.find("$5\r\nflags\r\n~1\r\n+optional\r\n"), std::string::npos);
  EXPECT_EQ(Parse(bytes).type, protocol::ReplyType::kMap);
}

TEST_F(CommandCommandsTest, DocsSkipsUnknownNamesAndKeepsRepeats) {
  const std::string get_doc = Run({"COMMAND", "DOCS", "get"}).substr(4);

  EXPECT_EQ(Run({"COMMAND", "DOCS", "nosuch"}), "*0\r\n");
  EXPECT_EQ(Run({"COMMAND", "DOCS", "get", "nosuch", "get"}), "*4\r\n" + get_doc + get_doc);
}

TEST_F(CommandCommandsTest, DocsOfSubcommandByFullName) {
  const std::string bytes = Run({"COMMAND", "DOCS", "client|list"});

  const std::string_view head =
      "*2\r\n$11\r\nclient|list\r\n*12\r\n$7\r\nsummary\r\n$34\r\n"
      "Get the list of client connections\r\n$5\r\nsince\r\n";
  EXPECT_EQ(bytes.substr(0, head.size()), head);
  EXPECT_EQ(Parse(bytes).elements[1].elements[10].text, "arguments");
}

// A container lists only warden's subcommands, each with its own docs, after Redis's fields.
TEST_F(CommandCommandsTest, DocsOfContainerNamesSubcommands) {
  const std::string bytes = Run({"COMMAND", "DOCS", "config"});

  const protocol::Reply reply = Parse(bytes);
  ASSERT_EQ(reply.elements.size(), 2u);
  const std::vector<protocol::Reply>& fields = reply.elements[1].elements;
  ASSERT_EQ(fields.size(), 10u);
  EXPECT_EQ(fields[1].text, "A container for server configuration commands");
  EXPECT_EQ(fields[8].text, "subcommands");
  const std::string get_doc = Run({"COMMAND", "DOCS", "config|get"}).substr(4);
  const std::string help_doc = Run({"COMMAND", "DOCS", "config|help"}).substr(4);
  const std::string rewrite_doc = Run({"COMMAND", "DOCS", "config|rewrite"}).substr(4);
  const std::string resetstat_doc = Run({"COMMAND", "DOCS", "config|resetstat"}).substr(4);
  const std::string set_doc = Run({"COMMAND", "DOCS", "config|set"}).substr(4);
  const std::string docs = get_doc + help_doc + rewrite_doc + resetstat_doc + set_doc;
  EXPECT_EQ(bytes.substr(bytes.size() - docs.size() - 5), "*10\r\n" + docs);
}

// DELEX and DIGEST come from Redis 8.4, CLIENT SETINFO from 7.2: hand-written in Redis's shape.
TEST_F(CommandCommandsTest, DocsOfCommandsRedis70Lacks) {
  for (std::string_view name : {"delex", "digest", "client|setinfo"}) {
    const std::string bytes = Run({"COMMAND", "DOCS", name});
    const protocol::Reply reply = Parse(bytes);
    ASSERT_EQ(reply.elements.size(), 2u) << name;
    EXPECT_EQ(reply.elements[0].text, name);
    const std::vector<protocol::Reply>& fields = reply.elements[1].elements;
    ASSERT_EQ(fields.size(), 10u) << name;
    EXPECT_EQ(fields[8].text, "arguments");
  }
  EXPECT_EQ(
      Run({"COMMAND", "DOCS", "digest"}),
      "*2\r\n$6\r\ndigest\r\n*10\r\n$7\r\nsummary\r\n$40\r\n"
      "Returns the XXH3 hash of a string value.\r\n$5\r\nsince\r\n$5\r\n8.4.0\r\n"
      "$5\r\ngroup\r\n$6\r\nstring\r\n$10\r\ncomplexity\r\n$47\r\n"
      "O(N) where N is the length of the string value.\r\n$9\r\narguments\r\n*1\r\n*6\r\n"
      "$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n");
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

  EXPECT_EQ(
      BulkStrings(Parse(bytes)),
      (std::vector<std::string>{
          "client", "client|id", "client|getname", "client|setname", "client|setinfo",
          "client|info", "client|list", "client|no-evict", "client|tracking", "client|caching",
          "client|getredir", "client|trackinginfo", "client|reply", "client|unblock", "client|kill",
          "client|pause", "client|unpause", "client|no-touch", "client|help"}));
}

TEST_F(CommandCommandsTest, ListFilterByPatternIgnoresCase) {
  EXPECT_EQ(Run({"COMMAND", "LIST", "filterby", "pattern", "CLIENT|S*"}),
            "*2\r\n$14\r\nclient|setname\r\n$14\r\nclient|setinfo\r\n");
}

TEST_F(CommandCommandsTest, ListFilterByAclCategory) {
  const std::string bytes = Run({"COMMAND", "LIST", "FILTERBY", "ACLCAT", "STRING"});

  EXPECT_EQ(
      BulkStrings(Parse(bytes)),
      (std::vector<std::string>{"get",    "set",      "setnx",    "setex",  "psetex",      "incr",
                                "incrby", "decr",     "decrby",   "delex",  "digest",      "mset",
                                "msetnx", "mget",     "getdel",   "getex",  "getset",      "append",
                                "strlen", "getrange", "setrange", "substr", "incrbyfloat", "lcs"}));
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
            "*21\r\n"
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
            "+GETKEYS <full-command>\r\n"
            "+    Return the keys from a full Redis command.\r\n"
            "+GETKEYSANDFLAGS <full-command>\r\n"
            "+    Return the keys and the access flags from a full Redis command.\r\n"
            "+HELP\r\n"
            "+    Prints this help.\r\n");
}

}  // namespace
}  // namespace warden::server
