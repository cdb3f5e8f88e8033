// The RDB format's primitives (Redis 7.0's rdb.c): lengths, strings with their integer and LZF
// encodings, times and doubles. RdbWriter appends to a buffer that a sink drains (a file) or
// the caller takes whole (a DUMP payload); RdbReader reads a byte span that came from outside
// and so checks every length against what is left before using it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace warden::storage::rdb {

inline constexpr int kRdbVersion = 10;

// Value types (rdb.h RDB_TYPE_*).
enum RdbType : std::uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZset = 3,
  kTypeHash = 4,
  kTypeZset2 = 5,
  kTypeModule = 6,
  kTypeModule2 = 7,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZsetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeStreamListpacks = 15,
  kTypeHashListpack = 16,
  kTypeZsetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeStreamListpacks2 = 19,
};

// Opcodes (rdb.h RDB_OPCODE_*).
enum RdbOpcode : std::uint8_t {
  kOpFunction2 = 245,
  kOpFunction = 246,
  kOpModuleAux = 247,
  kOpIdle = 248,
  kOpFreq = 249,
  kOpAux = 250,
  kOpResizeDb = 251,
  kOpExpireTimeMs = 252,
  kOpExpireTime = 253,
  kOpSelectDb = 254,
  kOpEof = 255,
};

// A quicklist node's container (RDB_TYPE_LIST_QUICKLIST_2).
inline constexpr std::uint64_t kQuicklistPlain = 1;
inline constexpr std::uint64_t kQuicklistPacked = 2;

class RdbWriter {
 public:
  // `compress`: rdbcompression, LZF for strings over 20 bytes when it saves space.
  explicit RdbWriter(bool compress = true) : compress_(compress) {}

  // Bytes are handed to `sink` in chunks of about 64 KB as they accumulate, and by Flush();
  // a sink that fails makes ok() false and the rest is dropped.
  void set_sink(std::function<bool(std::string_view)> sink) { sink_ = std::move(sink); }

  void Byte(std::uint8_t b) {
    buf_.push_back(static_cast<char>(b));
    MaybeDrain();
  }
  void Raw(std::string_view bytes) {
    buf_.append(bytes);
    MaybeDrain();
  }
  // rdbSaveLen: 6 bits, 14 bits, or a 32- or 64-bit big-endian length.
  void Length(std::uint64_t n);
  // rdbSaveRawString: an integer encoding, LZF, or length and bytes.
  void String(std::string_view s);
  // rdbSaveLongLongAsStringObject: int32 range as an integer encoding, otherwise decimal.
  void Integer(std::int64_t v);
  void U64LE(std::uint64_t v);
  void Millis(std::int64_t ms) { U64LE(static_cast<std::uint64_t>(ms)); }
  void BinaryDouble(double d);

  // The CRC64 of every byte written so far (drained or not).
  std::uint64_t crc();
  bool Flush();
  bool ok() const { return ok_; }
  // Bytes written in all.
  std::uint64_t written() const { return drained_ + buf_.size(); }
  // Without a sink: everything written, for the caller to take.
  std::string& buffer() { return buf_; }

 private:
  void MaybeDrain() {
    if (sink_ && buf_.size() >= kChunk) Flush();
  }
  static constexpr std::size_t kChunk = 1 << 16;

  bool compress_;
  bool ok_ = true;
  std::string buf_;
  std::string lzf_;
  std::uint64_t crc_ = 0;  // over the drained bytes
  std::uint64_t drained_ = 0;
  std::function<bool(std::string_view)> sink_;
};

class RdbReader {
 public:
  explicit RdbReader(std::string_view data) : data_(data) {}

  bool Byte(std::uint8_t& out);
  bool Raw(std::size_t n, std::string_view& out);
  // rdbLoadLen. `encoded` (when given) is set when the byte is a special string encoding, whose
  // kind is then returned in `out`.
  bool Length(std::uint64_t& out, bool* encoded = nullptr);
  // A length that counts things that follow, each at least one byte: refused when larger than
  // what is left, so a hostile count never sizes an allocation or a loop.
  bool Count(std::uint64_t& out);
  // rdbGenericLoadStringObject. A raw string is a view into the data; an integer or LZF one is
  // decoded into `scratch`, which the view then points into.
  bool String(std::string_view& out, std::string& scratch);
  bool U64LE(std::uint64_t& out);
  bool U32LE(std::uint32_t& out);
  bool Millis(std::int64_t& out);
  bool BinaryDouble(double& out);
  // rdbLoadDoubleValue: the ASCII doubles of RDB_TYPE_ZSET.
  bool AsciiDouble(double& out);

  // Whether a read failed for want of bytes: the data ended early (Redis's "Unexpected EOF").
  bool hit_end() const { return hit_end_; }
  std::size_t offset() const { return pos_; }
  std::size_t left() const { return data_.size() - pos_; }
  std::string_view data() const { return data_; }

 private:
  std::string_view data_;
  std::size_t pos_ = 0;
  bool hit_end_ = false;
};

// Redis's d2string: how a score is spelled in a listpack (an integral value below 2^52 as an
// integer, others as %.17g). Returns the length written to `buf` (at least 32 bytes).
std::size_t D2String(double value, char* buf);

}  // namespace warden::storage::rdb
