#include "storage/hyperloglog.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "storage/hyperloglog_format.h"
#include "storage/random.h"

namespace warden::storage::hll {
namespace {

// The expected bytes below were read from redis-server 7.0.15 (GET after the same commands);
// the long ones are pinned by their FNV-1a 64 digest.
std::uint64_t Fnv(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) h = (h ^ static_cast<std::uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

std::string FromHex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

std::string Header(std::uint8_t encoding) {
  std::string h("HYLL\0\0\0\0\0\0\0\0\0\0\0\x80", 16);
  h[4] = static_cast<char>(encoding);
  return h;
}
std::string Xzero(unsigned n) {
  return {static_cast<char>(0x40 | ((n - 1) >> 8)), static_cast<char>((n - 1) & 0xFF)};
}
std::string Val(unsigned value, unsigned len) {
  return std::string(1, static_cast<char>(0x80 | ((value - 1) << 2) | (len - 1)));
}

// PFADD key e... on `hll`, one element per call as Redis does. Returns how many changed.
int AddAll(std::string& hll, const std::vector<std::string>& elements,
           std::size_t sparse_max = 3000) {
  StringHllBytes bytes(hll);
  int changed = 0;
  for (const std::string& e : elements) {
    if (Add(bytes, e, sparse_max) == Change::kChanged) ++changed;
  }
  return changed;
}

std::vector<std::string> Numbered(std::string_view prefix, int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i < to; ++i) out.push_back(std::string(prefix) + std::to_string(i));
  return out;
}

std::string Sparse(const std::vector<std::string>& elements) {
  std::string hll(Empty());
  AddAll(hll, elements);
  return hll;
}

TEST(HyperLogLogTest, EmptyIsOneXzeroOfAllRegisters) {
  EXPECT_EQ(Empty(), std::string_view("HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18));
  EXPECT_TRUE(IsHll(Empty()));
  EXPECT_EQ(Count(Empty()), 0u);
}

TEST(HyperLogLogTest, ObserveMatchesRedisRegisters) {
  // PFDEBUG GETREG after PFADD of one element: its register and value.
  EXPECT_EQ(Observe("").index, 5938u);
  EXPECT_EQ(Observe("").count, 2);
  EXPECT_EQ(Observe("a").index, 12711u);
  EXPECT_EQ(Observe("a").count, 2);
  EXPECT_EQ(Observe("hello").index, 9216u);
  EXPECT_EQ(Observe("hello").count, 1);
  EXPECT_EQ(Observe("12345678").index, 10579u);
  EXPECT_EQ(Observe("12345678").count, 3);
  EXPECT_EQ(Observe("123456789abcdef0x").index, 12038u);
  EXPECT_EQ(Observe("123456789abcdef0x").count, 1);
}

TEST(HyperLogLogTest, SparseAddMatchesRedisBytes) {
  std::string hll(Empty());
  EXPECT_EQ(AddAll(hll, {"a", "b", "c"}), 3);
  EXPECT_EQ(hll, FromHex("48594c4c01000000000000000000008060f38050b1844bfb80425a"));
  EXPECT_FALSE(CacheValid(hll));
  EXPECT_EQ(AddAll(hll, {"a", "b", "c"}), 0);
}

TEST(HyperLogLogTest, DecodeSparseListsOpcodes) {
  std::string out;
  DecodeSparse(Sparse({"a"}), out);
  EXPECT_EQ(out, "Z:12711 v:2,1 Z:3672");
  DecodeSparse(Header(kSparse), out);
  EXPECT_EQ(out, "");
}

TEST(HyperLogLogTest, CountOfThousandSparse) {
  const std::string hll = Sparse(Numbered("", 0, 1000));
  EXPECT_EQ(EncodingOf(hll), kSparse);
  EXPECT_EQ(hll.size(), 1923u);
  EXPECT_EQ(Fnv(hll), 0x6331df2d5fdcbe26ull);
  EXPECT_EQ(Count(hll), 1001u);
}

TEST(HyperLogLogTest, DenseAfterManyAdds) {
  std::string hll = Sparse(Numbered("", 0, 20000));
  EXPECT_EQ(EncodingOf(hll), kDense);
  EXPECT_EQ(hll.size(), kDenseBytes);
  EXPECT_EQ(Fnv(hll), 0x2db57983d14477e6ull);
  const std::optional<std::uint64_t> count = Count(hll);
  EXPECT_EQ(count, 19891u);
  StoreCount(reinterpret_cast<std::uint8_t*>(hll.data()), *count);
  EXPECT_TRUE(CacheValid(hll));
  EXPECT_EQ(CachedCount(hll), 19891u);
  EXPECT_EQ(Fnv(hll), 0x7bcf2012ed07835eull);
}

TEST(HyperLogLogTest, PromotesWhereRedisDoes) {
  std::string hll(Empty());
  int promoted_at = -1;
  for (int i = 0; i < 5000 && promoted_at < 0; ++i) {
    AddAll(hll, {"e" + std::to_string(i)});
    if (EncodingOf(hll) == kDense) promoted_at = i;
  }
  EXPECT_EQ(promoted_at, 1683);
  EXPECT_EQ(Fnv(hll), 0x1dff1bb55f474a5dull);
}

TEST(HyperLogLogTest, CountPast32PromotesAtOnce) {
  // Found by search: this element's hash has 32 zeros after the register index.
  EXPECT_EQ(Observe("1692856687").index, 6288u);
  EXPECT_EQ(Observe("1692856687").count, 33);
  std::string hll = Sparse({"a", "b"});
  EXPECT_EQ(AddAll(hll, {"1692856687"}), 1);
  EXPECT_EQ(EncodingOf(hll), kDense);
  EXPECT_EQ(DenseRegister(hll, 6288), 33);
  EXPECT_EQ(DenseRegister(hll, 12711), 2);
  EXPECT_EQ(Count(hll), 3u);
}

TEST(HyperLogLogTest, SmallSparseLimitPromotesEarly) {
  const char* kSteps[] = {
      "48594c4c0100000000000000000000807a378445c6",
      "48594c4c010000000000000000000080659a80549b8445c6",
      "48594c4c010000000000000000000080659a8044a7804ff28445c6",
      "48594c4c0100000000000000000000804908845c908044a7804ff28445c6",
      "48594c4c0100000000000000000000804908845c2284406c8044a7804ff28445c6",
      "48594c4c01000000000000000000008049088445e888563884406c8044a7804ff28445c6",
      "48594c4c01000000000000000000008049088445e888563884406c8044a7802f844fc18445c6",
  };
  std::string hll(Empty());
  for (int i = 0; i < 7; ++i) {
    AddAll(hll, {"z" + std::to_string(i)}, 40);
    EXPECT_EQ(hll, FromHex(kSteps[i])) << i;
  }
  AddAll(hll, {"z7"}, 40);
  EXPECT_EQ(Fnv(hll), 0x692445a8de007647ull);
}

TEST(HyperLogLogTest, MergeOfSparseStaysSparse) {
  Registers max{};
  ASSERT_TRUE(MergeInto(Sparse(Numbered("x", 0, 300)), max));
  ASSERT_TRUE(MergeInto(Sparse(Numbered("y", 0, 300)), max));
  EXPECT_EQ(CountRegisters(max), 603u);
  std::string dest(Empty());
  StringHllBytes bytes(dest);
  StoreMax(bytes, max, 3000);
  InvalidateCache(bytes.data());
  EXPECT_EQ(dest.size(), 1221u);
  EXPECT_EQ(Fnv(dest), 0x40c78444b87af7eeull);
  EXPECT_EQ(Count(dest), 603u);
}

TEST(HyperLogLogTest, MergeWithDenseIsDense) {
  Registers max{};
  ASSERT_TRUE(MergeInto(Sparse(Numbered("x", 0, 300)), max));
  ASSERT_TRUE(MergeInto(Sparse(Numbered("", 0, 20000)), max));
  EXPECT_EQ(CountRegisters(max), 20181u);
  std::string dest(Empty());
  StringHllBytes bytes(dest);
  ASSERT_TRUE(ToDense(bytes));
  StoreMax(bytes, max, 3000);
  InvalidateCache(bytes.data());
  EXPECT_EQ(Fnv(dest), 0x20f8330c38c9b22bull);
}

TEST(HyperLogLogTest, ToDenseKeepsRegistersAndHeader) {
  std::string hll = Sparse(Numbered("", 0, 500));
  const std::optional<std::uint64_t> sparse_count = Count(hll);
  StoreCount(reinterpret_cast<std::uint8_t*>(hll.data()), 1234);
  StringHllBytes bytes(hll);
  ASSERT_TRUE(ToDense(bytes));
  EXPECT_EQ(hll.size(), kDenseBytes);
  EXPECT_EQ(CachedCount(hll), 1234u);
  EXPECT_EQ(Count(hll), sparse_count);
  EXPECT_EQ(DenseRegister(hll, Observe("0").index), Observe("0").count);
}

TEST(HyperLogLogTest, EstimatePastInt64IsTwoToThe63) {
  // Every register at 50: Redis's llroundl overflows, and the cached count has its stale bit.
  std::string hll = Header(kDense) + std::string(kDenseBytes - kHeaderBytes, '\0');
  StringHllBytes bytes(hll);
  for (std::uint32_t i = 0; i < kRegisters; ++i) SetRegister(bytes, i, 50, 3000);
  EXPECT_EQ(Count(hll), std::uint64_t{1} << 63);
  for (std::uint32_t i = 0; i < kRegisters; ++i) SetRegister(bytes, i, 49, 3000);
  EXPECT_EQ(Count(hll), std::uint64_t{1} << 63);  // registers only rise
}

TEST(HyperLogLogTest, HeaderChecks) {
  EXPECT_FALSE(IsHll("HYLL"));
  EXPECT_FALSE(IsHll(std::string("HYLX") + std::string(14, '\0')));
  EXPECT_FALSE(IsHll(Header(2) + Xzero(16384)));
  EXPECT_FALSE(IsHll(Header(kDense) + Xzero(16384)));
  EXPECT_TRUE(IsHll(Header(kDense) + std::string(kDenseBytes - kHeaderBytes, '\0')));
  EXPECT_TRUE(IsHll(Header(kSparse)));  // checked as it is used
}

struct CorruptCase {
  const char* name;
  std::string registers;
};

class HyperLogLogCorruptTest : public ::testing::TestWithParam<CorruptCase> {};

// The forms redis-server 7.0.15 (with the CVE-2025-32023 fix) calls corrupt for PFCOUNT,
// PFMERGE and PFDEBUG TODENSE alike.
TEST_P(HyperLogLogCorruptTest, EveryReaderRejectsIt) {
  const std::string hll = Header(kSparse) + GetParam().registers;
  ASSERT_TRUE(IsHll(hll));
  EXPECT_EQ(Count(hll), std::nullopt);
  Registers max{};
  EXPECT_FALSE(MergeInto(hll, max));
  std::string copy = hll;
  StringHllBytes bytes(copy);
  EXPECT_FALSE(ToDense(bytes));
  EXPECT_EQ(copy, hll);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, HyperLogLogCorruptTest,
    ::testing::Values(CorruptCase{"Empty", ""}, CorruptCase{"Short", Xzero(16000)},
                      CorruptCase{"ValPastEnd", Xzero(16384) + Val(1, 1)},
                      CorruptCase{"ZeroPastEnd", Xzero(16384) + std::string(1, '\0')},
                      CorruptCase{"XzeroPastEnd", Xzero(16384) + Xzero(5)},
                      CorruptCase{"ValAcrossEnd", Xzero(16383) + Val(1, 2)},
                      CorruptCase{"CutXzero", Xzero(16000) + std::string(1, '\x41')}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(HyperLogLogTest, AddToUncoveredRegisterIsCorrupt) {
  std::string hll = Header(kSparse) + Xzero(100);
  StringHllBytes bytes(hll);
  EXPECT_EQ(SetRegister(bytes, 5000, 3, 3000), Change::kCorrupt);
  EXPECT_EQ(SetRegister(bytes, 50, 3, 3000), Change::kChanged);
}

TEST(HyperLogLogTest, ValidFormsAgreeAcrossReaders) {
  const std::string hll = Header(kSparse) + Xzero(16383) + Val(3, 1);
  Registers max{};
  ASSERT_TRUE(MergeInto(hll, max));
  EXPECT_EQ(max[16383], 3);
  EXPECT_EQ(Count(hll), CountRegisters(max));
}

// Random bytes after a valid sparse header: every operation ends, stays inside the bytes
// (the sanitizer builds check), and the readers agree on whether the form is corrupt.
TEST(HyperLogLogTest, RandomSparseBytesNeverBreakTheCodec) {
  Random random(20240607);
  for (int round = 0; round < 3000; ++round) {
    std::string hll = Header(kSparse);
    const std::size_t len = random.Below(round % 10 == 0 ? 600 : 40);
    for (std::size_t i = 0; i < len; ++i) hll += static_cast<char>(random.Next());
    const std::optional<std::uint64_t> count = Count(hll);
    Registers max{};
    const bool merged = MergeInto(hll, max);
    std::string dense = hll;
    StringHllBytes dense_bytes(dense);
    const bool converted = ToDense(dense_bytes);
    EXPECT_EQ(merged, converted) << round;
    EXPECT_EQ(count.has_value(), converted) << round;
    if (count) {
      EXPECT_EQ(*count, CountRegisters(max)) << round;
    }
    std::string decoded;
    DecodeSparse(hll, decoded);
    StringHllBytes bytes(hll);
    const std::size_t sparse_max = random.Below(2) != 0 ? 3000 : 30;
    for (int k = 0; k < 8; ++k) {
      const Change change =
          SetRegister(bytes, static_cast<std::uint32_t>(random.Below(kRegisters)),
                      static_cast<std::uint8_t>(1 + random.Below(40)), sparse_max);
      if (change == Change::kCorrupt) break;
    }
    EXPECT_TRUE(IsHll(hll)) << round;
    (void)Count(hll);
  }
}

TEST(HyperLogLogTest, RandomDenseBytesAlwaysCount) {
  Random random(7);
  std::string hll = Header(kDense);
  for (std::size_t i = kHeaderBytes; i < kDenseBytes; ++i) hll += static_cast<char>(random.Next());
  ASSERT_TRUE(IsHll(hll));
  EXPECT_TRUE(Count(hll).has_value());
  Registers max{};
  EXPECT_TRUE(MergeInto(hll, max));
  for (std::size_t i = 0; i < kRegisters; ++i) ASSERT_EQ(max[i], DenseRegister(hll, i)) << i;
}

// The block reader against a walk one byte at a time: every pattern of XZERO-looking bytes, with
// and without an XZERO begun in the block before.
TEST(HyperLogLogTest, SplitXzerosMatchesSequentialWalk) {
  for (unsigned carry = 0; carry < 2; ++carry) {
    for (unsigned looks = 0; looks < (1u << 16); ++looks) {
      unsigned starts = 0, seconds = 0;
      bool second = carry != 0;
      for (unsigned i = 0; i < 16; ++i) {
        if (second) {
          seconds |= 1u << i;
          second = false;
        } else if ((looks >> i) & 1) {
          starts |= 1u << i;
          second = true;
        }
      }
      const XzeroSplit split = SplitXzeros(looks, carry);
      ASSERT_EQ(split.starts, starts) << looks << " " << carry;
      ASSERT_EQ(split.seconds, seconds) << looks << " " << carry;
      ASSERT_EQ(split.carry, second ? 1u : 0u) << looks << " " << carry;
    }
  }
}

// Locate against Redis's walk of the opcodes, on random forms (XZEROs cut off by the end too).
TEST(HyperLogLogTest, LocateMatchesOpcodeWalk) {
  Random random(99);
  for (int round = 0; round < 3000; ++round) {
    std::string bytes;
    const std::size_t len = random.Below(round % 3 == 0 ? 200 : 40);
    for (std::size_t i = 0; i < len; ++i) {
      const auto r = static_cast<std::uint8_t>(random.Next());
      bytes += static_cast<char>(random.Below(3) == 0 ? (0x40 | (r & 0x3F)) : r);
    }
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    const auto* end = p + bytes.size();
    const auto index = static_cast<std::uint32_t>(random.Below(kRegisters));
    Located expected;
    std::uint64_t first = 0;
    for (const std::uint8_t* q = p; q < end;) {
      const Op op = ReadOp(q, end);
      if (index < first + op.span) {
        expected.at = q;
        expected.first = first;
        break;
      }
      expected.prev = q;
      first += op.span;
      q += op.bytes;
    }
    const Located got = Locate(p, end, index);
    ASSERT_EQ(got.at, expected.at) << round;
    if (got.at != nullptr) {
      ASSERT_EQ(got.first, expected.first) << round;
      ASSERT_EQ(got.prev, expected.prev) << round;
    }
  }
}

TEST(HyperLogLogTest, SelfTestPasses) { EXPECT_EQ(SelfTest(42, 3000), ""); }

}  // namespace
}  // namespace warden::storage::hll
