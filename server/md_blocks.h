// The framing SHA-1 and SHA-256 share (FIPS 180-4, 5.1.1): the message in 64-byte blocks, then
// 0x80, zeros, and the message's length in bits, big-endian, in the last 8 bytes of a block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace warden::server {

// The 32-bit big-endian word at `p`: how both read a block.
inline std::uint32_t LoadBigEndian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// Calls block(p) for each 64-byte block of `data` as padded.
template <typename BlockFn>
void ForEachPaddedBlock(std::string_view data, BlockFn&& block) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t left = data.size();
  while (left >= 64) {
    block(p);
    p += 64;
    left -= 64;
  }
  unsigned char tail[128] = {};
  if (left > 0) std::memcpy(tail, p, left);
  tail[left] = 0x80;
  const std::size_t tail_len = left < 56 ? 64 : 128;
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  block(tail);
  if (tail_len == 128) block(tail + 64);
}

}  // namespace warden::server
