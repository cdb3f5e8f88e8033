#include "storage/rdb/lzf.h"

#include <lzf.h>

#include <climits>

namespace warden::storage::rdb {

bool LzfCompress(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() <= 20 || in.size() > UINT_MAX) return false;
  const std::size_t limit = in.size() - 4;
  // One spare byte, as rdbSaveLzfStringObject allocates.
  out.resize(limit + 1);
  const unsigned int n = lzf_compress(in.data(), static_cast<unsigned int>(in.size()), out.data(),
                                      static_cast<unsigned int>(limit));
  out.resize(n);
  return n != 0;
}

bool LzfDecompress(std::string_view in, std::size_t expected_len, std::string& out) {
  out.clear();
  if (expected_len == 0) return true;
  // Debian's lzf_decompress reads its first byte before looking at the length.
  if (in.empty() || in.size() > UINT_MAX || expected_len > UINT_MAX) return false;
  if (expected_len / kLzfMaxExpansion + (expected_len % kLzfMaxExpansion != 0) > in.size()) {
    return false;
  }
  out.resize(expected_len);
  const unsigned int n = lzf_decompress(in.data(), static_cast<unsigned int>(in.size()), out.data(),
                                        static_cast<unsigned int>(expected_len));
  if (n != expected_len) {
    out.clear();
    return false;
  }
  return true;
}

}  // namespace warden::storage::rdb
