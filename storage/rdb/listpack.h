// Redis 7.0's listpack (listpack.c), byte for byte: the packed form of small hashes, sorted sets,
// list nodes and stream nodes in RDB files and DUMP payloads.
//
// Layout: total bytes (u32 LE), element count (u16 LE; 65535 once it no longer fits), the
// elements, then 0xFF. An element is an encoding byte (a 7-bit unsigned immediate, a 13-, 16-,
// 24-, 32- or 64-bit integer, or a string with a 6-, 12- or 32-bit length), its data, then its
// "backlen": the size of encoding and data in 7-bit groups, last byte first, so the list can
// also be walked backwards.
//
// Readers take blobs from outside (a file, RESTORE): ListpackValidate accepts exactly what
// Redis's lpValidateIntegrity(deep) accepts, and nothing reads out of bounds or sizes anything
// from an unchecked length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "storage/rdb/packed_item.h"

namespace warden::storage::rdb {

// Redis refuses to grow a listpack past 1 GiB (LISTPACK_MAX_SAFETY_SIZE).
inline constexpr std::size_t kListpackMaxSafetySize = std::size_t{1} << 30;

// Builds a listpack element by element, as lpAppend would. The caller keeps bytes() under
// kListpackMaxSafetySize (the header counts bytes in 32 bits).
class ListpackWriter {
 public:
  // As lpAppend: a string that spells an int64 canonically (ListpackStringToInt64) is stored as
  // that integer, anything else as a string.
  void AppendString(std::string_view s);
  // In the smallest integer encoding that holds `v`.
  void AppendInteger(std::int64_t v);

  std::size_t count() const { return count_; }
  // What Finish would return, in bytes: header, elements and terminator.
  std::size_t bytes() const { return buf_.size() + 1; }
  // The finished listpack; the writer is empty again afterwards.
  std::string Finish();

 private:
  static constexpr std::size_t kHeaderSize = 6;
  void AppendBacklen(std::size_t encoded_size);

  std::string buf_ = std::string(kHeaderSize, '\0');  // header filled in by Finish
  std::size_t count_ = 0;
};

// lpStringToInt64: whether `s` is the canonical decimal spelling of an int64 (no sign but a
// leading '-', no leading zeros, no "-0", no spaces, at most 20 bytes), the test lpAppend uses
// to store a string as an integer.
bool ListpackStringToInt64(std::string_view s, std::int64_t& out);

// lpValidateIntegrity with deep checks: the header's size equals lp.size(), every element's
// encoding is known and lies inside, every backlen matches its element, the terminator follows
// the last element and ends the blob, and the header count matches unless it is 65535.
bool ListpackValidate(std::string_view lp);

// The number of elements: the header's, or counted when the header says 65535. Only meaningful
// for a blob that passed ListpackValidate.
std::size_t ListpackCount(std::string_view lp);

// Walks the elements front to back. Meant for a blob that passed ListpackValidate; given any
// other, it stops at the first element it cannot read, without reading out of bounds.
class ListpackReader {
 public:
  explicit ListpackReader(std::string_view lp) : lp_(lp) {}
  // Fills `item` with the next element; false at the end.
  bool Next(PackedItem& item);

 private:
  std::string_view lp_;
  std::size_t pos_ = 6;  // the next element's offset
  IntSpellings ints_;
};

// Validates `lp`, then calls fn(const PackedItem&) -> bool for each element until it returns
// false. Returns false when `lp` is malformed, in which case fn was never called; true
// otherwise, also after an early stop. An item's `str` lives as IntSpellings says.
template <typename Fn>
bool ListpackForEach(std::string_view lp, Fn&& fn) {
  if (!ListpackValidate(lp)) return false;
  ListpackReader reader(lp);
  PackedItem item;
  while (reader.Next(item)) {
    if (!fn(static_cast<const PackedItem&>(item))) break;
  }
  return true;
}

}  // namespace warden::storage::rdb
