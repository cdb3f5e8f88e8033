// SET's option grammar, kept apart from the handler so it is tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace warden::server {

enum class SetCondition { kNone, kNx, kXx, kIfEq, kIfNe, kIfDeq, kIfDne };
enum class SetExpiry { kNone, kEx, kPx, kExat, kPxat, kKeepTtl };

struct SetOptions {
  SetCondition condition = SetCondition::kNone;
  std::string_view operand;  // IFEQ/IFNE value or IFDEQ/IFDNE digest
  bool get = false;
  SetExpiry expiry = SetExpiry::kNone;
  std::string_view expire_arg;  // unparsed: Redis checks the grammar before the number
};

// Reads the options after key and value, left to right as Redis does. Returns the error text to
// send, or nullopt once `out` is filled. Views in `out` point into `args`.
std::optional<std::string_view> ParseSetOptions(std::span<const std::string_view> args,
                                                SetOptions& out);

// Turns an expire argument into an absolute deadline: `value` in units of `unit_ms`, added to
// `now_ms` when `relative`. False when Redis answers "invalid expire time": zero or negative, or
// an overflow.
bool ComputeDeadline(std::int64_t value, std::int64_t unit_ms, bool relative, std::int64_t now_ms,
                     std::int64_t& deadline_ms);

}  // namespace warden::server
