#include "protocol/reply_reader.h"

#include <cstdlib>
#include <string>

#include "protocol/request_parser.h"

namespace warden::protocol {
namespace {

constexpr int kMaxDepth = 1000;

// Returns the position just past the line's "\r\n", or 0 when the line is incomplete.
std::size_t LineEnd(std::string_view data, std::size_t from, std::string_view& line) {
  const std::size_t cr = data.find("\r\n", from);
  if (cr == std::string_view::npos) return 0;
  line = data.substr(from, cr - from);
  return cr + 2;
}

// Returns bytes consumed from `pos`, 0 if incomplete, SIZE_MAX if malformed.
constexpr std::size_t kMalformed = static_cast<std::size_t>(-1);

std::size_t Read(std::string_view data, std::size_t pos, Reply& out, int depth) {
  if (depth > kMaxDepth) return kMalformed;
  if (pos >= data.size()) return 0;
  const char type = data[pos];
  std::string_view line;
  const std::size_t after = LineEnd(data, pos + 1, line);
  if (after == 0) return 0;
  out.elements.clear();
  auto aggregate = [&](ReplyType t, std::int64_t count) -> std::size_t {
    out.type = t;
    if (count < 0) {
      out.type = ReplyType::kNull;
      return after - pos;
    }
    // Every element takes at least three bytes: a larger count cannot be complete yet.
    if (static_cast<std::size_t>(count) > data.size()) return 0;
    std::size_t cursor = after;
    out.elements.resize(static_cast<std::size_t>(count));
    for (Reply& element : out.elements) {
      const std::size_t n = Read(data, cursor, element, depth + 1);
      if (n == 0 || n == kMalformed) return n;
      cursor += n;
    }
    return cursor - pos;
  };
  std::int64_t n = 0;
  switch (type) {
    case '+':
      out.type = ReplyType::kStatus;
      out.text = line;
      return after - pos;
    case '-':
      out.type = ReplyType::kError;
      out.text = line;
      return after - pos;
    case ':':
      if (!ParseStrictInt64(line, n)) return kMalformed;
      out.type = ReplyType::kInteger;
      out.integer = n;
      return after - pos;
    case '_':
      out.type = ReplyType::kNull;
      return after - pos;
    case '#':
      out.type = ReplyType::kBoolean;
      out.boolean = line == "t";
      return after - pos;
    case ',': {
      out.type = ReplyType::kDouble;
      out.text = line;
      const std::string copy(line);
      out.number = std::strtod(copy.c_str(), nullptr);
      return after - pos;
    }
    case '(':
      out.type = ReplyType::kBigNumber;
      out.text = line;
      return after - pos;
    case '$':
    case '=': {
      if (!ParseStrictInt64(line, n)) return kMalformed;
      if (n < 0) {
        out.type = ReplyType::kNull;
        return after - pos;
      }
      const std::size_t len = static_cast<std::size_t>(n);
      if (data.size() - after < len + 2) return 0;
      out.text = data.substr(after, len);
      out.type = ReplyType::kBulk;
      if (type == '=') {
        if (len < 4) return kMalformed;
        out.type = ReplyType::kVerbatim;
        out.format = out.text.substr(0, 3);
        out.text = out.text.substr(4);
      }
      return after + len + 2 - pos;
    }
    case '*':
      if (!ParseStrictInt64(line, n)) return kMalformed;
      return aggregate(ReplyType::kArray, n);
    case '~':
      if (!ParseStrictInt64(line, n)) return kMalformed;
      return aggregate(ReplyType::kSet, n);
    case '>':
      if (!ParseStrictInt64(line, n)) return kMalformed;
      return aggregate(ReplyType::kPush, n);
    case '%':
      if (!ParseStrictInt64(line, n) || n < 0) return kMalformed;
      return aggregate(ReplyType::kMap, n * 2);
    case '|': {
      // An attribute map describes the reply after it and is not one itself: read past it,
      // as Redis's script bridge does, and the reply that follows is the one returned.
      if (!ParseStrictInt64(line, n) || n < 0) return kMalformed;
      const std::size_t attribute = aggregate(ReplyType::kMap, n * 2);
      if (attribute == 0 || attribute == kMalformed) return attribute;
      const std::size_t next = Read(data, pos + attribute, out, depth);
      if (next == 0 || next == kMalformed) return next;
      return attribute + next;
    }
    default:
      return kMalformed;
  }
}

}  // namespace

std::optional<std::size_t> ReadReply(std::string_view data, Reply& out) {
  const std::size_t n = Read(data, 0, out, 0);
  if (n == kMalformed) return std::nullopt;
  return n;
}

}  // namespace warden::protocol
