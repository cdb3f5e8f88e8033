// Set values. A set of canonical integers starts inline in its entry as a sorted array of int64
// (Redis's intset, so SMEMBERS lists it in ascending order as Redis does). Any other small set
// is packed inline too (packed.h), in insertion order, as Redis 7.2 keeps a listpack set: up to
// kMaxPackedSetEntries members of at most kMaxPackedSetMember bytes. Past either limit, or past
// set-max-intset-entries for integers, the set becomes a table (a Keyspace of members with empty
// values). Conversions go one way: integers, then packed, then table.
//
// Entry ownership and lifetimes as in hash.h: functions that change a set update the entry
// they are given, and set it to nullptr when the set empties and its key goes.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "storage/encoding_limits.h"
#include "storage/hash.h"
#include "storage/keyspace.h"
#include "storage/packed.h"

namespace warden::storage {

// Redis 7.2's set-max-listpack-entries and set-max-listpack-value defaults.
inline constexpr std::size_t kMaxPackedSetEntries = 128;
inline constexpr std::size_t kMaxPackedSetMember = 64;

// Redis's string2ll: a canonical decimal int64 (no sign but '-', no leading zeros, no "-0").
bool ParseCanonicalInt64(std::string_view s, std::int64_t& out);

std::size_t SetSize(const Entry& set);
bool SetContains(const Entry& set, std::string_view member);
// Adds `member`; `set` nullptr creates `key`. Returns whether it was new.
bool SetAdd(Keyspace& keyspace, Entry*& set, std::string_view key, std::string_view member,
            const EncodingLimits& limits);
// Removes `member`; returns whether it was there.
bool SetRemove(Keyspace& keyspace, Entry*& set, std::string_view member);
// One member drawn uniformly at random (from a table, as TableRandomEntry in hash.h).
std::string SetRandomMember(const Entry& set, Random& random);
std::string SetCopyValue(const Entry& set, Keyspace& to);

// Calls fn(member) for every member: ascending for integer sets, insertion order for packed
// ones, table order otherwise. An integer member's view lives only for the call.
template <typename Fn>
void SetForEach(const Entry& set, Fn&& fn) {
  if (set.encoding() == Encoding::kSetInts) {
    const std::string_view bytes = set.value();
    char digits[24];
    for (std::size_t i = 0; i < bytes.size(); i += 8) {
      std::int64_t v;
      std::memcpy(&v, bytes.data() + i, 8);
      const char* end = std::to_chars(digits, digits + sizeof(digits), v).ptr;
      fn(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
  } else if (set.encoding() == Encoding::kSetPacked) {
    for (PackedReader r(set.value()); !r.done();) fn(r.Next());
  } else {
    set.table()->ForEach([&](const Entry& e) { fn(e.key()); });
  }
}

}  // namespace warden::storage
