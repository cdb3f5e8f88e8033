#include "storage/rdb/listpack.h"

#include <limits>

namespace warden::storage::rdb {
namespace {

constexpr std::size_t kHeaderSize = 6;
constexpr unsigned char kEof = 0xFF;
constexpr std::uint32_t kCountUnknown = 65535;

std::uint32_t LoadLe(const unsigned char* p, int width) {
  std::uint32_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// lpEncodeBacklen's size classes. Its bounds are "<", not "<=", past one byte: 16383 takes
// three bytes although fourteen bits would hold it, and the reader must agree.
std::size_t BacklenSize(std::uint64_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// One element, decoded with lpValidateNext's checks.
struct Element {
  std::size_t next = 0;  // offset of the following element (or the terminator)
  bool is_int = false;
  std::int64_t integer = 0;
  std::size_t str_pos = 0;
  std::size_t str_len = 0;
};

// Decodes the element at `pos` (not the terminator) of a listpack whose last byte is at
// `last`; false when it is malformed or reaches past `last`.
bool DecodeElement(const unsigned char* lp, std::size_t last, std::size_t pos, Element& e) {
  e = Element{};
  const unsigned char b = lp[pos];
  std::size_t header = 1;  // encoding byte and string length bytes
  std::uint64_t data = 0;  // bytes after the header
  int int_width = 0;       // bytes of an integer after the encoding byte
  if (b < 0x80) {
    e.is_int = true;
    e.integer = b;
  } else if ((b & 0xC0) == 0x80) {
    data = b & 0x3F;
  } else if ((b & 0xE0) == 0xC0) {
    int_width = 1;  // 13 bits: 5 in the encoding byte, 8 after it
  } else if ((b & 0xF0) == 0xE0) {
    header = 2;
  } else if (b == 0xF0) {
    header = 5;
  } else if (b >= 0xF1 && b <= 0xF4) {
    constexpr int kWidths[] = {2, 3, 4, 8};
    int_width = kWidths[b - 0xF1];
  } else {
    return false;  // 0xF5..0xFE are unused; 0xFF is the caller's business
  }
  if (pos + header > last) return false;
  if (header == 2) data = ((b & 0x0Fu) << 8) | lp[pos + 1];
  if (header == 5) data = LoadLe(lp + pos + 1, 4);
  data += static_cast<std::uint64_t>(int_width);

  const std::uint64_t encoded = header + data;
  const std::uint64_t entry = encoded + BacklenSize(encoded);
  if (entry > last - pos) return false;

  // lpDecodeBacklen, from the element's last byte backwards. Like Redis, it only asks that the
  // value read equals the element's size.
  std::uint64_t backlen = 0;
  std::size_t q = pos + entry - 1;
  for (int shift = 0;; shift += 7) {
    if (shift > 28) return false;
    backlen |= static_cast<std::uint64_t>(lp[q] & 127) << shift;
    if (!(lp[q] & 128)) break;
    if (q == 0) return false;
    --q;
  }
  if (backlen != encoded) return false;

  e.next = pos + entry;
  if (int_width == 0) {
    if (!e.is_int) {
      e.str_pos = pos + header;
      e.str_len = data;
    }
    return true;
  }
  e.is_int = true;
  std::uint64_t u;
  int bits;
  if ((b & 0xE0) == 0xC0) {
    u = ((b & 0x1Fu) << 8) | lp[pos + 1];
    bits = 13;
  } else {
    u = 0;
    for (int i = int_width; i >= 1; --i) u = (u << 8) | lp[pos + i];
    bits = 8 * int_width;
  }
  // Two's complement of `bits` bits.
  if (bits < 64 && (u >> (bits - 1)) != 0) u |= ~std::uint64_t{0} << bits;
  e.integer = static_cast<std::int64_t>(u);
  return true;
}

}  // namespace

void ListpackWriter::AppendInteger(std::int64_t v) {
  unsigned char enc[9];
  std::size_t n;
  const auto u = static_cast<std::uint64_t>(v);
  if (v >= 0 && v <= 127) {
    enc[0] = static_cast<unsigned char>(v);
    n = 1;
  } else if (v >= -4096 && v <= 4095) {
    enc[0] = static_cast<unsigned char>(0xC0 | ((u >> 8) & 0x1F));
    enc[1] = static_cast<unsigned char>(u);
    n = 2;
  } else {
    int width;
    if (v >= -32768 && v <= 32767) {
      enc[0] = 0xF1;
      width = 2;
    } else if (v >= -8388608 && v <= 8388607) {
      enc[0] = 0xF2;
      width = 3;
    } else if (v >= std::numeric_limits<std::int32_t>::min() &&
               v <= std::numeric_limits<std::int32_t>::max()) {
      enc[0] = 0xF3;
      width = 4;
    } else {
      enc[0] = 0xF4;
      width = 8;
    }
    for (int i = 0; i < width; ++i) enc[1 + i] = static_cast<unsigned char>(u >> (8 * i));
    n = 1 + static_cast<std::size_t>(width);
  }
  buf_.append(reinterpret_cast<const char*>(enc), n);
  AppendBacklen(n);
  ++count_;
}

void ListpackWriter::AppendString(std::string_view s) {
  std::int64_t v;
  if (ListpackStringToInt64(s, v)) {
    AppendInteger(v);
    return;
  }
  const std::size_t len = s.size();
  std::size_t header;
  if (len < 64) {
    buf_.push_back(static_cast<char>(0x80 | len));
    header = 1;
  } else if (len < 4096) {
    buf_.push_back(static_cast<char>(0xE0 | (len >> 8)));
    buf_.push_back(static_cast<char>(len & 0xFF));
    header = 2;
  } else {
    buf_.push_back(static_cast<char>(0xF0));
    for (int i = 0; i < 4; ++i) buf_.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
    header = 5;
  }
  buf_.append(s);
  AppendBacklen(header + len);
  ++count_;
}

void ListpackWriter::AppendBacklen(std::size_t encoded_size) {
  const std::size_t n = BacklenSize(encoded_size);
  // The high group first, without the continuation bit; the rest carry it.
  buf_.push_back(static_cast<char>((encoded_size >> (7 * (n - 1))) & 127));
  for (std::size_t i = n - 1; i-- > 0;) {
    buf_.push_back(static_cast<char>(((encoded_size >> (7 * i)) & 127) | 128));
  }
}

std::string ListpackWriter::Finish() {
  buf_.push_back(static_cast<char>(kEof));
  const auto total = static_cast<std::uint32_t>(buf_.size());
  for (int i = 0; i < 4; ++i) buf_[i] = static_cast<char>((total >> (8 * i)) & 0xFF);
  const auto count = static_cast<std::uint32_t>(count_ < kCountUnknown ? count_ : kCountUnknown);
  buf_[4] = static_cast<char>(count & 0xFF);
  buf_[5] = static_cast<char>(count >> 8);
  std::string out = std::move(buf_);
  buf_.assign(kHeaderSize, '\0');
  count_ = 0;
  return out;
}

bool ListpackStringToInt64(std::string_view s, std::int64_t& out) {
  // LONG_STR_SIZE (21) and longer can not be an int64.
  if (s.empty() || s.size() >= 21) return false;
  if (s == "0") {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) ++i;
  if (i == s.size() || s[i] < '1' || s[i] > '9') return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (v > kMax + 1) return false;
    out = static_cast<std::int64_t>(0 - v);
  } else {
    if (v > kMax) return false;
    out = static_cast<std::int64_t>(v);
  }
  return true;
}

bool ListpackValidate(std::string_view lp) {
  const auto* p = reinterpret_cast<const unsigned char*>(lp.data());
  const std::size_t size = lp.size();
  if (size < kHeaderSize + 1 || LoadLe(p, 4) != size || p[size - 1] != kEof) return false;
  const std::size_t last = size - 1;
  std::size_t pos = kHeaderSize;
  std::uint64_t count = 0;
  Element e;
  while (p[pos] != kEof) {
    if (!DecodeElement(p, last, pos, e)) return false;
    pos = e.next;
    ++count;
  }
  if (pos != last) return false;
  const std::uint32_t header_count = LoadLe(p + 4, 2);
  return header_count == kCountUnknown || header_count == count;
}

std::size_t ListpackCount(std::string_view lp) {
  if (lp.size() < kHeaderSize + 1) return 0;
  const std::uint32_t header_count =
      LoadLe(reinterpret_cast<const unsigned char*>(lp.data()) + 4, 2);
  if (header_count != kCountUnknown) return header_count;
  std::size_t count = 0;
  ListpackReader reader(lp);
  PackedItem item;
  while (reader.Next(item)) ++count;
  return count;
}

bool ListpackReader::Next(PackedItem& item) {
  const auto* p = reinterpret_cast<const unsigned char*>(lp_.data());
  if (lp_.size() < kHeaderSize + 1 || pos_ >= lp_.size() - 1 || p[pos_] == kEof) return false;
  Element e;
  if (!DecodeElement(p, lp_.size() - 1, pos_, e)) {
    pos_ = lp_.size();  // stay stopped
    return false;
  }
  pos_ = e.next;
  item.is_int = e.is_int;
  if (e.is_int) {
    item.integer = e.integer;
    item.str = ints_.Spell(e.integer);
  } else {
    item.integer = 0;
    item.str = lp_.substr(e.str_pos, e.str_len);
  }
  return true;
}

}  // namespace warden::storage::rdb
