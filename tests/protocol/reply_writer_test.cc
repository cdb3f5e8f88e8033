// ReplyWriter's exact bytes in RESP2 and RESP3, and ReplyReader reading them back.
#include "protocol/reply_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "protocol/reply_reader.h"

namespace warden::protocol {
namespace {

using namespace std::string_literals;

struct WriterCase {
  const char* name;
  std::function<void(ReplyWriter&)> write;
  std::string resp2;
  std::string resp3;
};

const WriterCase kWriterCases[] = {
    {"Ok", [](ReplyWriter& w) { w.Ok(); }, "+OK\r\n", "+OK\r\n"},
    {"Status", [](ReplyWriter& w) { w.Status("PONG"); }, "+PONG\r\n", "+PONG\r\n"},
    {"EmptyStatus", [](ReplyWriter& w) { w.Status(""); }, "+\r\n", "+\r\n"},
    {"Error", [](ReplyWriter& w) { w.Error("ERR syntax error"); }, "-ERR syntax error\r\n",
     "-ERR syntax error\r\n"},
    {"ErrorCrLfBecomeSpaces", [](ReplyWriter& w) { w.Error("ERR a\r\nb\nc\rd"); },
     "-ERR a  b c d\r\n", "-ERR a  b c d\r\n"},
    {"ErrorFromParts",
     [](ReplyWriter& w) {
       w.Error({"ERR unknown command '", "foo\r\nb", "'"});
     },
     "-ERR unknown command 'foo  b'\r\n", "-ERR unknown command 'foo  b'\r\n"},
    {"ErrorBuiltWithRaw",
     [](ReplyWriter& w) {
       const std::size_t mark = w.BeginError();
       w.Raw("ERR x\ny");
       w.EndError(mark);
     },
     "-ERR x y\r\n", "-ERR x y\r\n"},
    {"IntegerZero", [](ReplyWriter& w) { w.Integer(0); }, ":0\r\n", ":0\r\n"},
    {"IntegerOne", [](ReplyWriter& w) { w.Integer(1); }, ":1\r\n", ":1\r\n"},
    {"IntegerNegative", [](ReplyWriter& w) { w.Integer(-2); }, ":-2\r\n", ":-2\r\n"},
    {"IntegerLarge", [](ReplyWriter& w) { w.Integer(30000); }, ":30000\r\n", ":30000\r\n"},
    {"IntegerMax", [](ReplyWriter& w) { w.Integer(INT64_MAX); }, ":9223372036854775807\r\n",
     ":9223372036854775807\r\n"},
    {"IntegerMin", [](ReplyWriter& w) { w.Integer(INT64_MIN); }, ":-9223372036854775808\r\n",
     ":-9223372036854775808\r\n"},
    {"Bulk", [](ReplyWriter& w) { w.Bulk("foo"); }, "$3\r\nfoo\r\n", "$3\r\nfoo\r\n"},
    {"EmptyBulk", [](ReplyWriter& w) { w.Bulk(""); }, "$0\r\n\r\n", "$0\r\n\r\n"},
    {"BinaryBulk", [](ReplyWriter& w) { w.Bulk("a\0\r\nb"s); }, "$5\r\na\0\r\nb\r\n"s,
     "$5\r\na\0\r\nb\r\n"s},
    {"BulkInteger", [](ReplyWriter& w) { w.BulkInteger(-123); }, "$4\r\n-123\r\n",
     "$4\r\n-123\r\n"},
    {"BulkIntegerMin", [](ReplyWriter& w) { w.BulkInteger(INT64_MIN); },
     "$20\r\n-9223372036854775808\r\n", "$20\r\n-9223372036854775808\r\n"},
    {"Null", [](ReplyWriter& w) { w.Null(); }, "$-1\r\n", "_\r\n"},
    {"NullArray", [](ReplyWriter& w) { w.NullArray(); }, "*-1\r\n", "_\r\n"},
    {"ArrayHeader", [](ReplyWriter& w) { w.ArrayHeader(3); }, "*3\r\n", "*3\r\n"},
    {"EmptyArray", [](ReplyWriter& w) { w.ArrayHeader(0); }, "*0\r\n", "*0\r\n"},
    {"MapHeader", [](ReplyWriter& w) { w.MapHeader(7); }, "*14\r\n", "%7\r\n"},
    {"EmptyMap", [](ReplyWriter& w) { w.MapHeader(0); }, "*0\r\n", "%0\r\n"},
    {"SetHeader", [](ReplyWriter& w) { w.SetHeader(2); }, "*2\r\n", "~2\r\n"},
    {"BooleanTrue", [](ReplyWriter& w) { w.Boolean(true); }, ":1\r\n", "#t\r\n"},
    {"BooleanFalse", [](ReplyWriter& w) { w.Boolean(false); }, ":0\r\n", "#f\r\n"},
    {"Double", [](ReplyWriter& w) { w.Double(1.5); }, "$3\r\n1.5\r\n", ",1.5\r\n"},
    {"DoubleSeventeenDigits", [](ReplyWriter& w) { w.Double(0.1); },
     "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
    {"DoubleExponent", [](ReplyWriter& w) { w.Double(1e20); }, "$5\r\n1e+20\r\n", ",1e+20\r\n"},
    {"DoubleInteger", [](ReplyWriter& w) { w.Double(12); }, "$2\r\n12\r\n", ",12\r\n"},
    {"DoubleInf", [](ReplyWriter& w) { w.Double(std::numeric_limits<double>::infinity()); },
     "$3\r\ninf\r\n", ",inf\r\n"},
    {"DoubleMinusInf", [](ReplyWriter& w) { w.Double(-std::numeric_limits<double>::infinity()); },
     "$4\r\n-inf\r\n", ",-inf\r\n"},
    {"DoubleNan", [](ReplyWriter& w) { w.Double(std::nan("")); }, "$3\r\nnan\r\n", ",nan\r\n"},
    {"Verbatim", [](ReplyWriter& w) { w.Verbatim("# Keyspace\r\n"); }, "$12\r\n# Keyspace\r\n\r\n",
     "=16\r\ntxt:# Keyspace\r\n\r\n"},
    {"EmptyVerbatim", [](ReplyWriter& w) { w.Verbatim(""); }, "$0\r\n\r\n", "=4\r\ntxt:\r\n"},
    {"BigNumber", [](ReplyWriter& w) { w.BigNumber("12345678901234567890"); },
     "$20\r\n12345678901234567890\r\n", "(12345678901234567890\r\n"},
    {"Raw", [](ReplyWriter& w) { w.Raw("+PONG\r\n"); }, "+PONG\r\n", "+PONG\r\n"},
};

class ReplyWriterTest : public ::testing::TestWithParam<WriterCase> {};

TEST_P(ReplyWriterTest, WritesExactBytesInBothProtocols) {
  std::string resp2 = "prefix";
  std::string resp3;
  ReplyWriter writer2(&resp2, 2);
  ReplyWriter writer3(&resp3, 3);

  GetParam().write(writer2);
  GetParam().write(writer3);

  EXPECT_EQ(resp2, "prefix" + GetParam().resp2);
  EXPECT_EQ(resp3, GetParam().resp3);
}

INSTANTIATE_TEST_SUITE_P(Methods, ReplyWriterTest, ::testing::ValuesIn(kWriterCases),
                         [](const ::testing::TestParamInfo<WriterCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(ReplyWriterTest, DefaultsToResp2) {
  std::string out;
  ReplyWriter writer(&out);

  writer.Null();

  EXPECT_EQ(writer.protocol(), 2);
  EXPECT_EQ(out, "$-1\r\n");
}

TEST(ReplyWriterTest, SetProtocolSwitchesEncoding) {
  std::string out;
  ReplyWriter writer(&out, 2);

  writer.Null();
  writer.set_protocol(3);
  writer.Null();

  EXPECT_EQ(out, "$-1\r\n_\r\n");
}

TEST(ReplyWriterTest, SetBufferRedirectsOutput) {
  std::string first;
  std::string second;
  ReplyWriter writer(&first);

  writer.Ok();
  writer.set_buffer(&second);
  writer.Integer(1);

  EXPECT_EQ(first, "+OK\r\n");
  EXPECT_EQ(second, ":1\r\n");
  EXPECT_EQ(writer.buffer(), &second);
}

TEST(ReplyWriterTest, ErrorRewritesOnlyItsOwnBytes) {
  std::string out = "$2\r\n\r\n\r\n";
  ReplyWriter writer(&out);

  writer.Error("ERR x\r\ny");

  EXPECT_EQ(out, "$2\r\n\r\n\r\n-ERR x  y\r\n");
}

TEST(FormatDoubleTest, MatchesPercent17g) {
  char buf[40];

  const std::size_t n = FormatDouble(3.5, buf);

  EXPECT_EQ(std::string(buf, n), "3.5");
}

// Integral values take a shortcut; it must print what %.17g prints, at the 2^53 boundary, for
// -0 and for large powers of ten too, and so must everything else.
TEST(FormatDoubleTest, EqualsPercent17gAcrossIntegersAndRandomBits) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                1764590400000.0,
                                -1764590400000.0,
                                9007199254740991.0,
                                9007199254740992.0,
                                9007199254740993.0,
                                -9007199254740992.0,
                                1e15,
                                1e16,
                                1e17,
                                123456789012345678.0,
                                0.5,
                                -2.5,
                                1e-300,
                                1.7976931348623157e308};
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double bits;
    std::memcpy(&bits, &x, sizeof(bits));
    if (std::isfinite(bits)) values.push_back(bits);
    // Integers of every magnitude, and their negatives.
    const double integer = static_cast<double>(static_cast<std::int64_t>(x >> (x % 64)));
    values.push_back(integer);
    values.push_back(-integer);
  }
  for (const double v : values) {
    char buf[40];
    char expected[64];
    const std::size_t n = FormatDouble(v, buf);
    std::snprintf(expected, sizeof(expected), "%.17g", v);
    ASSERT_EQ(std::string(buf, n), std::string(expected)) << v;
  }
}

// ReplyReader reads what ReplyWriter writes.

// Reads one reply that must span all of `bytes`; its views point into `bytes`.
Reply ReadAll(const std::string& bytes) {
  Reply reply;
  const std::optional<std::size_t> n = ReadReply(bytes, reply);
  EXPECT_TRUE(n.has_value());
  EXPECT_EQ(n.value_or(0), bytes.size());
  return reply;
}

TEST(ReplyReaderTest, ReadsScalars) {
  std::string out;
  ReplyWriter writer(&out);
  writer.ArrayHeader(5);
  writer.Status("OK");
  writer.Error("ERR boom");
  writer.Integer(-42);
  writer.Bulk("a\r\nb");
  writer.Null();

  const Reply reply = ReadAll(out);

  ASSERT_EQ(reply.type, ReplyType::kArray);
  ASSERT_EQ(reply.elements.size(), 5u);
  EXPECT_EQ(reply.elements[0].type, ReplyType::kStatus);
  EXPECT_EQ(reply.elements[0].text, "OK");
  EXPECT_EQ(reply.elements[1].type, ReplyType::kError);
  EXPECT_EQ(reply.elements[1].text, "ERR boom");
  EXPECT_EQ(reply.elements[2].type, ReplyType::kInteger);
  EXPECT_EQ(reply.elements[2].integer, -42);
  EXPECT_EQ(reply.elements[3].type, ReplyType::kBulk);
  EXPECT_EQ(reply.elements[3].text, "a\r\nb");
  EXPECT_EQ(reply.elements[4].type, ReplyType::kNull);
}

TEST(ReplyReaderTest, ReadsNestedArrays) {
  std::string out;
  ReplyWriter writer(&out);
  writer.ArrayHeader(2);
  writer.BulkInteger(0);
  writer.ArrayHeader(2);
  writer.Bulk("k1");
  writer.Bulk("k2");

  const Reply reply = ReadAll(out);

  ASSERT_EQ(reply.elements.size(), 2u);
  EXPECT_EQ(reply.elements[0].text, "0");
  ASSERT_EQ(reply.elements[1].type, ReplyType::kArray);
  ASSERT_EQ(reply.elements[1].elements.size(), 2u);
  EXPECT_EQ(reply.elements[1].elements[1].text, "k2");
}

TEST(ReplyReaderTest, ReadsResp3Types) {
  std::string out;
  ReplyWriter writer(&out, 3);
  writer.ArrayHeader(7);
  writer.MapHeader(1);
  writer.Bulk("proto");
  writer.Integer(3);
  writer.SetHeader(1);
  writer.Status("fast");
  writer.Boolean(true);
  writer.Double(1.5);
  writer.Verbatim("line\n");
  writer.BigNumber("123");
  writer.Null();

  const Reply reply = ReadAll(out);

  ASSERT_EQ(reply.elements.size(), 7u);
  const Reply& map = reply.elements[0];
  EXPECT_EQ(map.type, ReplyType::kMap);
  ASSERT_EQ(map.elements.size(), 2u);
  EXPECT_EQ(map.elements[0].text, "proto");
  EXPECT_EQ(map.elements[1].integer, 3);
  EXPECT_EQ(reply.elements[1].type, ReplyType::kSet);
  ASSERT_EQ(reply.elements[1].elements.size(), 1u);
  EXPECT_EQ(reply.elements[1].elements[0].text, "fast");
  EXPECT_EQ(reply.elements[2].type, ReplyType::kBoolean);
  EXPECT_TRUE(reply.elements[2].boolean);
  EXPECT_EQ(reply.elements[3].type, ReplyType::kDouble);
  EXPECT_EQ(reply.elements[3].number, 1.5);
  EXPECT_EQ(reply.elements[4].type, ReplyType::kVerbatim);
  EXPECT_EQ(reply.elements[4].format, "txt");
  EXPECT_EQ(reply.elements[4].text, "line\n");
  EXPECT_EQ(reply.elements[5].type, ReplyType::kBigNumber);
  EXPECT_EQ(reply.elements[5].text, "123");
  EXPECT_EQ(reply.elements[6].type, ReplyType::kNull);
}

TEST(ReplyReaderTest, ReadsNullArrayAsNull) {
  std::string out;
  ReplyWriter writer(&out, 2);
  writer.NullArray();

  EXPECT_EQ(ReadAll(out).type, ReplyType::kNull);
}

TEST(ReplyReaderTest, ReadsPush) {
  const std::string bytes = ">2\r\n$7\r\nmessage\r\n:1\r\n";

  const Reply reply = ReadAll(bytes);

  EXPECT_EQ(reply.type, ReplyType::kPush);
  ASSERT_EQ(reply.elements.size(), 2u);
  EXPECT_EQ(reply.elements[0].text, "message");
}

TEST(ReplyReaderTest, ReadsFalseBoolean) {
  const std::string bytes = "#f\r\n";

  EXPECT_FALSE(ReadAll(bytes).boolean);
}

TEST(ReplyReaderTest, StopsAfterFirstReply) {
  Reply reply;

  EXPECT_EQ(ReadReply(":1\r\n:2\r\n", reply), std::optional<std::size_t>(4));
  EXPECT_EQ(reply.integer, 1);
}

TEST(ReplyReaderTest, IncompleteInputReadsZero) {
  const std::string full = "*2\r\n$3\r\nfoo\r\n:1\r\n";
  for (std::size_t n = 0; n < full.size(); ++n) {
    Reply reply;
    EXPECT_EQ(ReadReply(full.substr(0, n), reply), std::optional<std::size_t>(0)) << n;
  }
}

TEST(ReplyReaderTest, MalformedInputIsNullopt) {
  Reply reply;

  EXPECT_EQ(ReadReply("!oops\r\n", reply), std::nullopt);
  EXPECT_EQ(ReadReply(":12a\r\n", reply), std::nullopt);
  EXPECT_EQ(ReadReply("$abc\r\n", reply), std::nullopt);
  EXPECT_EQ(ReadReply("*x\r\n", reply), std::nullopt);
  EXPECT_EQ(ReadReply("=2\r\nab\r\n", reply), std::nullopt);
}

}  // namespace
}  // namespace warden::protocol
