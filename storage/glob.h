// Redis's glob matching (util.c stringmatchlen) for KEYS, SCAN MATCH and CONFIG GET.
//
// Byte-wise and case-sensitive: '?' one byte, '*' any run, '\x' a literal x, '[...]' a class
// with '^' negation (not '!'), ranges (reversed ones swapped, compared as signed char), '\' escapes
// and Redis's quirks ("[]]" is an empty class then ']'; an unclosed class runs to the end).
// Unlike Redis's recursive matcher this one backtracks only to the last '*', which accepts the same
// strings (every other token consumes exactly one byte) in O(pattern * string) time and constant
// stack, whatever the pattern.
#pragma once

#include <string_view>

namespace warden::storage {

bool GlobMatch(std::string_view pattern, std::string_view text);
// The same with ASCII letters compared case-insensitively (CONFIG GET).
bool GlobMatchNoCase(std::string_view pattern, std::string_view text);

}  // namespace warden::storage
