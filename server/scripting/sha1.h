// SHA-1, for naming scripts as Redis does (the lower-case hex digest of the script text) and for
// DEBUG DIGEST's mixing (server/debug/dataset_digest.h).
#pragma once

#include <string_view>

namespace warden::server {

// Writes the 20 bytes of SHA-1(data).
void Sha1(std::string_view data, unsigned char (&out)[20]);
// Writes the 40 lower-case hex digits of SHA-1(data) and a terminating NUL.
void Sha1Hex(std::string_view data, char (&out)[41]);

}  // namespace warden::server
