// A stream in the RDB format (Redis 7.0's rdbSaveObject and rdbLoadObject for OBJ_STREAM): its
// nodes as Redis's listpacks, keyed by their master ids, then its counters, then the consumer
// groups with their pending entries and consumers.
//
// Warden's nodes are Redis's nodes, deleted entries and all, so each is written as the listpack
// Redis would hold for it and a stream built by the same commands saves to the same bytes.
// Reading rebuilds the nodes as they were, and refuses anything Redis could not have written:
// the payload comes from outside.
#pragma once

#include <cstdint>

#include "storage/rdb/rdb_io.h"
#include "storage/stream.h"

namespace warden::storage::rdb {

// Writes the payload of RDB_TYPE_STREAM_LISTPACKS_2 (the type byte is the caller's).
void WriteStream(RdbWriter& w, const Stream& s);

// Reads a payload of type kTypeStreamListpacks (Redis 5.0 to 6.2, without the 7.0 counters,
// which are derived as Redis derives them) or kTypeStreamListpacks2 into `s`, which is empty.
// False when the payload is malformed or inconsistent; `s` is then to be thrown away. `limits`
// are unused: loaded nodes keep their boundaries, as Redis's do.
bool ReadStream(RdbReader& r, std::uint8_t type, Stream& s, const StreamNodeLimits& limits);

}  // namespace warden::storage::rdb
