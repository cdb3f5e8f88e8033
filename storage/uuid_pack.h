// A canonical lower-case UUID (8-4-4-4-12 hex digits) packed as its 16 bytes: the members of
// redis-semaphore's sorted sets and the `<uuid>:<thread>` fields of Redisson's lock hashes are
// such UUIDs, and packed they take 16 bytes instead of 36. Only the canonical lower-case
// spelling packs, so that unpacking gives back the same bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warden::storage {

namespace uuid_internal {

// Each byte's value as a lower-case hex digit, or -1.
inline constexpr std::array<signed char, 256> kHexValue = [] {
  std::array<signed char, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = c >= '0' && c <= '9'   ? static_cast<signed char>(c - '0')
               : c >= 'a' && c <= 'f' ? static_cast<signed char>(c - 'a' + 10)
                                      : -1;
  }
  return table;
}();

// Where the 32 hex digits of a canonical UUID are: 8-4-4-4-12.
inline constexpr std::array<std::uint8_t, 32> kDigitAt = {
    0,  1,  2,  3,  4,  5,  6,  7,  9,  10, 11, 12, 14, 15, 16, 17,
    19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35};

}  // namespace uuid_internal

inline constexpr std::size_t kUuidChars = 36;

// The 16 bytes of a lower-case canonical UUID, or false.
inline bool PackUuid(std::string_view m, unsigned char (&out)[16]) {
  if (m.size() != 36 || m[8] != '-' || m[13] != '-' || m[18] != '-' || m[23] != '-') return false;
  int bad = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    const int hi =
        uuid_internal::kHexValue[static_cast<unsigned char>(m[uuid_internal::kDigitAt[2 * i]])];
    const int lo =
        uuid_internal::kHexValue[static_cast<unsigned char>(m[uuid_internal::kDigitAt[2 * i + 1]])];
    bad |= hi | lo;
    out[i] = static_cast<unsigned char>((hi << 4) | (lo & 0xF));
  }
  return bad >= 0;
}

// Writes the 36 characters of the UUID packed at `in` (16 bytes).
inline void UnpackUuid(const char* in, char* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out[8] = out[13] = out[18] = out[23] = '-';
  for (std::size_t i = 0; i < 16; ++i) {
    const auto byte = static_cast<unsigned char>(in[i]);
    out[uuid_internal::kDigitAt[2 * i]] = kDigits[byte >> 4];
    out[uuid_internal::kDigitAt[2 * i + 1]] = kDigits[byte & 0xF];
  }
}

}  // namespace warden::storage
