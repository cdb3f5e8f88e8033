// SHA-256 (FIPS 180-4), for ACL password hashes as Redis stores them: the lower-case hex digest of
// the password. Ours rather than OpenSSL's, so that a server without TLS never loads OpenSSL
// (tls_api.h).
#pragma once

#include <cstddef>
#include <string_view>

namespace warden::server {

void Sha256(std::string_view data, unsigned char (&digest)[32]);

// Whether the `size` bytes at `a` and `b` are equal, in a time that does not depend on where
// they differ (a password check must not tell how much of a hash it matched).
bool ConstantTimeEqual(const void* a, const void* b, std::size_t size);

}  // namespace warden::server
