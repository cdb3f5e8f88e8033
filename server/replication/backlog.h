// The replication backlog (Redis's repl_backlog): the last repl-backlog-size bytes of the
// stream sent to replicas, so a replica whose link dropped can ask for what it missed
// (PSYNC <replid> <offset>) instead of a whole new data set. A ring of bytes; offsets are the
// stream's, counted from the first byte ever fed as 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warden::server {

class ReplBacklog {
 public:
  // An empty backlog of `size` bytes whose next byte will be the stream's `next_offset`.
  void Create(std::size_t size, std::int64_t next_offset);
  void Free();
  bool active() const { return !ring_.empty(); }
  // Keeps the newest bytes that fit in the new size.
  void Resize(std::size_t size);

  void Append(std::string_view bytes);

  // Whether the stream from `offset` on is all here (offset may be one past the last byte).
  bool Covers(std::int64_t offset) const {
    return active() && offset >= first_byte_offset_ &&
           offset <= first_byte_offset_ + static_cast<std::int64_t>(histlen_);
  }
  // Appends the stream from `offset` (Covers() must hold) to `out`.
  void CopyFrom(std::int64_t offset, std::string& out) const;

  std::size_t size() const { return ring_.size(); }
  std::size_t histlen() const { return histlen_; }
  std::int64_t first_byte_offset() const { return first_byte_offset_; }

 private:
  std::string ring_;
  std::size_t head_ = 0;  // where the next byte goes
  std::size_t histlen_ = 0;
  std::int64_t first_byte_offset_ = 0;
};

}  // namespace warden::server
