// The HyperLogLog representation (hyperloglog.h): the header, hashing, and the writes of
// PFADD and PFMERGE to dense and sparse forms, step for step as Redis makes them.
#include "storage/hyperloglog.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "storage/hyperloglog_format.h"

namespace warden::storage::hll {
namespace {

constexpr std::uint32_t kZeroMaxLen = 64;

// Appends a run of `len` zero registers as Redis writes one when it splits an opcode.
std::uint8_t* PutZeros(std::uint8_t* n, unsigned len) {
  if (len > kZeroMaxLen) {
    *n++ = static_cast<std::uint8_t>(0x40 | ((len - 1) >> 8));
    *n++ = static_cast<std::uint8_t>((len - 1) & 0xFF);
  } else {
    *n++ = static_cast<std::uint8_t>(len - 1);
  }
  return n;
}

// Calls visit(first register, value, count) for each VAL of a sparse form; false when the runs
// do not cover exactly kRegisters. The redis-server 7.0.15 of reference carries the fix for
// CVE-2025-32023, which stops at the first opcode of any kind that runs past the last register
// and calls the form corrupt, even when the registers before it add up.
template <typename Visit>
bool WalkSparse(std::string_view hll, Visit&& visit) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
  const auto* end = reinterpret_cast<const std::uint8_t*>(hll.data()) + hll.size();
  std::uint64_t idx = 0;
  while (p < end) {
    const Op op = ReadOp(p, end);
    if (idx + op.span > kRegisters) return false;
    if (IsVal(*p)) visit(idx, ValValue(*p), op.span);
    idx += op.span;
    p += op.bytes;
  }
  return idx == kRegisters;
}

Change Promote(HllBytes& hll, std::uint32_t index, std::uint8_t count) {
  if (!ToDense(hll)) return Change::kCorrupt;
  return DenseSet(hll.data() + kHeaderBytes, index, count) ? Change::kChanged : Change::kNone;
}

// hllSparseSet, step by step: find the opcode, update it in place or split it into up to five
// bytes, then merge equal VALs among the five opcodes from the one before the change.
Change SparseSet(HllBytes& hll, std::uint32_t index, std::uint8_t count,
                 std::size_t sparse_max_bytes) {
  if (count > kSparseMaxValue) return Promote(hll, index, count);
  std::uint8_t* base = hll.data();
  const Located loc = Locate(base + kHeaderBytes, base + hll.size(), index);
  if (loc.at == nullptr) return Change::kCorrupt;
  const std::size_t at = loc.at - base;
  const std::size_t prev = loc.prev == nullptr ? kHeaderBytes : loc.prev - base;
  const std::uint8_t op_byte = base[at];
  const Op op = ReadOp(base + at, base + hll.size());
  const bool has_next = at + op.bytes < hll.size();
  std::size_t size = hll.size();

  bool in_place = false;
  if (IsVal(op_byte)) {
    if (ValValue(op_byte) >= count) return Change::kNone;
    in_place = op.span == 1;
  } else if (IsZero(op_byte)) {
    in_place = op.span == 1;
  }
  if (in_place) {
    base[at] = ValOp(count, 1);
  } else {
    std::uint8_t seq[5];
    std::uint8_t* n = seq;
    const auto left = static_cast<unsigned>(index - loc.first);
    const auto right = static_cast<unsigned>(loc.first + op.span - 1 - index);
    if (IsVal(op_byte)) {
      const unsigned current = ValValue(op_byte);
      if (left != 0) *n++ = ValOp(current, left);
      *n++ = ValOp(count, 1);
      if (right != 0) *n++ = ValOp(current, right);
    } else {
      if (left != 0) n = PutZeros(n, left);
      *n++ = ValOp(count, 1);
      if (right != 0) n = PutZeros(n, right);
    }
    const auto seq_len = static_cast<std::ptrdiff_t>(n - seq);
    const std::ptrdiff_t delta = seq_len - static_cast<std::ptrdiff_t>(op.bytes);
    if (delta > 0 && size + delta > sparse_max_bytes) return Promote(hll, index, count);
    const std::size_t next = at + op.bytes;
    const std::size_t new_size = size + delta;
    if (delta > 0) {
      hll.Resize(new_size);
      base = hll.data();
    }
    if (delta != 0 && has_next) std::memmove(base + next + delta, base + next, size - next);
    // Past the new end only when the opcode was an XZERO cut off by the end.
    std::memcpy(base + at, seq, std::min<std::size_t>(seq_len, new_size - at));
    size = new_size;
  }

  std::uint8_t* p = base + prev;
  std::uint8_t* end = base + size;
  int scan = 5;
  while (p < end && scan-- != 0) {
    if (IsXzero(*p)) {
      p += 2;
      continue;
    }
    if (IsZero(*p)) {
      ++p;
      continue;
    }
    if (p + 1 < end && IsVal(p[1]) && ValValue(p[0]) == ValValue(p[1])) {
      const unsigned len = ValLen(p[0]) + ValLen(p[1]);
      if (len <= 4) {
        p[1] = ValOp(ValValue(p[0]), len);
        std::memmove(p, p + 1, end - p - 1);
        --end;
        continue;
      }
    }
    ++p;
  }
  size = end - base;
  if (size != hll.size()) hll.Resize(size);
  InvalidateCache(hll.data());
  return Change::kChanged;
}

}  // namespace

bool IsHll(std::string_view value) {
  if (value.size() < kHeaderBytes || value.substr(0, 4) != "HYLL") return false;
  const std::uint8_t encoding = EncodingOf(value);
  if (encoding > kSparse) return false;
  return encoding != kDense || value.size() == kDenseBytes;
}

std::string_view Empty() {
  static constexpr char kEmpty[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff";
  return {kEmpty, kHeaderBytes + 2};
}

std::uint64_t MurmurHash64A(std::string_view data, std::uint64_t seed) {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ull;
  constexpr int r = 47;
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::size_t len = data.size();
  std::uint64_t h = seed ^ (len * m);
  const std::uint8_t* end = p + (len - (len & 7));
  for (; p != end; p += 8) {
    std::uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = (k << 8) | p[i];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const std::size_t tail = len & 7;
  if (tail != 0) {
    for (std::size_t i = tail; i-- > 0;) h ^= static_cast<std::uint64_t>(p[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

Observation Observe(std::string_view element) {
  std::uint64_t hash = MurmurHash64A(element, 0xadc83b19ull);
  const auto index = static_cast<std::uint32_t>(hash & (kRegisters - 1));
  hash >>= 14;
  hash |= std::uint64_t{1} << kQ;  // at most kQ + 1
  return {index, static_cast<std::uint8_t>(std::countr_zero(hash) + 1)};
}

Change Add(HllBytes& hll, std::string_view element, std::size_t sparse_max_bytes) {
  const Observation o = Observe(element);
  return SetRegister(hll, o.index, o.count, sparse_max_bytes);
}

Change SetRegister(HllBytes& hll, std::uint32_t index, std::uint8_t count,
                   std::size_t sparse_max_bytes) {
  switch (hll.data()[4]) {
    case kDense:
      return DenseSet(hll.data() + kHeaderBytes, index, count) ? Change::kChanged : Change::kNone;
    case kSparse:
      return SparseSet(hll, index, count, sparse_max_bytes);
    default:
      return Change::kCorrupt;
  }
}

bool ToDense(HllBytes& hll) {
  if (hll.data()[4] == kDense) return true;
  std::uint8_t regs[kDenseRegisterBytes + 1] = {};
  const bool valid = WalkSparse(hll.view(), [&](std::uint64_t idx, unsigned value, unsigned len) {
    for (unsigned k = 0; k < len; ++k) DenseWrite(regs, idx + k, value);
  });
  if (!valid) return false;
  std::uint8_t header[kHeaderBytes];
  std::memcpy(header, hll.data(), kHeaderBytes);
  header[4] = kDense;
  hll.Resize(kDenseBytes);
  std::memcpy(hll.data(), header, kHeaderBytes);
  std::memcpy(hll.data() + kHeaderBytes, regs, kDenseRegisterBytes);
  return true;
}

bool CacheValid(std::string_view hll) { return (static_cast<std::uint8_t>(hll[15]) & 0x80) == 0; }

std::uint64_t CachedCount(std::string_view hll) {
  std::uint64_t count = 0;
  for (int i = 15; i >= 8; --i) count = (count << 8) | static_cast<std::uint8_t>(hll[i]);
  return count;
}

void StoreCount(std::uint8_t* hll, std::uint64_t count) {
  for (int i = 8; i < 16; ++i, count >>= 8) hll[i] = static_cast<std::uint8_t>(count);
}

void InvalidateCache(std::uint8_t* hll) { hll[15] |= 0x80; }

std::uint8_t DenseRegister(std::string_view hll, std::size_t index) {
  return DenseGet(reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes, index);
}

void DecodeSparse(std::string_view hll, std::string& out) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(hll.data()) + kHeaderBytes;
  const auto* end = reinterpret_cast<const std::uint8_t*>(hll.data()) + hll.size();
  out.clear();
  while (p < end) {
    const Op op = ReadOp(p, end);
    if (!out.empty()) out += ' ';
    if (IsVal(*p)) {
      out += "v:" + std::to_string(ValValue(*p)) + "," + std::to_string(op.span);
    } else {
      out += IsXzero(*p) ? "Z:" : "z:";
      out += std::to_string(op.span);
    }
    p += op.bytes;
  }
}

}  // namespace warden::storage::hll
