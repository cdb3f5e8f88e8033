// The inline encoding of a small collection: a sequence of byte strings, each a varint length
// followed by its bytes, with nothing around them (the entry's value length bounds the
// sequence). A small hash is field, value, field, value...; Redis's listpack plays this part.
// Small collections are rewritten whole on change, which is cheap below the size thresholds.
//
// Views returned by PackedReader point into the bytes read and live as long as they do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warden::storage {

class PackedReader {
 public:
  explicit PackedReader(std::string_view bytes) : p_(bytes.data()), end_(p_ + bytes.size()) {}

  bool done() const { return p_ == end_; }
  // The next element; the caller checks done() first.
  std::string_view Next() {
    std::size_t len = 0;
    int shift = 0;
    for (;;) {
      const auto byte = static_cast<unsigned char>(*p_++);
      len |= static_cast<std::size_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) break;
      shift += 7;
    }
    const std::string_view s(p_, len);
    p_ += len;
    return s;
  }
  // Where the next element starts, as an offset from `base`.
  std::size_t offset(const char* base) const { return static_cast<std::size_t>(p_ - base); }

 private:
  const char* p_;
  const char* end_;
};

inline void AppendPacked(std::string& out, std::string_view element) {
  std::size_t len = element.size();
  while (len >= 0x80) {
    out.push_back(static_cast<char>((len & 0x7F) | 0x80));
    len >>= 7;
  }
  out.push_back(static_cast<char>(len));
  out.append(element);
}

// A bare unsigned varint (7 bits a byte, low first): the numbers of sorted-set and stream
// encodings.
inline void AppendVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline std::uint64_t ReadVarint(const char*& p) {
  std::uint64_t v = 0;
  int shift = 0;
  for (;;) {
    const auto byte = static_cast<unsigned char>(*p++);
    v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return v;
    shift += 7;
  }
}

inline std::size_t PackedCount(std::string_view bytes) {
  std::size_t n = 0;
  for (PackedReader r(bytes); !r.done(); r.Next()) ++n;
  return n;
}

}  // namespace warden::storage
