#include "case_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace warden::testing {
namespace {

using Args = std::vector<std::string>;

TEST(SplitArgsTest, BlanksSeparateArguments) {
  EXPECT_EQ(SplitArgs("  SET\tk  v  "), (Args{"SET", "k", "v"}));
}

TEST(SplitArgsTest, DoubleQuotesUnderstandEscapes) {
  EXPECT_EQ(SplitArgs(R"(ECHO "a b\r\n\t\\\"\x41\x0a")"), (Args{"ECHO", "a b\r\n\t\\\"A\n"}));
}

TEST(SplitArgsTest, SingleQuotesUnderstandOnlyEscapedQuote) {
  EXPECT_EQ(SplitArgs(R"(ECHO 'it\'s \n')"), (Args{"ECHO", "it's \\n"}));
}

TEST(SplitArgsTest, EmptyQuotesAreAnEmptyArgument) {
  EXPECT_EQ(SplitArgs(R"(SET "" '')"), (Args{"SET", "", ""}));
}

TEST(SplitArgsTest, RejectsUnbalancedQuotes) {
  EXPECT_EQ(SplitArgs(R"(ECHO "abc)"), std::nullopt);
  EXPECT_EQ(SplitArgs(R"(ECHO 'abc)"), std::nullopt);
  EXPECT_EQ(SplitArgs(R"(ECHO "a"b)"), std::nullopt);
}

TEST(ParseCaseFileTest, SkipsCommentsAndBlankLinesAndKeepsLineNumbers) {
  const CaseFile file = ParseCaseFile("# comment\n\n  GET k\r\n");
  ASSERT_TRUE(file.errors.empty());
  ASSERT_EQ(file.lines.size(), 1u);
  EXPECT_EQ(file.lines[0].number, 3);
  EXPECT_EQ(file.lines[0].args, (Args{"GET", "k"}));
}

TEST(ParseCaseFileTest, ReadsComparisonPrefixes) {
  const CaseFile file = ParseCaseFile("~25 sorted PTTL k\ntype TIME\n");
  ASSERT_EQ(file.lines.size(), 2u);
  EXPECT_EQ(file.lines[0].integer_tolerance, 25);
  EXPECT_TRUE(file.lines[0].sorted);
  EXPECT_EQ(file.lines[0].args, (Args{"PTTL", "k"}));
  EXPECT_TRUE(file.lines[1].type_only);
  EXPECT_EQ(file.lines[1].args, (Args{"TIME"}));
}

TEST(ParseCaseFileTest, UpperCaseTypeIsTheCommand) {
  const CaseFile file = ParseCaseFile("TYPE k\n");
  ASSERT_EQ(file.lines.size(), 1u);
  EXPECT_FALSE(file.lines[0].type_only);
  EXPECT_EQ(file.lines[0].args, (Args{"TYPE", "k"}));
}

TEST(ParseCaseFileTest, ReadsRawLinesWithReplyCount) {
  const CaseFile file = ParseCaseFile("raw \"PING\\r\\nPING\\r\\n\" 2\nrawclose \"QUIT\\r\\n\"\n");
  ASSERT_TRUE(file.errors.empty());
  ASSERT_EQ(file.lines.size(), 2u);
  EXPECT_EQ(file.lines[0].kind, LineKind::kRaw);
  EXPECT_EQ(file.lines[0].raw, "PING\r\nPING\r\n");
  EXPECT_EQ(file.lines[0].replies, 2);
  EXPECT_EQ(file.lines[1].kind, LineKind::kRawClose);
  EXPECT_EQ(file.lines[1].raw, "QUIT\r\n");
}

TEST(ParseCaseFileTest, ReadsScanAllAndReconnect) {
  const CaseFile file = ParseCaseFile("scanall MATCH k* COUNT 3\nreconnect\n");
  ASSERT_EQ(file.lines.size(), 2u);
  EXPECT_EQ(file.lines[0].kind, LineKind::kScanAll);
  EXPECT_EQ(file.lines[0].args, (Args{"MATCH", "k*", "COUNT", "3"}));
  EXPECT_EQ(file.lines[1].kind, LineKind::kReconnect);
}

TEST(ParseCaseFileTest, ReportsBadLinesWithTheirNumbers) {
  const CaseFile file = ParseCaseFile("GET k\n~x GET k\nraw\nsorted\nECHO \"a\n");
  EXPECT_EQ(file.lines.size(), 1u);
  ASSERT_EQ(file.errors.size(), 4u);
  EXPECT_TRUE(file.errors[0].starts_with("line 2:"));
  EXPECT_TRUE(file.errors[3].starts_with("line 5:"));
}

}  // namespace
}  // namespace warden::testing
