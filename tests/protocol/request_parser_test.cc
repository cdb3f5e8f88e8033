// RequestParser against Redis 7.0's networking.c: every input is also fed split at every byte
// offset and one byte at a time, and must give the same requests as when fed whole.
#include "protocol/request_parser.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::protocol {
namespace {

using namespace std::string_literals;

// What the parser reported for one request: its arguments, an empty request, or an error.
struct Event {
  ParseStatus status = ParseStatus::kNeedMore;
  std::vector<std::string> args;
  std::string error;

  bool operator==(const Event&) const = default;
};

void PrintTo(const Event& e, std::ostream* os) {
  switch (e.status) {
    case ParseStatus::kRequest:
      *os << "Request{";
      for (const std::string& a : e.args) *os << ::testing::PrintToString(a) << ",";
      *os << "}";
      break;
    case ParseStatus::kEmpty:
      *os << "Empty";
      break;
    case ParseStatus::kError:
      *os << "Error{" << e.error << "}";
      break;
    case ParseStatus::kNeedMore:
      *os << "NeedMore";
      break;
  }
}

Event Req(std::vector<std::string> args) { return {ParseStatus::kRequest, std::move(args), ""}; }
Event Empty() { return {ParseStatus::kEmpty, {}, ""}; }
Event Err(std::string text) { return {ParseStatus::kError, {}, std::move(text)}; }

// Feeds `input` to a fresh parser the way a connection does: the bytes up to each cut arrive
// together, every unconsumed byte is passed again with each call, and a complete request is
// removed from the front of the buffer before parsing goes on. Stops at the first error.
std::vector<Event> Feed(std::string_view input, std::span<const std::size_t> cuts,
                        bool authenticated = true, ParserLimits limits = {}) {
  RequestParser parser(limits);
  std::string buffer;
  std::vector<Event> events;
  std::size_t fed = 0;
  std::size_t next_cut = 0;
  while (true) {
    const std::size_t end = next_cut < cuts.size() ? cuts[next_cut++] : input.size();
    buffer.append(input.substr(fed, end - fed));
    fed = end;
    while (true) {
      const ParseStatus status = parser.Parse(buffer, authenticated);
      if (status == ParseStatus::kNeedMore) break;
      if (status == ParseStatus::kError) {
        events.push_back(Err(std::string(parser.error())));
        return events;
      }
      if (status == ParseStatus::kRequest) {
        events.push_back(Req({parser.args().begin(), parser.args().end()}));
      } else {
        events.push_back(Empty());
      }
      buffer.erase(0, parser.consumed());
      parser.Reset();
    }
    if (fed == input.size()) return events;
  }
}

std::vector<Event> FeedWhole(std::string_view input, bool authenticated = true,
                             ParserLimits limits = {}) {
  return Feed(input, {}, authenticated, limits);
}

struct ParserCase {
  const char* name;
  std::string input;
  std::vector<Event> expected;
  bool authenticated = true;
  // Small inline limits let the "too big" cases run at every split in little time.
  ParserLimits limits = {};
};

ParserLimits SmallLimits() { return ParserLimits{.max_inline_bytes = 16}; }

const ParserCase kCases[] = {
    // Multibulk.
    {"Multibulk", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n", {Req({"SET", "k", "v"})}},
    {"MultibulkEmptyArgument", "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", {Req({"ECHO", ""})}},
    {"MultibulkEmptyName", "*1\r\n$0\r\n\r\n", {Req({""})}},
    {"BinarySafeBulk",
     "*2\r\n$4\r\nECHO\r\n$7\r\na\0\r\nb\nc\r\n"s,
     {Req({"ECHO", "a\0\r\nb\nc"s})}},
    {"BulkOfOnlyTerminators", "*1\r\n$4\r\n\r\n\r\n\r\n", {Req({"\r\n\r\n"})}},
    {"TwoBytesAfterBulkUnchecked", "*1\r\n$1\r\nxAB", {Req({"x"})}},
    {"TwoBytesAfterBulkUncheckedThenNext", "*1\r\n$1\r\nxABPING\r\n", {Req({"x"}), Req({"PING"})}},
    {"CountLineEndsAtAnyByteAfterCr", "*1\rX$4\r\nPING\r\n", {Req({"PING"})}},
    {"BulkLineEndsAtAnyByteAfterCr", "*1\r\n$4\rXPING\r\n", {Req({"PING"})}},
    {"ZeroCountIsEmpty", "*0\r\n", {Empty()}},
    {"NegativeCountIsEmpty", "*-1\r\n", {Empty()}},
    {"VeryNegativeCountIsEmpty", "*-10\r\n", {Empty()}},
    {"EmptyThenRequest", "*0\r\nPING\r\n", {Empty(), Req({"PING"})}},
    // Inline.
    {"Inline", "SET k v\r\n", {Req({"SET", "k", "v"})}},
    {"InlineBareLf", "PING\nPING\n", {Req({"PING"}), Req({"PING"})}},
    {"InlineSurroundingBlanks", "   PING   \r\n", {Req({"PING"})}},
    {"InlineTabs", "ECHO\t\"a b\"\t\r\n", {Req({"ECHO", "a b"})}},
    {"InlineVerticalTabIsPartOfArgument", "ECHO a\vb\r\n", {Req({"ECHO", "a\vb"})}},
    {"InlineOnlyLastCrDropped", "ECHO a\r\r\n", {Req({"ECHO", "a"})}},
    {"BlankLineIsEmpty", "\r\n", {Empty()}},
    {"BareLfIsEmpty", "\n", {Empty()}},
    {"BlanksOnlyIsEmpty", "  \t \r\n", {Empty()}},
    {"DollarFirstIsInline", "$4 x\r\n", {Req({"$4", "x"})}},
    // Inline quoting (sdssplitargs).
    {"DoubleQuotedHexEscape", "ECHO \"\\x41\\x6a\"\r\n", {Req({"ECHO", "Aj"})}},
    {"DoubleQuotedBadHexIsLiteralX", "ECHO \"\\xZZ\"\r\n", {Req({"ECHO", "xZZ"})}},
    {"DoubleQuotedEscapes",
     "ECHO \"a\\tb\\nc\\rd\\be\\af\\\\g\\\"h\\qi\"\r\n",
     {Req({"ECHO", "a\tb\nc\rd\be\af\\g\"hqi"})}},
    {"DoubleQuotedEmpty", "ECHO \"\"\r\n", {Req({"ECHO", ""})}},
    {"SingleQuotedEscapedQuote", "ECHO 'it\\'s'\r\n", {Req({"ECHO", "it's"})}},
    {"SingleQuotedHexIsLiteral", "ECHO '\\x41'\r\n", {Req({"ECHO", "\\x41"})}},
    {"QuoteInsideArgumentJoins", "ECHO a\"b c\"\r\n", {Req({"ECHO", "ab c"})}},
    {"ClosingQuoteAtEndOfLine", "ECHO \"a\"\r\n", {Req({"ECHO", "a"})}},
    // Pipelining: many requests in one buffer, inline and multibulk mixed.
    {"PipelinedMixed",
     "PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nECHO x\n*0\r\n*1\r\n$4\r\nPING\r\n",
     {Req({"PING"}), Req({"ECHO", "hi"}), Req({"ECHO", "x"}), Empty(), Req({"PING"})}},
    {"PartialLastRequestWaits", "PING\r\n*1\r\n$4\r\nPI", {Req({"PING"})}},
    // Protocol errors (networking.c), each after the requests before it.
    {"InvalidMultibulkLength", "*abc\r\n", {Err("ERR Protocol error: invalid multibulk length")}},
    {"EmptyMultibulkLength", "*\r\n", {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthPlusSign", "*+1\r\n", {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthLeadingZero",
     "*01\r\n",
     {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthMinusZero", "*-0\r\n", {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthOverIntMax",
     "*2147483648\r\n",
     {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthThreeBillion",
     "*3000000000\r\n",
     {Err("ERR Protocol error: invalid multibulk length")}},
    {"MultibulkLengthIntMaxWaits", "*2147483647\r\n$1\r\nx\r\n", {}},
    {"ErrorAfterPipelinedRequest",
     "PING\r\n*abc\r\nPING\r\n",
     {Req({"PING"}), Err("ERR Protocol error: invalid multibulk length")}},
    {"ExpectedDollar",
     "*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n",
     {Err("ERR Protocol error: expected '$', got 'f'")}},
    {"NegativeBulkLength",
     "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$-10\r\n",
     {Err("ERR Protocol error: invalid bulk length")}},
    {"MinusOneBulkLength", "*1\r\n$-1\r\n", {Err("ERR Protocol error: invalid bulk length")}},
    {"MinusZeroBulkLength", "*1\r\n$-0\r\n", {Err("ERR Protocol error: invalid bulk length")}},
    {"EmptyBulkLength", "*1\r\n$\r\n", {Err("ERR Protocol error: invalid bulk length")}},
    {"PlusBulkLength", "*1\r\n$+1\r\nx\r\n", {Err("ERR Protocol error: invalid bulk length")}},
    {"TextBulkLength", "*1\r\n$abc\r\n", {Err("ERR Protocol error: invalid bulk length")}},
    {"BulkLengthOverProtoMaxBulkLen",
     "*2\r\n$4\r\nECHO\r\n$536870913\r\n",
     {Err("ERR Protocol error: invalid bulk length")}},
    {"UnbalancedTripleQuotes",
     "set \"\"\"test-key\"\"\" test-value\r\nping\r\n",
     {Err("ERR Protocol error: unbalanced quotes in request")}},
    {"ClosingDoubleQuoteFollowedByText",
     "ECHO \"a\"b\r\n",
     {Err("ERR Protocol error: unbalanced quotes in request")}},
    {"ClosingSingleQuoteFollowedByText",
     "ECHO 'a'b\r\n",
     {Err("ERR Protocol error: unbalanced quotes in request")}},
    {"UnterminatedDoubleQuote",
     "ECHO \"abc\r\n",
     {Err("ERR Protocol error: unbalanced quotes in request")}},
    {"UnterminatedSingleQuote",
     "ECHO 'abc\r\n",
     {Err("ERR Protocol error: unbalanced quotes in request")}},
    // Clients that must still authenticate get tighter limits.
    {"UnauthenticatedTenArguments",
     "*10\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"
     "$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n",
     {Req({"a", "a", "a", "a", "a", "a", "a", "a", "a", "a"})},
     /*authenticated=*/false},
    {"UnauthenticatedMultibulkLength",
     "*11\r\n",
     {Err("ERR Protocol error: unauthenticated multibulk length")},
     /*authenticated=*/false},
    {"UnauthenticatedBulkLength",
     "*1\r\n$16385\r\n",
     {Err("ERR Protocol error: unauthenticated bulk length")},
     /*authenticated=*/false},
    {"UnauthenticatedInlineHasNoCountLimit",
     "a a a a a a a a a a a a\r\n",
     {Req({"a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"})},
     /*authenticated=*/false},
    // Line limits, with max_inline_bytes 16: more than 16 unparsed bytes without a terminator.
    {"InlineAtLimitWaits", std::string(16, 'a'), {}, true, SmallLimits()},
    {"TooBigInline",
     std::string(17, 'a'),
     {Err("ERR Protocol error: too big inline request")},
     true,
     SmallLimits()},
    {"TooBigMbulkCount",
     "*" + std::string(16, '1'),
     {Err("ERR Protocol error: too big mbulk count string")},
     true,
     SmallLimits()},
    {"BareLfDoesNotEndCountLine",
     "*1\n" + std::string(14, '1'),
     {Err("ERR Protocol error: too big mbulk count string")},
     true,
     SmallLimits()},
    {"TooBigBulkCount",
     "*1\r\n$" + std::string(16, '1'),
     {Err("ERR Protocol error: too big bulk count string")},
     true,
     SmallLimits()},
    // A NUL hides every later terminator, as strchr() does in Redis ("Protocol desync" tests).
    {"NulHidesInlineTerminator",
     "\0AAAA\nAAAA\nAAAA\nAAAA\n"s,
     {Err("ERR Protocol error: too big inline request")},
     true,
     SmallLimits()},
    {"NulHidesCountTerminator",
     "*\0AAAA\nAAAA\r\nAAAA\r\nAAAA\n"s,
     {Err("ERR Protocol error: too big mbulk count string")},
     true,
     SmallLimits()},
    {"NulHidesDollarInlineTerminator",
     "$\0AAAA\nAAAA\nAAAA\nAAAA\n"s,
     {Err("ERR Protocol error: too big inline request")},
     true,
     SmallLimits()},
    {"NulHidesBulkCountTerminator",
     "*1\r\n$\0AAAA\r\nAAAA\r\nAAAA\r\n"s,
     {Err("ERR Protocol error: too big bulk count string")},
     true,
     SmallLimits()},
};

class RequestParserSplitTest : public ::testing::TestWithParam<ParserCase> {};

// The same requests come out whether the input arrives whole, split in two at any byte, or one
// byte at a time.
TEST_P(RequestParserSplitTest, SameEventsHoweverSplit) {
  const ParserCase& c = GetParam();

  EXPECT_EQ(FeedWhole(c.input, c.authenticated, c.limits), c.expected) << "whole";
  for (std::size_t split = 0; split <= c.input.size(); ++split) {
    const std::size_t cuts[] = {split};
    EXPECT_EQ(Feed(c.input, cuts, c.authenticated, c.limits), c.expected) << "split at " << split;
  }
  std::vector<std::size_t> every_byte;
  for (std::size_t i = 1; i < c.input.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(Feed(c.input, every_byte, c.authenticated, c.limits), c.expected) << "byte by byte";
}

INSTANTIATE_TEST_SUITE_P(Inputs, RequestParserSplitTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ParserCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(RequestParserTest, InlineLimitIsSixtyFourKibibytes) {
  const std::string at_limit(64 * 1024, 'a');
  RequestParser parser;

  EXPECT_EQ(parser.Parse(at_limit, true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.Parse(at_limit + "a", true), ParseStatus::kError);
  EXPECT_EQ(parser.error(), "ERR Protocol error: too big inline request");
}

TEST(RequestParserTest, NulBeforeNewlineHitsDefaultInlineLimit) {
  std::string input("\0"s);
  while (input.size() <= 64 * 1024) input += "AAAAAAAAAAAAAAA\n";
  RequestParser parser;

  EXPECT_EQ(parser.Parse(input, true), ParseStatus::kError);
  EXPECT_EQ(parser.error(), "ERR Protocol error: too big inline request");
}

TEST(RequestParserTest, MbulkCountLimitIsSixtyFourKibibytes) {
  const std::string at_limit = "*" + std::string(64 * 1024 - 1, '1');
  RequestParser parser;

  EXPECT_EQ(parser.Parse(at_limit, true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.Parse(at_limit + "1", true), ParseStatus::kError);
  EXPECT_EQ(parser.error(), "ERR Protocol error: too big mbulk count string");
}

TEST(RequestParserTest, BulkCountLimitIsSixtyFourKibibytes) {
  const std::string at_limit = "*1\r\n$" + std::string(64 * 1024 - 1, '1');
  RequestParser parser;

  EXPECT_EQ(parser.Parse(at_limit, true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.Parse(at_limit + "1", true), ParseStatus::kError);
  EXPECT_EQ(parser.error(), "ERR Protocol error: too big bulk count string");
}

TEST(RequestParserTest, LargestBulkLengthIsAccepted) {
  RequestParser parser;

  EXPECT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n$536870912\r\n", true), ParseStatus::kNeedMore);
}

TEST(RequestParserTest, HugeDeclaredBulkReportsBytesWantedWithoutData) {
  RequestParser parser;
  const std::string header = "*2\r\n$4\r\nECHO\r\n$536870912\r\n";

  EXPECT_EQ(parser.Parse(header, true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.bytes_wanted(), 536870912u + 2);
  EXPECT_TRUE(parser.in_progress());
}

TEST(RequestParserTest, BytesWantedShrinksAsDataArrives) {
  RequestParser parser;

  EXPECT_EQ(parser.Parse("*1\r\n$10\r\nabc", true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.bytes_wanted(), 9u);
  EXPECT_EQ(parser.Parse("*1\r\n$10\r\nabcdefghij\r", true), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.bytes_wanted(), 1u);
  EXPECT_EQ(parser.Parse("*1\r\n$10\r\nabcdefghij\r\n", true), ParseStatus::kRequest);
  EXPECT_EQ(parser.bytes_wanted(), 0u);
}

TEST(RequestParserTest, HugeDeclaredCountWaitsForArguments) {
  RequestParser parser;

  EXPECT_EQ(parser.Parse("*2147483647\r\n$4\r\nPING\r\n", true), ParseStatus::kNeedMore);
  EXPECT_TRUE(parser.in_progress());
}

TEST(RequestParserTest, ConsumedCoversOnlyFirstRequest) {
  RequestParser parser;
  const std::string input = "*1\r\n$4\r\nPING\r\nECHO x\r\n";

  ASSERT_EQ(parser.Parse(input, true), ParseStatus::kRequest);
  EXPECT_EQ(parser.consumed(), 14u);
}

TEST(RequestParserTest, MultibulkArgsPointIntoCallerBuffer) {
  RequestParser parser;
  const std::string input = "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n";

  ASSERT_EQ(parser.Parse(input, true), ParseStatus::kRequest);
  ASSERT_EQ(parser.args().size(), 2u);
  EXPECT_EQ(parser.args()[1].data(), input.data() + 18);
}

TEST(RequestParserTest, ResetForgetsPartialRequest) {
  RequestParser parser;
  ASSERT_EQ(parser.Parse("*2\r\n$4\r\nECHO\r\n", true), ParseStatus::kNeedMore);

  parser.Reset();

  EXPECT_FALSE(parser.in_progress());
  EXPECT_EQ(parser.Parse("PING\r\n", true), ParseStatus::kRequest);
  ASSERT_EQ(parser.args().size(), 1u);
  EXPECT_EQ(parser.args()[0], "PING");
}

TEST(RequestParserTest, CustomBulkLimitApplies) {
  RequestParser parser(ParserLimits{.max_bulk_len = 4});

  EXPECT_EQ(parser.Parse("*1\r\n$5\r\n", true), ParseStatus::kError);
  EXPECT_EQ(parser.error(), "ERR Protocol error: invalid bulk length");
}

TEST(RequestParserTest, UnauthenticatedLimitsAtTheirBoundary) {
  RequestParser parser;

  EXPECT_EQ(parser.Parse("*1\r\n$16384\r\n", false), ParseStatus::kNeedMore);
  EXPECT_EQ(parser.bytes_wanted(), 16386u);
}

TEST(SplitInlineArgsTest, AppendsUnescapedBytesAndSpans) {
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;

  ASSERT_TRUE(SplitInlineArgs("set \"a b\" '' x", storage, spans));

  EXPECT_EQ(storage, "seta bx");
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {
      {0, 3}, {3, 3}, {6, 0}, {6, 1}};
  EXPECT_EQ(spans, expected);
}

// One request of many arguments must not pin its argument arrays: between requests they go
// back to a small size, and a request in progress keeps what it has read.
TEST(RequestParserTest, ShrinkIfIdleGivesBackTheArraysOfAHugeRequest) {
  std::string request = "*20001\r\n$4\r\nSADD\r\n";
  for (int i = 0; i < 20000; ++i) request += "$1\r\nx\r\n";
  RequestParser parser;
  ASSERT_EQ(parser.Parse(request, true), ParseStatus::kRequest);
  EXPECT_EQ(parser.args().size(), 20001u);
  EXPECT_GT(parser.memory_bytes(), 20000u * 16);

  parser.ShrinkIfIdle(1024);  // the request is still the parser's: nothing goes
  EXPECT_EQ(parser.args().size(), 20001u);
  parser.Reset();
  parser.ShrinkIfIdle(1024);

  EXPECT_LT(parser.memory_bytes(), 1024u * 16);
  ASSERT_EQ(parser.Parse("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", true), ParseStatus::kRequest);
  EXPECT_EQ(parser.args()[1], "k");
}

TEST(SplitInlineArgsTest, UnbalancedQuotesFail) {
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;

  EXPECT_FALSE(SplitInlineArgs("echo \"abc", storage, spans));
}

struct IntCase {
  const char* text;
  bool ok;
  std::int64_t value;
};

// string2ll: optional '-', no '+', no leading zeros, no blanks, at most 20 chars, no "-0".
const IntCase kIntCases[] = {
    {"0", true, 0},
    {"1", true, 1},
    {"-1", true, -1},
    {"10", true, 10},
    {"30000", true, 30000},
    {"9223372036854775807", true, INT64_MAX},
    {"-9223372036854775808", true, INT64_MIN},
    {"9223372036854775808", false, 0},
    {"-9223372036854775809", false, 0},
    {"18446744073709551616", false, 0},
    {"99999999999999999999", false, 0},
    {"100000000000000000000", false, 0},
    {"-00000000000000000001", false, 0},
    {"", false, 0},
    {"-", false, 0},
    {"+5", false, 0},
    {"010", false, 0},
    {"00", false, 0},
    {"-0", false, 0},
    {"-01", false, 0},
    {" 10", false, 0},
    {"10 ", false, 0},
    {"1.5", false, 0},
    {"1e3", false, 0},
    {"abc", false, 0},
    {"12a", false, 0},
    {"0x10", false, 0},
};

class ParseStrictInt64Test : public ::testing::TestWithParam<IntCase> {};

TEST_P(ParseStrictInt64Test, MatchesString2ll) {
  const IntCase& c = GetParam();
  std::int64_t out = 12345;

  const bool ok = ParseStrictInt64(c.text, out);

  EXPECT_EQ(ok, c.ok);
  if (c.ok) {
    EXPECT_EQ(out, c.value);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ParseStrictInt64Test, ::testing::ValuesIn(kIntCases));

TEST(ParseStrictInt64Test, EmbeddedNulIsRejected) {
  std::int64_t out = 0;

  EXPECT_FALSE(ParseStrictInt64("1\0"s, out));
}

}  // namespace
}  // namespace warden::protocol
