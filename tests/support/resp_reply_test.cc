#include "resp_reply.h"

#include <gtest/gtest.h>

#include <string>

namespace warden::testing {
namespace {

// A RESP3 reply touching every type the parser knows, with CRLF inside a bulk payload.
constexpr std::string_view kEveryType =
    "*12\r\n+OK\r\n-ERR x\r\n:-42\r\n$4\r\na\r\nb\r\n$-1\r\n*-1\r\n_\r\n#t\r\n,1.5\r\n"
    "(12345678901234567890\r\n=8\r\ntxt:abcd\r\n%1\r\n$1\r\nk\r\n~2\r\n:1\r\n:2\r\n";

ParseResult Parse(std::string_view bytes) { return ParseReply(bytes); }

TEST(ParseReplyTest, EveryProperPrefixIsIncomplete) {
  for (std::size_t length = 0; length < kEveryType.size(); ++length) {
    EXPECT_EQ(Parse(kEveryType.substr(0, length)).status, ParseStatus::kIncomplete)
        << "prefix of " << length << " bytes";
  }
}

TEST(ParseReplyTest, WholeReplyIsCompleteAndIgnoresWhatFollows) {
  const std::string bytes = std::string(kEveryType) + "+NEXT\r\n";
  const ParseResult result = Parse(bytes);
  ASSERT_EQ(result.status, ParseStatus::kComplete);
  EXPECT_EQ(result.length, kEveryType.size());
  EXPECT_EQ(result.reply.raw, kEveryType);
  ASSERT_EQ(result.reply.elements.size(), 12u);
  EXPECT_EQ(result.reply.elements[3].text, "a\r\nb");
  EXPECT_TRUE(result.reply.elements[4].is_null);
  EXPECT_TRUE(result.reply.elements[5].is_null);
  EXPECT_TRUE(result.reply.elements[6].is_null);
  EXPECT_EQ(result.reply.elements[10].text, "txt:abcd");
}

TEST(ParseReplyTest, MapIsFlattenedToKeysAndValues) {
  const ParseResult result = Parse("%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n");
  ASSERT_EQ(result.status, ParseStatus::kComplete);
  ASSERT_EQ(result.reply.elements.size(), 4u);
  EXPECT_EQ(result.reply.elements[2].text, "b");
}

TEST(ParseReplyTest, AttributeKeepsTheAnnotatedReplyLast) {
  const ParseResult result = Parse("|1\r\n+key\r\n+value\r\n:7\r\n");
  ASSERT_EQ(result.status, ParseStatus::kComplete);
  ASSERT_EQ(result.reply.elements.size(), 3u);
  EXPECT_EQ(result.reply.elements[2].text, "7");
}

TEST(ParseReplyTest, RejectsBytesThatAreNotResp) {
  EXPECT_EQ(Parse("hello\r\n").status, ParseStatus::kMalformed);
  EXPECT_EQ(Parse("$3\r\nabcXY").status, ParseStatus::kMalformed);
  EXPECT_EQ(Parse(":12a\r\n").status, ParseStatus::kMalformed);
  EXPECT_EQ(Parse("+OK\n").status, ParseStatus::kMalformed);
  EXPECT_EQ(Parse("*-2\r\n").status, ParseStatus::kMalformed);
}

TEST(EncodeReplyTest, ReproducesTheWireBytes) {
  EXPECT_EQ(EncodeReply(Parse(kEveryType).reply), kEveryType);
}

TEST(EncodeCommandTest, WritesAnArrayOfBulkStrings) {
  EXPECT_EQ(EncodeCommand({"SET", "k", ""}), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

TEST(SortArraysTest, NestedArraysInAnyOrderCompareEqual) {
  Reply a = Parse("*2\r\n$1\r\n0\r\n*3\r\n$1\r\nb\r\n$1\r\na\r\n$1\r\nc\r\n").reply;
  Reply b = Parse("*2\r\n$1\r\n0\r\n*3\r\n$1\r\nc\r\n$1\r\nb\r\n$1\r\na\r\n").reply;
  SortArrays(a);
  SortArrays(b);
  EXPECT_TRUE(RepliesMatch(a, b, 0));
  EXPECT_EQ(a.raw, b.raw);
}

TEST(SortArraysTest, MapPairsStayTogether) {
  Reply a = Parse("%2\r\n+b\r\n:2\r\n+a\r\n:1\r\n").reply;
  SortArrays(a);
  EXPECT_EQ(a.raw, "%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n");
}

TEST(RepliesMatchTest, IntegersWithinToleranceMatch) {
  const Reply a = Parse("*2\r\n:1000\r\n:5\r\n").reply;
  const Reply b = Parse("*2\r\n:997\r\n:5\r\n").reply;
  EXPECT_FALSE(RepliesMatch(a, b, 0));
  EXPECT_FALSE(RepliesMatch(a, b, 2));
  EXPECT_TRUE(RepliesMatch(a, b, 3));
}

TEST(RepliesMatchTest, ExtremeIntegersDoNotOverflow) {
  const Reply a = Parse(":9223372036854775807\r\n").reply;
  const Reply b = Parse(":-9223372036854775808\r\n").reply;
  EXPECT_FALSE(RepliesMatch(a, b, 9223372036854775807));
}

TEST(RepliesMatchTest, ToleranceDoesNotApplyToStrings) {
  EXPECT_FALSE(RepliesMatch(Parse("$2\r\n10\r\n").reply, Parse("$2\r\n11\r\n").reply, 5));
}

TEST(EscapeBytesTest, ShowsControlBytesAndCutsLongInput) {
  EXPECT_EQ(EscapeBytes("+OK\r\n\x01\"\\"), "+OK\\r\\n\\x01\\\"\\\\");
  EXPECT_EQ(EscapeBytes(std::string(10, 'a'), 4), "aaaa...(10 bytes)");
}

}  // namespace
}  // namespace warden::testing
