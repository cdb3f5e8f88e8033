#include "storage/rdb/ziplist.h"

#include <cstdint>

namespace warden::storage::rdb {
namespace {

constexpr std::size_t kHeaderSize = 10;
constexpr unsigned char kEnd = 0xFF;
constexpr unsigned char kBigPrevlen = 0xFE;
constexpr std::uint32_t kCountUnknown = 65535;

std::uint32_t LoadLe(const unsigned char* p, int width) {
  std::uint32_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

struct Element {
  std::size_t next = 0;       // offset of the following element (or the terminator)
  std::uint32_t prevlen = 0;  // the previous element's size, as recorded
  bool is_int = false;
  std::int64_t integer = 0;
  std::size_t str_pos = 0;
  std::size_t str_len = 0;
};

// Decodes the element at `pos` (not the terminator) of a ziplist whose terminator is at
// `last`, with zipEntrySafe's checks; false when it is malformed or reaches past `last`.
bool DecodeElement(const unsigned char* zl, std::size_t last, std::size_t pos, Element& e) {
  e = Element{};
  const std::size_t prevlen_size = zl[pos] < kBigPrevlen ? 1 : 5;
  if (prevlen_size > last - pos) return false;
  e.prevlen = prevlen_size == 1 ? zl[pos] : LoadLe(zl + pos + 1, 4);

  const std::size_t enc_pos = pos + prevlen_size;
  const unsigned char b = zl[enc_pos];
  std::size_t len_size = 1;  // encoding byte and string length bytes
  std::uint64_t data = 0;    // bytes after them
  int int_width = -1;        // bytes of an integer; 0 for an immediate; -1 for a string
  switch (b >> 6) {
    case 0:
      data = b & 0x3F;
      break;
    case 1:
      len_size = 2;
      break;
    case 2:
      // The 32-bit string length's encoding byte keeps only its top two bits (ZIP_ENTRY_ENCODING).
      len_size = 5;
      break;
    default:
      if (b == 0xC0) {
        int_width = 2;
      } else if (b == 0xD0) {
        int_width = 4;
      } else if (b == 0xE0) {
        int_width = 8;
      } else if (b == 0xF0) {
        int_width = 3;
      } else if (b == 0xFE) {
        int_width = 1;
      } else if (b >= 0xF1 && b <= 0xFD) {
        int_width = 0;
      } else {
        return false;
      }
      data = static_cast<std::uint64_t>(int_width);
  }
  if (len_size > last - enc_pos) return false;
  if (len_size == 2) data = ((b & 0x3Fu) << 8) | zl[enc_pos + 1];
  if (len_size == 5) {
    data = 0;
    for (int i = 1; i <= 4; ++i) data = (data << 8) | zl[enc_pos + i];
  }
  const std::size_t data_pos = enc_pos + len_size;
  if (data > last - data_pos) return false;
  e.next = data_pos + data;

  if (int_width < 0) {
    e.str_pos = data_pos;
    e.str_len = data;
    return true;
  }
  e.is_int = true;
  if (int_width == 0) {
    e.integer = (b & 0x0F) - 1;
    return true;
  }
  std::uint64_t u = 0;
  for (int i = int_width - 1; i >= 0; --i) u = (u << 8) | zl[data_pos + i];
  const int bits = 8 * int_width;
  if (bits < 64 && (u >> (bits - 1)) != 0) u |= ~std::uint64_t{0} << bits;
  e.integer = static_cast<std::int64_t>(u);
  return true;
}

}  // namespace

bool ZiplistValidate(std::string_view zl) {
  const auto* p = reinterpret_cast<const unsigned char*>(zl.data());
  const std::size_t size = zl.size();
  if (size < kHeaderSize + 1 || LoadLe(p, 4) != size || p[size - 1] != kEnd) return false;
  const std::size_t last = size - 1;
  const std::uint32_t tail = LoadLe(p + 4, 4);
  if (tail > last) return false;

  std::size_t pos = kHeaderSize;
  std::size_t prev_pos = 0;
  std::uint64_t prev_size = 0;
  std::uint64_t count = 0;
  Element e;
  while (p[pos] != kEnd) {
    if (!DecodeElement(p, last, pos, e) || e.prevlen != prev_size) return false;
    prev_size = e.next - pos;
    prev_pos = pos;
    pos = e.next;
    ++count;
  }
  if (pos != last) return false;
  if (count > 0 && prev_pos != tail) return false;
  const std::uint32_t header_count = LoadLe(p + 8, 2);
  return header_count == kCountUnknown || header_count == count;
}

bool ZiplistReader::Next(PackedItem& item) {
  const auto* p = reinterpret_cast<const unsigned char*>(zl_.data());
  if (zl_.size() < kHeaderSize + 1 || pos_ >= zl_.size() - 1 || p[pos_] == kEnd) return false;
  Element e;
  if (!DecodeElement(p, zl_.size() - 1, pos_, e)) {
    pos_ = zl_.size();  // stay stopped
    return false;
  }
  pos_ = e.next;
  item.is_int = e.is_int;
  if (e.is_int) {
    item.integer = e.integer;
    item.str = ints_.Spell(e.integer);
  } else {
    item.integer = 0;
    item.str = zl_.substr(e.str_pos, e.str_len);
  }
  return true;
}

}  // namespace warden::storage::rdb
