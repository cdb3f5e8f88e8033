#include "storage/rdb/crc64.h"

#include <array>
#include <cstddef>

namespace warden::storage::rdb {
namespace {

// The polynomial bit-reversed, as a reflected CRC shifts right.
constexpr std::uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5;

// Slice-by-8: table[k][b] is the CRC of byte b followed by k zero bytes, so eight input bytes
// cost eight lookups and no per-bit work. It runs over whole RDB files, gigabytes at a time.
using Tables = std::array<std::array<std::uint64_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (std::uint64_t b = 0; b < 256; ++b) {
    std::uint64_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ kReflectedPoly : crc >> 1;
    t[0][b] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

std::uint64_t LoadLe64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::uint64_t Crc64(std::uint64_t crc, std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  while (n >= 8) {
    crc ^= LoadLe64(p);
    crc = kTables[7][crc & 0xff] ^ kTables[6][(crc >> 8) & 0xff] ^ kTables[5][(crc >> 16) & 0xff] ^
          kTables[4][(crc >> 24) & 0xff] ^ kTables[3][(crc >> 32) & 0xff] ^
          kTables[2][(crc >> 40) & 0xff] ^ kTables[1][(crc >> 48) & 0xff] ^ kTables[0][crc >> 56];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = kTables[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

}  // namespace warden::storage::rdb
