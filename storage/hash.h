// Hash values. A hash starts packed inline in its entry (field, value, field, value... in
// insertion order, as Redis's listpack keeps it; packed_hash.h) and becomes a table of its own (a
// Keyspace of field -> value without deadlines) once it holds more fields than
// hash-max-listpack-entries or a field or value longer than hash-max-listpack-value.
//
// Every function takes an entry whose type() is kHash (or nullptr where it says so). Functions
// that change a hash take the entry by reference and update it: it may move, and it is set to
// nullptr when the last field goes and the key with it (Redis never keeps an empty
// collection). Views returned point into the hash and live until it next changes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/encoding_limits.h"
#include "storage/keyspace.h"
#include "storage/packed.h"
#include "storage/packed_hash.h"

namespace warden::storage {

std::size_t HashLength(const Entry& hash);
std::optional<std::string_view> HashGet(const Entry& hash, std::string_view field);

// Sets `field` to `value`; `hash` nullptr creates `key`. Returns whether the field is new.
bool HashSet(Keyspace& keyspace, Entry*& hash, std::string_view key, std::string_view field,
             std::string_view value, const EncodingLimits& limits);
// Removes `field`; returns whether it was there.
bool HashDelete(Keyspace& keyspace, Entry*& hash, std::string_view field);
// Makes a copy of the value (for COPY): the value bytes to store and their encoding. A packed
// hash copies as is; a table is duplicated on `to`'s pool.
std::string HashCopyValue(const Entry& hash, Keyspace& to);

// Calls fn(field, value) for every field: insertion order when packed, table order otherwise.
// The value's view lives until the hash changes; the field's only until fn returns (a packed
// UUID is spelled out for the call): a caller that keeps fields copies them.
template <typename Fn>
void HashForEach(const Entry& hash, Fn&& fn) {
  if (hash.encoding() == Encoding::kHashPacked) {
    for (PackedHashReader r(hash.value()); !r.done();) {
      r.Next();
      fn(r.field(), r.value());
    }
  } else {
    hash.table()->ForEach([&](const Entry& e) { fn(e.key(), e.value()); });
  }
}

// The table of a table-encoded set or hash: a new keyspace on `owner`'s pool.
Keyspace* NewValueTable(Keyspace& owner);

// A random entry of a set's or hash's table, which must not be empty (HRANDFIELD, SRANDMEMBER,
// SPOP), every entry equally likely. Drawing a bucket and then an entry of its chain (as
// Keyspace::RandomEntry does) would favor the entries of short chains, and a run of buckets
// from a random one (Redis's dictGetFairRandomKey) those after empty buckets. So a small table
// is walked to a uniform index; a larger one draws a bucket and a position below 8, and keeps
// the entry there if the chain reaches it (rejection sampling: exact while no chain is longer,
// which at a load factor of at most 1 happens to about one bucket in a million). While the
// table is being resized it falls back to Redis's sample. `scratch` is working space, which a
// caller that draws many times keeps.
const Entry& TableRandomEntry(Keyspace& table, Random& random, std::vector<Entry*>& scratch);

// The value bytes that make an entry point at `table`; the view lives to the end of the full
// expression (a converted pointer is a temporary).
inline std::string_view TablePointerBytes(LargeValue* const& slot) {
  return LargePointerBytes(slot);
}

}  // namespace warden::storage
