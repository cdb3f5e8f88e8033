// The estimate of HyperLogLogs (PFCOUNT), their unions (PFCOUNT of several keys, PFMERGE) and
// PFSELFTEST: reading many registers at once, where Redis spends most of PFCOUNT's time.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "storage/hyperloglog.h"
#include "storage/hyperloglog_format.h"
#include "storage/random.h"

namespace warden::storage::hll {
namespace {

// ---- The estimate (Ertl, "New cardinality estimation algorithms for HyperLogLog sketches").

using Histogram = std::array<std::uint32_t, 64>;

double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1;
  double z = x;
  double z_prev;
  do {
    x *= x;
    z_prev = z;
    z += x * y;
    y += y;
  } while (z_prev != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0;
  double z = 1 - x;
  double z_prev;
  do {
    x = std::sqrt(x);
    z_prev = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prev != z);
  return z / 3;
}

std::uint64_t Estimate(const Histogram& h) {
  const double m = kRegisters;
  double z = m * Tau((m - h[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += h[j];
    z *= 0.5;
  }
  z += m * Sigma(h[0] / m);
  const double e = 0.721347520444481703680 * m * m / z;
  // Redis rounds with llroundl, which gives LLONG_MIN past the range; that becomes 2^63 as the
  // unsigned count (and so sets the stale bit when cached).
  if (!(e < 9223372036854775808.0)) return std::uint64_t{1} << 63;
  return static_cast<std::uint64_t>(std::llround(e));
}

// The histogram of registers taken eight at a time, packed: counted by pairs of registers in
// two tables of 4096, which halves the increments and spreads them over many counters, so that
// they seldom wait on each other (registers mostly share a few values). An all-zero group, common
// in a young dense form, is one addition.
class PairCounter {
 public:
  void Add(std::uint64_t packed) {
    if (packed == 0) {
      zeros_ += 8;
      return;
    }
    ++pairs_[0][packed & 0xFFF];
    ++pairs_[1][(packed >> 12) & 0xFFF];
    ++pairs_[0][(packed >> 24) & 0xFFF];
    ++pairs_[1][(packed >> 36) & 0xFFF];
  }
  Histogram Sum() const {
    // Entry a | b << 6 counts pairs of a (the first register) and b (the second).
    Histogram h{};
    for (unsigned b = 0; b < 64; ++b) {
      std::uint32_t seconds = 0;
      for (unsigned a = 0; a < 64; ++a) {
        const std::uint32_t n = pairs_[0][a | (b << 6)] + pairs_[1][a | (b << 6)];
        h[a] += n;
        seconds += n;
      }
      h[b] += seconds;
    }
    h[0] += zeros_;
    return h;
  }

 private:
  std::uint16_t pairs_[2][4096] = {};  // at most 4096 each
  std::uint32_t zeros_ = 0;
};

// The histogram of a sparse form (rotating over four tables, as above), and how many registers
// its runs cover (kRegisters unless corrupt).
std::uint64_t SparseHistogram(std::string_view hll, Histogram& h) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
  const auto* end = reinterpret_cast<const std::uint8_t*>(hll.data()) + hll.size();
  std::uint32_t t[4][64] = {};
  std::uint64_t covered = 0;
  std::uint64_t zeros = 0;
  unsigned k = 0;
  unsigned carry = 0;
  for (; end - p > kBlockBytes; p += kBlockBytes) {
    const Block block = ReadBlock(p, carry);
    zeros += block.span;
    for (unsigned bits = block.vals; bits != 0; bits &= bits - 1) {
      const std::uint8_t b = p[std::countr_zero(bits)];
      zeros -= ValLen(b);
      t[k++ & 3][ValValue(b)] += ValLen(b);
    }
    covered += block.span;
    carry = block.carry;
  }
  for (p += carry; p < end;) {
    const Op op = ReadOp(p, end);
    if (IsVal(*p)) {
      t[0][ValValue(*p)] += op.span;
    } else {
      zeros += op.span;
    }
    covered += op.span;
    p += op.bytes;
  }
  for (unsigned v = 0; v < 64; ++v) h[v] = t[0][v] + t[1][v] + t[2][v] + t[3][v];
  h[0] += static_cast<std::uint32_t>(zeros);
  return covered;
}

// Calls fn(first register) for each raised word of eight, in order.
template <typename Fn>
void ForEachRaisedWord(const Registers& registers, Fn&& fn) {
  for (std::size_t base = 0; base < kRegisters / 8; base += 64) {
    std::uint64_t bits = 0;
#if defined(__SSE2__)
    for (unsigned k = 0; k < 64; k += 16) {
      const __m128i v =
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(&registers.raised[base + k]));
      const auto zero =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
      bits |= std::uint64_t{~zero & 0xFFFFu} << k;
    }
#else
    for (unsigned k = 0; k < 64; ++k) bits |= std::uint64_t{registers.raised[base + k] != 0} << k;
#endif
    if (bits == ~std::uint64_t{0}) {
      for (std::size_t word = base; word < base + 64; ++word) fn(word * 8);
      continue;
    }
    for (; bits != 0; bits &= bits - 1) fn((base + std::countr_zero(bits)) * 8);
  }
}

}  // namespace

std::optional<std::uint64_t> Count(std::string_view hll) {
  if (EncodingOf(hll) == kDense) {
    const auto* regs = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
    PairCounter counter;
    for (std::size_t g = 0; g < kGroups; ++g) counter.Add(PackedGroup(regs, g));
    return Estimate(counter.Sum());
  }
  Histogram h;
  if (SparseHistogram(hll, h) != kRegisters) return std::nullopt;
  return Estimate(h);
}

bool MergeInto(std::string_view hll, Registers& max) {
  if (EncodingOf(hll) == kDense) {
    const auto* regs = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
    constexpr std::uint64_t kHigh = 0x8080808080808080ull;
    for (std::size_t g = 0; g < kGroups; ++g) {
      const std::uint64_t b = Unpack(PackedGroup(regs, g));
      std::uint64_t a;
      std::memcpy(&a, max.values.data() + g * 8, 8);
      // Byte-wise max of values below 128: a lane's top bit of (a | 128) - b says a >= b.
      const std::uint64_t a_wins = ((((a | kHigh) - b) & kHigh) >> 7) * 0xFF;
      a = (a & a_wins) | (b & ~a_wins);
      std::memcpy(max.values.data() + g * 8, &a, 8);
    }
    max.raised.fill(1);
    return true;
  }
  // ToDense's rules (an opcode that runs past the last register makes the form corrupt) without
  // its unpredictable branches: a one-byte opcode raises the four registers from its first to its
  // value (0 for a ZERO) where its run covers them, by a byte-wise max, and marks their words (or
  // the sink).
  constexpr std::size_t kSink = kRegisters / 8;
  const auto* p = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
  const auto* end = reinterpret_cast<const std::uint8_t*>(hll.data()) + hll.size();
  std::uint64_t idx = 0;
  while (p < end) {
    const std::uint8_t b = *p;
    const Op op = ReadOp(p, end);
    if (idx + op.span > kRegisters) return false;
    if (!IsXzero(b) && idx + 4 <= kRegisters) [[likely]] {
      const std::uint32_t value = IsVal(b) ? ValValue(b) : 0;
      const unsigned covered = op.span < 4 ? op.span : 4;
      const std::uint32_t raise =
          (value * 0x01010101u) &
          static_cast<std::uint32_t>((std::uint64_t{1} << (8 * covered)) - 1);
      std::uint32_t current;
      std::memcpy(&current, max.values.data() + idx, 4);
      const std::uint32_t keep = ((((current | 0x80808080u) - raise) & 0x80808080u) >> 7) * 0xFF;
      current = (current & keep) | (raise & ~keep);
      std::memcpy(max.values.data() + idx, &current, 4);
      max.raised[value != 0 ? idx / 8 : kSink] = 1;
      max.raised[value != 0 ? (idx + covered - 1) / 8 : kSink] = 1;
    } else if (IsVal(b)) {
      for (unsigned k = 0; k < op.span; ++k) {
        max.values[idx + k] = std::max<std::uint8_t>(max.values[idx + k], ValValue(b));
        max.raised[(idx + k) / 8] = 1;
      }
    }
    idx += op.span;
    p += op.bytes;
  }
  return idx == kRegisters;
}

std::uint64_t CountRegisters(const Registers& registers) {
  // Eight tables of counters (no fixed cost to speak of), and the words never raised are zeros.
  std::uint32_t t[8][64] = {};
  std::uint32_t zeros = kRegisters;
  ForEachRaisedWord(registers, [&](std::size_t first) {
    std::uint64_t w;
    std::memcpy(&w, registers.values.data() + first, 8);
    zeros -= 8;
    ++t[0][w & 63];
    ++t[1][(w >> 8) & 63];
    ++t[2][(w >> 16) & 63];
    ++t[3][(w >> 24) & 63];
    ++t[4][(w >> 32) & 63];
    ++t[5][(w >> 40) & 63];
    ++t[6][(w >> 48) & 63];
    ++t[7][w >> 56];
  });
  Histogram h{};
  for (unsigned v = 0; v < 64; ++v) {
    for (unsigned k = 0; k < 8; ++k) h[v] += t[k][v];
  }
  h[0] += zeros;
  return Estimate(h);
}

void StoreMax(HllBytes& hll, const Registers& max, std::size_t sparse_max_bytes) {
  ForEachRaisedWord(max, [&](std::size_t first) {
    for (std::size_t j = first; j < first + 8; ++j) {
      if (max[j] != 0) SetRegister(hll, static_cast<std::uint32_t>(j), max[j], sparse_max_bytes);
    }
  });
}

std::string SelfTest(std::uint64_t seed, std::size_t sparse_max_bytes) {
  Random random(seed);
  // Register access: random values everywhere, read back, a thousand times.
  std::string dense(kDenseBytes, '\0');
  std::memcpy(dense.data(), "HYLL", 4);
  auto* regs = reinterpret_cast<std::uint8_t*>(dense.data()) + kHeaderBytes;
  std::array<std::uint8_t, kRegisters> expected;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    for (std::size_t i = 0; i < kRegisters; i += 8) {
      std::uint64_t r = random.Next();
      for (std::size_t k = 0; k < 8; ++k, r >>= 6) {
        expected[i + k] = static_cast<std::uint8_t>(r & 63);
        DenseWrite(regs, i + k, r & 63);
      }
    }
    for (std::size_t i = 0; i < kRegisters; ++i) {
      const unsigned got = DenseGet(regs, i);
      if (got != expected[i]) {
        return "Register " + std::to_string(i) + " should be " + std::to_string(expected[i]) +
               " but is " + std::to_string(got);
      }
    }
  }
  // The estimate: a dense and a sparse form fed the same elements agree, the sparse one stays
  // sparse while small, and the error stays within six standard errors.
  std::fill(dense.begin() + kHeaderBytes, dense.end(), '\0');
  std::string sparse(Empty());
  StringHllBytes sparse_bytes(sparse);
  const double relative_error = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const std::uint64_t elements_seed = random.Next();
  std::uint64_t checkpoint = 1;
  for (std::uint64_t j = 1; j <= 10'000'000; ++j) {
    const std::uint64_t element = j ^ elements_seed;
    char bytes[8];
    for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>(element >> (8 * k));
    const Observation o = Observe({bytes, 8});
    DenseSet(regs, o.index, o.count);
    SetRegister(sparse_bytes, o.index, o.count, sparse_max_bytes);
    if (j != checkpoint) continue;
    if (j < sparse_max_bytes / 2 && EncodingOf(sparse) != kSparse) {
      return "sparse encoding not used";
    }
    const std::uint64_t count = Count(dense).value_or(0);
    if (count != Count(sparse).value_or(0)) return "dense/sparse disagree";
    const auto abs_error = static_cast<std::uint64_t>(
        std::llabs(static_cast<std::int64_t>(checkpoint) - static_cast<std::int64_t>(count)));
    std::uint64_t max_error =
        static_cast<std::uint64_t>(std::ceil(relative_error * 6 * static_cast<double>(checkpoint)));
    if (j == 10) max_error = 1;  // collisions make larger errors likely at 10 (as Redis says)
    if (abs_error > max_error) {
      return "Too big error. card:" + std::to_string(checkpoint) +
             " abserr:" + std::to_string(abs_error);
    }
    checkpoint *= 10;
  }
  return {};
}

}  // namespace warden::storage::hll
