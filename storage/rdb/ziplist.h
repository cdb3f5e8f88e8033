// Redis's ziplist (ziplist.c), read only: the packed form of small hashes, sorted sets and lists
// in RDB files up to version 9 (Redis 6.2 and older), which Redis 7.0 still loads.
//
// Layout: total bytes (u32 LE), offset of the last element (u32 LE), element count (u16 LE;
// 65535 once it no longer fits), the elements, then 0xFF. An element is the previous element's
// size (one byte below 254, else 0xFE and a u32 LE), an encoding, then its data: a string with
// a 6-, 14- or 32-bit length (big-endian), a 4-bit immediate 0..12, or an int8/16/24/32/64 (LE).
//
// ZiplistValidate accepts exactly what Redis's ziplistValidateIntegrity(deep) accepts, and
// nothing reads out of bounds or sizes anything from an unchecked length.
#pragma once

#include <cstddef>
#include <string_view>

#include "storage/rdb/packed_item.h"

namespace warden::storage::rdb {

// The header's size equals zl.size() and its tail offset lies inside; every element's encoding
// is known and lies inside, and records the previous element's size; the terminator follows the
// last element and ends the blob; the tail offset points at the last element; the header count
// matches unless it is 65535.
bool ZiplistValidate(std::string_view zl);

// Walks the elements front to back. Meant for a blob that passed ZiplistValidate; given any
// other, it stops at the first element it cannot read, without reading out of bounds.
class ZiplistReader {
 public:
  explicit ZiplistReader(std::string_view zl) : zl_(zl) {}
  // Fills `item` with the next element; false at the end.
  bool Next(PackedItem& item);

 private:
  std::string_view zl_;
  std::size_t pos_ = 10;  // the next element's offset
  IntSpellings ints_;
};

// Validates `zl`, then calls fn(const PackedItem&) -> bool for each element until it returns
// false. Returns false when `zl` is malformed, in which case fn was never called; true
// otherwise, also after an early stop. An item's `str` lives as IntSpellings says.
template <typename Fn>
bool ZiplistForEach(std::string_view zl, Fn&& fn) {
  if (!ZiplistValidate(zl)) return false;
  ZiplistReader reader(zl);
  PackedItem item;
  while (reader.Next(item)) {
    if (!fn(static_cast<const PackedItem&>(item))) break;
  }
  return true;
}

}  // namespace warden::storage::rdb
