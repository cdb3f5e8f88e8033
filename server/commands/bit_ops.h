// What the bitmap commands (bitmap_commands.cc) and BITFIELD (bitfield_commands.cc) share: the
// bit offset argument, the lookup that makes a string long enough to write a bit, and Redis's
// way of comparing option names.
//
// A bitmap is a string: bit 0 is the most significant bit of the first byte, and bits past the
// end read as 0.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/command_context.h"
#include "storage/keyspace.h"

namespace warden::server {

// Whether `arg`, read up to its first NUL as Redis's strcasecmp reads it, is `lower_name`
// (so "and\0x" is AND, as in Redis).
bool CStringArgIs(std::string_view arg, std::string_view lower_name);

// Redis's getBitOffsetFromArgument: a non-negative integer whose byte is below `max_bytes`
// (proto-max-bulk-len). With `hash_bits` > 0 a leading '#' multiplies the number by it
// (BITFIELD's #N), wrapping as Redis's 64-bit product does. Pure: false on a bad offset.
bool ParseBitOffset(std::string_view arg, int hash_bits, std::int64_t max_bytes,
                    std::uint64_t& offset);
// ParseBitOffset against the configured limit; false after replying Redis's error.
[[nodiscard]] bool BitOffsetArg(CommandContext& ctx, std::string_view arg, int hash_bits,
                                std::uint64_t& offset);

// Redis's lookupStringForBitCommand: the string at `key`, created (with "new") or zero-padded
// so that bit `max_bit` exists, and made raw. `grown` says whether it was created or made
// longer, which counts as a change; a change of bits in place is the caller's to count
// (Keyspace::NoteModified). False after replying WRONGTYPE.
[[nodiscard]] bool LookupStringForBits(CommandContext& ctx, std::string_view key,
                                       std::uint64_t max_bit, storage::Entry*& entry, bool& grown);

}  // namespace warden::server
