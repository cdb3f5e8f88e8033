// The value kinds of CONFIG SET's options, parsed and formatted as Redis's config.c does, with
// its error texts. Shared by the option rows (option_rows.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/request_parser.h"

namespace warden::server::config_values {

// A CONFIG SET value's parse: nullopt, or Redis's reason text.
using SetResult = std::optional<std::string>;

// "argument must be between lo and hi inclusive".
std::string Between(std::int64_t lo, std::int64_t hi);
// Redis's memtoull: digits and an optional unit (b, k, kb, m, mb, g, gb, any case); no sign.
bool MemToUll(std::string_view v, unsigned long long& out);
SetResult SetBool(std::string_view v, bool& out);
// One of `names`, any case; `out` takes the name as listed.
SetResult SetEnum(std::string_view v, std::span<const std::string_view> names, std::string& out);
// Redis's sdscatrepr: a quoted string with C escapes.
std::string Quoted(std::string_view s);
std::string YesNo(bool b);
// Redis's rewriteConfigFormatMemory: "1gb", "64mb", "512kb" when the value divides evenly.
std::string FormatMemory(std::int64_t bytes);
// shutdown-on-sigint and shutdown-on-sigterm (an enum of flags, MULTI_ARG_CONFIG): any of
// default, save, nosave, now, force; `out` names the flags set in table order ("default" for
// none), as CONFIG GET shows them.
SetResult SetShutdownFlags(std::span<const std::string_view> words, std::string& out);
struct ShutdownFlags {
  bool save = false;
  bool nosave = false;
  bool now = false;
  bool force = false;
};
// The flags of a value SetShutdownFlags wrote.
ShutdownFlags ParseShutdownFlags(std::string_view text);

// Splits on single spaces, as Redis's sdssplitlen does for multi-argument options.
std::vector<std::string_view> SplitSpaces(std::string_view v);

// Redis's numericConfigSet for a plain integer (string2ll, then the bounds).
template <typename T>
SetResult SetInteger(std::string_view v, std::int64_t lo, std::int64_t hi, T& out) {
  std::int64_t n = 0;
  if (!protocol::ParseStrictInt64(v, n)) return "argument couldn't be parsed into an integer";
  if (n < lo || n > hi) return Between(lo, hi);
  out = static_cast<T>(n);
  return std::nullopt;
}

template <typename T>
SetResult SetMemory(std::string_view v, std::int64_t lo, std::int64_t hi, T& out) {
  unsigned long long bytes = 0;
  if (!MemToUll(v, bytes)) return "argument must be a memory value";
  // As Redis, the unsigned reading goes through a long long before the bounds check.
  const auto n = static_cast<std::int64_t>(bytes);
  if (n < lo || n > hi) return Between(lo, hi);
  out = static_cast<T>(n);
  return std::nullopt;
}

}  // namespace warden::server::config_values
