// The RDB format's primitives (storage/rdb/): CRC-64 and LZF as Redis computes them, listpacks
// written byte for byte as redis-server 7.0.15 DUMPs them, and the readers of every packed blob
// (listpack, ziplist, zipmap, intset) taking Redis's bytes and refusing truncated or corrupted
// ones without reading outside them. The byte vectors are DUMP payloads of redis-server 7.0.15
// and blobs from its tests/assets/*.rdb.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/rdb/crc64.h"
#include "storage/rdb/intset.h"
#include "storage/rdb/listpack.h"
#include "storage/rdb/lzf.h"
#include "storage/rdb/ziplist.h"
#include "storage/rdb/zipmap.h"

namespace warden::storage::rdb {
namespace {

std::string Bytes(std::string_view hex) {
  std::string out;
  int high = -1;
  for (const char c : hex) {
    if (c == ' ') continue;
    const int v = c <= '9' ? c - '0' : c - 'a' + 10;
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<char>(high << 4 | v));
      high = -1;
    }
  }
  return out;
}

std::string Repeat(char c, std::size_t n) { return std::string(n, c); }

// A copy in an allocation of exactly its size, so that AddressSanitizer reports a read one byte
// past the end (a std::string's spare capacity would hide it).
class Exact {
 public:
  explicit Exact(std::string_view s) : data_(new char[s.size()]), size_(s.size()) {
    if (!s.empty()) std::memcpy(data_.get(), s.data(), s.size());
  }
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_;
};

std::uint64_t LoadLe64(std::string_view s) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[i]);
  return v;
}

// The parts of a DUMP payload these tests look at: the value's type, and its one packed blob (a
// list's single quicklist node, or the string of a hash, sorted set or intset) as written, that
// is LZF-compressed or not, and plain.
struct Dump {
  std::uint8_t type = 0;
  bool compressed = false;
  std::string written;
  std::string blob;
};

std::uint64_t TakeLength(std::string_view& in) {
  const auto b = static_cast<unsigned char>(in[0]);
  in.remove_prefix(1);
  std::uint64_t v = b & 0x3F;
  int more = 0;
  if (b >> 6 == 1) more = 1;
  if (b == 0x80) more = 4;
  if (b == 0x81) more = 8;
  if (b >> 6 == 2) v = 0;
  for (int i = 0; i < more; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  in.remove_prefix(more);
  return v;
}

Dump ParseDump(std::string_view payload) {
  // value, RDB version (2 bytes), CRC-64 of all before it
  std::string_view in = payload.substr(0, payload.size() - 10);
  Dump d;
  d.type = static_cast<std::uint8_t>(in[0]);
  in.remove_prefix(1);
  if (d.type == 18) {  // RDB_TYPE_LIST_QUICKLIST_2: node count, then container and string
    EXPECT_EQ(TakeLength(in), 1u);
    EXPECT_EQ(TakeLength(in), 2u);  // packed
  }
  if (static_cast<unsigned char>(in[0]) == 0xC3) {  // LZF
    in.remove_prefix(1);
    const std::uint64_t clen = TakeLength(in);
    const std::uint64_t len = TakeLength(in);
    d.compressed = true;
    d.written = std::string(in.substr(0, clen));
    EXPECT_TRUE(LzfDecompress(d.written, len, d.blob));
    in.remove_prefix(clen);
  } else {
    const std::uint64_t len = TakeLength(in);
    d.written = d.blob = std::string(in.substr(0, len));
    in.remove_prefix(len);
  }
  EXPECT_TRUE(in.empty());
  return d;
}

// The offsets worth cutting or corrupting `blob` at: all of them, but in a long run of one byte
// (a long string's payload) only its ends, which keeps the big vectors fast.
std::vector<std::size_t> Offsets(std::string_view blob) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < blob.size(); ++i) {
    const bool inside_run = i > 0 && i + 1 < blob.size() && blob[i - 1] == blob[i] &&
                            blob[i] == blob[i + 1] && i > 64 && i + 64 < blob.size();
    if (!inside_run) out.push_back(i);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// DUMP payloads of redis-server 7.0.15.

// RPUSH l a b c
constexpr std::string_view kListAbcDump =
    "12010210100000000300816102816202816302ff0a00c818b90c9533529e";
// RPUSH li with an integer at each edge of each listpack integer encoding
constexpr std::string_view kListIntsDump =
    "120102c34070407b1c7b000000160000017f01c08002dfff02cfff02d00002f1001003f1ffef20030e7f03f1"
    "008003f200800004f2ff7fff200408ff7f04f200008004f32004020005f3200f00ff400502ff7f0520110300"
    "8005f440052003020009f44015200300ff60094000017f09401d4000028009ff0a0063cc9036f2022658";
const std::vector<std::string> kListInts = {"0",
                                            "127",
                                            "128",
                                            "-1",
                                            "4095",
                                            "-4096",
                                            "4096",
                                            "-4097",
                                            "32767",
                                            "-32768",
                                            "32768",
                                            "-32769",
                                            "8388607",
                                            "-8388608",
                                            "8388608",
                                            "-8388609",
                                            "2147483647",
                                            "-2147483648",
                                            "2147483648",
                                            "-2147483649",
                                            "9223372036854775807",
                                            "-9223372036854775808"};
// RPUSH ls with strings of 0, 63 and 64 bytes and ones that only look like integers
constexpr std::string_view kListStringsDump =
    "120102c3406340eb09eb0000000d008001bf61e035000340e04062e036000b428330303704822b3103822020"
    "031d312003822d3003933932323333373230333638353437373538303814942de009150c3915943132333435"
    "3637383930e001090915812d0283312e3504ff0a00f59fe2269ab882c7";
const std::vector<std::string> kListStrings = {"",
                                               Repeat('a', 63),
                                               Repeat('b', 64),
                                               "007",
                                               "+1",
                                               " 1",
                                               "1 ",
                                               "-0",
                                               "9223372036854775808",
                                               "-9223372036854775809",
                                               "12345678901234567890",
                                               "-",
                                               "1.5"};
// RPUSH l12: a 126-byte string (the first two-byte backlen) and the longest 12-bit one
constexpr std::string_view kList12BitDump =
    "120102c34047508c088c1000000200e07e78e07400040180efff79e0ff00e0ff00e0ff00e0ff00e0ff00e0ff"
    "00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e07d00022081ff0a00297dbeaf0134a7"
    "3d";
// RPUSH l32 (list-max-listpack-size -5): 32-bit string lengths, with backlens of 16382 (two
// bytes) and 16383 (three: lpEncodeBacklen's bound is "< 16383")
constexpr std::string_view kList32BitDump =
    "120102c341cd80000090100b109000000300f0001000007ae0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff"
    "00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e07e00072085f0f93f000076e0ff00e0ff00e0"
    "ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00"
    "e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff"
    "00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0"
    "ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00"
    "e0ff00c000077ffef0fa3f000077e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00"
    "e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff"
    "00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0"
    "ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00"
    "e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e0ff00e000000300ffffff0a0021756e9c8773a93d";
// HSET h f1 v1 n 12
constexpr std::string_view kHashDump =
    "10141400000004008266310382763103816e020c01ff0a00cf3e8c3993437336";
// ZADD z 1 a 2.5 b
constexpr std::string_view kZsetDump =
    "1114140000000400816102010181620283322e3504ff0a00d44c6ea4f644d9d7";
// SADD s 1 2 3; SADD s32 1 100000; SADD s64 -5 1099511627776
constexpr std::string_view kIntset16Dump = "0b0e02000000030000000100020003000a00a5025ce26d6e4d1b";
constexpr std::string_view kIntset32Dump =
    "0b10040000000200000001000000a08601000a00d7b548c007796515";
constexpr std::string_view kIntset64Dump =
    "0b180800000002000000fbffffffffffffff00000000000100000a00a7d64212f15eb766";
// SET big with 40 'x': an LZF-compressed string
constexpr std::string_view kBigStringDump = "00c30928017878e01b000178780a007a1d6ccea5401333";

// ---------------------------------------------------------------------------------------------
// CRC-64

TEST(RdbCrc64Test, MatchesRedisCheckValues) {
  EXPECT_EQ(Crc64(0, "123456789"), 0xe9c6d914c4b8d9caull);
  const std::string_view lorem =
      "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt "
      "ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation "
      "ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in "
      "reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur "
      "sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id "
      "est laborum.";
  // Redis's self-test checksums the array, terminating NUL included.
  EXPECT_EQ(Crc64(0, std::string(lorem) + '\0'), 0xc7794709e69683b3ull);
  EXPECT_EQ(Crc64(0, ""), 0u);
}

TEST(RdbCrc64Test, ContinuesAcrossAnySplit) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 37 + 11));
  const std::uint64_t whole = Crc64(0, data);
  for (std::size_t cut = 0; cut <= data.size(); ++cut) {
    const std::string_view v(data);
    EXPECT_EQ(Crc64(Crc64(0, v.substr(0, cut)), v.substr(cut)), whole) << cut;
  }
}

TEST(RdbCrc64Test, ChecksRedisDumpPayloads) {
  for (const std::string_view hex :
       {kListAbcDump, kListIntsDump, kList32BitDump, kHashDump, kIntset64Dump, kBigStringDump}) {
    const std::string payload = Bytes(hex);
    const std::string_view v(payload);
    EXPECT_EQ(Crc64(0, v.substr(0, v.size() - 8)), LoadLe64(v.substr(v.size() - 8))) << hex;
  }
}

// ---------------------------------------------------------------------------------------------
// LZF

TEST(RdbLzfTest, CompressesAsRedis) {
  std::string out;
  ASSERT_TRUE(LzfCompress(Repeat('x', 40), out));
  EXPECT_EQ(out, Bytes("01 78 78 e0 1b 00 01 78 78"));
  EXPECT_EQ(ParseDump(Bytes(kBigStringDump)).written, out);
}

TEST(RdbLzfTest, LeavesShortStringsAlone) {
  std::string out;
  EXPECT_FALSE(LzfCompress(Repeat('x', 20), out));
  EXPECT_FALSE(LzfCompress("", out));
  EXPECT_TRUE(LzfCompress(Repeat('x', 21), out));
}

TEST(RdbLzfTest, RefusesWhatSavesLessThanFourBytes) {
  std::string noise;
  std::uint32_t x = 12345;
  for (int i = 0; i < 100; ++i) {
    x = x * 1103515245 + 12345;
    noise.push_back(static_cast<char>(x >> 24));
  }
  std::string out = "stale";
  EXPECT_FALSE(LzfCompress(noise, out));
  EXPECT_TRUE(out.empty());
}

TEST(RdbLzfTest, RoundTrips) {
  for (const std::string& s : {Repeat('a', 21), Repeat('q', 100000),
                               std::string(kListStrings[1]) + kListStrings[2] + "tail"}) {
    std::string packed;
    ASSERT_TRUE(LzfCompress(s, packed));
    std::string plain;
    ASSERT_TRUE(LzfDecompress(Exact(packed).view(), s.size(), plain));
    EXPECT_EQ(plain, s);
  }
}

TEST(RdbLzfTest, DecompressWantsTheExactLength) {
  std::string packed;
  ASSERT_TRUE(LzfCompress(Repeat('x', 40), packed));
  std::string out;
  EXPECT_TRUE(LzfDecompress(packed, 40, out));
  EXPECT_FALSE(LzfDecompress(packed, 39, out));
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(LzfDecompress(packed, 41, out));
  EXPECT_FALSE(LzfDecompress("", 1, out));
}

TEST(RdbLzfTest, DecompressRefusesImpossibleLengthsBeforeAllocating) {
  std::string out;
  // Nine bytes can not expand to more than 88 * 9; nothing of this size is allocated.
  EXPECT_FALSE(LzfDecompress(Bytes("01 78 78 e0 1b 00 01 78 78"), std::size_t{1} << 40, out));
  EXPECT_FALSE(LzfDecompress(Bytes("01 78 78 e0 1b 00 01 78 78"), 88 * 9 + 1, out));
}

// Redis accepts a compressed string that claims to be empty, whatever its bytes.
TEST(RdbLzfTest, DecompressAcceptsAnyInputForLengthZero) {
  std::string out = "stale";
  EXPECT_TRUE(LzfDecompress("", 0, out));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(LzfDecompress("\x05garbage", 0, out));
}

TEST(RdbLzfTest, DecompressRefusesEveryTruncation) {
  std::string packed;
  ASSERT_TRUE(LzfCompress(std::string(kListStrings[1]) + "0123456789" + kListStrings[2], packed));
  std::string out;
  for (std::size_t n = 0; n < packed.size(); ++n) {
    EXPECT_FALSE(LzfDecompress(Exact(packed.substr(0, n)).view(), 63 + 10 + 64, out)) << n;
  }
}

TEST(RdbLzfTest, DecompressSurvivesCorruption) {
  std::string packed;
  ASSERT_TRUE(LzfCompress(std::string(kListStrings[1]) + "0123456789" + kListStrings[2], packed));
  std::string out;
  for (std::size_t i = 0; i < packed.size(); ++i) {
    for (const unsigned char b : {0x00, 0x1f, 0x20, 0xe0, 0xff}) {
      std::string bad = packed;
      bad[i] = static_cast<char>(b);
      if (LzfDecompress(Exact(bad).view(), 137, out)) {
        EXPECT_EQ(out.size(), 137u);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Listpack

std::vector<std::string> ListpackStrings(std::string_view lp) {
  std::vector<std::string> out;
  EXPECT_TRUE(ListpackForEach(lp, [&](const PackedItem& item) {
    std::int64_t v;
    EXPECT_EQ(item.is_int, ListpackStringToInt64(item.str, v)) << item.str;
    if (item.is_int) {
      EXPECT_EQ(v, item.integer);
    }
    out.emplace_back(item.str);
    return true;
  }));
  return out;
}

std::string WriteListpack(const std::vector<std::string>& elements) {
  ListpackWriter w;
  for (const std::string& e : elements) w.AppendString(e);
  EXPECT_EQ(w.count(), elements.size());
  const std::size_t bytes = w.bytes();
  std::string lp = w.Finish();
  EXPECT_EQ(lp.size(), bytes);
  return lp;
}

struct ListpackDumpCase {
  const char* name;
  std::string_view dump;
  std::vector<std::string> elements;
};

class RdbListpackDumpTest : public ::testing::TestWithParam<ListpackDumpCase> {};

TEST_P(RdbListpackDumpTest, ReadsRedisBytes) {
  const Dump d = ParseDump(Bytes(GetParam().dump));
  EXPECT_TRUE(ListpackValidate(Exact(d.blob).view()));
  // EXPECT_TRUE: a mismatch would print strings of up to 16 KB.
  EXPECT_TRUE(ListpackStrings(Exact(d.blob).view()) == GetParam().elements);
  EXPECT_EQ(ListpackCount(d.blob), GetParam().elements.size());
}

TEST_P(RdbListpackDumpTest, WritesRedisBytes) {
  const Dump d = ParseDump(Bytes(GetParam().dump));
  const std::string lp = WriteListpack(GetParam().elements);
  EXPECT_TRUE(lp == d.blob);
  // The compressed node too, as rdbSaveRawString would write it.
  std::string packed;
  EXPECT_EQ(LzfCompress(lp, packed), d.compressed);
  if (d.compressed) {
    EXPECT_TRUE(packed == d.written);
  }
}

TEST_P(RdbListpackDumpTest, RefusesEveryTruncation) {
  const std::string blob = ParseDump(Bytes(GetParam().dump)).blob;
  for (const std::size_t n : Offsets(blob)) {
    std::string cut = blob.substr(0, n);
    EXPECT_FALSE(ListpackValidate(Exact(cut).view())) << n;
    // With the size in the header made to agree, the walk itself must notice.
    if (n >= 4) {
      for (int i = 0; i < 4; ++i) cut[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
      EXPECT_FALSE(ListpackValidate(Exact(cut).view())) << n;
      EXPECT_FALSE(ListpackForEach(Exact(cut).view(), [](const PackedItem&) { return true; }));
    }
  }
}

TEST_P(RdbListpackDumpTest, SurvivesEveryByteCorrupted) {
  const std::string blob = ParseDump(Bytes(GetParam().dump)).blob;
  for (const std::size_t i : Offsets(blob)) {
    for (const unsigned char b : {0x00, 0x3f, 0x7f, 0x80, 0xbf, 0xc0, 0xe0, 0xf0, 0xf4, 0xff}) {
      std::string bad = blob;
      bad[i] = static_cast<char>(b);
      const Exact exact(bad);
      std::size_t seen = 0;
      const bool ok =
          ListpackForEach(exact.view(), [&](const PackedItem&) { return ++seen, true; });
      EXPECT_EQ(ok, ListpackValidate(exact.view()));
      if (ok) {
        EXPECT_EQ(seen, ListpackCount(exact.view()));
      }
      // The reader alone, without validation first, stays inside too.
      ListpackReader reader(exact.view());
      PackedItem item;
      while (reader.Next(item)) {
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rdb, RdbListpackDumpTest,
    ::testing::Values(ListpackDumpCase{"abc", kListAbcDump, {"a", "b", "c"}},
                      ListpackDumpCase{"ints", kListIntsDump, kListInts},
                      ListpackDumpCase{"strings", kListStringsDump, kListStrings},
                      ListpackDumpCase{
                          "strings12", kList12BitDump, {Repeat('x', 126), Repeat('y', 4095)}},
                      ListpackDumpCase{"strings32",
                                       kList32BitDump,
                                       {Repeat('z', 4096), Repeat('v', 16377), Repeat('w', 16378)}},
                      ListpackDumpCase{"hash", kHashDump, {"f1", "v1", "n", "12"}},
                      ListpackDumpCase{"zset", kZsetDump, {"a", "1", "b", "2.5"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(RdbListpackTest, EncodesEachIntegerWidthAsRedis) {
  struct Case {
    std::int64_t v;
    std::string_view element;  // encoding, data and backlen
  };
  for (const Case& c : std::vector<Case>{{0, "00 01"},
                                         {127, "7f 01"},
                                         {128, "c0 80 02"},
                                         {-1, "df ff 02"},
                                         {-4096, "d0 00 02"},
                                         {4096, "f1 00 10 03"},
                                         {-32768, "f1 00 80 03"},
                                         {32768, "f2 00 80 00 04"},
                                         {-8388609, "f3 ff ff 7f ff 05"},
                                         {2147483648, "f4 00 00 00 80 00 00 00 00 09"}}) {
    ListpackWriter w;
    w.AppendInteger(c.v);
    const std::string lp = w.Finish();
    EXPECT_EQ(lp.substr(6, lp.size() - 7), Bytes(c.element)) << c.v;
    std::vector<std::int64_t> read;
    EXPECT_TRUE(ListpackForEach(lp, [&](const PackedItem& item) {
      EXPECT_TRUE(item.is_int);
      read.push_back(item.integer);
      return true;
    }));
    EXPECT_EQ(read, std::vector<std::int64_t>{c.v});
  }
}

TEST(RdbListpackTest, StoresOnlyCanonicalIntegersAsIntegers) {
  std::int64_t v = 0;
  EXPECT_TRUE(ListpackStringToInt64("0", v));
  EXPECT_TRUE(ListpackStringToInt64("-9223372036854775808", v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(ListpackStringToInt64("9223372036854775807", v));
  EXPECT_EQ(v, INT64_MAX);
  for (const std::string_view s :
       {"", "-", "-0", "00", "01", "+1", " 1", "1 ", "1.0", "0x1", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "123456789012345678901"}) {
    EXPECT_FALSE(ListpackStringToInt64(s, v)) << s;
  }
}

TEST(RdbListpackTest, WritesBacklenSizeClasses) {
  struct Case {
    std::size_t len;
    std::size_t backlen;
  };
  // Element sizes (length bytes included) 127 | 128 and 2097150 | 2097151.
  for (const Case& c : std::vector<Case>{{125, 1}, {126, 2}, {2097145, 3}, {2097146, 4}}) {
    ListpackWriter w;
    w.AppendString(Repeat('s', c.len));
    const std::string lp = w.Finish();
    const std::size_t header = c.len < 4096 ? 2 : 5;
    EXPECT_EQ(lp.size() - 7 - header - c.len, c.backlen) << c.len;
    EXPECT_TRUE(ListpackValidate(lp)) << c.len;
  }
}

TEST(RdbListpackTest, EmptyListpack) {
  ListpackWriter w;
  EXPECT_EQ(w.bytes(), 7u);
  const std::string lp = w.Finish();
  EXPECT_EQ(lp, Bytes("07000000 0000 ff"));
  EXPECT_TRUE(ListpackValidate(lp));
  EXPECT_EQ(ListpackCount(lp), 0u);
  EXPECT_TRUE(ListpackStrings(lp).empty());
}

TEST(RdbListpackTest, WriterStartsOverAfterFinish) {
  ListpackWriter w;
  w.AppendString("a");
  w.Finish();
  w.AppendString("b");
  EXPECT_EQ(w.count(), 1u);
  EXPECT_EQ(ListpackStrings(w.Finish()), std::vector<std::string>{"b"});
}

TEST(RdbListpackTest, CountsPastTheHeaderLimit) {
  ListpackWriter w;
  for (int i = 0; i < 70000; ++i) w.AppendInteger(i % 3);
  const std::string lp = w.Finish();
  EXPECT_EQ(static_cast<unsigned char>(lp[4]), 0xff);
  EXPECT_EQ(static_cast<unsigned char>(lp[5]), 0xff);
  EXPECT_TRUE(ListpackValidate(lp));
  EXPECT_EQ(ListpackCount(lp), 70000u);
}

TEST(RdbListpackTest, RefusesMalformedHeadersAndElements) {
  const std::string good = Bytes("10000000 0300 816102 816202 816302 ff");
  ASSERT_TRUE(ListpackValidate(good));
  auto with = [&](std::size_t i, std::string_view hex) {
    std::string s = good;
    s.replace(i, hex.size() / 2, Bytes(hex));
    return s;
  };
  EXPECT_FALSE(ListpackValidate(with(4, "0200"))) << "count below the elements";
  EXPECT_FALSE(ListpackValidate(with(4, "0400"))) << "count above";
  EXPECT_TRUE(ListpackValidate(with(4, "ffff"))) << "count unknown";
  EXPECT_FALSE(ListpackValidate(with(6, "f5"))) << "unused encoding";
  EXPECT_FALSE(ListpackValidate(with(8, "03"))) << "backlen off by one";
  EXPECT_FALSE(ListpackValidate(with(8, "82"))) << "backlen that runs on";
  EXPECT_FALSE(ListpackValidate(with(6, "ff"))) << "terminator too early";
  EXPECT_FALSE(ListpackValidate(with(6, "8f"))) << "string past the end";
  EXPECT_FALSE(ListpackValidate(with(6, "f0ffffffff"))) << "32-bit length past the end";
  EXPECT_FALSE(ListpackValidate(with(0, "11000000") + "\xff")) << "bytes after the end";
  EXPECT_FALSE(ListpackValidate(Bytes("06000000 0000"))) << "too short for the terminator";
}

TEST(RdbListpackTest, ForEachStopsEarly) {
  const std::string lp = WriteListpack({"a", "b", "c"});
  int seen = 0;
  EXPECT_TRUE(ListpackForEach(lp, [&](const PackedItem&) { return ++seen < 2; }));
  EXPECT_EQ(seen, 2);
}

TEST(RdbListpackTest, IntegerSpellingOutlivesTheNextItem) {
  const std::string lp = WriteListpack({"10", "20", "x"});
  ListpackReader reader(lp);
  PackedItem field;
  PackedItem value;
  ASSERT_TRUE(reader.Next(field));
  ASSERT_TRUE(reader.Next(value));
  EXPECT_EQ(field.str, "10");
  EXPECT_EQ(value.str, "20");
}

// ---------------------------------------------------------------------------------------------
// Ziplist

// Builds a ziplist from raw entries (encoding and data), adding each prevlen, the header and the
// terminator; for hand-made vectors of every encoding.
std::string BuildZiplist(const std::vector<std::string>& entries) {
  std::string body;
  std::size_t prev = 0;
  std::size_t tail = 10;
  for (const std::string& e : entries) {
    tail = 10 + body.size();
    std::string entry;
    if (prev < 254) {
      entry.push_back(static_cast<char>(prev));
    } else {
      entry.push_back(static_cast<char>(0xfe));
      for (int i = 0; i < 4; ++i) entry.push_back(static_cast<char>((prev >> (8 * i)) & 0xff));
    }
    entry += e;
    body += entry;
    prev = entry.size();
  }
  std::string zl;
  const std::size_t total = 10 + body.size() + 1;
  for (int i = 0; i < 4; ++i) zl.push_back(static_cast<char>((total >> (8 * i)) & 0xff));
  for (int i = 0; i < 4; ++i) zl.push_back(static_cast<char>((tail >> (8 * i)) & 0xff));
  zl.push_back(static_cast<char>(entries.size() & 0xff));
  zl.push_back(static_cast<char>(entries.size() >> 8));
  return zl + body + "\xff";
}

std::vector<std::string> ZiplistStrings(std::string_view zl) {
  std::vector<std::string> out;
  EXPECT_TRUE(ZiplistForEach(zl, [&](const PackedItem& item) {
    out.emplace_back(item.str);
    return true;
  }));
  return out;
}

// hash-ziplist.rdb: a hash f1 v1 f2 v2
const std::string kZiplistHash =
    Bytes("1b000000 16000000 0400 00026631 04027631 04026632 04027632 ff");
// encodings.rdb's list_zipped: int16, strings, int32 and int64 entries
const std::string kZiplistList = Bytes(
    "30000000 25000000 0800 00c00100 04c00200 04c00300 040161 030162 030163 03d0a0860100 "
    "06e000bca06501000000 ff");
// zset-ziplist.rdb: one 1 two 2, the scores as 4-bit immediates
const std::string kZiplistZset = Bytes("19000000 16000000 0400 00036f6e65 05f2 020374776f 05f3 ff");

TEST(RdbZiplistTest, ReadsRedisBytes) {
  EXPECT_EQ(ZiplistStrings(Exact(kZiplistHash).view()),
            (std::vector<std::string>{"f1", "v1", "f2", "v2"}));
  EXPECT_EQ(ZiplistStrings(Exact(kZiplistList).view()),
            (std::vector<std::string>{"1", "2", "3", "a", "b", "c", "100000", "6000000000"}));
  EXPECT_EQ(ZiplistStrings(Exact(kZiplistZset).view()),
            (std::vector<std::string>{"one", "1", "two", "2"}));
}

TEST(RdbZiplistTest, ReadsEveryEncoding) {
  const std::string long_string = Repeat('L', 300);  // 14-bit length, and a 5-byte prevlen after
  const std::string zl = BuildZiplist({
      Bytes("f1"), Bytes("fd"),                                       // immediates 0 and 12
      Bytes("fe 80"), Bytes("fe 7f"),                                 // int8
      Bytes("c0 00 80"), Bytes("f0 ff ff 7f"), Bytes("f0 00 00 80"),  // int16, int24
      Bytes("d0 ff ff ff ff"), Bytes("e0 00 00 00 00 00 00 00 80"),   // int32, int64
      Bytes("41 2c") + long_string,                                   // 14-bit length, big-endian
      Bytes("80 00 00 00 02") + "xy",                                 // 32-bit length, big-endian
      Bytes("00"),                                                    // empty string
  });
  std::vector<std::string> strs;
  std::vector<bool> ints;
  EXPECT_TRUE(ZiplistForEach(Exact(zl).view(), [&](const PackedItem& item) {
    strs.emplace_back(item.str);
    ints.push_back(item.is_int);
    return true;
  }));
  EXPECT_EQ(strs,
            (std::vector<std::string>{"0", "12", "-128", "127", "-32768", "8388607", "-8388608",
                                      "-1", "-9223372036854775808", long_string, "xy", ""}));
  EXPECT_EQ(ints, (std::vector<bool>{true, true, true, true, true, true, true, true, true, false,
                                     false, false}));
}

TEST(RdbZiplistTest, RefusesEveryTruncation) {
  const std::string zl =
      BuildZiplist({Bytes("fe 80"), Bytes("41 2c") + Repeat('L', 300), Bytes("03") + "abc",
                    Bytes("e0 00 00 00 00 00 00 00 80"), Bytes("80 00 00 00 02") + "xy"});
  ASSERT_TRUE(ZiplistValidate(zl));
  for (std::size_t n = 0; n < zl.size(); ++n) {
    std::string cut = zl.substr(0, n);
    EXPECT_FALSE(ZiplistValidate(Exact(cut).view())) << n;
    if (n >= 4) {
      for (int i = 0; i < 4; ++i) cut[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
      cut[n - 1] = '\xff';
      EXPECT_FALSE(ZiplistValidate(Exact(cut).view())) << n;
    }
  }
}

TEST(RdbZiplistTest, RefusesMalformedHeadersAndElements) {
  ASSERT_TRUE(ZiplistValidate(kZiplistHash));
  auto with = [&](std::size_t i, std::string_view hex) {
    std::string s = kZiplistHash;
    s.replace(i, hex.size() / 2, Bytes(hex));
    return s;
  };
  EXPECT_FALSE(ZiplistValidate(with(8, "0300"))) << "count below the elements";
  EXPECT_TRUE(ZiplistValidate(with(8, "ffff"))) << "count unknown";
  EXPECT_FALSE(ZiplistValidate(with(4, "12000000"))) << "tail not the last element";
  EXPECT_FALSE(ZiplistValidate(with(4, "1b000000"))) << "tail past the end";
  EXPECT_FALSE(ZiplistValidate(with(10, "01"))) << "first prevlen not 0";
  EXPECT_FALSE(ZiplistValidate(with(14, "05"))) << "prevlen off by one";
  EXPECT_FALSE(ZiplistValidate(with(11, "c1"))) << "unknown encoding";
  EXPECT_FALSE(ZiplistValidate(with(11, "3f"))) << "string past the end";
  EXPECT_FALSE(ZiplistValidate(with(11, "ff"))) << "0xff as an encoding";
  EXPECT_FALSE(ZiplistValidate(with(10, "ff"))) << "terminator too early";
  // An empty ziplist, as Redis writes it, is well formed.
  EXPECT_TRUE(ZiplistValidate(Bytes("0b000000 0a000000 0000 ff")));
}

TEST(RdbZiplistTest, SurvivesEveryByteCorrupted) {
  for (const std::string& zl : {kZiplistHash, kZiplistList, kZiplistZset}) {
    for (std::size_t i = 0; i < zl.size(); ++i) {
      for (const unsigned char b : {0x00, 0x3f, 0x40, 0x80, 0xc0, 0xd0, 0xe0, 0xf0, 0xfe, 0xff}) {
        std::string bad = zl;
        bad[i] = static_cast<char>(b);
        const Exact exact(bad);
        const bool ok = ZiplistForEach(exact.view(), [](const PackedItem&) { return true; });
        EXPECT_EQ(ok, ZiplistValidate(exact.view()));
        ZiplistReader reader(exact.view());
        PackedItem item;
        while (reader.Next(item)) {
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Zipmap

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs ZipmapPairs(std::string_view zm) {
  Pairs out;
  EXPECT_TRUE(ZipmapForEach(zm, [&](std::string_view f, std::string_view v) {
    out.emplace_back(f, v);
    return true;
  }));
  return out;
}

// hash-zipmap.rdb: a hash f1 v1 f2 v2
const std::string kZipmap = Bytes("02 02 6631 02 00 7631 02 6632 02 00 7632 ff");

TEST(RdbZipmapTest, ReadsRedisBytes) {
  EXPECT_EQ(ZipmapPairs(Exact(kZipmap).view()), (Pairs{{"f1", "v1"}, {"f2", "v2"}}));
}

TEST(RdbZipmapTest, SkipsFreeBytesAndReadsLongLengths) {
  const std::string big = Repeat('B', 300);
  const std::string zm = Bytes("fe 01 61 03 02 787878 2d2d") +  // value "xxx", 2 free bytes
                         Bytes("fe 2c010000") + big + Bytes("00 00") + Bytes("ff");
  EXPECT_EQ(ZipmapPairs(Exact(zm).view()), (Pairs{{"a", "xxx"}, {big, ""}}));
}

TEST(RdbZipmapTest, RefusesMalformed) {
  EXPECT_FALSE(ZipmapValidate(Bytes("00 ff"))) << "empty";
  EXPECT_FALSE(ZipmapValidate(Bytes("01 01 61 01 00 62"))) << "no terminator";
  EXPECT_FALSE(ZipmapValidate(Bytes("02 01 61 01 00 62 ff"))) << "count off";
  EXPECT_TRUE(ZipmapValidate(Bytes("fe 01 61 01 00 62 ff"))) << "count unknown";
  EXPECT_FALSE(ZipmapValidate(Bytes("01 01 61 01 01 62 ff"))) << "free past the end";
  EXPECT_FALSE(ZipmapValidate(Bytes("01 05 61 01 00 62 ff"))) << "field past the end";
  EXPECT_FALSE(ZipmapValidate(Bytes("01 01 61 fe ffffffff 62 ff"))) << "huge value";
  EXPECT_FALSE(ZipmapValidate(Bytes("01 01 61 01 00 ff"))) << "value eats the terminator";
}

TEST(RdbZipmapTest, RefusesEveryTruncation) {
  for (std::size_t n = 0; n < kZipmap.size(); ++n) {
    std::string cut = kZipmap.substr(0, n);
    EXPECT_FALSE(ZipmapValidate(Exact(cut).view())) << n;
    if (n >= 1) cut[n - 1] = '\xff';
    // Cut right after the first pair, it is a well-formed zipmap of one pair but for the count.
    EXPECT_FALSE(ZipmapValidate(Exact(cut).view())) << n;
  }
}

TEST(RdbZipmapTest, SurvivesEveryByteCorrupted) {
  for (std::size_t i = 0; i < kZipmap.size(); ++i) {
    for (const unsigned char b : {0x00, 0x01, 0x7f, 0xfd, 0xfe, 0xff}) {
      std::string bad = kZipmap;
      bad[i] = static_cast<char>(b);
      const Exact exact(bad);
      const bool ok =
          ZipmapForEach(exact.view(), [](std::string_view, std::string_view) { return true; });
      EXPECT_EQ(ok, ZipmapValidate(exact.view()));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Intset

std::vector<std::int64_t> IntsetValues(std::string_view blob) {
  std::vector<std::int64_t> out;
  EXPECT_TRUE(IntsetForEach(blob, [&](std::int64_t v) {
    out.push_back(v);
    return true;
  }));
  return out;
}

TEST(RdbIntsetTest, MatchesRedisBytesAtEachWidth) {
  struct Case {
    std::string_view dump;
    std::vector<std::int64_t> values;
  };
  for (const Case& c : std::vector<Case>{{kIntset16Dump, {1, 2, 3}},
                                         {kIntset32Dump, {1, 100000}},
                                         {kIntset64Dump, {-5, std::int64_t{1} << 40}}}) {
    const Dump d = ParseDump(Bytes(c.dump));
    EXPECT_EQ(d.type, 11);
    EXPECT_EQ(IntsetEncode(c.values), d.blob);
    EXPECT_EQ(IntsetValues(Exact(d.blob).view()), c.values);
  }
}

TEST(RdbIntsetTest, PicksTheWidthOfEitherEnd) {
  EXPECT_EQ(IntsetEncode(std::vector<std::int64_t>{-32769, 0}).substr(0, 4), Bytes("04000000"));
  EXPECT_EQ(IntsetEncode(std::vector<std::int64_t>{0, 32767}).substr(0, 4), Bytes("02000000"));
  EXPECT_EQ(IntsetEncode(std::vector<std::int64_t>{INT64_MIN, 0}).substr(0, 4), Bytes("08000000"));
  EXPECT_EQ(IntsetEncode({}), Bytes("02000000 00000000"));
}

TEST(RdbIntsetTest, ReadsAWiderEncodingThanNeeded) {
  // After SREM of its only large member, a Redis intset keeps its width.
  EXPECT_EQ(IntsetValues(Bytes("04000000 02000000 01000000 02000000")),
            (std::vector<std::int64_t>{1, 2}));
}

TEST(RdbIntsetTest, RefusesMalformed) {
  EXPECT_FALSE(IntsetValidate(Bytes("02000000 00000000"))) << "empty";
  EXPECT_FALSE(IntsetValidate(Bytes("03000000 01000000 010000"))) << "width 3";
  EXPECT_FALSE(IntsetValidate(Bytes("02000000 02000000 0200 0100"))) << "decreasing";
  EXPECT_FALSE(IntsetValidate(Bytes("02000000 02000000 0100 0100"))) << "duplicate";
  EXPECT_FALSE(IntsetValidate(Bytes("02000000 02000000 0100 0200 00"))) << "trailing byte";
  EXPECT_FALSE(IntsetValidate(Bytes("08000000 ffffffff 0100000000000000"))) << "huge count";
  const std::string good = Bytes(std::string(kIntset64Dump).substr(4, 48));
  ASSERT_TRUE(IntsetValidate(good));
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(IntsetValidate(Exact(good.substr(0, n)).view())) << n;
  }
}

}  // namespace
}  // namespace warden::storage::rdb
