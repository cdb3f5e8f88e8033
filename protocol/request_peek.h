// Looking ahead in a pipeline. A server that knows which keys the next few requests will touch
// can start loading their hash buckets into cache before it runs the first, so sixteen pipelined
// lookups wait for memory once instead of sixteen times. This finds the first arguments of the
// complete multibulk requests at the start of a buffer without consuming or copying anything.
//
// It is a hint: it stops at the first request that is incomplete, inline, or not well formed,
// and leaves every judgement to RequestParser.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace warden::protocol {

struct PeekedRequest {
  static constexpr std::size_t kMaxArgs = 4;
  std::string_view args[kMaxArgs];  // the first min(argc, kMaxArgs) arguments
  std::size_t argc = 0;
};

// Fills `out` with the complete multibulk requests at the start of `data`; returns how many.
std::size_t PeekRequests(std::string_view data, std::span<PeekedRequest> out);

}  // namespace warden::protocol
