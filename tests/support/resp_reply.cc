#include "resp_reply.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <tuple>
#include <utility>

namespace warden::testing {
namespace {

// Nesting deeper than this is treated as malformed rather than risking the test's stack.
constexpr int kMaxDepth = 64;

// Reads a decimal integer that must fill `text` exactly.
bool ParseInt64(std::string_view text, std::int64_t& value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

// Finds the CRLF-terminated line that starts at `pos`. Sets `line` to its content (without CRLF)
// and `next` to the first byte after the CRLF.
ParseStatus ReadLine(std::string_view bytes, std::size_t pos, std::string_view& line,
                     std::size_t& next) {
  const std::size_t crlf = bytes.find("\r\n", pos);
  if (crlf == std::string_view::npos) {
    // A lone '\n' can never become a valid line terminator by reading more.
    return bytes.find('\n', pos) == std::string_view::npos ? ParseStatus::kIncomplete
                                                           : ParseStatus::kMalformed;
  }
  line = bytes.substr(pos, crlf - pos);
  next = crlf + 2;
  return ParseStatus::kComplete;
}

ParseStatus ParseAt(std::string_view bytes, std::size_t pos, int depth, Reply& out,
                    std::size_t& end);

// Parses `count` consecutive replies starting at `pos` into `out.elements`.
ParseStatus ParseElements(std::string_view bytes, std::size_t pos, int depth, std::int64_t count,
                          Reply& out, std::size_t& end) {
  for (std::int64_t i = 0; i < count; ++i) {
    Reply element;
    const ParseStatus status = ParseAt(bytes, pos, depth + 1, element, pos);
    if (status != ParseStatus::kComplete) return status;
    out.elements.push_back(std::move(element));
  }
  end = pos;
  return ParseStatus::kComplete;
}

ParseStatus ParseAt(std::string_view bytes, std::size_t pos, int depth, Reply& out,
                    std::size_t& end) {
  if (depth > kMaxDepth) return ParseStatus::kMalformed;
  if (pos >= bytes.size()) return ParseStatus::kIncomplete;
  out.type = bytes[pos];
  std::string_view line;
  std::size_t next = 0;
  ParseStatus status = ReadLine(bytes, pos + 1, line, next);
  if (status != ParseStatus::kComplete) return status;

  std::int64_t length = 0;
  switch (out.type) {
    case '+':
    case '-':
    case '#':
    case ',':
    case '(':
      out.text = line;
      end = next;
      break;
    case ':':
      if (!ParseInt64(line, length)) return ParseStatus::kMalformed;
      out.text = line;
      end = next;
      break;
    case '_':
      if (!line.empty()) return ParseStatus::kMalformed;
      out.is_null = true;
      end = next;
      break;
    case '$':
    case '=':
    case '!':
      if (!ParseInt64(line, length) || length < -1) return ParseStatus::kMalformed;
      if (length == -1) {
        if (out.type != '$') return ParseStatus::kMalformed;
        out.is_null = true;
        end = next;
        break;
      }
      if (bytes.size() < next + length + 2) return ParseStatus::kIncomplete;
      if (bytes.substr(next + length, 2) != "\r\n") return ParseStatus::kMalformed;
      out.text = bytes.substr(next, length);
      end = next + length + 2;
      break;
    case '*':
    case '~':
    case '>':
    case '%':
    case '|':
      if (!ParseInt64(line, length) || length < -1) return ParseStatus::kMalformed;
      if (length == -1) {
        if (out.type != '*') return ParseStatus::kMalformed;
        out.is_null = true;
        end = next;
        break;
      }
      if (out.type == '%' || out.type == '|') length *= 2;
      // An attribute annotates the reply that follows it; keep that reply as the last element.
      if (out.type == '|') ++length;
      status = ParseElements(bytes, next, depth, length, out, end);
      if (status != ParseStatus::kComplete) return status;
      break;
    default:
      return ParseStatus::kMalformed;
  }
  out.raw = bytes.substr(pos, end - pos);
  return ParseStatus::kComplete;
}

void AppendHeader(std::string& out, char type, std::size_t count) {
  out += type;
  out += std::to_string(count);
  out += "\r\n";
}

}  // namespace

ParseResult ParseReply(std::string_view bytes) {
  ParseResult result;
  std::size_t end = 0;
  result.status = ParseAt(bytes, 0, 0, result.reply, end);
  if (result.status == ParseStatus::kComplete) {
    result.length = end;
  } else {
    result.reply = Reply();
  }
  return result;
}

std::string EncodeReply(const Reply& reply) {
  std::string out;
  switch (reply.type) {
    case '$':
    case '=':
    case '!':
      if (reply.is_null) return "$-1\r\n";
      AppendHeader(out, reply.type, reply.text.size());
      out += reply.text;
      out += "\r\n";
      return out;
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      if (reply.is_null) return "*-1\r\n";
      std::size_t count = reply.elements.size();
      if (reply.type == '|') --count;
      if (reply.type == '%' || reply.type == '|') count /= 2;
      AppendHeader(out, reply.type, count);
      for (const Reply& element : reply.elements) out += EncodeReply(element);
      return out;
    }
    default:
      out += reply.type;
      out += reply.text;
      out += "\r\n";
      return out;
  }
}

std::string EncodeCommand(const std::vector<std::string>& argv) {
  std::string out;
  AppendHeader(out, '*', argv.size());
  for (const std::string& arg : argv) {
    AppendHeader(out, '$', arg.size());
    out += arg;
    out += "\r\n";
  }
  return out;
}

void SortArrays(Reply& reply) {
  for (Reply& element : reply.elements) SortArrays(element);
  const auto by_raw = [](const Reply& a, const Reply& b) { return a.raw < b.raw; };
  if (reply.type == '*' || reply.type == '~') {
    std::sort(reply.elements.begin(), reply.elements.end(), by_raw);
  } else if (reply.type == '%') {
    // Sort whole key/value pairs so that each value stays with its key.
    std::vector<std::pair<Reply, Reply>> pairs;
    for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
      pairs.emplace_back(std::move(reply.elements[i]), std::move(reply.elements[i + 1]));
    }
    std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      return std::tie(a.first.raw, a.second.raw) < std::tie(b.first.raw, b.second.raw);
    });
    reply.elements.clear();
    for (auto& [key, value] : pairs) {
      reply.elements.push_back(std::move(key));
      reply.elements.push_back(std::move(value));
    }
  }
  reply.raw = EncodeReply(reply);
}

bool RepliesMatch(const Reply& a, const Reply& b, std::int64_t integer_tolerance) {
  if (a.type != b.type || a.is_null != b.is_null) return false;
  if (a.elements.size() != b.elements.size()) return false;
  if (a.type == ':' && integer_tolerance > 0) {
    std::int64_t x = 0;
    std::int64_t y = 0;
    if (!ParseInt64(a.text, x) || !ParseInt64(b.text, y)) return false;
    // Widen so that the difference of two extreme int64 values cannot overflow.
    const __int128 difference = static_cast<__int128>(x) - static_cast<__int128>(y);
    if ((difference < 0 ? -difference : difference) > integer_tolerance) return false;
  } else if (a.text != b.text) {
    return false;
  }
  for (std::size_t i = 0; i < a.elements.size(); ++i) {
    if (!RepliesMatch(a.elements[i], b.elements[i], integer_tolerance)) return false;
  }
  return true;
}

std::string EscapeBytes(std::string_view bytes, std::size_t max_chars) {
  std::string out;
  for (const char c : bytes) {
    if (out.size() >= max_chars) {
      out += "...(" + std::to_string(bytes.size()) + " bytes)";
      break;
    }
    switch (c) {
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out += c;
        } else {
          char hex[5];
          std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
          out += hex;
        }
    }
  }
  return out;
}

}  // namespace warden::testing
