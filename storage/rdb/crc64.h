// Redis's CRC-64 (crc64.c): the Jones polynomial 0xad93d23594c935a9, reflected, initial value 0
// and no final xor. It ends every RDB file and every DUMP payload, stored little-endian.
#pragma once

#include <cstdint>
#include <string_view>

namespace warden::storage::rdb {

// Continues `crc` over `data`: Crc64(Crc64(0, a), b) == Crc64(0, a + b), so a file is checked
// chunk by chunk. Crc64(0, "123456789") == 0xe9c6d914c4b8d9ca.
std::uint64_t Crc64(std::uint64_t crc, std::string_view data);

}  // namespace warden::storage::rdb
