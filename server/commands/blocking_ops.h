// What the blocking commands share: their timeout argument, and waiting for a key.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "server/command_context.h"
#include "storage/keyspace.h"

namespace warden::server {

// A blocking command's timeout: seconds with decimals, as Redis 7.0 reads it, into an absolute
// deadline on warden's clock (0: wait forever). False after replying the error.
[[nodiscard]] bool TimeoutArg(CommandContext& ctx, std::string_view arg, std::int64_t& deadline_ms);

// Whether the client may wait: not from a script nor inside EXEC, and only on a connection.
bool CanBlock(const CommandContext& ctx);

// Nothing to serve: blocks the client on `keys` until `deadline_ms`, or, where it cannot wait,
// replies a null array (a null bulk string with `null_bulk`, as BLMOVE does).
void WaitForKeys(CommandContext& ctx, std::span<const std::string_view> keys,
                 std::int64_t deadline_ms, bool null_bulk);

// The first of `keys` that holds a value: true with its key and entry when it is of `type`,
// true with entry nullptr after replying WRONGTYPE when it is not, false when every key is
// missing. During a retry only the key that received data counts, and another type is not an
// error: the client goes on waiting.
[[nodiscard]] bool FindServable(CommandContext& ctx, std::span<const std::string_view> keys,
                                storage::ValueType type, std::string_view& key,
                                storage::Entry*& entry);

// During a retry (blocking.h) a command serves only from the key that received data; a key of
// another type is skipped rather than an error, as in Redis 7.0.
inline bool Retrying(const CommandContext& ctx) { return ctx.server.blocking.retrying(); }

}  // namespace warden::server
