// The Lua debugger's text without Lua or sockets (server/scripting/ldb_text.h): how replies and
// strings are shown, maxlen, listing lines and the debugging client's requests, as Redis 7.0's
// eval.c writes and reads them. The sessions themselves are compared with redis-server in
// tests/clients/python/test_ldb.py.
#include "server/scripting/ldb_text.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/monitor.h"

namespace warden::server::ldb {
namespace {

using namespace std::string_view_literals;

std::string Text(std::string_view resp) {
  std::string out;
  EXPECT_EQ(AppendReplyText(out, resp), resp.size()) << resp;
  return out;
}

std::string Repr(std::string_view s) {
  std::string out;
  AppendQuoted(out, s);
  return out;
}

TEST(LdbTextTest, ReprEscapesLikeSdscatrepr) {
  EXPECT_EQ(Repr("a\"b\\c\n\r\t\a\b\x01\xff"sv), R"("a\"b\\c\n\r\t\a\b\x01\xff")");
}

TEST(LdbTextTest, ReplyScalars) {
  EXPECT_EQ(Text(":42\r\n"), "42");
  EXPECT_EQ(Text("$3\r\nfoo\r\n"), "\"foo\"");
  EXPECT_EQ(Text("$-1\r\n"), "NULL");
  EXPECT_EQ(Text("+OK\r\n"), "\"+OK\"");
  EXPECT_EQ(Text("-ERR bad\r\n"), "\"-ERR bad\"");
}

TEST(LdbTextTest, ReplyAggregates) {
  EXPECT_EQ(Text("*2\r\n$1\r\na\r\n:1\r\n"), "[\"a\",1]");
  EXPECT_EQ(Text("*-1\r\n"), "NULL");
  EXPECT_EQ(Text("*0\r\n"), "[]");
  EXPECT_EQ(Text("*2\r\n*1\r\n:1\r\n$-1\r\n"), "[[1],NULL]");
}

TEST(LdbTextTest, ReplyResp3Types) {
  EXPECT_EQ(Text("~2\r\n:1\r\n:2\r\n"), "~(1,2)");
  EXPECT_EQ(Text("%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n_\r\n"), "{\"a\" => 1,\"b\" => (null)}");
  EXPECT_EQ(Text("#t\r\n"), "#true");
  EXPECT_EQ(Text("#f\r\n"), "#false");
  EXPECT_EQ(Text(",1.5\r\n"), "(double) 1.5");
}

TEST(LdbTextTest, ReplyTypesRedisDoesNotShowAreSkipped) {
  EXPECT_EQ(Text("*3\r\n(123\r\n=7\r\ntxt:abc\r\n:1\r\n"), "[,,1]");
}

TEST(LdbTextTest, CollectErrorsInOrder) {
  std::vector<std::string_view> errors;
  CollectErrors("*3\r\n-ERR one\r\n:1\r\n*1\r\n-WRONGTYPE two\r\n", errors);
  EXPECT_EQ(errors, (std::vector<std::string_view>{"ERR one", "WRONGTYPE two"}));
}

TEST(LdbTextTest, TrimToMaxLen) {
  std::string entry(70, 'x');
  EXPECT_TRUE(TrimToMaxLen(entry, 60));
  EXPECT_EQ(entry, std::string(60, 'x') + " ...");
  std::string short_entry = "abc";
  EXPECT_FALSE(TrimToMaxLen(short_entry, 60));
  EXPECT_FALSE(TrimToMaxLen(entry, 0));
}

TEST(LdbTextTest, MaxLenBelowSixtyBecomesSixty) {
  EXPECT_EQ(ParseMaxLen("10"), 60u);
  EXPECT_EQ(ParseMaxLen("-5"), 60u);
  EXPECT_EQ(ParseMaxLen("0"), 0u);
  EXPECT_EQ(ParseMaxLen("abc"), 0u);
  EXPECT_EQ(ParseMaxLen("300"), 300u);
}

TEST(LdbTextTest, SourceLineMarks) {
  EXPECT_EQ(SourceLine(3, "x = 1", false, false), "   3   x = 1");
  EXPECT_EQ(SourceLine(3, "x = 1", true, false), "-> 3   x = 1");
  EXPECT_EQ(SourceLine(12, "y", false, true), "  #12  y");
  EXPECT_EQ(SourceLine(1234, "z", true, true), "->#1234 z");
}

TEST(LdbTextTest, SplitSourceDropsTrailingNewlines) {
  EXPECT_EQ(SplitSource("a\n\nb\r\n\n"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(SplitSource("\n\n").empty());
}

TEST(LdbTextTest, ParseReplCommandWholeRequest) {
  std::vector<std::string> args;
  EXPECT_EQ(ParseReplCommand("*2\r\n$1\r\np\r\n$3\r\nvar\r\n", args), ReplParse::kCommand);
  EXPECT_EQ(args, (std::vector<std::string>{"p", "var"}));
}

TEST(LdbTextTest, ParseReplCommandNeedsMoreAtEverySplit) {
  const std::string request = "*2\r\n$1\r\np\r\n$3\r\nvar\r\n";
  std::vector<std::string> args;
  for (std::size_t n = 0; n < request.size(); ++n) {
    EXPECT_EQ(ParseReplCommand(request.substr(0, n), args), ReplParse::kNeedMore) << n;
  }
}

TEST(LdbTextTest, ParseReplCommandRejectsWhatRedisRejects) {
  std::vector<std::string> args;
  EXPECT_EQ(ParseReplCommand("step\r\n", args), ReplParse::kError);
  EXPECT_EQ(ParseReplCommand("*0\r\n", args), ReplParse::kError);
  EXPECT_EQ(ParseReplCommand("*1\r\n$0\r\n\r\n", args), ReplParse::kError);
  EXPECT_EQ(ParseReplCommand("*1\r\n:1\r\n", args), ReplParse::kError);
  EXPECT_EQ(ParseReplCommand("*1\r\n$1\r\nab\r\n", args), ReplParse::kError);
}

TEST(LdbTextTest, HelpStartsAndEndsAsRedis) {
  const auto lines = HelpLines();
  ASSERT_EQ(lines.size(), 30u);
  EXPECT_EQ(lines.front(), "Redis Lua debugger help:");
  EXPECT_EQ(lines.back(), "                     next line of code.");
}

}  // namespace
}  // namespace warden::server::ldb
