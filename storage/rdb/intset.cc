#include "storage/rdb/intset.h"

#include <algorithm>
#include <limits>

namespace warden::storage::rdb {
namespace {

void AppendLe(std::string& out, std::uint64_t v, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// _intsetValueEncoding.
std::size_t WidthFor(std::int64_t v) {
  if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
    return 8;
  if (v < std::numeric_limits<std::int16_t>::min() || v > std::numeric_limits<std::int16_t>::max())
    return 4;
  return 2;
}

}  // namespace

std::string IntsetEncode(std::span<const std::int64_t> sorted_values) {
  // Sorted, so the widest value is at one end.
  std::size_t width = 2;
  if (!sorted_values.empty()) {
    width = std::max(WidthFor(sorted_values.front()), WidthFor(sorted_values.back()));
  }
  std::string out;
  out.reserve(8 + sorted_values.size() * width);
  AppendLe(out, width, 4);
  AppendLe(out, sorted_values.size(), 4);
  for (const std::int64_t v : sorted_values) AppendLe(out, static_cast<std::uint64_t>(v), width);
  return out;
}

bool IntsetValidate(std::string_view blob) {
  if (blob.size() < 8) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  std::uint32_t width = 0;
  std::uint32_t count = 0;
  for (int i = 3; i >= 0; --i) {
    width = (width << 8) | p[i];
    count = (count << 8) | p[4 + i];
  }
  if (width != 2 && width != 4 && width != 8) return false;
  if (count == 0 || blob.size() != 8 + std::uint64_t{count} * width) return false;
  std::int64_t prev = detail::IntsetLoad(p + 8, width);
  for (std::size_t pos = 8 + width; pos < blob.size(); pos += width) {
    const std::int64_t cur = detail::IntsetLoad(p + pos, width);
    if (cur <= prev) return false;
    prev = cur;
  }
  return true;
}

}  // namespace warden::storage::rdb
