// Redis 7.0's HyperLogLog (hyperloglog.c), byte for byte: the representation a HyperLogLog string
// holds and the changes PFADD, PFCOUNT and PFMERGE make to it. It knows nothing of RESP or keys:
// the caller owns the bytes and says how they grow (HllBytes).
//
// Layout: a 16-byte header, "HYLL", the encoding byte (0 dense, 1 sparse), three unused bytes and
// the cached cardinality in 8 little-endian bytes whose top bit marks the cache stale; then 16384
// registers, each the longest run of zeros (plus one) seen in the hashes that address it. Dense
// registers are 6 bits each, packed from the low bit of each byte up (12288 bytes). The sparse
// form is a run-length code of them:
//   ZERO  00xxxxxx           xxxxxx + 1 registers (1..64) at 0
//   XZERO 01xxxxxx yyyyyyyy  xxxxxxyyyyyyyy + 1 registers (1..16384) at 0
//   VAL   1vvvvvxx           xx + 1 registers (1..4) at vvvvv + 1 (1..32)
// A new HyperLogLog is sparse; it turns dense for good when a register needs more than 32 or the
// sparse form would grow past hll-sparse-max-bytes. The sparse bytes depend on the order of the
// writes that made them (adjacent VALs are merged only near the change), so every change takes
// Redis's steps exactly.
//
// Any bytes that pass IsHll are handled without reading outside them and without looping. Where
// Redis reads the byte after the string (an XZERO cut off by the end), it reads sds's terminating
// zero, and so does this code (as 0); but once Redis has itself split such an XZERO, the byte it
// left past the end can be another, which warden does not keep (a known difference, on bytes no
// well-formed HyperLogLog leads to). A sparse form whose runs do not cover exactly 16384 registers
// is corrupt, and is reported where Redis reports it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warden::storage::hll {

inline constexpr std::size_t kHeaderBytes = 16;
inline constexpr std::size_t kRegisters = 16384;
inline constexpr std::size_t kDenseBytes = kHeaderBytes + kRegisters * 6 / 8;  // 12304
inline constexpr std::uint8_t kDense = 0;
inline constexpr std::uint8_t kSparse = 1;
// The largest count a sparse VAL holds.
inline constexpr std::uint8_t kSparseMaxValue = 32;

// One byte per register: the merged registers of several HyperLogLogs (PFCOUNT of several keys,
// PFMERGE), and a mark for each word of eight registers a merge may have raised, so that counting
// and storing skip the words still zero (most of them, in a union of sparse forms). The last mark
// is a sink that merges write when they raise nothing.
struct Registers {
  std::array<std::uint8_t, kRegisters> values{};
  std::array<std::uint8_t, kRegisters / 8 + 1> raised{};
  std::uint8_t operator[](std::size_t i) const { return values[i]; }
};

// The bytes of a HyperLogLog being changed: a keyspace entry's value, or a std::string.
// Resize(n) keeps the first min(n, size()) bytes (the rest are the caller's to write) and sets
// data_ and size_, which may move.
class HllBytes {
 public:
  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::string_view view() const { return {reinterpret_cast<const char*>(data_), size_}; }
  virtual void Resize(std::size_t size) = 0;

 protected:
  ~HllBytes() = default;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// HllBytes over a std::string (tests, PFSELFTEST).
class StringHllBytes final : public HllBytes {
 public:
  explicit StringHllBytes(std::string& s) : s_(s) { Sync(); }
  void Resize(std::size_t size) override {
    s_.resize(size);
    Sync();
  }

 private:
  void Sync() {
    data_ = reinterpret_cast<std::uint8_t*>(s_.data());
    size_ = s_.size();
  }
  std::string& s_;
};

// What one register write did (hllSparseSet's 1, 0 and -1).
enum class Change { kNone, kChanged, kCorrupt };

// Redis's isHLLObjectOrReply on a string's bytes: long enough for the header, the magic, a
// known encoding, and a dense one exactly kDenseBytes long. Sparse bytes are checked as used.
bool IsHll(std::string_view value);
// The encoding byte of bytes that pass IsHll.
inline std::uint8_t EncodingOf(std::string_view value) {
  return static_cast<std::uint8_t>(value[4]);
}
// What PFADD and PFMERGE create: sparse, every register 0 (one XZERO), the cache valid at 0.
std::string_view Empty();

// Redis's MurmurHash64A (endian-neutral), as HyperLogLog hashes elements with seed 0xadc83b19.
std::uint64_t MurmurHash64A(std::string_view data, std::uint64_t seed);

// Where an element lands: its register and the count it offers (1..51).
struct Observation {
  std::uint32_t index;
  std::uint8_t count;
};
Observation Observe(std::string_view element);

// PFADD of one element (hllAdd): raises its register if the count is larger. A sparse change
// marks the cache stale itself (as Redis); a dense one leaves that to the caller.
Change Add(HllBytes& hll, std::string_view element, std::size_t sparse_max_bytes);
// Raises register `index` to `count` if it is lower (hllDenseSet or hllSparseSet), turning a
// sparse form dense when Redis does.
Change SetRegister(HllBytes& hll, std::uint32_t index, std::uint8_t count,
                   std::size_t sparse_max_bytes);
// hllSparseToDense: true once the form is dense (a dense one is left alone); false, with the
// bytes unchanged, when the sparse form is corrupt. The header is kept, cache included.
bool ToDense(HllBytes& hll);

// The cached cardinality in the header of `hll` (at least kHeaderBytes).
bool CacheValid(std::string_view hll);
std::uint64_t CachedCount(std::string_view hll);
void StoreCount(std::uint8_t* hll, std::uint64_t count);
void InvalidateCache(std::uint8_t* hll);

// PFCOUNT's estimate of one HyperLogLog (hllCount); nullopt when its sparse form is corrupt.
std::optional<std::uint64_t> Count(std::string_view hll);
// Raises `max` to the registers of `hll` (hllMerge); false when its sparse form is corrupt (then
// `max` may hold part of it).
bool MergeInto(std::string_view hll, Registers& max);
// The estimate of registers held one per byte (PFCOUNT of several keys).
std::uint64_t CountRegisters(const Registers& registers);
// PFMERGE's write of merged registers into its destination: each non-zero one, in order, with
// SetRegister (so that the sparse bytes are Redis's).
void StoreMax(HllBytes& hll, const Registers& max, std::size_t sparse_max_bytes);

// A dense register (PFDEBUG GETREG); `hll` must be dense.
std::uint8_t DenseRegister(std::string_view hll, std::size_t index);
// PFDEBUG DECODE of a sparse form: "z:<n>", "Z:<n>" and "v:<value>,<n>" separated by spaces.
void DecodeSparse(std::string_view hll, std::string& out);

// PFSELFTEST: register access of the dense form, and the estimate of dense and sparse forms
// against each other and the true count up to 10^7. Returns what failed after "TESTFAILED ",
// or an empty string. Draws from `seed`; takes a second or so.
std::string SelfTest(std::uint64_t seed, std::size_t sparse_max_bytes);

}  // namespace warden::storage::hll
