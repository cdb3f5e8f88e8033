// The packed encoding of small collections: varint-length-prefixed elements written by
// AppendPacked and read back by PackedReader and PackedCount.
#include "storage/packed.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace warden::storage {
namespace {

using namespace std::string_literals;

std::string Pack(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& e : elements) AppendPacked(out, e);
  return out;
}

std::vector<std::string> Unpack(std::string_view bytes) {
  std::vector<std::string> out;
  for (PackedReader r(bytes); !r.done();) out.emplace_back(r.Next());
  return out;
}

// Elements of each length class: empty, one byte of length, and the multi-byte varint
// lengths that start at 128 and 16384.
class PackedRoundTripTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(PackedRoundTripTest, ElementOfThisLengthReadsBackUnchanged) {
  const std::string element(GetParam(), 'x');
  const std::vector<std::string> elements = {"before", element, "after"};

  EXPECT_EQ(Unpack(Pack(elements)), elements);
}

INSTANTIATE_TEST_SUITE_P(Lengths, PackedRoundTripTest,
                         ::testing::Values(0, 1, 127, 128, 129, 300, 16383, 16384, 70000));

TEST(PackedTest, EmptyElementTakesOneByte) {
  std::string out;

  AppendPacked(out, "");

  EXPECT_EQ(out, "\0"s);
}

TEST(PackedTest, LengthBelow128IsOneByte) {
  std::string out;

  AppendPacked(out, std::string(127, 'a'));

  EXPECT_EQ(out.size(), 1u + 127u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 127u);
}

TEST(PackedTest, LengthOf128IsTwoVarintBytes) {
  std::string out;

  AppendPacked(out, std::string(128, 'a'));

  EXPECT_EQ(out.size(), 2u + 128u);
  EXPECT_EQ(static_cast<unsigned char>(out[0]), 0x80u);
  EXPECT_EQ(static_cast<unsigned char>(out[1]), 0x01u);
}

TEST(PackedTest, ElementsAreBinarySafe) {
  const std::vector<std::string> elements = {"a\0b"s, "\r\n"s, "\x80\xff"s};

  EXPECT_EQ(Unpack(Pack(elements)), elements);
}

TEST(PackedTest, ReaderOfEmptyBytesIsDone) {
  const PackedReader r("");

  EXPECT_TRUE(r.done());
}

TEST(PackedTest, ReaderOffsetPointsPastTheElementRead) {
  const std::string bytes = Pack({"abc", "de"});
  PackedReader r(bytes);

  r.Next();

  EXPECT_EQ(r.offset(bytes.data()), 4u);
}

TEST(PackedTest, CountOfNothingIsZero) { EXPECT_EQ(PackedCount(""), 0u); }

TEST(PackedTest, CountIncludesEmptyElements) {
  EXPECT_EQ(PackedCount(Pack({"", "", "x", ""})), 4u);
}

TEST(PackedTest, CountIncludesLongElements) {
  EXPECT_EQ(PackedCount(Pack({std::string(200, 'a'), "b", std::string(20000, 'c')})), 3u);
}

}  // namespace
}  // namespace warden::storage
