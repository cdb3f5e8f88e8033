// The bitmap commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP) and BITFIELD/BITFIELD_RO through
// the dispatcher, checked against redis-server 7.0.15: replies and error order, the string they
// share with GET, Redis's quirks, what a write propagates and when it touches a WATCHed key,
// BITCOUNT/BITPOS/BITOP against bit-by-bit references, and no allocation on the hot commands.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "server/persistence/aof.h"
#include "server/stats/memory_meter.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr std::string_view kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr std::string_view kBadOffset = "-ERR bit offset is not an integer or out of range\r\n";
constexpr std::string_view kBadBit = "-ERR bit is not an integer or out of range\r\n";
constexpr std::string_view kNotInteger = "-ERR value is not an integer or out of range\r\n";
constexpr std::string_view kSyntax = "-ERR syntax error\r\n";
constexpr std::string_view kBadType =
    "-ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.\r\n";

std::string Int(std::int64_t v) { return ":" + std::to_string(v) + "\r\n"; }

bool BitAt(std::string_view s, std::int64_t bit) {
  return ((static_cast<unsigned char>(s[static_cast<std::size_t>(bit >> 3)]) >> (7 - (bit & 7))) &
          1) != 0;
}

// Redis's BITCOUNT/BITPOS range rules, bit by bit: [first, last] in bits after clipping.
struct BitRange {
  std::int64_t first;
  std::int64_t last;
};
BitRange Clip(std::int64_t start, std::int64_t end, std::int64_t len, bool in_bits) {
  const std::int64_t total = in_bits ? len * 8 : len;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (in_bits) return {start, end};
  return {start * 8, end * 8 + 7};
}

std::int64_t NaiveCount(std::string_view s, BitRange r) {
  std::int64_t n = 0;
  for (std::int64_t b = r.first; b <= r.last; ++b) n += BitAt(s, b);
  return n;
}

std::int64_t NaivePos(std::string_view s, BitRange r, bool bit, bool end_given) {
  if (r.first > r.last) return -1;
  for (std::int64_t b = r.first; b <= r.last; ++b) {
    if (BitAt(s, b) == bit) return b;
  }
  if (bit || end_given) return -1;
  return static_cast<std::int64_t>(s.size()) * 8;  // the zero padding past the string
}

std::string RandomBytes(std::mt19937_64& rng, std::size_t n, int density_percent) {
  std::string s(n, '\0');
  for (char& c : s) {
    unsigned byte = 0;
    for (int b = 0; b < 8; ++b) {
      byte = (byte << 1) | (static_cast<int>(rng() % 100) < density_percent ? 1u : 0u);
    }
    c = static_cast<char>(byte);
  }
  return s;
}

class BitmapCommandsTest : public CommandTest {};

// SETBIT and GETBIT

TEST_F(BitmapCommandsTest, SetbitRepliesTheOldBitAndPadsWithZeros) {
  EXPECT_EQ(Run({"SETBIT", "b", "7", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"SETBIT", "b", "7", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"SETBIT", "b", "0", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"SETBIT", "b", "20", "0"}), ":0\r\n");

  EXPECT_EQ(Run({"GET", "b"}), BulkReply(std::string("\x81\x00\x00", 3)));
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "b"}), "$3\r\nraw\r\n");
}

TEST_F(BitmapCommandsTest, SetbitChecksOffsetThenBitThenType) {
  Run({"HSET", "h", "f", "v"});

  EXPECT_EQ(Run({"SETBIT", "h", "-1", "2"}), kBadOffset);
  EXPECT_EQ(Run({"SETBIT", "h", "0", "2"}), kBadBit);
  EXPECT_EQ(Run({"SETBIT", "h", "0", "1"}), kWrongType);
  EXPECT_EQ(Run({"SETBIT", "b", "01", "1"}), kBadOffset);
  EXPECT_EQ(Run({"SETBIT", "b", "0", "-1"}), kBadBit);
  EXPECT_EQ(Run({"SETBIT", "b", "0", "x"}), kBadBit);
  EXPECT_EQ(Run({"EXISTS", "b"}), ":0\r\n");
}

TEST_F(BitmapCommandsTest, OffsetIsBoundedByProtoMaxBulkLen) {
  EXPECT_EQ(Run({"SETBIT", "b", "4294967296", "1"}), kBadOffset);  // byte 512 MB
  EXPECT_EQ(Run({"GETBIT", "b", "4294967296"}), kBadOffset);
  ASSERT_EQ(Run({"CONFIG", "SET", "proto-max-bulk-len", "1mb"}), "+OK\r\n");

  EXPECT_EQ(Run({"SETBIT", "b", "8388608", "1"}), kBadOffset);
  EXPECT_EQ(Run({"SETBIT", "b", "8388607", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"STRLEN", "b"}), ":1048576\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "b"}), ":1\r\n");
  EXPECT_EQ(Run({"BITPOS", "b", "1"}), ":8388607\r\n");
}

TEST_F(BitmapCommandsTest, GetbitReadsZeroPastTheEndAndOnMissingKeys) {
  Run({"SET", "s", "1"});  // 0x31

  EXPECT_EQ(Run({"GETBIT", "s", "2"}), ":1\r\n");
  EXPECT_EQ(Run({"GETBIT", "s", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"GETBIT", "s", "8"}), ":0\r\n");
  EXPECT_EQ(Run({"GETBIT", "nokey", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"GETBIT", "nokey", "-1"}), kBadOffset);
  Run({"HSET", "h", "f", "v"});
  EXPECT_EQ(Run({"GETBIT", "h", "0"}), kWrongType);
}

TEST_F(BitmapCommandsTest, BitsAreTheStringsBytes) {
  Run({"SET", "s", "@"});  // 0x40
  EXPECT_EQ(Run({"SETBIT", "s", "7", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "s"}), "$1\r\nA\r\n");
  EXPECT_EQ(Run({"APPEND", "s", "\x80"}), ":2\r\n");
  EXPECT_EQ(Run({"GETBIT", "s", "8"}), ":1\r\n");
  EXPECT_EQ(Run({"SETRANGE", "s", "3", "\x01"}), ":4\r\n");
  EXPECT_EQ(Run({"GETBIT", "s", "31"}), ":1\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "s"}), ":4\r\n");
}

// Redis makes the string raw when it looks it up for writing, even if no bit changes.
TEST_F(BitmapCommandsTest, SetbitThatChangesNothingStillMakesTheStringRaw) {
  Run({"SET", "n", "12"});
  ASSERT_EQ(Run({"OBJECT", "ENCODING", "n"}), "$3\r\nint\r\n");

  EXPECT_EQ(Run({"SETBIT", "n", "0", "0"}), ":0\r\n");

  EXPECT_EQ(Run({"OBJECT", "ENCODING", "n"}), "$3\r\nraw\r\n");
  EXPECT_EQ(Run({"GET", "n"}), "$2\r\n12\r\n");
}

TEST_F(BitmapCommandsTest, SetbitKeepsTheDeadline) {
  Run({"SET", "s", "x", "EX", "100"});
  Run({"SETBIT", "s", "100", "1"});
  EXPECT_EQ(Run({"TTL", "s"}), ":100\r\n");
}

// BITCOUNT

TEST_F(BitmapCommandsTest, BitcountByteAndBitRanges) {
  Run({"SET", "foo", "foobar"});

  EXPECT_EQ(Run({"BITCOUNT", "foo"}), ":26\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0", "0"}), ":4\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "1", "1", "byte"}), ":6\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "5", "30", "BIT"}), ":17\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "-2", "-1"}), ":7\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "3", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0", "1000", "BIT"}), ":26\r\n");
}

TEST_F(BitmapCommandsTest, BitcountArgumentOrder) {
  Run({"SET", "foo", "foobar"});

  EXPECT_EQ(Run({"BITCOUNT", "nokey", "a", "b", "c"}), ":0\r\n");  // the key first
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0"}), kSyntax);
  EXPECT_EQ(Run({"BITCOUNT", "foo", "a", "1", "BIT"}), kNotInteger);
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0", "1", "bits"}), kSyntax);
  // Redis answers a reversed negative range before it reads the unit.
  EXPECT_EQ(Run({"BITCOUNT", "foo", "-1", "-2", "nonsense"}), ":0\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0", "1", std::string_view("bit\0x", 5)}), ":1\r\n");
  EXPECT_EQ(Run({"BITCOUNT", "foo", "0", "1", "BIT", "x"}), kSyntax);
}

struct RangeCase {
  std::int64_t start;
  std::int64_t end;
  bool in_bits;
};

TEST_F(BitmapCommandsTest, BitcountAndBitposMatchBitByBitReferences) {
  std::mt19937_64 rng(7);
  for (const std::size_t len : {1u, 7u, 8u, 9u, 31u, 64u, 100u}) {
    for (const int density : {0, 3, 50, 97, 100}) {
      const std::string s = RandomBytes(rng, len, density);
      Run({"SET", "k", s});
      const auto n = static_cast<std::int64_t>(len);
      std::vector<RangeCase> cases = {{0, -1, false}, {0, -1, true}};
      for (int i = 0; i < 12; ++i) {
        const bool in_bits = i % 2 == 1;
        const std::int64_t span = in_bits ? n * 8 : n;
        cases.push_back({static_cast<std::int64_t>(rng() % (2 * span + 2)) - span - 1,
                         static_cast<std::int64_t>(rng() % (2 * span + 2)) - span - 1, in_bits});
      }
      for (const RangeCase& c : cases) {
        const std::string start = std::to_string(c.start);
        const std::string end = std::to_string(c.end);
        const char* unit = c.in_bits ? "BIT" : "BYTE";
        const BitRange r = Clip(c.start, c.end, n, c.in_bits);
        const std::int64_t count =
            c.start < 0 && c.end < 0 && c.start > c.end ? 0 : NaiveCount(s, r);
        EXPECT_EQ(Run({"BITCOUNT", "k", start, end, unit}), Int(count))
            << len << " " << start << " " << end << " " << unit;
        for (const bool bit : {false, true}) {
          const std::string b = bit ? "1" : "0";
          EXPECT_EQ(Run({"BITPOS", "k", b, start, end, unit}), Int(NaivePos(s, r, bit, true)))
              << b << " " << start << " " << end << " " << unit;
          if (!c.in_bits) {
            const BitRange open = Clip(c.start, n - 1, n, false);
            EXPECT_EQ(Run({"BITPOS", "k", b, start}), Int(NaivePos(s, open, bit, false)))
                << b << " " << start;
          }
        }
      }
    }
  }
}

// BITPOS

TEST_F(BitmapCommandsTest, BitposOfMissingKeyIsEndlessZeros) {
  EXPECT_EQ(Run({"BITPOS", "nokey", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"BITPOS", "nokey", "1"}), ":-1\r\n");
  EXPECT_EQ(Run({"BITPOS", "nokey", "1", "x"}), ":-1\r\n");  // the range is never read
  EXPECT_EQ(Run({"BITPOS", "nokey", "2"}), "-ERR The bit argument must be 1 or 0.\r\n");
}

TEST_F(BitmapCommandsTest, BitposZeroPastTheStringOnlyWithoutAnEnd) {
  Run({"SET", "ones", "\xff\xff"});

  EXPECT_EQ(Run({"BITPOS", "ones", "0"}), ":16\r\n");
  EXPECT_EQ(Run({"BITPOS", "ones", "0", "1"}), ":16\r\n");
  EXPECT_EQ(Run({"BITPOS", "ones", "0", "0", "-1"}), ":-1\r\n");
}

TEST_F(BitmapCommandsTest, BitposReadsTheUnitBeforeTheEnd) {
  Run({"SET", "k", "\x0f"});

  EXPECT_EQ(Run({"BITPOS", "k", "1", "0", "x", "foo"}), kSyntax);
  EXPECT_EQ(Run({"BITPOS", "k", "1", "0", "x", "BIT"}), kNotInteger);
  EXPECT_EQ(Run({"BITPOS", "k", "1", "0", "7", "BIT", "x"}), kSyntax);
  EXPECT_EQ(Run({"BITPOS", "k", "1", "2", "7", "bit"}), ":4\r\n");
}

// BITOP

TEST_F(BitmapCommandsTest, BitopPadsShorterSourcesWithZeros) {
  Run({"SET", "a", "\x0f\xf0\xaa"});
  Run({"SET", "c", "\xff\x01"});

  EXPECT_EQ(Run({"BITOP", "AND", "d", "a", "c"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply(std::string("\x0f\x00\x00", 3)));
  EXPECT_EQ(Run({"BITOP", "or", "d", "a", "c", "nokey"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply("\xff\xf1\xaa"));
  EXPECT_EQ(Run({"BITOP", "XOR", "d", "a", "c"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply("\xf0\xf1\xaa"));
  EXPECT_EQ(Run({"BITOP", "NOT", "d", "c"}), ":2\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply(std::string("\x00\xfe", 2)));
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "d"}), "$3\r\nraw\r\n");
}

TEST_F(BitmapCommandsTest, BitopIntoOneOfItsSources) {
  Run({"SET", "a", "\x0f\xf0\xaa"});
  Run({"SET", "d", "\x01"});

  EXPECT_EQ(Run({"BITOP", "OR", "d", "a", "d"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply("\x0f\xf0\xaa"));
  Run({"SET", "d", "\x0f"});
  EXPECT_EQ(Run({"BITOP", "XOR", "d", "d", "a", "d"}), ":3\r\n");  // d ^ d vanishes
  EXPECT_EQ(Run({"GET", "d"}), BulkReply("\x0f\xf0\xaa"));
  Run({"SET", "d", "\x0f"});
  EXPECT_EQ(Run({"BITOP", "XOR", "d", "d", "d", "d", "a"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply(std::string("\x00\xf0\xaa", 3)));
  EXPECT_EQ(Run({"BITOP", "NOT", "d", "d"}), ":3\r\n");
  EXPECT_EQ(Run({"GET", "d"}), BulkReply("\xff\x0f\x55"));
}

TEST_F(BitmapCommandsTest, BitopOfLongStringsMatchesBytewiseReference) {
  std::mt19937_64 rng(11);
  const std::string a = RandomBytes(rng, 20011, 50);
  const std::string b = RandomBytes(rng, 9001, 50);
  const std::string c = RandomBytes(rng, 16384, 90);
  Run({"SET", "a", a});
  Run({"SET", "b", b});
  Run({"SET", "c", c});
  std::string want_and, want_or, want_xor;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto at = [i](const std::string& s) { return i < s.size() ? s[i] : '\0'; };
    want_and += static_cast<char>(at(a) & at(b) & at(c));
    want_or += static_cast<char>(at(a) | at(b) | at(c));
    want_xor += static_cast<char>(at(a) ^ at(b) ^ at(c) ^ at(b));
  }

  EXPECT_EQ(Run({"BITOP", "AND", "r", "b", "a", "c"}), ":20011\r\n");
  EXPECT_EQ(Run({"GET", "r"}), BulkReply(want_and));
  EXPECT_EQ(Run({"BITOP", "OR", "r", "c", "b", "a"}), ":20011\r\n");
  EXPECT_EQ(Run({"GET", "r"}), BulkReply(want_or));
  EXPECT_EQ(Run({"BITOP", "XOR", "b", "b", "a", "c", "b"}), ":20011\r\n");
  EXPECT_EQ(Run({"GET", "b"}), BulkReply(want_xor));
}

TEST_F(BitmapCommandsTest, BitopReplacesTheDestinationAndItsDeadline) {
  Run({"SET", "a", "x"});
  Run({"HSET", "h", "f", "v"});
  Run({"SET", "d", "old", "EX", "100"});

  EXPECT_EQ(Run({"BITOP", "OR", "h", "a"}), ":1\r\n");
  EXPECT_EQ(Run({"BITOP", "OR", "d", "a"}), ":1\r\n");

  EXPECT_EQ(Run({"GET", "h"}), "$1\r\nx\r\n");
  EXPECT_EQ(Run({"TTL", "d"}), ":-1\r\n");
}

TEST_F(BitmapCommandsTest, BitopWithAnEmptyResultDeletesTheDestination) {
  Run({"SADD", "d", "m"});
  Run({"SET", "empty", ""});

  EXPECT_EQ(Run({"BITOP", "AND", "d", "nokey", "empty"}), ":0\r\n");

  EXPECT_EQ(Run({"EXISTS", "d"}), ":0\r\n");
}

TEST_F(BitmapCommandsTest, BitopErrors) {
  Run({"SET", "a", "x"});
  Run({"HSET", "h", "f", "v"});

  EXPECT_EQ(Run({"BITOP", "NAND", "d", "a"}), kSyntax);
  EXPECT_EQ(Run({"BITOP", "NOT", "d", "a", "a"}),
            "-ERR BITOP NOT must be called with a single source key.\r\n");
  EXPECT_EQ(Run({"BITOP", "OR", "d", "a", "h"}), kWrongType);
  EXPECT_EQ(Run({"EXISTS", "d"}), ":0\r\n");
  // Redis compares the operation as a C string.
  EXPECT_EQ(Run({"BITOP", std::string_view("or\0x", 4), "d", "a"}), ":1\r\n");
}

// Propagation and WATCH

TEST_F(BitmapCommandsTest, OnlyWritesThatChangeSomethingArePropagated) {
  Run({"SET", "s", "\x80"});
  StartFeeding();

  Run({"SETBIT", "s", "0", "1"});                                     // no change
  Run({"SETBIT", "s", "1", "1"});                                     // a bit flips
  Run({"SETBIT", "s", "20", "0"});                                    // grown
  Run({"BITFIELD", "s", "GET", "u8", "0"});                           // reads only
  Run({"BITFIELD", "s", "SET", "u8", "0", "192"});                    // the same value
  Run({"BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u2", "0", "5"});  // created, not propagated
  Run({"BITOP", "AND", "d", "nokey"});                                // nothing to delete
  Run({"BITOP", "AND", "f", "nokey"});                                // deletes f

  EXPECT_EQ(FedStream(), EncodeCommand({"SELECT", "0"}) + EncodeCommand({"SETBIT", "s", "1", "1"}) +
                             EncodeCommand({"SETBIT", "s", "20", "0"}) +
                             EncodeCommand({"BITOP", "AND", "f", "nokey"}));
}

TEST_F(BitmapCommandsTest, WatchSeesOnlyRealChanges) {
  Run({"SET", "w", "\x80"});

  Run({"WATCH", "w"});
  Run({"SETBIT", "w", "0", "1"});
  Run({"BITFIELD", "w", "SET", "u1", "0", "1"});
  Run({"MULTI"});
  Run({"PING"});
  EXPECT_EQ(Run({"EXEC"}), "*1\r\n+PONG\r\n");

  Run({"WATCH", "w"});
  Run({"BITFIELD", "w", "INCRBY", "u1", "0", "1"});
  Run({"MULTI"});
  Run({"PING"});
  EXPECT_EQ(Run({"EXEC"}), "*-1\r\n");
}

TEST_F(BitmapCommandsTest, HotBitCommandsMakeNoOperatorNewAllocation) {
  Run({"SETBIT", "bm", "8388607", "1"});
  int wrong = 0;
  const auto round = [&] {
    wrong += RunView({"SETBIT", "bm", "4000001", "1"}) != ":0\r\n";
    wrong += RunView({"GETBIT", "bm", "4000001"}) != ":1\r\n";
    wrong += RunView({"BITCOUNT", "bm"}) != ":2\r\n";
    wrong += RunView({"BITCOUNT", "bm", "3", "-3", "BIT"}) != ":1\r\n";
    wrong += RunView({"BITPOS", "bm", "1", "500001"}) != ":8388607\r\n";
    wrong += RunView({"BITPOS", "bm", "0", "1", "-1", "BIT"}) != ":1\r\n";
    wrong += RunView({"SETBIT", "bm", "4000001", "0"}) != ":1\r\n";
  };
  for (int i = 0; i < 10; ++i) round();

  const std::uint64_t before = HeapAllocations();
  for (int i = 0; i < 100; ++i) round();

  EXPECT_EQ(HeapAllocations() - before, 0u);
  EXPECT_EQ(wrong, 0);
}

// BITFIELD and BITFIELD_RO

class BitfieldCommandsTest : public CommandTest {};

TEST_F(BitfieldCommandsTest, SetRepliesOldIncrbyNewGetCurrent) {
  EXPECT_EQ(Run({"BITFIELD", "bf", "SET", "u8", "0", "255", "GET", "u8", "0", "INCRBY", "u8", "0",
                 "10", "GET", "i8", "0"}),
            "*4\r\n:0\r\n:255\r\n:9\r\n:9\r\n");
  EXPECT_EQ(Run({"BITFIELD", "bf", "SET", "i5", "3", "-3", "GET", "u8", "0", "GET", "u4", "1000"}),
            "*3\r\n:9\r\n:29\r\n:0\r\n");
  EXPECT_EQ(Run({"STRLEN", "bf"}), ":1\r\n");
}

TEST_F(BitfieldCommandsTest, HashOffsetsCountFieldsOfTheTypesWidth) {
  EXPECT_EQ(Run({"BITFIELD", "bf", "SET", "u8", "#1", "2", "SET", "i4", "#0", "-1"}),
            "*2\r\n:0\r\n:0\r\n");
  EXPECT_EQ(Run({"GET", "bf"}), BulkReply("\xf0\x02"));
  // Redis's 64-bit product wraps: 2^61 + 1 fields of 8 bits start at bit 8.
  EXPECT_EQ(Run({"BITFIELD", "bf", "GET", "u8", "#2305843009213693953"}), "*1\r\n:2\r\n");
  EXPECT_EQ(Run({"BITFIELD", "bf", "GET", "u8", "#-1"}), kBadOffset);
}

TEST_F(BitfieldCommandsTest, OverflowModes) {
  EXPECT_EQ(Run({"BITFIELD", "o",   "SET",    "u8", "0", "250", "INCRBY",   "u8",   "0",      "10",
                 "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300", "OVERFLOW", "FAIL", "INCRBY", "u8",
                 "0",        "1",   "GET",    "u8", "0"}),
            "*5\r\n:0\r\n:4\r\n:255\r\n$-1\r\n:255\r\n");
  EXPECT_EQ(Run({"BITFIELD", "o", "OVERFLOW", "SAT", "SET", "i8", "0", "200", "SET", "i8", "0",
                 "-200", "OVERFLOW", "WRAP", "INCRBY", "i8", "0", "-1"}),
            "*3\r\n:-1\r\n:127\r\n:127\r\n");
}

TEST_F(BitfieldCommandsTest, FailsNilIsUnderscoreInResp3) {
  Run({"HELLO", "3"});
  EXPECT_EQ(Run({"BITFIELD", "o", "OVERFLOW", "FAIL", "SET", "u1", "0", "2"}), "*1\r\n_\r\n");
}

TEST_F(BitfieldCommandsTest, SixtyFourAndSixtyThreeBitEdges) {
  EXPECT_EQ(Run({"BITFIELD", "e",
                 "SET",      "i64",
                 "0",        "9223372036854775807",
                 "INCRBY",   "i64",
                 "0",        "1",
                 "OVERFLOW", "SAT",
                 "INCRBY",   "i64",
                 "0",        "-1",
                 "INCRBY",   "i64",
                 "0",        "-9223372036854775808"}),
            "*4\r\n:0\r\n:-9223372036854775808\r\n:-9223372036854775808\r\n"
            ":-9223372036854775808\r\n");
  EXPECT_EQ(Run({"BITFIELD", "e", "OVERFLOW", "WRAP", "SET", "u63", "1", "9223372036854775807",
                 "INCRBY", "u63", "1", "1", "GET", "i64", "0"}),
            "*3\r\n:0\r\n:0\r\n:-9223372036854775808\r\n");
}

// checkSignedBitfieldOverflow's difference wraps in Redis: INT64_MIN reads as too large.
TEST_F(BitfieldCommandsTest, SaturatingSetOfInt64MinStoresTheMaximum) {
  EXPECT_EQ(Run({"BITFIELD", "q", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808",
                 "GET", "i8", "0", "SET", "i8", "0", "-4611686018427387904", "GET", "i8", "0"}),
            "*4\r\n:0\r\n:127\r\n:127\r\n:-128\r\n");
}

TEST_F(BitfieldCommandsTest, ParseErrorsComeBeforeTheKeyIsTouched) {
  Run({"HSET", "h", "f", "v"});

  EXPECT_EQ(Run({"BITFIELD", "h", "GET", "u64", "0"}), kBadType);
  EXPECT_EQ(Run({"BITFIELD", "h", "GET", "i65", "0"}), kBadType);
  EXPECT_EQ(Run({"BITFIELD", "h", "GET", "U8", "0"}), kBadType);
  EXPECT_EQ(Run({"BITFIELD", "h", "GET", "u8", "-1"}), kBadOffset);
  EXPECT_EQ(Run({"BITFIELD", "h", "SET", "u8", "0", "x"}), kNotInteger);
  EXPECT_EQ(Run({"BITFIELD", "h", "SET", "u8", "0"}), kSyntax);
  EXPECT_EQ(Run({"BITFIELD", "h", "OVERFLOW", "NONE"}), "-ERR Invalid OVERFLOW type specified\r\n");
  EXPECT_EQ(Run({"BITFIELD", "h", "SET", "u8", "0", "1", "GET", "x", "0"}), kBadType);
  EXPECT_EQ(Run({"BITFIELD", "h", "GET", "u8", "0"}), kWrongType);
  EXPECT_EQ(Run({"BITFIELD", "h"}), kWrongType);
  EXPECT_EQ(Run({"BITFIELD", "k", "SET", "u8", "0", "1", "GET", "x", "0"}), kBadType);
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(BitfieldCommandsTest, TypesAndNamesAreReadAsCStrings) {
  EXPECT_EQ(Run({"BITFIELD", "k", std::string_view("set\0", 4), std::string_view("u8\0x", 4), "0",
                 "7", std::string_view("get\0y", 5), "u8", "0"}),
            "*2\r\n:0\r\n:7\r\n");
}

TEST_F(BitfieldCommandsTest, GetsOnlyNeverCreateTheKey) {
  EXPECT_EQ(Run({"BITFIELD", "k", "GET", "u8", "100"}), "*1\r\n:0\r\n");
  EXPECT_EQ(Run({"BITFIELD", "k"}), "*0\r\n");
  EXPECT_EQ(Run({"EXISTS", "k"}), ":0\r\n");
}

TEST_F(BitfieldCommandsTest, FailedWritesStillCreateAndPadTheString) {
  EXPECT_EQ(Run({"BITFIELD", "k", "OVERFLOW", "FAIL", "SET", "u2", "30", "5"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"GET", "k"}), BulkReply(std::string(4, '\0')));
}

TEST_F(BitfieldCommandsTest, ReadOnlyFormRefusesWritesAfterParsing) {
  Run({"SET", "k", "\x0f"});

  EXPECT_EQ(Run({"BITFIELD_RO", "k", "GET", "u4", "4", "GET", "i4", "4"}), "*2\r\n:15\r\n:-1\r\n");
  EXPECT_EQ(Run({"BITFIELD_RO", "k", "GET", "u8", "0", "SET", "u8", "0", "1"}),
            "-ERR BITFIELD_RO only supports the GET subcommand\r\n");
  EXPECT_EQ(Run({"BITFIELD_RO", "k", "SET", "u8", "0", "x"}), kNotInteger);
  EXPECT_EQ(Run({"BITFIELD_RO", "k"}), "*0\r\n");
  EXPECT_EQ(Run({"GET", "k"}), "$1\r\n\x0f\r\n");
}

}  // namespace
}  // namespace warden::server
