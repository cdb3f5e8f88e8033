// The bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP (Redis's bitops.c), over
// strings read and written in place. Counting, searching and BITOP go 32 bytes a step (POPCNT
// where the CPU has it), so BITCOUNT of a megabyte is tens of microseconds, and BITOP writes
// its result straight into the destination's entry: no copy of a source is made.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "protocol/request_parser.h"
#include "server/commands/bit_ops.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

using storage::Entry;
using storage::ValueType;

// Zeros for a new bitmap small enough for the entry pool: stored at its exact size at once.
constexpr char kZeros[256] = {};

std::uint64_t LoadWord(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

void StoreWord(unsigned char* p, std::uint64_t w) { std::memcpy(p, &w, sizeof(w)); }

// 16 bytes as one value, whose operations GCC and Clang compile to SSE2 instructions: BITOP
// goes 32 bytes a step, several times faster than word by word.
using Block = std::uint64_t __attribute__((vector_size(16)));

Block LoadBlock(const unsigned char* p) {
  Block b;
  std::memcpy(&b, p, sizeof(b));
  return b;
}

void StoreBlock(unsigned char* p, Block b) { std::memcpy(p, &b, sizeof(b)); }

// A word whose first byte in memory is its most significant: bit 0 of a bitmap is the top bit
// of its first byte.
std::uint64_t BigEndianWord(const unsigned char* p) {
  const std::uint64_t w = LoadWord(p);
  if constexpr (std::endian::native == std::endian::little) return __builtin_bswap64(w);
  return w;
}

// Bits set in p[0, n). Built twice, the POPCNT build chosen at load time when the CPU has it
// (without it a 64-bit popcount is a library call).
[[gnu::target_clones("popcnt", "default")]] std::uint64_t CountOnes(const unsigned char* p,
                                                                    std::size_t n) {
  std::uint64_t a = 0, b = 0, c = 0, d = 0;
  for (; n >= 32; p += 32, n -= 32) {
    a += static_cast<std::uint64_t>(__builtin_popcountll(LoadWord(p)));
    b += static_cast<std::uint64_t>(__builtin_popcountll(LoadWord(p + 8)));
    c += static_cast<std::uint64_t>(__builtin_popcountll(LoadWord(p + 16)));
    d += static_cast<std::uint64_t>(__builtin_popcountll(LoadWord(p + 24)));
  }
  for (; n >= 8; p += 8, n -= 8) {
    a += static_cast<std::uint64_t>(__builtin_popcountll(LoadWord(p)));
  }
  for (; n > 0; ++p, --n) b += static_cast<std::uint64_t>(__builtin_popcount(*p));
  return a + b + c + d;
}

// Redis's redisBitpos: the position of the first bit equal to `bit` in p[0, n). None: -1 when
// looking for a 1, n * 8 when looking for a 0 (a string reads as padded with zeros).
std::int64_t FindBit(const unsigned char* p, std::size_t n, bool bit) {
  const std::uint64_t skip = bit ? 0 : ~std::uint64_t{0};
  std::size_t i = 0;
  // Runs of the other bit are skipped 32 bytes at a time, then the word is found.
  for (; i + 32 <= n; i += 32) {
    const std::uint64_t differ = (LoadWord(p + i) ^ skip) | (LoadWord(p + i + 8) ^ skip) |
                                 (LoadWord(p + i + 16) ^ skip) | (LoadWord(p + i + 24) ^ skip);
    if (differ != 0) break;
  }
  for (; i + 8 <= n; i += 8) {
    if (LoadWord(p + i) != skip) {
      const std::uint64_t w = BigEndianWord(p + i) ^ skip;
      return static_cast<std::int64_t>(i * 8) + std::countl_zero(w);
    }
  }
  for (; i < n; ++i) {
    const auto byte = static_cast<std::uint8_t>(bit ? p[i] : ~p[i]);
    if (byte != 0) return static_cast<std::int64_t>(i * 8) + std::countl_zero(byte);
  }
  return bit ? -1 : static_cast<std::int64_t>(n * 8);
}

// A BITCOUNT or BITPOS range in bytes, both ends inclusive (empty when start > end). Given in
// bits, the edge bytes carry masks of their bits outside the range.
struct ByteRange {
  std::int64_t start = 0;
  std::int64_t end = -1;
  std::uint8_t first_mask = 0;
  std::uint8_t last_mask = 0;
};

// Redis's conversion: negative indexes count from the end, then the range is clipped to the
// string (`len` bytes).
ByteRange ClipRange(std::int64_t start, std::int64_t end, std::int64_t len, bool in_bits) {
  const std::int64_t total = in_bits ? len * 8 : len;
  if (start < 0) start += total;
  if (end < 0) end += total;
  start = std::max<std::int64_t>(start, 0);
  end = std::max<std::int64_t>(end, 0);
  if (end >= total) end = total - 1;
  ByteRange r{start, end};
  if (in_bits && start <= end) {
    r.first_mask = static_cast<std::uint8_t>(~((1u << (8 - (start & 7))) - 1));
    r.last_mask = static_cast<std::uint8_t>((1u << (7 - (end & 7))) - 1);
    r.start = start >> 3;
    r.end = end >> 3;
  }
  return r;
}

// Reads BIT or BYTE (as strcasecmp reads it); false after replying a syntax error.
[[nodiscard]] bool UnitArg(CommandContext& ctx, std::string_view arg, bool& in_bits) {
  if (CStringArgIs(arg, "bit")) {
    in_bits = true;
  } else if (CStringArgIs(arg, "byte")) {
    in_bits = false;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

// BITPOS over a non-empty range of `p`, as Redis searches it: the edge bytes with their bits
// outside the range forced to the other value, the whole bytes between at word speed. With
// `end_given`, a 0 just past the range is not an answer.
std::int64_t BitposIn(const unsigned char* p, const ByteRange& r, bool bit, bool end_given) {
  const auto edge = [bit](std::uint8_t byte, std::uint8_t mask) {
    return static_cast<std::uint8_t>(bit ? byte & ~mask : byte | mask);
  };
  std::int64_t start = r.start;
  std::int64_t bytes = r.end - r.start + 1;
  std::int64_t pos = -1;
  bool found = false;
  if (r.first_mask != 0) {
    std::uint8_t byte = edge(p[start], r.first_mask);
    if (r.last_mask != 0 && bytes == 1) byte = edge(byte, r.last_mask);
    pos = FindBit(&byte, 1, bit);
    found = bytes == 1 || (pos != -1 && pos != 8);
    if (!found) {
      ++start;
      --bytes;
    }
  }
  if (!found) {
    const std::int64_t middle = bytes - (r.last_mask != 0 ? 1 : 0);
    if (middle > 0) {
      pos = FindBit(p + start, static_cast<std::size_t>(middle), bit);
      found = bytes == middle || (pos != -1 && pos != middle * 8);
      if (!found) {
        start += middle;
        bytes -= middle;
      }
    }
  }
  if (!found) {
    const std::uint8_t byte = edge(p[r.end], r.last_mask);
    pos = FindBit(&byte, 1, bit);
  }
  if (end_given && !bit && pos == bytes * 8) return -1;
  return pos == -1 ? -1 : pos + start * 8;
}

enum class BitOp { kAnd, kOr, kXor, kNot };

// out[i] = out[i] op in[i] for i < n.
template <typename Op>
void FoldInto(unsigned char* out, const unsigned char* in, std::size_t n, Op op) {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    StoreBlock(out + i, op(LoadBlock(out + i), LoadBlock(in + i)));
    StoreBlock(out + i + 16, op(LoadBlock(out + i + 16), LoadBlock(in + i + 16)));
  }
  for (; i + 8 <= n; i += 8) StoreWord(out + i, op(LoadWord(out + i), LoadWord(in + i)));
  for (; i < n; ++i) out[i] = static_cast<unsigned char>(op(out[i], in[i]));
}

void Fold(BitOp op, unsigned char* out, const unsigned char* in, std::size_t n) {
  switch (op) {
    case BitOp::kAnd:
      FoldInto(out, in, n, [](auto a, auto b) { return a & b; });
      break;
    case BitOp::kOr:
      FoldInto(out, in, n, [](auto a, auto b) { return a | b; });
      break;
    case BitOp::kXor:
      FoldInto(out, in, n, [](auto a, auto b) { return a ^ b; });
      break;
    case BitOp::kNot:
      break;
  }
}

void Invert(unsigned char* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    StoreBlock(out + i, ~LoadBlock(out + i));
    StoreBlock(out + i + 16, ~LoadBlock(out + i + 16));
  }
  for (; i + 8 <= n; i += 8) StoreWord(out + i, ~LoadWord(out + i));
  for (; i < n; ++i) out[i] = static_cast<unsigned char>(~out[i]);
}

// One BITOP source: its bytes (null for a missing key) and the entry they live in.
struct BitopSource {
  const unsigned char* bytes = nullptr;
  std::size_t len = 0;
  const Entry* entry = nullptr;
};

// Writes `op` of `sources` into `out` (max_len bytes), which already holds the source
// `sources[acc]` padded with zeros; sources marked by `skip` are left out (the destination's
// own other mentions, settled by the caller). Works in slices that fit the L1 cache, every
// source folded into one slice before the next, so the result goes to memory once.
void FoldSources(BitOp op, std::span<const BitopSource> sources, const Entry* skip, std::size_t acc,
                 unsigned char* out, std::size_t max_len, std::size_t min_len) {
  if (op == BitOp::kNot) {
    Invert(out, max_len);
    return;
  }
  // AND past the shortest source is 0; OR and XOR take each source over its own length.
  if (op == BitOp::kAnd) std::memset(out + min_len, 0, max_len - min_len);
  const std::size_t limit = op == BitOp::kAnd ? min_len : max_len;
  constexpr std::size_t kSlice = 8192;
  for (std::size_t from = 0; from < limit; from += kSlice) {
    const std::size_t to = std::min(from + kSlice, limit);
    for (std::size_t j = 0; j < sources.size(); ++j) {
      const BitopSource& s = sources[j];
      if (j == acc || (skip != nullptr && s.entry == skip)) continue;
      const std::size_t until = std::min(to, s.len);
      if (from < until) Fold(op, out + from, s.bytes + from, until - from);
    }
  }
}

}  // namespace

bool CStringArgIs(std::string_view arg, std::string_view lower_name) {
  return ArgIs(arg.substr(0, arg.find('\0')), lower_name);
}

bool ParseBitOffset(std::string_view arg, int hash_bits, std::int64_t max_bytes,
                    std::uint64_t& offset) {
  const bool hash = hash_bits > 0 && !arg.empty() && arg[0] == '#';
  std::int64_t n = 0;
  if (!protocol::ParseStrictInt64(hash ? arg.substr(1) : arg, n)) return false;
  // Redis multiplies in a long long, which wraps on x86-64: "#2305843009213693953" of u8 is 8.
  if (hash) {
    n = static_cast<std::int64_t>(static_cast<std::uint64_t>(n) *
                                  static_cast<std::uint64_t>(hash_bits));
  }
  if (n < 0 || (n >> 3) >= max_bytes) return false;
  offset = static_cast<std::uint64_t>(n);
  return true;
}

bool BitOffsetArg(CommandContext& ctx, std::string_view arg, int hash_bits, std::uint64_t& offset) {
  if (ParseBitOffset(arg, hash_bits, ctx.server.config.proto_max_bulk_len, offset)) return true;
  ctx.reply.Error(errors::kBitOffset);
  return false;
}

bool LookupStringForBits(CommandContext& ctx, std::string_view key, std::uint64_t max_bit,
                         Entry*& entry, bool& grown) {
  storage::Keyspace& keyspace = ctx.keyspace();
  entry = keyspace.Find(key, ctx.now_ms);
  if (entry != nullptr && !entry->is_string()) {
    ctx.reply.Error(errors::kWrongType);
    return false;
  }
  const std::uint64_t needed = (max_bit >> 3) + 1;
  // BITFIELD may write up to 8 bytes past proto-max-bulk-len, which at its largest is past what
  // an entry holds.
  if (needed > storage::Keyspace::kMaxLength) {
    ctx.reply.Error(errors::kStringTooLong);
    return false;
  }
  grown = false;
  if (entry == nullptr) {
    const std::string_view zeros(kZeros, needed <= sizeof(kZeros) ? needed : 0);
    entry =
        keyspace.Store(key, zeros, storage::kNoDeadline, nullptr, storage::Encoding::kStringRaw);
    NotifyNew(ctx, key);
    grown = true;
  }
  const std::size_t len = entry->value().size();
  if (len < needed) {
    entry = keyspace.ResizeValue(entry, needed, storage::Encoding::kStringRaw);
    std::memset(storage::Keyspace::ValueBytes(entry) + len, 0, needed - len);
    grown = true;
  } else {
    storage::Keyspace::SetStringEncoding(entry, storage::Encoding::kStringRaw);
  }
  return true;
}

void SetbitCommand(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!BitOffsetArg(ctx, ctx.arg(2), 0, offset)) return;
  std::int64_t on = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(3), on) || (on & ~std::int64_t{1}) != 0) {
    ctx.reply.Error(errors::kBitValue);
    return;
  }
  Entry* entry = nullptr;
  bool grown = false;
  if (!LookupStringForBits(ctx, ctx.arg(1), offset, entry, grown)) return;
  char* byte = storage::Keyspace::ValueBytes(entry) + (offset >> 3);
  const unsigned shift = 7 - static_cast<unsigned>(offset & 7);
  const std::int64_t old = (static_cast<unsigned char>(*byte) >> shift) & 1;
  // Redis counts a change (and notifies) only when the key was created or grown or the bit flips.
  if (grown || old != on) {
    *byte = static_cast<char>((static_cast<unsigned char>(*byte) & ~(1u << shift)) |
                              (static_cast<unsigned>(on) << shift));
    if (!grown) ctx.keyspace().NoteModified(ctx.arg(1));
    Notify(ctx, notify::kString, "setbit", ctx.arg(1));
  }
  ctx.reply.Integer(old);
}

void GetbitCommand(CommandContext& ctx) {
  std::uint64_t offset = 0;
  if (!BitOffsetArg(ctx, ctx.arg(2), 0, offset)) return;
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  int bit = 0;
  if (entry != nullptr) {
    const std::string_view value = entry->value();
    const std::uint64_t at = offset >> 3;
    if (at < value.size()) {
      bit = (static_cast<unsigned char>(value[at]) >> (7 - (offset & 7))) & 1;
    }
  }
  ctx.reply.Integer(bit);
}

void BitcountCommand(CommandContext& ctx) {
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  if (entry == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  const std::string_view value = entry->value();
  const auto* p = reinterpret_cast<const unsigned char*>(value.data());
  const auto len = static_cast<std::int64_t>(value.size());
  ByteRange r{0, len - 1};
  if (ctx.argc() == 4 || ctx.argc() == 5) {
    std::int64_t start = 0;
    std::int64_t end = 0;
    if (!IntegerArg(ctx, ctx.arg(2), start) || !IntegerArg(ctx, ctx.arg(3), end)) return;
    // Redis answers this before it reads BIT or BYTE.
    if (start < 0 && end < 0 && start > end) {
      ctx.reply.Integer(0);
      return;
    }
    bool in_bits = false;
    if (ctx.argc() == 5 && !UnitArg(ctx, ctx.arg(4), in_bits)) return;
    r = ClipRange(start, end, len, in_bits);
  } else if (ctx.argc() != 2) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (r.start > r.end) {
    ctx.reply.Integer(0);
    return;
  }
  std::uint64_t count = CountOnes(p + r.start, static_cast<std::size_t>(r.end - r.start + 1));
  count -= static_cast<std::uint64_t>(
      std::popcount(static_cast<std::uint8_t>(p[r.start] & r.first_mask)));
  count -=
      static_cast<std::uint64_t>(std::popcount(static_cast<std::uint8_t>(p[r.end] & r.last_mask)));
  ctx.reply.Integer(static_cast<std::int64_t>(count));
}

void BitposCommand(CommandContext& ctx) {
  std::int64_t bit = 0;
  if (!IntegerArg(ctx, ctx.arg(2), bit)) return;
  if (bit != 0 && bit != 1) {
    ctx.reply.Error(errors::kBitposBit);
    return;
  }
  Entry* entry = nullptr;
  if (!LookupTypedRead(ctx, ctx.arg(1), ValueType::kString, entry)) return;
  // A missing key is an endless run of zeros.
  if (entry == nullptr) {
    ctx.reply.Integer(bit != 0 ? -1 : 0);
    return;
  }
  const std::string_view value = entry->value();
  const auto* p = reinterpret_cast<const unsigned char*>(value.data());
  const auto len = static_cast<std::int64_t>(value.size());
  ByteRange r{0, len - 1};
  bool end_given = false;
  if (ctx.argc() >= 4 && ctx.argc() <= 6) {
    std::int64_t start = 0;
    if (!IntegerArg(ctx, ctx.arg(3), start)) return;
    // Redis reads BIT or BYTE before the end.
    bool in_bits = false;
    if (ctx.argc() == 6 && !UnitArg(ctx, ctx.arg(5), in_bits)) return;
    std::int64_t end = len - 1;
    if (ctx.argc() >= 5) {
      if (!IntegerArg(ctx, ctx.arg(4), end)) return;
      end_given = true;
    }
    r = ClipRange(start, end, len, in_bits);
  } else if (ctx.argc() != 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ctx.reply.Integer(r.start > r.end ? -1 : BitposIn(p, r, bit != 0, end_given));
}

void BitopCommand(CommandContext& ctx) {
  BitOp op;
  const std::string_view name = ctx.arg(1);
  if (CStringArgIs(name, "and")) {
    op = BitOp::kAnd;
  } else if (CStringArgIs(name, "or")) {
    op = BitOp::kOr;
  } else if (CStringArgIs(name, "xor")) {
    op = BitOp::kXor;
  } else if (CStringArgIs(name, "not")) {
    op = BitOp::kNot;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (op == BitOp::kNot && ctx.argc() != 4) {
    ctx.reply.Error(errors::kBitopNotOneKey);
    return;
  }
  storage::Keyspace& keyspace = ctx.keyspace();
  const std::string_view dest_key = ctx.arg(2);
  const std::size_t count = ctx.argc() - 3;
  BitopSource few[8];
  std::vector<BitopSource> many;
  if (count > std::size(few)) many.resize(count);
  const std::span<BitopSource> sources =
      count > std::size(few) ? std::span<BitopSource>(many) : std::span<BitopSource>(few, count);
  // Entries stay put while other keys are looked up (or expire), so the views hold until the
  // destination is written.
  std::size_t max_len = 0;
  std::size_t min_len = SIZE_MAX;
  std::size_t longest = 0;
  for (std::size_t j = 0; j < count; ++j) {
    const std::string_view key = ctx.arg(3 + j);
    Entry* e = keyspace.Find(key, ctx.now_ms);
    if (e == nullptr) {
      NotifyKeyMiss(ctx, key);
      min_len = 0;
      continue;
    }
    if (!e->is_string()) {
      ctx.reply.Error(errors::kWrongType);
      return;
    }
    const std::string_view v = e->value();
    sources[j] = {reinterpret_cast<const unsigned char*>(v.data()), v.size(), e};
    if (v.size() > max_len) {
      max_len = v.size();
      longest = j;
    }
    min_len = std::min(min_len, v.size());
  }
  if (max_len == 0) {
    // Redis's dbDelete, without a lookup first: a destination past its deadline is deleted
    // ("del", and BITOP is propagated), not expired.
    const Entry* dest = keyspace.Peek(dest_key);
    if (dest != nullptr) {
      keyspace.Erase(const_cast<Entry*>(dest));
      Notify(ctx, notify::kGeneric, "del", dest_key);
    }
    ctx.reply.Integer(0);
    return;
  }
  Entry* dest = keyspace.Find(dest_key, ctx.now_ms);
  const Entry* self = nullptr;  // the destination when it is also a source
  std::size_t self_mentions = 0;
  for (const BitopSource& s : sources) {
    if (dest != nullptr && s.entry == dest) ++self_mentions;
  }
  unsigned char* out = nullptr;
  if (self_mentions > 0) {
    // The result is computed over the destination's own bytes, in place: a byte of the result
    // depends only on the same byte of each source.
    self = dest;
    std::size_t acc = 0;
    while (sources[acc].entry != self) ++acc;
    const std::size_t old_len = dest->value().size();
    dest = keyspace.ResizeValue(dest, max_len, storage::Encoding::kStringRaw);
    if (dest->has_deadline()) keyspace.SetDeadline(dest, storage::kNoDeadline);
    out = reinterpret_cast<unsigned char*>(storage::Keyspace::ValueBytes(dest));
    std::memset(out + old_len, 0, max_len - old_len);
    // The destination's other mentions: x & x and x | x are x, x ^ x is 0.
    if (op == BitOp::kXor && (self_mentions - 1) % 2 == 1) std::memset(out, 0, old_len);
    FoldSources(op, sources, self, acc, out, max_len, min_len);
  } else {
    const bool created = dest == nullptr;
    const std::string_view first(reinterpret_cast<const char*>(sources[longest].bytes), max_len);
    dest =
        keyspace.Store(dest_key, first, storage::kNoDeadline, dest, storage::Encoding::kStringRaw);
    if (created) NotifyNew(ctx, dest_key);
    out = reinterpret_cast<unsigned char*>(storage::Keyspace::ValueBytes(dest));
    FoldSources(op, sources, nullptr, longest, out, max_len, min_len);
  }
  Notify(ctx, notify::kString, "set", dest_key);
  ctx.reply.Integer(static_cast<std::int64_t>(max_len));
}

}  // namespace warden::server
