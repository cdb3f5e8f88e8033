// The names clients call commands by after rename-command, and Redis's refusals of a rename.
#include "server/command_names.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/command_table.h"

namespace warden::server {
namespace {

const CommandSpec* Table(std::string_view name) { return FindTopLevelCommand(name); }

TEST(CommandNamesTest, WithoutRenamesEveryCommandHasTheTablesName) {
  const CommandNames names;

  EXPECT_EQ(names.Find("SET"), Table("set"));
  EXPECT_EQ(names.Find("nosuch"), nullptr);
  EXPECT_EQ(names.CallableCount(), Commands().size());
}

TEST(CommandNamesTest, ARenamedCommandAnswersToItsNewNameOnly) {
  CommandNames names;

  EXPECT_FALSE(names.Rename("set", "MySet").has_value());

  EXPECT_EQ(names.Find("myset"), Table("set"));
  EXPECT_EQ(names.Find("MYSET"), Table("set"));
  EXPECT_EQ(names.Find("set"), nullptr);
  EXPECT_TRUE(names.Callable(*Table("set")));
  EXPECT_EQ(names.CallableCount(), Commands().size());
}

TEST(CommandNamesTest, AnEmptyNameDisablesTheCommand) {
  CommandNames names;

  EXPECT_FALSE(names.Rename("FLUSHALL", "").has_value());

  EXPECT_EQ(names.Find("flushall"), nullptr);
  EXPECT_FALSE(names.Callable(*Table("flushall")));
  EXPECT_EQ(names.CallableCount(), Commands().size() - 1);
}

TEST(CommandNamesTest, AFreedNameMayCallAnotherCommand) {
  CommandNames names;

  EXPECT_FALSE(names.Rename("set", "put").has_value());
  EXPECT_FALSE(names.Rename("get", "set").has_value());

  EXPECT_EQ(names.Find("set"), Table("get"));
  EXPECT_EQ(names.Find("get"), nullptr);
  EXPECT_TRUE(names.Callable(*Table("set")));
  EXPECT_TRUE(names.Callable(*Table("get")));
}

TEST(CommandNamesTest, ACommandMayBeRenamedAgainByItsNewName) {
  CommandNames names;

  EXPECT_FALSE(names.Rename("set", "a").has_value());
  EXPECT_FALSE(names.Rename("A", "b").has_value());

  EXPECT_EQ(names.Find("a"), nullptr);
  EXPECT_EQ(names.Find("b"), Table("set"));
}

TEST(CommandNamesTest, RenamingToItsOwnNameKeepsIt) {
  CommandNames names;

  EXPECT_FALSE(names.Rename("set", "SET").has_value());

  EXPECT_EQ(names.Find("set"), Table("set"));
}

struct RefusedRename {
  std::vector<std::pair<std::string, std::string>> before;
  std::string from;
  std::string to;
  std::string_view reason;
};

class CommandNamesRefusalTest : public ::testing::TestWithParam<RefusedRename> {};

TEST_P(CommandNamesRefusalTest, GivesRedisReasonAndChangesNothing) {
  CommandNames names(GetParam().before);
  const std::string_view probes[] = {"set", "myset", "get", "x"};
  std::vector<const CommandSpec*> before;
  for (std::string_view name : probes) before.push_back(names.Find(name));

  const auto refused = names.Rename(GetParam().from, GetParam().to);

  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(*refused, GetParam().reason);
  std::vector<const CommandSpec*> after;
  for (std::string_view name : probes) after.push_back(names.Find(name));
  EXPECT_EQ(after, before);
}

constexpr std::string_view kNoSuch = "No such command in rename-command";
constexpr std::string_view kExists = "Target command name already exists";

INSTANTIATE_TEST_SUITE_P(
    Refusals, CommandNamesRefusalTest,
    ::testing::Values(RefusedRename{{}, "nosuch", "x", kNoSuch},
                      RefusedRename{{}, "get|x", "x", kNoSuch},
                      // Redis fails an assertion here: a subcommand is not in its dict.
                      RefusedRename{{}, "config|get", "x", kNoSuch},
                      RefusedRename{{}, "", "x", kNoSuch},
                      RefusedRename{{{"set", "myset"}}, "set", "x", kNoSuch},
                      RefusedRename{{}, "get", "SET", kExists},
                      RefusedRename{{{"set", "myset"}}, "get", "myset", kExists}));

TEST(CommandNamesTest, FindForTakesTheSubcommandOfARenamedContainer) {
  const CommandNames names(std::vector<std::pair<std::string, std::string>>{{"config", "cfg"}});
  const std::string_view get[] = {"CFG", "GET", "hz"};
  const std::string_view bare[] = {"cfg"};
  const std::string_view old[] = {"config", "get", "hz"};

  EXPECT_EQ(names.FindFor(get)->name, "config|get");
  EXPECT_EQ(names.FindFor(bare), Table("config"));
  EXPECT_EQ(names.FindFor(old), nullptr);
}

TEST(CommandNamesTest, FullNamesGoThroughTheContainersNewName) {
  const CommandNames names(std::vector<std::pair<std::string, std::string>>{{"config", "cfg"}});

  EXPECT_EQ(names.FindFullName("cfg|get")->name, "config|get");
  EXPECT_EQ(names.FindFullName("cfg"), Table("config"));
  EXPECT_EQ(names.FindFullName("config|get"), nullptr);
  EXPECT_EQ(names.FindFullName("cfg|get|x"), nullptr);
  EXPECT_EQ(names.FindFullName("get|x"), nullptr);
}

}  // namespace
}  // namespace warden::server
