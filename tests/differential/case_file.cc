#include "case_file.h"

#include <charconv>
#include <utility>

namespace warden::testing {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  return text;
}

// If `text` starts with the word `word` followed by a blank or the end, removes both and
// returns true. Directives are matched case-sensitively, so `TYPE key` stays a command.
bool ConsumeWord(std::string_view& text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  if (text.size() > word.size() && !IsBlank(text[word.size()])) return false;
  text = TrimLeft(text.substr(word.size()));
  return true;
}

// Parses a non-negative decimal number filling `text`.
bool ParseCount(std::string_view text, std::int64_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return !text.empty() && ec == std::errc() && ptr == end && value >= 0;
}

// Reads the `~N`, `sorted` and `type` prefixes. False (with `error`) on a malformed `~N`.
bool ConsumeComparisonPrefixes(std::string_view& text, CaseLine& line, std::string& error) {
  while (true) {
    if (text.starts_with('~')) {
      std::size_t end = 1;
      while (end < text.size() && !IsBlank(text[end])) ++end;
      if (!ParseCount(text.substr(1, end - 1), line.integer_tolerance)) {
        error = "'~' must be followed by a non-negative integer tolerance";
        return false;
      }
      text = TrimLeft(text.substr(end));
    } else if (ConsumeWord(text, "sorted")) {
      line.sorted = true;
    } else if (ConsumeWord(text, "type")) {
      line.type_only = true;
    } else {
      return true;
    }
  }
}

// Parses what follows the prefixes. Returns an error message, or an empty string.
std::string ParseBody(std::string_view text, CaseLine& line) {
  const bool compares_replies = line.integer_tolerance > 0 || line.sorted || line.type_only;
  if (ConsumeWord(text, "reconnect")) {
    if (!text.empty() || compares_replies) return "reconnect takes nothing before or after it";
    line.kind = LineKind::kReconnect;
    return "";
  }
  const bool raw_close = ConsumeWord(text, "rawclose");
  if (raw_close || ConsumeWord(text, "raw")) {
    line.kind = raw_close ? LineKind::kRawClose : LineKind::kRaw;
    std::optional<std::vector<std::string>> args = SplitArgs(text);
    if (!args) return "unbalanced quotes";
    const std::size_t max_args = raw_close ? 1 : 2;
    if (args->empty() || args->size() > max_args) {
      return raw_close ? "rawclose takes one quoted string"
                       : "raw takes a quoted string and an "
                         "optional reply count";
    }
    line.raw = std::move((*args)[0]);
    if (args->size() == 2) {
      std::int64_t replies = 0;
      if (!ParseCount((*args)[1], replies) || replies > 100000) return "bad reply count";
      line.replies = static_cast<int>(replies);
    }
    if (raw_close && compares_replies) return "rawclose always compares bytes exactly";
    return "";
  }
  const bool scan_all = ConsumeWord(text, "scanall");
  std::optional<std::vector<std::string>> args = SplitArgs(text);
  if (!args) return "unbalanced quotes";
  line.args = std::move(*args);
  if (scan_all) {
    line.kind = LineKind::kScanAll;
    if (compares_replies) return "scanall always compares key sets";
    return "";
  }
  if (line.args.empty()) return "no command after the prefixes";
  return "";
}

}  // namespace

std::optional<std::vector<std::string>> SplitArgs(std::string_view line) {
  std::vector<std::string> args;
  std::size_t i = 0;
  const auto at = [&](std::size_t index) { return index < line.size() ? line[index] : '\0'; };
  while (true) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i >= line.size()) return args;
    std::string current;
    bool in_double = false;
    bool in_single = false;
    bool done = false;
    while (!done) {
      const char c = at(i);
      if (in_double) {
        if (c == '\\' && at(i + 1) == 'x' && IsHexDigit(at(i + 2)) && IsHexDigit(at(i + 3))) {
          current += static_cast<char>(HexValue(at(i + 2)) * 16 + HexValue(at(i + 3)));
          i += 3;
        } else if (c == '\\' && i + 1 < line.size()) {
          ++i;
          switch (line[i]) {
            case 'n':
              current += '\n';
              break;
            case 'r':
              current += '\r';
              break;
            case 't':
              current += '\t';
              break;
            case 'b':
              current += '\b';
              break;
            case 'a':
              current += '\a';
              break;
            default:
              current += line[i];
          }
        } else if (c == '"') {
          // The closing quote must end the argument.
          if (i + 1 < line.size() && !IsBlank(line[i + 1])) return std::nullopt;
          done = true;
        } else if (i >= line.size()) {
          return std::nullopt;
        } else {
          current += c;
        }
      } else if (in_single) {
        if (c == '\\' && at(i + 1) == '\'') {
          ++i;
          current += '\'';
        } else if (c == '\'') {
          if (i + 1 < line.size() && !IsBlank(line[i + 1])) return std::nullopt;
          done = true;
        } else if (i >= line.size()) {
          return std::nullopt;
        } else {
          current += c;
        }
      } else if (i >= line.size() || IsBlank(c)) {
        done = true;
      } else if (c == '"') {
        in_double = true;
      } else if (c == '\'') {
        in_single = true;
      } else {
        current += c;
      }
      if (i < line.size()) ++i;
    }
    args.push_back(std::move(current));
  }
}

CaseFile ParseCaseFile(std::string_view contents) {
  CaseFile file;
  int number = 0;
  while (!contents.empty()) {
    ++number;
    const std::size_t newline = contents.find('\n');
    std::string_view text = contents.substr(0, newline);
    contents =
        newline == std::string_view::npos ? std::string_view() : contents.substr(newline + 1);
    if (text.ends_with('\r')) text.remove_suffix(1);
    std::string_view body = TrimLeft(text);
    if (body.empty() || body.starts_with('#')) continue;

    CaseLine line;
    line.number = number;
    line.text = body;
    std::string error;
    if (ConsumeComparisonPrefixes(body, line, error)) error = ParseBody(body, line);
    if (error.empty()) {
      file.lines.push_back(std::move(line));
    } else {
      file.errors.push_back("line " + std::to_string(number) + ": " + error);
    }
  }
  return file;
}

}  // namespace warden::testing
