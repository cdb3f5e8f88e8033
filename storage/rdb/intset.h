// Redis's intset (intset.c): the packed form of a small set of integers, RDB type 11.
//
// Layout: the encoding (u32 LE: 2, 4 or 8 bytes a value), the count (u32 LE), then the values,
// strictly increasing, each LE in that width. Redis only ever widens an intset, so its encoding
// can be wider than its values need (after SREM of the only large one); IntsetEncode picks the
// narrowest, which is what a set built afresh from the same values would have.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace warden::storage::rdb {

// `sorted_values` strictly increasing. Empty gives an empty intset of encoding 2, which Redis
// would refuse to load.
std::string IntsetEncode(std::span<const std::int64_t> sorted_values);

// intsetValidateIntegrity with deep checks: encoding 2, 4 or 8, size exactly 8 + count *
// encoding, count not 0, values strictly increasing.
bool IntsetValidate(std::string_view blob);

namespace detail {
inline std::int64_t IntsetLoad(const unsigned char* p, std::size_t width) {
  std::uint64_t u = 0;
  for (std::size_t i = width; i-- > 0;) u = (u << 8) | p[i];
  const std::size_t bits = 8 * width;
  if (bits < 64 && (u >> (bits - 1)) != 0) u |= ~std::uint64_t{0} << bits;
  return static_cast<std::int64_t>(u);
}
}  // namespace detail

// Validates `blob`, then calls fn(std::int64_t) -> bool for each value in order until it
// returns false. Returns false when `blob` is malformed, in which case fn was never called;
// true otherwise, also after an early stop.
template <typename Fn>
bool IntsetForEach(std::string_view blob, Fn&& fn) {
  if (!IntsetValidate(blob)) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  const std::size_t width = p[0];
  for (std::size_t pos = 8; pos < blob.size(); pos += width) {
    if (!fn(detail::IntsetLoad(p + pos, width))) break;
  }
  return true;
}

}  // namespace warden::storage::rdb
