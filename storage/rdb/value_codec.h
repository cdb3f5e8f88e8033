// A value in the RDB format (Redis 7.0's rdbSaveObjectType/rdbSaveObject and rdbLoadObject):
// the type byte and the payload that follows a key in a file, and that DUMP wraps.
//
// Writing picks the type Redis 7.0 writes for the encoding OBJECT ENCODING reports, so a
// small hash, sorted set or list goes out as the same listpack bytes Redis writes. Reading
// accepts every type Redis 7.0 reads (RDB 1 to 10) and builds the value through the same
// functions the commands use, so its encoding follows the configured limits as Redis's
// conversion on load does. Every count, length and packed blob is checked first: a payload
// comes from outside.
#pragma once

#include <cstdint>
#include <string_view>

#include "storage/encoding_limits.h"
#include "storage/keyspace.h"
#include "storage/rdb/rdb_io.h"

namespace warden::storage::rdb {

// The RDB type the value is written as.
RdbType TypeFor(const Entry& e);
// Writes the type byte, then the value (a DUMP payload's start).
void WriteValue(RdbWriter& w, const Entry& e);
// The value alone, of type TypeFor(e): in a file the key goes between the two.
void WriteValueBody(RdbWriter& w, const Entry& e, RdbType type);

enum class LoadStatus {
  kStored,
  kEmpty,  // a well-formed empty collection: Redis skips the key
  kBad,    // malformed: nothing was stored
};

// Reads a value of RDB type `type` (the byte already read) and stores it under `key`, which
// must be absent, with `deadline_ms`. `stored` is the new entry when kStored.
LoadStatus ReadValue(RdbReader& r, std::uint8_t type, Keyspace& keyspace, std::string_view key,
                     std::int64_t deadline_ms, const EncodingLimits& limits, Entry** stored);

// Whether `type` is one ReadValue knows.
bool KnownType(std::uint8_t type);

}  // namespace warden::storage::rdb
