// The packed form of a small hash: field, value, field, value..., in insertion order. A value is
// a packed element (packed.h). A field is one too, behind a varint of its length << 1, unless it
// starts with a canonical UUID followed by at most kMaxUuidFieldSuffix more bytes: then the
// varint is (length of the rest << 1) | 1 and the UUID's 16 bytes come before the rest. Redisson
// names a lock's holder "<uuid>:<thread id>": 19 bytes packed instead of 39.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "storage/packed.h"
#include "storage/uuid_pack.h"

namespace warden::storage {

inline constexpr std::size_t kMaxUuidFieldSuffix = 28;

// PackUuid of the first 36 bytes of `field` into `out` when it can be stored packed; nullptr
// otherwise. What PackedHashReader::FieldIs compares with.
inline const unsigned char* PackedHashFieldUuid(std::string_view field, unsigned char (&out)[16]) {
  if (field.size() < kUuidChars || field.size() - kUuidChars > kMaxUuidFieldSuffix) return nullptr;
  return PackUuid(field.substr(0, kUuidChars), out) ? out : nullptr;
}

// Appends `field`, whose PackedHashFieldUuid is `uuid` (the caller has it for its lookup too).
inline void AppendPackedHashField(std::string& out, std::string_view field,
                                  const unsigned char* uuid) {
  if (uuid != nullptr) {
    const std::string_view rest = field.substr(kUuidChars);
    AppendVarint(out, (std::uint64_t{rest.size()} << 1) | 1);
    out.append(reinterpret_cast<const char*>(uuid), 16);
    out.append(rest);
  } else {
    AppendVarint(out, std::uint64_t{field.size()} << 1);
    out.append(field);
  }
}

class PackedHashReader {
 public:
  explicit PackedHashReader(std::string_view bytes)
      : base_(bytes.data()), p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return p_ == end_; }
  // Reads the next field and its value; the caller checks done() first.
  void Next() {
    start_ = static_cast<std::size_t>(p_ - base_);
    const std::uint64_t h = ReadVarint(p_);
    if ((h & 1) != 0) {
      uuid_ = p_;
      p_ += 16;
    } else {
      uuid_ = nullptr;
    }
    rest_ = std::string_view(p_, h >> 1);
    p_ += h >> 1;
    field_end_ = static_cast<std::size_t>(p_ - base_);
    const std::uint64_t len = ReadVarint(p_);
    value_ = std::string_view(p_, len);
    p_ += len;
    spelled_ = false;
  }
  // The field: a view into the bytes, or for a packed UUID into this reader, valid until the
  // next Next().
  std::string_view field() const {
    if (uuid_ == nullptr) return rest_;
    if (!spelled_) {
      UnpackUuid(uuid_, spelling_);
      std::memcpy(spelling_ + kUuidChars, rest_.data(), rest_.size());
      spelled_ = true;
    }
    return {spelling_, kUuidChars + rest_.size()};
  }
  // Whether the field read is `field`, whose PackedHashFieldUuid is `uuid`; without spelling it.
  bool FieldIs(std::string_view field, const unsigned char* uuid) const {
    if (uuid_ == nullptr) return uuid == nullptr && rest_ == field;
    return uuid != nullptr && field.size() == kUuidChars + rest_.size() &&
           std::memcmp(uuid_, uuid, 16) == 0 && field.substr(kUuidChars) == rest_;
  }
  std::string_view value() const { return value_; }
  // The pair read, and its field alone, as stored: copied without spelling.
  std::string_view raw_pair() const {
    return {base_ + start_, static_cast<std::size_t>(p_ - base_) - start_};
  }
  std::string_view raw_field() const { return {base_ + start_, field_end_ - start_}; }

 private:
  const char* base_;
  const char* p_;
  const char* end_;
  std::size_t start_ = 0;
  std::size_t field_end_ = 0;
  const char* uuid_ = nullptr;  // the field's packed UUID, or nullptr for a plain field
  std::string_view rest_;       // the field after its UUID, or the whole plain field
  std::string_view value_;
  mutable char spelling_[kUuidChars + kMaxUuidFieldSuffix];
  mutable bool spelled_ = false;
};

}  // namespace warden::storage
