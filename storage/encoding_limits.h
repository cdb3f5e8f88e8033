// When a small collection leaves its inline packed form for a table: Redis 7.0's options and
// defaults (hash-max-listpack-*, set-max-intset-entries, zset-max-listpack-*). Conversions go
// one way, as in Redis: a table never becomes packed again.
#pragma once

#include <cstddef>

namespace warden::storage {

struct EncodingLimits {
  std::size_t hash_max_listpack_entries = 512;
  std::size_t hash_max_listpack_value = 64;
  std::size_t set_max_intset_entries = 512;
  std::size_t zset_max_listpack_entries = 128;
  std::size_t zset_max_listpack_value = 64;
};

}  // namespace warden::storage
