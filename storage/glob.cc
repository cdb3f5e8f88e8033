#include "storage/glob.h"

#include <cstddef>

namespace warden::storage {
namespace {

char Fold(char c, bool nocase) {
  return nocase && c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

struct TokenMatch {
  bool matched;
  std::size_t end;  // index just past the token
};

// Matches the single-byte token at p[i] (not '*') against `raw`.
TokenMatch MatchToken(std::string_view p, std::size_t i, char raw, bool nocase) {
  const char c = Fold(raw, nocase);
  const std::size_t n = p.size();
  switch (p[i]) {
    case '?':
      return {true, i + 1};
    case '\\':
      if (n - i >= 2) return {Fold(p[i + 1], nocase) == c, i + 2};
      return {c == '\\', i + 1};
    case '[': {
      std::size_t j = i + 1;
      const bool negate = j < n && p[j] == '^';
      if (negate) ++j;
      bool matched = false;
      while (true) {
        if (j < n && p[j] == '\\' && n - j >= 2) {
          ++j;
          // Redis compares an escaped class member byte for byte, even without case.
          if (p[j] == raw) matched = true;
        } else if (j < n && p[j] == ']') {
          break;
        } else if (j >= n) {
          // Unclosed: the class runs to the end of the pattern.
          --j;
          break;
        } else if (n - j >= 3 && p[j + 1] == '-') {
          // Redis compares plain (signed) chars, so bytes >= 0x80 sort below ASCII, and it swaps
          // a reversed range before folding case: without case, [Z-a] is z..a and holds nothing.
          signed char start = static_cast<signed char>(p[j]);
          signed char end = static_cast<signed char>(p[j + 2]);
          if (start > end) {
            const signed char t = start;
            start = end;
            end = t;
          }
          start = static_cast<signed char>(Fold(static_cast<char>(start), nocase));
          end = static_cast<signed char>(Fold(static_cast<char>(end), nocase));
          const signed char sc = static_cast<signed char>(c);
          j += 2;
          if (sc >= start && sc <= end) matched = true;
        } else if (Fold(p[j], nocase) == c) {
          matched = true;
        }
        ++j;
      }
      return {negate ? !matched : matched, j + 1};
    }
    default:
      return {Fold(p[i], nocase) == c, i + 1};
  }
}

bool Match(std::string_view p, std::string_view s, bool nocase) {
  // Redis's matcher never enters its loop for an empty string, so only an empty pattern matches
  // it ("*" does not).
  if (s.empty()) return p.empty();
  std::size_t pi = 0;
  std::size_t si = 0;
  std::size_t star_pi = std::string_view::npos;  // token after the last '*'
  std::size_t star_si = 0;                       // where that '*' match restarts
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (pi == p.size()) return true;
      star_pi = pi;
      star_si = si;
      continue;
    }
    if (pi < p.size()) {
      const TokenMatch m = MatchToken(p, pi, s[si], nocase);
      if (m.matched) {
        pi = m.end;
        ++si;
        continue;
      }
    }
    if (star_pi == std::string_view::npos) return false;
    pi = star_pi;
    si = ++star_si;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  return Match(pattern, text, false);
}

bool GlobMatchNoCase(std::string_view pattern, std::string_view text) {
  return Match(pattern, text, true);
}

}  // namespace warden::storage
