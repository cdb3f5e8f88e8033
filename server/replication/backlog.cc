#include "server/replication/backlog.h"

#include <algorithm>

namespace warden::server {

void ReplBacklog::Create(std::size_t size, std::int64_t next_offset) {
  ring_.assign(std::max<std::size_t>(size, 1), '\0');
  head_ = 0;
  histlen_ = 0;
  first_byte_offset_ = next_offset;
}

void ReplBacklog::Free() {
  std::string().swap(ring_);
  head_ = 0;
  histlen_ = 0;
  first_byte_offset_ = 0;
}

void ReplBacklog::Resize(std::size_t size) {
  if (!active() || size == ring_.size()) return;
  std::string kept;
  const std::int64_t end = first_byte_offset_ + static_cast<std::int64_t>(histlen_);
  CopyFrom(first_byte_offset_, kept);
  if (kept.size() > size) kept.erase(0, kept.size() - size);
  Create(size, end - static_cast<std::int64_t>(kept.size()));
  Append(kept);
}

void ReplBacklog::Append(std::string_view bytes) {
  const std::size_t cap = ring_.size();
  if (bytes.size() >= cap) {
    // Only the newest cap bytes survive.
    first_byte_offset_ += static_cast<std::int64_t>(histlen_ + bytes.size() - cap);
    bytes.remove_prefix(bytes.size() - cap);
    ring_.assign(bytes);
    head_ = 0;
    histlen_ = cap;
    return;
  }
  const std::size_t first = std::min(bytes.size(), cap - head_);
  ring_.replace(head_, first, bytes.substr(0, first));
  if (first < bytes.size()) ring_.replace(0, bytes.size() - first, bytes.substr(first));
  head_ = (head_ + bytes.size()) % cap;
  histlen_ += bytes.size();
  if (histlen_ > cap) {
    first_byte_offset_ += static_cast<std::int64_t>(histlen_ - cap);
    histlen_ = cap;
  }
}

void ReplBacklog::CopyFrom(std::int64_t offset, std::string& out) const {
  const std::size_t skip = static_cast<std::size_t>(offset - first_byte_offset_);
  const std::size_t len = histlen_ - skip;
  const std::size_t cap = ring_.size();
  // The oldest byte is histlen_ behind head_.
  const std::size_t start = (head_ + cap - histlen_ + skip) % cap;
  const std::size_t first = std::min(len, cap - start);
  out.append(ring_, start, first);
  if (first < len) out.append(ring_, 0, len - first);
}

}  // namespace warden::server
