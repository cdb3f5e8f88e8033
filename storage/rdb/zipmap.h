// Redis's zipmap (zipmap.c), read only: the packed form of small hashes in RDB files written by
// Redis 2.4 and older (RDB type 9), which Redis 7.0 still loads.
//
// Layout: a count byte (meaningless from 254 up), then field/value pairs, then 0xFF. Each
// string has a length (one byte below 254, else 254 and a u32 LE); a value's length is followed
// by a "free" byte counting unused bytes after the value, which the reader skips.
//
// ZipmapValidate accepts exactly what Redis's zipmapValidateIntegrity(deep) accepts, and nothing
// reads out of bounds or sizes anything from an unchecked length. Duplicate fields are the
// caller's to refuse, as Redis refuses them on load.
#pragma once

#include <cstddef>
#include <string_view>

namespace warden::storage::rdb {

// At least one pair, every length and free run inside the blob, a 0xFF where the next pair
// would start, the blob's last byte 0xFF too, and the count byte matching the pairs unless it is
// 254. As in Redis, bytes between the first terminator and the last byte are ignored.
bool ZipmapValidate(std::string_view zm);

// Walks the pairs front to back. Meant for a blob that passed ZipmapValidate; given any other,
// it stops at the first pair it cannot read, without reading out of bounds.
class ZipmapReader {
 public:
  explicit ZipmapReader(std::string_view zm) : zm_(zm) {}
  // Views into the blob; false at the end.
  bool Next(std::string_view& field, std::string_view& value);

 private:
  std::string_view zm_;
  std::size_t pos_ = 1;  // the next pair's offset
};

// Validates `zm`, then calls fn(std::string_view field, std::string_view value) -> bool for each
// pair until it returns false. Returns false when `zm` is malformed, in which case fn was never
// called; true otherwise, also after an early stop. The views point into `zm`.
template <typename Fn>
bool ZipmapForEach(std::string_view zm, Fn&& fn) {
  if (!ZipmapValidate(zm)) return false;
  ZipmapReader reader(zm);
  std::string_view field;
  std::string_view value;
  while (reader.Next(field, value)) {
    if (!fn(field, value)) break;
  }
  return true;
}

}  // namespace warden::storage::rdb
