// The kinds of option row, for the tables of config_options.cc and tls_options.cc: each helper
// makes the row of one option of its kind from the field it sets, with Redis 7.0's parsing,
// CONFIG GET and CONFIG REWRITE forms and error texts for that kind (config.c's boolConfig,
// numericConfig, enumConfig and stringConfig).
//
//   Int<Field<&Config::hz>, 1, 500>("hz", 0, "background tasks per second")
//   Memory<SubField<&Config::encoding, &EncodingLimits::hash_max_listpack_value>, 0, kLongMax>(...)
#pragma once

#include <climits>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "server/config/config_options.h"
#include "server/config/config_values.h"

namespace warden::server::option_rows {

using Words = std::span<const std::string_view>;
using Apply = ConfigSetResult (*)(ServerState& server);

inline constexpr std::int64_t kIntMax = INT32_MAX;
inline constexpr std::int64_t kLongMax = INT64_MAX;

// The field a row sets: a member of Config, or a member of one of its members.
template <auto Member>
struct Field {
  static auto& Of(Config& c) { return c.*Member; }
  static const auto& Of(const Config& c) { return c.*Member; }
};
template <auto Outer, auto Inner>
struct SubField {
  static auto& Of(Config& c) { return (c.*Outer).*Inner; }
  static const auto& Of(const Config& c) { return (c.*Outer).*Inner; }
};

// An integer within [Lo, Hi] (Redis's numericConfig with INTEGER_CONFIG).
template <typename F, std::int64_t Lo, std::int64_t Hi>
constexpr ConfigOption Int(std::string_view name, std::uint32_t flags, std::string_view help,
                           Apply apply = nullptr, std::string_view alias = {}) {
  return {name,
          alias,
          ConfigKind::kInt,
          flags,
          Lo,
          Hi,
          {},
          help,
          [](Config& c, Words w) { return config_values::SetInteger(w[0], Lo, Hi, F::Of(c)); },
          [](const Config& c) { return std::to_string(F::Of(c)); },
          [](const Config& c) { return std::to_string(F::Of(c)); },
          apply};
}

// A byte count with Redis's units ("64mb"): CONFIG GET shows bytes, CONFIG REWRITE the unit
// (numericConfig with MEMORY_CONFIG).
template <typename F, std::int64_t Lo, std::int64_t Hi>
constexpr ConfigOption Memory(std::string_view name, std::uint32_t flags, std::string_view help,
                              Apply apply = nullptr, std::string_view alias = {}) {
  return {name,
          alias,
          ConfigKind::kMemory,
          flags,
          Lo,
          Hi,
          {},
          help,
          [](Config& c, Words w) { return config_values::SetMemory(w[0], Lo, Hi, F::Of(c)); },
          [](const Config& c) { return std::to_string(F::Of(c)); },
          [](const Config& c) {
            return config_values::FormatMemory(static_cast<std::int64_t>(F::Of(c)));
          },
          apply};
}

template <typename F>
constexpr ConfigOption Bool(std::string_view name, std::uint32_t flags, std::string_view help,
                            Apply apply = nullptr, std::string_view alias = {}) {
  return {name,
          alias,
          ConfigKind::kBool,
          flags,
          0,
          0,
          {},
          help,
          [](Config& c, Words w) { return config_values::SetBool(w[0], F::Of(c)); },
          [](const Config& c) { return config_values::YesNo(F::Of(c)); },
          [](const Config& c) { return config_values::YesNo(F::Of(c)); },
          apply};
}

// One of `Names`, any case, kept as listed (a std::string field).
template <typename F, const auto& Names>
constexpr ConfigOption Enum(std::string_view name, std::uint32_t flags, std::string_view help,
                            Apply apply = nullptr) {
  return {name,
          {},
          ConfigKind::kEnum,
          flags,
          0,
          0,
          Names,
          help,
          [](Config& c, Words w) { return config_values::SetEnum(w[0], Names, F::Of(c)); },
          [](const Config& c) { return F::Of(c); },
          [](const Config& c) { return F::Of(c); },
          apply};
}

// An enum class field: the i-th of `Names` (any case) sets the i-th of `Values`, and CONFIG GET
// shows a value by its first name, as Redis's configEnumGetName does (oom-score-adj's relative
// is "yes").
template <typename F, const auto& Names, const auto& Values>
constexpr ConfigOption EnumClass(std::string_view name, std::uint32_t flags, std::string_view help,
                                 Apply apply = nullptr) {
  static_assert(std::size(Names) == std::size(Values));
  constexpr auto get = [](const Config& c) {
    std::size_t i = 0;
    while (i + 1 < std::size(Values) && Values[i] != F::Of(c)) ++i;
    return std::string(Names[i]);
  };
  return {name,
          {},
          ConfigKind::kEnum,
          flags,
          0,
          0,
          Names,
          help,
          [](Config& c, Words w) -> ConfigSetResult {
            std::string chosen;
            if (auto error = config_values::SetEnum(w[0], Names, chosen)) return error;
            std::size_t i = 0;
            while (Names[i] != chosen) ++i;
            F::Of(c) = Values[i];
            return std::nullopt;
          },
          get,
          get,
          apply};
}

// Any text; CONFIG REWRITE quotes it as Redis's sdscatrepr does.
template <typename F>
constexpr ConfigOption String(std::string_view name, std::uint32_t flags, std::string_view help,
                              Apply apply = nullptr, std::string_view alias = {}) {
  return {name,
          alias,
          ConfigKind::kString,
          flags,
          0,
          0,
          {},
          help,
          [](Config& c, Words w) -> ConfigSetResult {
            F::Of(c).assign(w[0]);
            return std::nullopt;
          },
          [](const Config& c) { return F::Of(c); },
          [](const Config& c) { return config_values::Quoted(F::Of(c)); },
          apply};
}

// An option whose parsing and forms are its own.
constexpr ConfigOption Special(std::string_view name, std::uint32_t flags, std::string_view help,
                               ConfigSetResult (*set)(Config&, Words),
                               std::string (*get)(const Config&),
                               std::string (*rewrite)(const Config&), Apply apply = nullptr,
                               std::string_view alias = {}) {
  return {name, alias, ConfigKind::kSpecial, flags, 0, 0, {}, help, set, get, rewrite, apply};
}

}  // namespace warden::server::option_rows
