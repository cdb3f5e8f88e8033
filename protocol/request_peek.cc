#include "protocol/request_peek.h"

#include <cstdint>

namespace warden::protocol {
namespace {

// Reads "<digits>\r\n" at `pos`, advancing past it. False on anything else; lengths beyond any
// limit the parser allows are refused too, so the arithmetic below cannot overflow.
[[gnu::always_inline]] inline bool ReadLength(std::string_view data, std::size_t& pos,
                                              std::size_t& value) {
  // kMax has 13 digits, and 13 cannot overflow: the bound is checked once, after them.
  constexpr std::size_t kMax = std::size_t{1} << 40;
  constexpr std::size_t kMaxDigits = 13;
  const char* p = data.data() + pos;
  const char* const end = data.data() + data.size();
  const char* const first = p;
  std::size_t v = 0;
  while (p < end && static_cast<unsigned char>(*p - '0') <= 9) {
    if (static_cast<std::size_t>(p - first) == kMaxDigits) return false;
    v = v * 10 + static_cast<std::size_t>(*p - '0');
    ++p;
  }
  if (p == first || v > kMax || end - p < 2 || p[0] != '\r' || p[1] != '\n') return false;
  pos = static_cast<std::size_t>(p + 2 - data.data());
  value = v;
  return true;
}

}  // namespace

std::size_t PeekRequests(std::string_view data, std::span<PeekedRequest> out) {
  std::size_t found = 0;
  std::size_t pos = 0;
  while (found < out.size() && pos < data.size() && data[pos] == '*') {
    ++pos;
    std::size_t argc = 0;
    if (!ReadLength(data, pos, argc) || argc == 0) break;
    PeekedRequest& request = out[found];
    request.argc = argc;
    bool complete = true;
    for (std::size_t i = 0; i < argc; ++i) {
      std::size_t len = 0;
      if (pos >= data.size() || data[pos] != '$') {
        complete = false;
        break;
      }
      ++pos;
      if (!ReadLength(data, pos, len) || len > data.size() || pos + len + 2 > data.size()) {
        complete = false;
        break;
      }
      if (i < PeekedRequest::kMaxArgs) request.args[i] = data.substr(pos, len);
      pos += len + 2;
    }
    if (!complete) break;
    ++found;
  }
  return found;
}

}  // namespace warden::protocol
