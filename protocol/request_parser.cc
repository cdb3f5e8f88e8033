#include "protocol/request_parser.h"

#include <cstring>

namespace warden::protocol {
namespace {

// Redis finds line ends with strchr() on a NUL-terminated buffer, so a NUL byte hides every
// terminator after it. The "Protocol desync" regression tests rely on that: the request then
// grows past the inline limit and is refused instead of being run as garbage.
std::size_t FindTerminator(std::string_view data, std::size_t from, char terminator) {
  for (std::size_t i = from; i < data.size(); ++i) {
    const char c = data[i];
    if (c == terminator) return i;
    if (c == '\0') return std::string_view::npos;
  }
  return std::string_view::npos;
}

// "<marker><1 to 18 digits, the first not 0>\r" and one byte after it, at `pos`: the header of
// nearly every request and argument, read in one pass. False for anything else, which the general
// path then reads (and words the errors of) as Redis does.
[[gnu::always_inline]] inline bool ReadCommonHeader(std::string_view data, std::size_t pos,
                                                    char marker, std::int64_t& value,
                                                    std::size_t& next) {
  const char* const start = data.data() + pos;
  const std::size_t avail = data.size() - pos;
  if (avail < 4 || start[0] != marker) return false;
  const unsigned first = static_cast<unsigned char>(start[1]) - unsigned{'1'};
  if (first > 8) return false;
  std::int64_t v = static_cast<std::int64_t>(first) + 1;
  const char* p = start + 2;
  const char* const digits_end = start + (avail < 19 ? avail : 19);
  while (p < digits_end) {
    const unsigned digit = static_cast<unsigned char>(*p) - unsigned{'0'};
    if (digit > 9) break;
    v = v * 10 + static_cast<std::int64_t>(digit);
    ++p;
  }
  if (static_cast<std::size_t>(p - start) + 2 > avail || *p != '\r') return false;
  value = v;
  next = pos + static_cast<std::size_t>(p - start) + 2;
  return true;
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// isspace() in the C locale, as sdssplitargs uses to skip blanks between arguments.
bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

bool ParseStrictInt64(std::string_view s, std::int64_t& out) {
  // Every length and count a request carries: up to 18 digits cannot overflow, so the digits
  // need no check but their range.
  if (!s.empty() && s.size() <= 18 && s[0] >= '1' && s[0] <= '9') [[likely]] {
    std::int64_t v = s[0] - '0';
    for (std::size_t i = 1; i < s.size(); ++i) {
      const unsigned digit = static_cast<unsigned char>(s[i]) - unsigned{'0'};
      if (digit > 9) return false;
      v = v * 10 + static_cast<std::int64_t>(digit);
    }
    out = v;
    return true;
  }
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative) {
    i = 1;
    if (s.size() == 1) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;
    out = static_cast<std::int64_t>(0 - v);
  } else {
    if (v > static_cast<std::uint64_t>(INT64_MAX)) return false;
    out = static_cast<std::int64_t>(v);
  }
  return true;
}

bool SplitInlineArgs(std::string_view line, std::string& storage,
                     std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  // Index past the end reads as NUL, like the C string sdssplitargs walks.
  auto at = [&](std::size_t i) -> char { return i < line.size() ? line[i] : '\0'; };
  std::size_t p = 0;
  while (true) {
    while (p < line.size() && IsBlank(line[p])) ++p;
    if (p >= line.size() || line[p] == '\0') return true;
    const std::size_t start = storage.size();
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      const char c = at(p);
      if (in_double) {
        if (c == '\\' && at(p + 1) == 'x' && IsHexDigit(at(p + 2)) && IsHexDigit(at(p + 3))) {
          storage.push_back(static_cast<char>(HexValue(at(p + 2)) * 16 + HexValue(at(p + 3))));
          p += 3;
        } else if (c == '\\' && at(p + 1) != '\0') {
          ++p;
          char e = at(p);
          switch (e) {
            case 'n':
              e = '\n';
              break;
            case 'r':
              e = '\r';
              break;
            case 't':
              e = '\t';
              break;
            case 'b':
              e = '\b';
              break;
            case 'a':
              e = '\a';
              break;
            default:
              break;
          }
          storage.push_back(e);
        } else if (c == '"') {
          if (at(p + 1) != '\0' && !IsBlank(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          storage.push_back(c);
        }
      } else if (in_single) {
        if (c == '\\' && at(p + 1) == '\'') {
          ++p;
          storage.push_back('\'');
        } else if (c == '\'') {
          if (at(p + 1) != '\0' && !IsBlank(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          storage.push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double = true;
            break;
          case '\'':
            in_single = true;
            break;
          default:
            storage.push_back(c);
            break;
        }
      }
      if (at(p) != '\0') ++p;
    }
    spans.emplace_back(start, storage.size() - start);
  }
}

void RequestParser::Reset() {
  pos_ = 0;
  multibulk_left_ = 0;
  bulk_len_ = -1;
  wanted_ = 0;
  spans_.clear();
  args_.clear();
}

void RequestParser::ShrinkIfIdle(std::size_t keep_args) {
  if (pos_ != 0) return;
  if (spans_.capacity() > keep_args) std::vector<Span>().swap(spans_);
  if (args_.capacity() > keep_args) std::vector<std::string_view>().swap(args_);
  if (inline_spans_.capacity() > keep_args) {
    std::vector<std::pair<std::size_t, std::size_t>>().swap(inline_spans_);
  }
}

std::size_t RequestParser::memory_bytes() const {
  return spans_.capacity() * sizeof(Span) + args_.capacity() * sizeof(std::string_view) +
         inline_storage_.capacity() +
         inline_spans_.capacity() * sizeof(std::pair<std::size_t, std::size_t>);
}

ParseStatus RequestParser::Fail(std::string_view error) {
  error_ = error;
  return ParseStatus::kError;
}

ParseStatus RequestParser::Parse(std::string_view data, bool authenticated) {
  args_.clear();
  if (pos_ == 0 && multibulk_left_ == 0) {
    if (data.empty()) return ParseStatus::kNeedMore;
    if (data[0] != '*') return ParseInline(data);
  }
  return ParseMultibulk(data, authenticated);
}

ParseStatus RequestParser::ParseInline(std::string_view data) {
  const std::size_t newline = FindTerminator(data, 0, '\n');
  if (newline == std::string_view::npos) {
    if (data.size() > limits_.max_inline_bytes) {
      return Fail("ERR Protocol error: too big inline request");
    }
    return ParseStatus::kNeedMore;
  }
  std::size_t line_end = newline;
  if (line_end > 0 && data[line_end - 1] == '\r') --line_end;
  inline_storage_.clear();
  inline_spans_.clear();
  if (!SplitInlineArgs(data.substr(0, line_end), inline_storage_, inline_spans_)) {
    return Fail("ERR Protocol error: unbalanced quotes in request");
  }
  pos_ = newline + 1;
  if (inline_spans_.empty()) return ParseStatus::kEmpty;
  for (const auto& [offset, length] : inline_spans_) {
    args_.emplace_back(inline_storage_.data() + offset, length);
  }
  return ParseStatus::kRequest;
}

ParseStatus RequestParser::ParseMultibulk(std::string_view data, bool authenticated) {
  std::int64_t header = 0;
  std::size_t next = 0;
  if (multibulk_left_ == 0 && ReadCommonHeader(data, 0, '*', header, next) &&
      header <= limits_.max_multibulk_len &&
      (authenticated || header <= limits_.unauthenticated_max_multibulk_len)) [[likely]] {
    pos_ = next;
    multibulk_left_ = header;
    spans_.clear();
    spans_.reserve(static_cast<std::size_t>(header < 1024 ? header : 1024));
  } else if (multibulk_left_ == 0) {
    const std::size_t cr = FindTerminator(data, 0, '\r');
    if (cr == std::string_view::npos) {
      if (data.size() > limits_.max_inline_bytes) {
        return Fail("ERR Protocol error: too big mbulk count string");
      }
      return ParseStatus::kNeedMore;
    }
    // Redis wants one byte after the '\r' but does not check that it is '\n'.
    if (cr + 2 > data.size()) return ParseStatus::kNeedMore;
    std::int64_t count = 0;
    if (!ParseStrictInt64(data.substr(1, cr - 1), count) || count > limits_.max_multibulk_len) {
      return Fail("ERR Protocol error: invalid multibulk length");
    }
    if (!authenticated && count > limits_.unauthenticated_max_multibulk_len) {
      return Fail("ERR Protocol error: unauthenticated multibulk length");
    }
    pos_ = cr + 2;
    if (count <= 0) return ParseStatus::kEmpty;
    multibulk_left_ = count;
    spans_.clear();
    // Trust the declared count only so far: a huge one must not allocate before data arrives.
    spans_.reserve(static_cast<std::size_t>(count < 1024 ? count : 1024));
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ < 0 && ReadCommonHeader(data, pos_, '$', header, next) &&
        header <= limits_.max_bulk_len &&
        (authenticated || header <= limits_.unauthenticated_max_bulk_len)) [[likely]] {
      pos_ = next;
      bulk_len_ = header;
    } else if (bulk_len_ < 0) {
      const std::size_t cr = FindTerminator(data, pos_, '\r');
      if (cr == std::string_view::npos) {
        if (data.size() - pos_ > limits_.max_inline_bytes) {
          return Fail("ERR Protocol error: too big bulk count string");
        }
        return ParseStatus::kNeedMore;
      }
      if (cr + 2 > data.size()) return ParseStatus::kNeedMore;
      if (data[pos_] != '$') {
        error_storage_ = "ERR Protocol error: expected '$', got '";
        error_storage_.push_back(data[pos_]);
        error_storage_.push_back('\'');
        return Fail(error_storage_);
      }
      std::int64_t len = 0;
      if (!ParseStrictInt64(data.substr(pos_ + 1, cr - pos_ - 1), len) || len < 0 ||
          len > limits_.max_bulk_len) {
        return Fail("ERR Protocol error: invalid bulk length");
      }
      if (!authenticated && len > limits_.unauthenticated_max_bulk_len) {
        return Fail("ERR Protocol error: unauthenticated bulk length");
      }
      pos_ = cr + 2;
      bulk_len_ = len;
    }
    const std::size_t need = static_cast<std::size_t>(bulk_len_) + 2;
    if (data.size() - pos_ < need) {
      wanted_ = need - (data.size() - pos_);
      return ParseStatus::kNeedMore;
    }
    // The two bytes after the data are skipped unchecked, as Redis does.
    spans_.push_back({pos_, static_cast<std::size_t>(bulk_len_)});
    pos_ += need;
    bulk_len_ = -1;
    --multibulk_left_;
  }
  wanted_ = 0;
  for (const Span& s : spans_) args_.emplace_back(data.data() + s.offset, s.length);
  return ParseStatus::kRequest;
}

}  // namespace warden::protocol
