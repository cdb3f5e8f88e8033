// The replication backlog: what a partial resync can still be served from, as offsets of the
// stream (Redis's repl_backlog: first byte offset, histlen, the newest bytes kept).
#include "server/replication/backlog.h"

#include <gtest/gtest.h>

#include <string>

namespace warden::server {
namespace {

std::string From(const ReplBacklog& b, std::int64_t offset) {
  std::string out;
  b.CopyFrom(offset, out);
  return out;
}

TEST(ReplBacklogTest, KeepsTheStreamFromItsFirstOffset) {
  ReplBacklog b;
  EXPECT_FALSE(b.active());
  EXPECT_FALSE(b.Covers(1));
  b.Create(16, 101);  // the stream's next byte is its 101st
  EXPECT_TRUE(b.active());
  EXPECT_TRUE(b.Covers(101));  // nothing missed yet: an empty continuation
  EXPECT_FALSE(b.Covers(100));
  EXPECT_FALSE(b.Covers(102));
  b.Append("hello");
  EXPECT_EQ(b.histlen(), 5u);
  EXPECT_EQ(b.first_byte_offset(), 101);
  EXPECT_EQ(From(b, 101), "hello");
  EXPECT_EQ(From(b, 104), "lo");
  EXPECT_EQ(From(b, 106), "");
  EXPECT_TRUE(b.Covers(106));
  EXPECT_FALSE(b.Covers(107));
}

TEST(ReplBacklogTest, WrapsAroundKeepingTheNewestBytes) {
  ReplBacklog b;
  b.Create(8, 1);
  b.Append("abcdef");
  b.Append("ghij");  // 10 bytes into 8: "ab" is gone
  EXPECT_EQ(b.histlen(), 8u);
  EXPECT_EQ(b.first_byte_offset(), 3);
  EXPECT_FALSE(b.Covers(2));
  EXPECT_EQ(From(b, 3), "cdefghij");
  EXPECT_EQ(From(b, 9), "ij");
  b.Append("k");
  EXPECT_EQ(From(b, 4), "defghijk");
}

TEST(ReplBacklogTest, AnAppendLargerThanItKeepsItsTail) {
  ReplBacklog b;
  b.Create(4, 1);
  b.Append("ab");
  b.Append("0123456789");
  EXPECT_EQ(b.histlen(), 4u);
  EXPECT_EQ(b.first_byte_offset(), 9);
  EXPECT_EQ(From(b, 9), "6789");
  b.Append("x");
  EXPECT_EQ(From(b, 10), "789x");
}

TEST(ReplBacklogTest, ResizingKeepsTheNewestBytesAndTheirOffsets) {
  ReplBacklog b;
  b.Create(8, 1);
  b.Append("abcdefghij");  // keeps "cdefghij" from offset 3
  b.Resize(4);
  EXPECT_EQ(b.first_byte_offset(), 7);
  EXPECT_EQ(From(b, 7), "ghij");
  b.Resize(16);
  EXPECT_EQ(From(b, 7), "ghij");
  b.Append("klmnopqrstuv");
  EXPECT_EQ(b.histlen(), 16u);
  EXPECT_EQ(From(b, 7), "ghijklmnopqrstuv");
  b.Free();
  EXPECT_FALSE(b.active());
  EXPECT_EQ(b.histlen(), 0u);
}

}  // namespace
}  // namespace warden::server
