#include "storage/rdb/rdb_io.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "storage/rdb/crc64.h"
#include "storage/rdb/lzf.h"
#include "storage/set.h"

namespace warden::storage::rdb {
namespace {

// rdb.h's RDB_ENC_*: the low six bits of a 11xxxxxx length byte.
constexpr std::uint8_t kEncInt8 = 0;
constexpr std::uint8_t kEncInt16 = 1;
constexpr std::uint8_t kEncInt32 = 2;
constexpr std::uint8_t kEncLzf = 3;

// LZF's longest back reference is 264 bytes in 3, so no valid stream expands more than 88
// times: a claimed length past that is a lie, and is refused before it sizes a buffer.
constexpr std::uint64_t kLzfMaxRatio = 90;

// rdbEncodeInteger: 0 when `v` is outside int32.
std::size_t EncodeInteger(std::int64_t v, char* out) {
  if (v >= -(1 << 7) && v <= (1 << 7) - 1) {
    out[0] = static_cast<char>(0xC0 | kEncInt8);
    out[1] = static_cast<char>(v & 0xFF);
    return 2;
  }
  if (v >= -(1 << 15) && v <= (1 << 15) - 1) {
    out[0] = static_cast<char>(0xC0 | kEncInt16);
    out[1] = static_cast<char>(v & 0xFF);
    out[2] = static_cast<char>((v >> 8) & 0xFF);
    return 3;
  }
  if (v >= -(std::int64_t{1} << 31) && v <= (std::int64_t{1} << 31) - 1) {
    out[0] = static_cast<char>(0xC0 | kEncInt32);
    for (int i = 0; i < 4; ++i) out[1 + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    return 5;
  }
  return 0;
}

}  // namespace

void RdbWriter::Length(std::uint64_t n) {
  if (n < (1u << 6)) {
    Byte(static_cast<std::uint8_t>(n));
  } else if (n < (1u << 14)) {
    char b[2] = {static_cast<char>(0x40 | (n >> 8)), static_cast<char>(n & 0xFF)};
    Raw(std::string_view(b, 2));
  } else if (n <= UINT32_MAX) {
    char b[5] = {static_cast<char>(0x80)};
    for (int i = 0; i < 4; ++i) b[1 + i] = static_cast<char>((n >> (24 - 8 * i)) & 0xFF);
    Raw(std::string_view(b, 5));
  } else {
    char b[9] = {static_cast<char>(0x81)};
    for (int i = 0; i < 8; ++i) b[1 + i] = static_cast<char>((n >> (56 - 8 * i)) & 0xFF);
    Raw(std::string_view(b, 9));
  }
}

void RdbWriter::String(std::string_view s) {
  if (s.size() <= 11) {
    std::int64_t v = 0;
    char enc[5];
    std::size_t n = 0;
    if (ParseCanonicalInt64(s, v) && (n = EncodeInteger(v, enc)) > 0) {
      Raw(std::string_view(enc, n));
      return;
    }
  }
  if (compress_ && s.size() > 20 && LzfCompress(s, lzf_)) {
    Byte(0xC0 | kEncLzf);
    Length(lzf_.size());
    Length(s.size());
    Raw(lzf_);
    return;
  }
  Length(s.size());
  Raw(s);
}

void RdbWriter::Integer(std::int64_t v) {
  char enc[5];
  if (const std::size_t n = EncodeInteger(v, enc); n > 0) {
    Raw(std::string_view(enc, n));
    return;
  }
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  Length(static_cast<std::uint64_t>(end - buf));
  Raw(std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

void RdbWriter::U64LE(std::uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  Raw(std::string_view(b, 8));
}

void RdbWriter::BinaryDouble(double d) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &d, 8);
  U64LE(bits);
}

std::uint64_t RdbWriter::crc() { return Crc64(crc_, buf_); }

bool RdbWriter::Flush() {
  if (!sink_ || buf_.empty()) return ok_;
  crc_ = Crc64(crc_, buf_);
  drained_ += buf_.size();
  if (ok_ && !sink_(buf_)) ok_ = false;
  buf_.clear();
  return ok_;
}

bool RdbReader::Byte(std::uint8_t& out) {
  if (pos_ >= data_.size()) {
    hit_end_ = true;
    return false;
  }
  out = static_cast<std::uint8_t>(data_[pos_++]);
  return true;
}

bool RdbReader::Raw(std::size_t n, std::string_view& out) {
  if (n > left()) {
    hit_end_ = true;
    return false;
  }
  out = data_.substr(pos_, n);
  pos_ += n;
  return true;
}

bool RdbReader::Length(std::uint64_t& out, bool* encoded) {
  std::uint8_t b = 0;
  if (!Byte(b)) return false;
  if (encoded != nullptr) *encoded = false;
  switch (b >> 6) {
    case 0:
      out = b & 0x3F;
      return true;
    case 1: {
      std::uint8_t low = 0;
      if (!Byte(low)) return false;
      out = (std::uint64_t{b & 0x3Fu} << 8) | low;
      return true;
    }
    case 3:
      if (encoded == nullptr) return false;
      *encoded = true;
      out = b & 0x3F;
      return true;
    default:
      break;
  }
  std::size_t width = 0;
  if (b == 0x80) {
    width = 4;
  } else if (b == 0x81) {
    width = 8;
  } else {
    return false;
  }
  std::string_view bytes;
  if (!Raw(width, bytes)) return false;
  out = 0;
  for (const char c : bytes) out = (out << 8) | static_cast<unsigned char>(c);
  return true;
}

bool RdbReader::Count(std::uint64_t& out) { return Length(out) && out <= left(); }

bool RdbReader::String(std::string_view& out, std::string& scratch) {
  bool encoded = false;
  std::uint64_t len = 0;
  if (!Length(len, &encoded)) return false;
  if (!encoded) return Raw(len, out);
  std::int64_t v = 0;
  std::string_view bytes;
  switch (len) {
    case kEncInt8:
      if (!Raw(1, bytes)) return false;
      v = static_cast<std::int8_t>(bytes[0]);
      break;
    case kEncInt16:
      if (!Raw(2, bytes)) return false;
      v = static_cast<std::int16_t>(static_cast<unsigned char>(bytes[0]) |
                                    (static_cast<unsigned char>(bytes[1]) << 8));
      break;
    case kEncInt32: {
      if (!Raw(4, bytes)) return false;
      std::uint32_t u = 0;
      for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<unsigned char>(bytes[i]);
      v = static_cast<std::int32_t>(u);
      break;
    }
    case kEncLzf: {
      std::uint64_t clen = 0;
      std::uint64_t plain = 0;
      if (!Length(clen) || !Length(plain)) return false;
      if (clen > left() || plain > clen * kLzfMaxRatio + 16) return false;
      std::string_view compressed;
      if (!Raw(clen, compressed)) return false;
      if (!LzfDecompress(compressed, plain, scratch)) return false;
      out = scratch;
      return true;
    }
    default:
      return false;
  }
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  scratch.assign(buf, end);
  out = scratch;
  return true;
}

bool RdbReader::U64LE(std::uint64_t& out) {
  std::string_view bytes;
  if (!Raw(8, bytes)) return false;
  out = 0;
  for (int i = 7; i >= 0; --i) out = (out << 8) | static_cast<unsigned char>(bytes[i]);
  return true;
}

bool RdbReader::U32LE(std::uint32_t& out) {
  std::string_view bytes;
  if (!Raw(4, bytes)) return false;
  out = 0;
  for (int i = 3; i >= 0; --i) out = (out << 8) | static_cast<unsigned char>(bytes[i]);
  return true;
}

bool RdbReader::Millis(std::int64_t& out) {
  std::uint64_t u = 0;
  if (!U64LE(u)) return false;
  out = static_cast<std::int64_t>(u);
  return true;
}

bool RdbReader::BinaryDouble(double& out) {
  std::uint64_t u = 0;
  if (!U64LE(u)) return false;
  std::memcpy(&out, &u, 8);
  return true;
}

bool RdbReader::AsciiDouble(double& out) {
  std::uint8_t len = 0;
  if (!Byte(len)) return false;
  switch (len) {
    case 255:
      out = -INFINITY;
      return true;
    case 254:
      out = INFINITY;
      return true;
    case 253:
      out = NAN;
      return true;
    default:
      break;
  }
  std::string_view bytes;
  if (!Raw(len, bytes)) return false;
  char buf[256];
  std::memcpy(buf, bytes.data(), len);
  buf[len] = '\0';
  // sscanf "%lg", as Redis: leading junk fails, trailing junk is ignored.
  return std::sscanf(buf, "%lg", &out) == 1;
}

std::size_t D2String(double value, char* buf) {
  if (std::isnan(value)) {
    std::memcpy(buf, "nan", 3);
    return 3;
  }
  if (std::isinf(value)) {
    if (value < 0) {
      std::memcpy(buf, "-inf", 4);
      return 4;
    }
    std::memcpy(buf, "inf", 3);
    return 3;
  }
  if (value == 0) {
    if (std::signbit(value)) {
      std::memcpy(buf, "-0", 2);
      return 2;
    }
    buf[0] = '0';
    return 1;
  }
  // double2ll: integral and within half of long long's range.
  constexpr double kHalf = static_cast<double>(INT64_MAX / 2);
  if (value >= -kHalf && value <= kHalf) {
    const auto ll = static_cast<std::int64_t>(value);
    if (static_cast<double>(ll) == value) {
      const auto [end, ec] = std::to_chars(buf, buf + 32, ll);
      return static_cast<std::size_t>(end - buf);
    }
  }
  return static_cast<std::size_t>(std::snprintf(buf, 32, "%.17g", value));
}

}  // namespace warden::storage::rdb
