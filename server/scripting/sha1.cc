#include "server/scripting/sha1.h"

#include <cstdint>

#include "server/md_blocks.h"

namespace warden::server {
namespace {

inline std::uint32_t Rotl(std::uint32_t v, int bits) { return (v << bits) | (v >> (32 - bits)); }

void Block(std::uint32_t (&h)[5], const unsigned char* p) {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = LoadBigEndian32(p + 4 * i);
  }
  for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f;
    std::uint32_t k;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    const std::uint32_t t = Rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = Rotl(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

void Sha1(std::string_view data, unsigned char (&out)[20]) {
  std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  ForEachPaddedBlock(data, [&](const unsigned char* block) { Block(h, block); });
  for (int i = 0; i < 20; ++i) {
    out[i] = static_cast<unsigned char>((h[i / 4] >> (24 - 8 * (i % 4))) & 0xFF);
  }
}

void Sha1Hex(std::string_view data, char (&out)[41]) {
  unsigned char digest[20];
  Sha1(data, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 20; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  out[40] = '\0';
}

}  // namespace warden::server
