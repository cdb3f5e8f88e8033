#include "server/config/config_values.h"

#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "server/command_context.h"
#include "server/config/config.h"
#include "server/monitor.h"

namespace warden::server::config_values {

std::string Between(std::int64_t lo, std::int64_t hi) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "argument must be between %" PRId64 " and %" PRId64 " inclusive",
                lo, hi);
  return buf;
}

bool MemToUll(std::string_view v, unsigned long long& out) {
  std::size_t digits = 0;
  if (!v.empty() && v[0] == '-') return false;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  const unsigned long long mul = MemoryUnitBytes(v.substr(digits));
  if (mul == 0) return false;
  if (digits > 20) return false;
  const std::string text(v.substr(0, digits));
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value > ULLONG_MAX / mul) return false;
  out = value * mul;
  return true;
}

SetResult SetBool(std::string_view v, bool& out) {
  if (EqualsNoCase(v, "yes")) {
    out = true;
  } else if (EqualsNoCase(v, "no")) {
    out = false;
  } else {
    return "argument must be 'yes' or 'no'";
  }
  return std::nullopt;
}

SetResult SetEnum(std::string_view v, std::span<const std::string_view> names, std::string& out) {
  for (std::string_view name : names) {
    if (EqualsNoCase(v, name)) {
      out = std::string(name);
      return std::nullopt;
    }
  }
  std::string err = "argument(s) must be one of the following: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) err += ", ";
    err += names[i];
  }
  return err;
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendQuoted(out, s);
  return out;
}

std::string YesNo(bool b) { return b ? "yes" : "no"; }

std::string FormatMemory(std::int64_t bytes) {
  constexpr std::int64_t kGb = 1024LL * 1024 * 1024;
  constexpr std::int64_t kMb = 1024LL * 1024;
  constexpr std::int64_t kKb = 1024;
  if (bytes != 0 && bytes % kGb == 0) return std::to_string(bytes / kGb) + "gb";
  if (bytes != 0 && bytes % kMb == 0) return std::to_string(bytes / kMb) + "mb";
  if (bytes != 0 && bytes % kKb == 0) return std::to_string(bytes / kKb) + "kb";
  return std::to_string(bytes);
}

std::vector<std::string_view> SplitSpaces(std::string_view v) {
  std::vector<std::string_view> out;
  if (v.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t sp = v.find(' ', start);
    out.push_back(v.substr(start, sp == std::string_view::npos ? v.size() - start : sp - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  return out;
}

namespace {
constexpr std::string_view kShutdownFlagNames[] = {"default", "save", "nosave", "now", "force"};
}  // namespace

SetResult SetShutdownFlags(std::span<const std::string_view> words, std::string& out) {
  unsigned bits = 0;
  for (std::string_view v : words) {
    std::string name;
    if (auto error = SetEnum(v, kShutdownFlagNames, name)) return error;
    for (std::size_t i = 1; i < std::size(kShutdownFlagNames); ++i) {
      if (name == kShutdownFlagNames[i]) bits |= 1u << i;
    }
  }
  if ((bits & 2u) != 0 && (bits & 4u) != 0) {
    return "shutdown options SAVE and NOSAVE can't be used simultaneously";
  }
  std::string text;
  for (std::size_t i = 1; i < std::size(kShutdownFlagNames); ++i) {
    if ((bits & (1u << i)) == 0) continue;
    if (!text.empty()) text += ' ';
    text += kShutdownFlagNames[i];
  }
  out = text.empty() ? std::string("default") : text;
  return std::nullopt;
}

ShutdownFlags ParseShutdownFlags(std::string_view text) {
  ShutdownFlags flags;
  for (std::string_view word : SplitSpaces(text)) {
    flags.save |= word == "save";
    flags.nosave |= word == "nosave";
    flags.now |= word == "now";
    flags.force |= word == "force";
  }
  return flags;
}

}  // namespace warden::server::config_values
