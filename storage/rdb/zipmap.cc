#include "storage/rdb/zipmap.h"

#include <cstdint>

namespace warden::storage::rdb {
namespace {

constexpr unsigned char kBigLen = 254;
constexpr unsigned char kEnd = 255;

// Reads the length at `pos` and moves `pos` past it; false when it reaches past `last`. A
// first byte of 254 or 255 announces four more (zipmapGetEncodedLengthSize).
bool ReadLength(const unsigned char* zm, std::size_t last, std::size_t& pos, std::uint64_t& len) {
  const std::size_t size = zm[pos] < kBigLen ? 1 : 5;
  if (size > last - pos) return false;
  if (size == 1) {
    len = zm[pos];
  } else {
    len = 0;
    for (int i = 4; i >= 1; --i) len = (len << 8) | zm[pos + i];
  }
  pos += size;
  return true;
}

// The pair at `pos`, which is not the terminator, with zipmapValidateIntegrity's checks; moves
// `pos` to the next pair.
bool ReadPair(std::string_view zm, std::size_t& pos, std::string_view& field,
              std::string_view& value) {
  const auto* p = reinterpret_cast<const unsigned char*>(zm.data());
  const std::size_t last = zm.size() - 1;
  std::uint64_t len;
  if (!ReadLength(p, last, pos, len) || len > last - pos) return false;
  field = zm.substr(pos, len);
  pos += len;
  if (!ReadLength(p, last, pos, len)) return false;
  // pos <= last here: the free byte is readable.
  const unsigned free = p[pos++];
  if (pos > last || len > last - pos || free > last - pos - len) return false;
  value = zm.substr(pos, len);
  pos += len + free;
  return true;
}

}  // namespace

bool ZipmapValidate(std::string_view zm) {
  const auto* p = reinterpret_cast<const unsigned char*>(zm.data());
  if (zm.size() < 2 || p[zm.size() - 1] != kEnd) return false;
  std::size_t pos = 1;
  std::uint64_t count = 0;
  std::string_view field;
  std::string_view value;
  while (p[pos] != kEnd) {
    if (!ReadPair(zm, pos, field, value)) return false;
    ++count;
  }
  // Unlike the other packed forms, an empty zipmap is refused. As in Redis, the walk ends at the
  // first 0xFF where a pair would start, and whatever follows it up to the last byte is ignored.
  if (count == 0) return false;
  return p[0] == kBigLen || p[0] == count;
}

bool ZipmapReader::Next(std::string_view& field, std::string_view& value) {
  const auto* p = reinterpret_cast<const unsigned char*>(zm_.data());
  if (zm_.size() < 2 || pos_ >= zm_.size() - 1 || p[pos_] == kEnd) return false;
  if (!ReadPair(zm_, pos_, field, value)) {
    pos_ = zm_.size();  // stay stopped
    return false;
  }
  return true;
}

}  // namespace warden::storage::rdb
