// BITFIELD and BITFIELD_RO (Redis's bitops.c): signed integers of 1 to 64 bits and unsigned ones
// of 1 to 63 at any bit offset of a string, read (GET), written (SET) or incremented (INCRBY),
// an OVERFLOW of WRAP, SAT or FAIL applying to the subcommands after it.
//
// The subcommands are read twice, without an array: a first pass checks them all (an error
// leaves the key untouched) and finds the farthest bit written, a second runs them in order.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "protocol/request_parser.h"
#include "server/commands/bit_ops.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/notify.h"

namespace warden::server {
namespace {

using storage::Entry;

enum class Overflow { kWrap, kSat, kFail };
enum class FieldOpCode { kGet, kSet, kIncrBy };

struct FieldOp {
  FieldOpCode code = FieldOpCode::kGet;
  bool is_signed = false;
  int bits = 0;
  std::uint64_t offset = 0;
  std::int64_t value = 0;  // SET's value, INCRBY's increment
  Overflow overflow = Overflow::kWrap;
};

// Redis's getBitfieldTypeFromArgument: 'i' or 'u' (lower case) and the width, read up to a NUL
// as Redis reads it. u64 is refused: its values would not fit a RESP integer.
bool ParseFieldType(std::string_view arg, bool& is_signed, int& bits) {
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u')) return false;
  is_signed = arg[0] == 'i';
  std::string_view digits = arg.substr(1);
  digits = digits.substr(0, digits.find('\0'));
  std::int64_t n = 0;
  if (!protocol::ParseStrictInt64(digits, n) || n < 1 || n > (is_signed ? 64 : 63)) return false;
  bits = static_cast<int>(n);
  return true;
}

// Walks BITFIELD's arguments from the first subcommand on, one operation at a time, as Redis's
// parse loop reads them.
class FieldOpReader {
 public:
  enum class Step { kOp, kEnd, kError };

  explicit FieldOpReader(CommandContext& ctx) : ctx_(ctx) {}

  // The next operation in `op`; kError after replying the error.
  Step Next(FieldOp& op) {
    while (next_ < ctx_.argc()) {
      const std::size_t left = ctx_.argc() - next_ - 1;
      const std::string_view sub = ctx_.arg(next_);
      if (CStringArgIs(sub, "get") && left >= 2) {
        op.code = FieldOpCode::kGet;
      } else if (CStringArgIs(sub, "set") && left >= 3) {
        op.code = FieldOpCode::kSet;
      } else if (CStringArgIs(sub, "incrby") && left >= 3) {
        op.code = FieldOpCode::kIncrBy;
      } else if (CStringArgIs(sub, "overflow") && left >= 1) {
        const std::string_view kind = ctx_.arg(next_ + 1);
        if (CStringArgIs(kind, "wrap")) {
          overflow_ = Overflow::kWrap;
        } else if (CStringArgIs(kind, "sat")) {
          overflow_ = Overflow::kSat;
        } else if (CStringArgIs(kind, "fail")) {
          overflow_ = Overflow::kFail;
        } else {
          ctx_.reply.Error(errors::kBitfieldOverflow);
          return Step::kError;
        }
        next_ += 2;
        continue;
      } else {
        ctx_.reply.Error(errors::kSyntax);
        return Step::kError;
      }
      if (!ParseFieldType(ctx_.arg(next_ + 1), op.is_signed, op.bits)) {
        ctx_.reply.Error(errors::kBitfieldType);
        return Step::kError;
      }
      if (!BitOffsetArg(ctx_, ctx_.arg(next_ + 2), op.bits, op.offset)) return Step::kError;
      op.value = 0;
      if (op.code != FieldOpCode::kGet && !IntegerArg(ctx_, ctx_.arg(next_ + 3), op.value)) {
        return Step::kError;
      }
      op.overflow = overflow_;
      next_ += op.code == FieldOpCode::kGet ? 3 : 4;
      return Step::kOp;
    }
    return Step::kEnd;
  }

 private:
  CommandContext& ctx_;
  std::size_t next_ = 2;
  Overflow overflow_ = Overflow::kWrap;
};

// The bytes a field touches: its first byte, the bit it starts at in that byte, and how many
// bytes (up to 9) it spans.
struct FieldSpan {
  std::uint64_t first;
  int shift;
  int bytes;
};

FieldSpan SpanOf(std::uint64_t offset, int bits) {
  const int shift = static_cast<int>(offset & 7);
  return {offset >> 3, shift, (shift + bits + 7) / 8};
}

// The field's bits as an unsigned number; bytes at or past `len` read as 0.
std::uint64_t GetUnsigned(const unsigned char* p, std::size_t len, std::uint64_t offset, int bits) {
  const FieldSpan s = SpanOf(offset, bits);
  unsigned __int128 window = 0;
  for (int i = 0; i < s.bytes; ++i) {
    const std::uint64_t at = s.first + static_cast<std::uint64_t>(i);
    window = (window << 8) | (at < len ? p[at] : 0);
  }
  const int drop = s.bytes * 8 - s.shift - bits;
  const unsigned __int128 mask = (static_cast<unsigned __int128>(1) << bits) - 1;
  return static_cast<std::uint64_t>((window >> drop) & mask);
}

std::int64_t GetSigned(const unsigned char* p, std::size_t len, std::uint64_t offset, int bits) {
  std::uint64_t v = GetUnsigned(p, len, offset, bits);
  if (bits < 64 && ((v >> (bits - 1)) & 1) != 0) v |= ~std::uint64_t{0} << bits;
  return static_cast<std::int64_t>(v);
}

// Writes the low `bits` bits of `value`; the field's bytes must exist.
void SetField(unsigned char* p, std::uint64_t offset, int bits, std::uint64_t value) {
  const FieldSpan s = SpanOf(offset, bits);
  unsigned __int128 window = 0;
  for (int i = 0; i < s.bytes; ++i) window = (window << 8) | p[s.first + i];
  const int drop = s.bytes * 8 - s.shift - bits;
  const unsigned __int128 mask = ((static_cast<unsigned __int128>(1) << bits) - 1) << drop;
  window = (window & ~mask) | ((static_cast<unsigned __int128>(value) << drop) & mask);
  for (int i = s.bytes - 1; i >= 0; --i) {
    p[s.first + i] = static_cast<unsigned char>(window);
    window >>= 8;
  }
}

// Redis's checkUnsignedBitfieldOverflow, comparisons and quirks included: 0 when value + incr
// fits `bits` unsigned bits, else 1 (over) or -1 (under) with `limit` what WRAP or SAT stores.
int UnsignedOverflow(std::uint64_t value, std::int64_t incr, int bits, Overflow overflow,
                     std::uint64_t& limit) {
  const std::uint64_t max = (std::uint64_t{1} << bits) - 1;  // bits <= 63
  const auto max_incr = static_cast<std::int64_t>(max - value);
  const auto min_incr = static_cast<std::int64_t>(0 - value);
  int result = 0;
  if (value > max || (incr > 0 && incr > max_incr)) {
    result = 1;
  } else if (incr < 0 && incr < min_incr) {
    result = -1;
  } else {
    return 0;
  }
  if (overflow == Overflow::kWrap) {
    limit = (value + static_cast<std::uint64_t>(incr)) & max;
  } else if (overflow == Overflow::kSat) {
    limit = result > 0 ? max : 0;
  }
  return result;
}

// Redis's checkSignedBitfieldOverflow, likewise. Its differences wrap as Redis's do on x86-64
// (SET i8 0 -9223372036854775808 under SAT stores 127, as in Redis).
int SignedOverflow(std::int64_t value, std::int64_t incr, int bits, Overflow overflow,
                   std::int64_t& limit) {
  const std::int64_t max = bits == 64 ? INT64_MAX : (std::int64_t{1} << (bits - 1)) - 1;
  const std::int64_t min = -max - 1;
  const auto uvalue = static_cast<std::uint64_t>(value);
  const auto max_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(max) - uvalue);
  const auto min_incr = static_cast<std::int64_t>(static_cast<std::uint64_t>(min) - uvalue);
  int result = 0;
  if (value > max || (bits != 64 && incr > max_incr) ||
      (value >= 0 && incr > 0 && incr > max_incr)) {
    result = 1;
  } else if (value < min || (bits != 64 && incr < min_incr) ||
             (value < 0 && incr < 0 && incr < min_incr)) {
    result = -1;
  } else {
    return 0;
  }
  if (overflow == Overflow::kWrap) {
    std::uint64_t c = uvalue + static_cast<std::uint64_t>(incr);
    if (bits < 64) {
      const std::uint64_t high = ~std::uint64_t{0} << bits;
      c = ((c >> (bits - 1)) & 1) != 0 ? c | high : c & ~high;
    }
    limit = static_cast<std::int64_t>(c);
  } else if (overflow == Overflow::kSat) {
    limit = result > 0 ? max : min;
  }
  return result;
}

enum class WriteResult { kRefused, kSame, kChanged };

// Runs SET or INCRBY on the string's bytes and replies the old value (SET) or the new one
// (INCRBY), or a nil when FAIL refuses it.
WriteResult RunWrite(CommandContext& ctx, const FieldOp& op, unsigned char* p, std::size_t len) {
  const bool incr = op.code == FieldOpCode::kIncrBy;
  std::int64_t reply = 0;
  std::uint64_t old_bits = 0;
  std::uint64_t new_bits = 0;
  int overflowed = 0;
  if (op.is_signed) {
    const std::int64_t old = GetSigned(p, len, op.offset, op.bits);
    std::int64_t wrapped = 0;
    std::int64_t next = incr ? old : op.value;
    overflowed = SignedOverflow(next, incr ? op.value : 0, op.bits, op.overflow, wrapped);
    if (overflowed != 0) {
      next = wrapped;
    } else if (incr) {
      next = static_cast<std::int64_t>(static_cast<std::uint64_t>(old) +
                                       static_cast<std::uint64_t>(op.value));
    }
    reply = incr ? next : old;
    old_bits = static_cast<std::uint64_t>(old);
    new_bits = static_cast<std::uint64_t>(next);
  } else {
    const std::uint64_t old = GetUnsigned(p, len, op.offset, op.bits);
    std::uint64_t wrapped = 0;
    const std::uint64_t checked = incr ? old : static_cast<std::uint64_t>(op.value);
    overflowed = UnsignedOverflow(checked, incr ? op.value : 0, op.bits, op.overflow, wrapped);
    std::uint64_t next = incr ? old + static_cast<std::uint64_t>(op.value) : checked;
    if (overflowed != 0) next = wrapped;
    reply = static_cast<std::int64_t>(incr ? next : old);
    old_bits = old;
    new_bits = next;
  }
  if (overflowed != 0 && op.overflow == Overflow::kFail) {
    ctx.reply.Null();
    return WriteResult::kRefused;
  }
  ctx.reply.Integer(reply);
  SetField(p, op.offset, op.bits, new_bits);
  return old_bits != new_bits ? WriteResult::kChanged : WriteResult::kSame;
}

void BitfieldGeneric(CommandContext& ctx, bool read_only_command) {
  FieldOp op;
  std::size_t count = 0;
  bool writes = false;
  std::uint64_t highest_bit = 0;
  FieldOpReader check(ctx);
  FieldOpReader::Step step;
  while ((step = check.Next(op)) == FieldOpReader::Step::kOp) {
    ++count;
    if (op.code != FieldOpCode::kGet) {
      writes = true;
      highest_bit = std::max(highest_bit, op.offset + static_cast<std::uint64_t>(op.bits) - 1);
    }
  }
  if (step == FieldOpReader::Step::kError) return;
  const std::string_view key = ctx.arg(1);
  Entry* entry = nullptr;
  bool grown = false;
  if (!writes) {
    if (!LookupTypedRead(ctx, key, storage::ValueType::kString, entry)) return;
  } else {
    if (read_only_command) {
      ctx.reply.Error(errors::kBitfieldRoWrite);
      return;
    }
    // Redis creates or pads the string without signalling it: WATCH and client-side caching
    // hear of the key only when a write lands.
    storage::Keyspace& keyspace = ctx.keyspace();
    storage::KeyObserver* const observer = keyspace.observer();
    keyspace.set_observer(nullptr);
    const bool found = LookupStringForBits(ctx, key, highest_bit, entry, grown);
    keyspace.set_observer(observer);
    if (!found) return;
  }
  // A missing key (only GETs run then) reads as no bytes.
  unsigned char none = 0;
  unsigned char* p = &none;
  std::size_t len = 0;
  if (entry != nullptr) {
    p = reinterpret_cast<unsigned char*>(storage::Keyspace::ValueBytes(entry));
    len = entry->value().size();
  }
  ctx.reply.ArrayHeader(count);
  std::uint64_t changes = 0;
  FieldOpReader run(ctx);
  while (run.Next(op) == FieldOpReader::Step::kOp) {
    if (op.code == FieldOpCode::kGet) {
      ctx.reply.Integer(op.is_signed
                            ? GetSigned(p, len, op.offset, op.bits)
                            : static_cast<std::int64_t>(GetUnsigned(p, len, op.offset, op.bits)));
      continue;
    }
    // As Redis: a write counts when its field changed or the key was created or grown; one
    // that FAIL refused does not.
    const WriteResult result = RunWrite(ctx, op, p, len);
    if (result == WriteResult::kChanged || (grown && result == WriteResult::kSame)) ++changes;
  }
  if (changes > 0) {
    ctx.keyspace().NoteModified(key);
    Notify(ctx, notify::kString, "setbit", key);
  } else if (grown && ctx.server.propagation.active()) {
    // Every write was refused by FAIL: Redis keeps the created or padded string but propagates
    // nothing.
    ctx.server.propagation.Suppress();
  }
}

}  // namespace

void BitfieldCommand(CommandContext& ctx) { BitfieldGeneric(ctx, false); }

void BitfieldRoCommand(CommandContext& ctx) { BitfieldGeneric(ctx, true); }

}  // namespace warden::server
