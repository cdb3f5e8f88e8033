// One element of a listpack or ziplist as the readers hand it out. Redis stores an element that
// spells an integer as the integer, so a reader gives both forms.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace warden::storage::rdb {

struct PackedItem {
  // The element's bytes: a view into the blob being read, or for an integer element its decimal
  // spelling in a buffer of the reader's (see IntSpellings for how long that lives).
  std::string_view str;
  std::int64_t integer = 0;  // when is_int
  bool is_int = false;
};

// The decimal spellings of a reader's integer elements. Two buffers are used in turn, so a
// spelling stays valid while the following item is handled as well: a field and its value can
// be looked at together. Anything kept longer is copied.
class IntSpellings {
 public:
  std::string_view Spell(std::int64_t v) {
    char* buf = bufs_[next_];
    next_ ^= 1;
    const auto res = std::to_chars(buf, buf + kSize, v);
    return {buf, static_cast<std::size_t>(res.ptr - buf)};
  }

 private:
  static constexpr std::size_t kSize = 20;  // "-9223372036854775808"
  char bufs_[2][kSize];
  int next_ = 0;
};

}  // namespace warden::storage::rdb
