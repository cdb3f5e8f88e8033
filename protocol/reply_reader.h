// Reads RESP2/RESP3 replies back into values: for tests, and for the Lua bridge, which turns a
// command's reply into Lua values.
//
// Lifetime: strings in a Reply are views into the bytes passed to ReadReply(); they stay valid as
// long as those bytes do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace warden::protocol {

enum class ReplyType {
  kStatus,
  kError,
  kInteger,
  kBulk,
  kNull,
  kArray,
  kMap,  // elements alternate key, value
  kSet,
  kBoolean,
  kDouble,
  kVerbatim,  // text excludes the "txt:" format prefix; format() has it
  kBigNumber,
  kPush,
};

struct Reply {
  ReplyType type = ReplyType::kNull;
  std::string_view text;    // status, error, bulk, verbatim, big number, raw double
  std::string_view format;  // verbatim only
  std::int64_t integer = 0;
  double number = 0;  // double
  bool boolean = false;
  std::vector<Reply> elements;  // array, set, push; map as key, value, key, value...
};

// Parses one complete reply at the start of `data`. Returns the number of bytes it spans, 0 if
// `data` holds only part of a reply, or nullopt if the bytes are not RESP.
std::optional<std::size_t> ReadReply(std::string_view data, Reply& out);

}  // namespace warden::protocol
