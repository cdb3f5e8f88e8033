// The small pieces of the HyperLogLog byte format (hyperloglog.h) that hyperloglog.cc (the
// representation and its writes) and hyperloglog_count.cc (the estimate, unions) share: dense
// register access, the sparse opcodes, and the block reader behind the fast sparse walks. Not an
// API: only those two files and the unit test include it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "storage/hyperloglog.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace warden::storage::hll {

// Registers are read and written several at a time through little-endian words (as on every
// machine warden runs on: the keyspace's tagged links assume x86-64 or AArch64 too).
static_assert(std::endian::native == std::endian::little);

inline constexpr std::size_t kDenseRegisterBytes = kDenseBytes - kHeaderBytes;
inline constexpr std::size_t kGroups = kRegisters / 8;  // 8 dense registers in 6 bytes
inline constexpr int kQ = 64 - 14;                      // hash bits left after the register index

// ---- The dense form: 6-bit registers packed from the low bit of each byte up.

inline std::uint8_t DenseGet(const std::uint8_t* regs, std::size_t i) {
  const std::size_t bit = i * 6;
  const std::size_t byte = bit / 8;
  const unsigned fb = bit & 7;
  unsigned v = regs[byte] >> fb;
  // Within one byte unless it starts past bit 2: the last register never reads past the end.
  if (fb > 2) v |= static_cast<unsigned>(regs[byte + 1]) << (8 - fb);
  return static_cast<std::uint8_t>(v & 63);
}

inline void DenseWrite(std::uint8_t* regs, std::size_t i, unsigned value) {
  const std::size_t bit = i * 6;
  const std::size_t byte = bit / 8;
  const unsigned fb = bit & 7;
  regs[byte] = static_cast<std::uint8_t>((regs[byte] & ~(63u << fb)) | (value << fb));
  if (fb > 2) {
    regs[byte + 1] =
        static_cast<std::uint8_t>((regs[byte + 1] & ~(63u >> (8 - fb))) | (value >> (8 - fb)));
  }
}

inline bool DenseSet(std::uint8_t* regs, std::size_t i, std::uint8_t count) {
  if (count <= DenseGet(regs, i)) return false;
  DenseWrite(regs, i, count);
  return true;
}

// Group g's 8 registers as they are packed (48 bits, register 8g in the low 6).
inline std::uint64_t PackedGroup(const std::uint8_t* regs, std::size_t g) {
  std::uint32_t low;
  std::uint16_t high;
  std::memcpy(&low, regs + g * 6, 4);
  std::memcpy(&high, regs + g * 6 + 4, 2);
  return low | (std::uint64_t{high} << 32);
}

// Eight packed registers spread one per byte.
constexpr std::uint64_t Unpack(std::uint64_t w) {
  w = (w & 0xFFFFFFull) | ((w & 0xFFFFFF000000ull) << 8);
  w = (w & 0x00000FFF00000FFFull) | ((w & 0x00FFF00000FFF000ull) << 4);
  return (w & 0x003F003F003F003Full) | ((w & 0x0FC00FC00FC00FC0ull) << 2);
}

// ---- The sparse form.

constexpr std::uint8_t ValOp(unsigned value, unsigned len) {
  return static_cast<std::uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
constexpr bool IsVal(std::uint8_t b) { return (b & 0x80) != 0; }
constexpr bool IsXzero(std::uint8_t b) { return (b & 0xC0) == 0x40; }
constexpr bool IsZero(std::uint8_t b) { return (b & 0xC0) == 0; }
constexpr unsigned ValValue(std::uint8_t b) { return ((b >> 2) & 0x1F) + 1; }
constexpr unsigned ValLen(std::uint8_t b) { return (b & 3) + 1; }

// One opcode at p (< end): the registers it covers and its length. An XZERO cut off by the end
// reads its second byte as 0, the sds terminator Redis reads there.
struct Op {
  std::uint32_t span;
  std::uint32_t bytes;
};
inline Op ReadOp(const std::uint8_t* p, const std::uint8_t* end) {
  const std::uint8_t b = *p;
  if (IsVal(b)) return {ValLen(b), 1};
  if (IsXzero(b)) {
    const unsigned low = p + 1 < end ? p[1] : 0;
    return {(((b & 0x3Fu) << 8) | low) + 1, 2};
  }
  return {(b & 0x3Fu) + 1, 1};
}

// Which of 16 bytes are second bytes of XZEROs (bit i: byte i), given which look like XZERO
// starts and whether byte 0 is the second byte of one begun before (carry). In a run of bytes that
// look like starts, every other one is a second byte, and so is the byte after a run of odd
// length: the rule of escaped characters after backslashes, so simdjson's branch-free way of
// finding those (json_escape_scanner) serves.
struct XzeroSplit {
  unsigned starts;   // XZERO starts
  unsigned seconds;  // second bytes
  unsigned carry;    // byte 15 starts an XZERO: the next block's byte 0 is its second
};
constexpr XzeroSplit SplitXzeros(unsigned looks, unsigned carry) {
  constexpr unsigned kOddBits = 0xAAAAAAAAu;
  const unsigned potential = looks & ~carry;
  const unsigned code = (((potential << 1) | kOddBits) - potential) ^ kOddBits;
  const unsigned starts = code & looks & 0xFFFFu;
  return {starts, (code ^ (looks | carry)) & 0xFFFFu, starts >> 15};
}

// The opcodes that start in 16 bytes (the second byte of an XZERO that starts at byte 15 is the
// next block's byte 0): the registers they cover, where they start, which are VALs. Reading
// blocks one after another needs no opcode-by-opcode walk, which is what makes the walks of a
// large sparse form fast. `p` must have 17 readable bytes.
struct Block {
  std::uint32_t span;
  unsigned starts;  // bit i: an opcode starts at byte i
  unsigned vals;    // bit i: a VAL starts at byte i
  unsigned carry;
};
inline constexpr std::ptrdiff_t kBlockBytes = 16;

#if defined(__SSE2__)
// Bytes set to 0xFF where `bits` (16) are set.
[[gnu::always_inline]] inline __m128i ByteMask(unsigned bits) {
  const __m128i spread =
      _mm_set_epi64x(static_cast<std::int64_t>((bits >> 8) * 0x0101010101010101ull),
                     static_cast<std::int64_t>((bits & 0xFF) * 0x0101010101010101ull));
  const __m128i bit = _mm_set1_epi64x(static_cast<std::int64_t>(0x8040201008040201ull));
  return _mm_cmpeq_epi8(_mm_and_si128(spread, bit), bit);
}

inline std::uint32_t SumBytes(__m128i v) {
  const __m128i sums = _mm_sad_epu8(v, _mm_setzero_si128());
  return static_cast<std::uint32_t>(_mm_cvtsi128_si32(sums) +
                                    _mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
}

// Inlined into each walk: a call per block would cost as much as the block.
[[gnu::always_inline]] inline Block ReadBlock(const std::uint8_t* p, unsigned carry) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i top = _mm_and_si128(v, _mm_set1_epi8(static_cast<char>(0xC0)));
  const auto looks =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(top, _mm_set1_epi8(0x40))));
  const __m128i is_val = _mm_cmplt_epi8(v, _mm_setzero_si128());
  const auto val_bits = static_cast<unsigned>(_mm_movemask_epi8(is_val));
  // A VAL covers its low 2 bits + 1, a ZERO its low 6 + 1, an XZERO its high 6 bits and next
  // byte + 1 (that 1 counted with the one-byte spans, as their masks do not overlap).
  const __m128i six = _mm_and_si128(v, _mm_set1_epi8(0x3F));
  const __m128i spans =
      _mm_add_epi8(_mm_or_si128(_mm_andnot_si128(is_val, six),
                                _mm_and_si128(is_val, _mm_and_si128(v, _mm_set1_epi8(3)))),
                   _mm_set1_epi8(1));
  // Where many registers are set, most blocks hold no XZERO.
  if ((looks | carry) == 0) return {SumBytes(spans), 0xFFFFu, val_bits, 0};
  const XzeroSplit split = SplitXzeros(looks, carry);
  const unsigned ones = ~(looks | split.seconds) & 0xFFFFu;  // one-byte opcodes
  const __m128i low_bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
  const __m128i xzero = ByteMask(split.starts);
  const __m128i ones_and_xzero_ones =
      _mm_or_si128(_mm_and_si128(spans, ByteMask(ones)), _mm_and_si128(xzero, _mm_set1_epi8(1)));
  const std::uint32_t span = SumBytes(ones_and_xzero_ones) +
                             (SumBytes(_mm_and_si128(six, xzero)) << 8) +
                             SumBytes(_mm_and_si128(low_bytes, xzero));
  return {span, ones | split.starts, val_bits & ones, split.carry};
}
#else
inline Block ReadBlock(const std::uint8_t* p, unsigned carry) {
  Block b{0, 0, 0, 0};
  for (unsigned i = carry; i < 16;) {
    const Op op = ReadOp(p + i, p + 17);
    b.span += op.span;
    b.starts |= 1u << i;
    if (IsVal(p[i])) b.vals |= 1u << i;
    if (i == 15 && op.bytes == 2) b.carry = 1;
    i += op.bytes;
  }
  return b;
}
#endif

// The opcode that covers register `index`, its first register, and the opcode before it.
struct Located {
  const std::uint8_t* at = nullptr;  // nullptr: the opcodes end first (corrupt)
  const std::uint8_t* prev = nullptr;
  std::uint64_t first = 0;
};

// The walk PFADD makes on every sparse write, most of its time on a large sparse form: a block at
// a time up to the block that holds `index`, then one opcode at a time.
inline Located Locate(const std::uint8_t* p, const std::uint8_t* end, std::uint32_t index) {
  Located out;
  std::uint64_t first = 0;
  unsigned carry = 0;
  while (end - p > kBlockBytes) {
    const Block block = ReadBlock(p, carry);
    if (first + block.span > index) break;
    first += block.span;
    out.prev = p + (31 - std::countl_zero(block.starts));
    carry = block.carry;
    p += kBlockBytes;
  }
  p += carry;
  while (p < end) {
    const Op op = ReadOp(p, end);
    if (index < first + op.span) {
      out.at = p;
      out.first = first;
      return out;
    }
    out.prev = p;
    p += op.bytes;
    first += op.span;
  }
  return out;
}

}  // namespace warden::storage::hll
