// LZF, the compression of RDB strings (rdb.c rdbSaveLzfStringObject / rdbLoadLzfStringObject),
// through Debian's liblzf: the same liblzf 3.6 Redis vendors, with the same HLOG 16 and
// VERY_FAST, so a string compresses to the bytes Redis writes. One caveat, Redis's too: the
// compressor's hash table starts uninitialized, and a slot left over from an earlier call can
// (rarely) find a different, equally valid match. CMakeLists.txt builds it with Redis's table of
// pointers, which makes that rarer than Debian's table of offsets does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace warden::storage::rdb {

// Compresses `in` as Redis does before writing a string: only a string over 20 bytes (shorter
// ones never shrink, rdbSaveRawString), and only when the result saves at least 4 bytes (the
// output may take at most in.size() - 4 bytes). Returns true with `out` holding the compressed
// bytes; false otherwise, when the string is written as it is. Strings of 4 GB and more are
// left uncompressed: liblzf counts in unsigned int.
bool LzfCompress(std::string_view in, std::string& out);

// Decompresses `in`, which must come out at exactly `expected_len` bytes (the length the RDB
// string records); `out` is resized to it. False on any malformed or short input, leaving `out`
// empty.
//
// Allocation: `out` is sized before decompressing, but only after checking that `in` could
// expand that far at all (an LZF byte expands to at most kLzfMaxExpansion bytes), so it never
// exceeds kLzfMaxExpansion * in.size(). The caller still caps `expected_len` by its own string
// limit, since `in` may be large.
//
// An `expected_len` of 0 succeeds with any input: liblzf reports 0 bytes either way, and Redis
// accepts it.
bool LzfDecompress(std::string_view in, std::size_t expected_len, std::string& out);

// The most one compressed byte can produce: a three-byte back reference copies 264 bytes.
inline constexpr std::size_t kLzfMaxExpansion = 88;

}  // namespace warden::storage::rdb
