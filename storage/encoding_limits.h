// When a small collection leaves its inline packed form for a table: Redis 7.0's options and
// defaults (hash-max-listpack-*, set-max-intset-entries, zset-max-listpack-*,
// list-max-listpack-size). Conversions go one way, as in Redis: a table never becomes packed
// again.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warden::storage {

// However high the options are set, a packed value stays under 1 GB (Redis's listpack safety
// limit), far below the 2 GB an entry can hold.
inline constexpr std::size_t kMaxPackedBytes = std::size_t{1} << 30;

struct EncodingLimits {
  std::size_t hash_max_listpack_entries = 512;
  std::size_t hash_max_listpack_value = 64;
  std::size_t set_max_intset_entries = 512;
  std::size_t zset_max_listpack_entries = 128;
  std::size_t zset_max_listpack_value = 64;
  // Negative: a node's size class (-2 = 8 KB); positive: elements per node (see list.h).
  std::int64_t list_max_listpack_size = -2;
  // Where a stream's node is closed (stream.h): its listpack bytes as Redis counts them, and
  // its entries; 0 is no limit.
  std::size_t stream_node_max_bytes = 4096;
  std::int64_t stream_node_max_entries = 100;
  // A sparse HyperLogLog (hyperloglog.h) turns dense rather than grow past this many bytes.
  std::size_t hll_sparse_max_bytes = 3000;
};

}  // namespace warden::storage
