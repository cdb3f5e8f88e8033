// SHA-1, for naming scripts as Redis does: the lower-case hex digest of the script text.
#pragma once

#include <string_view>

namespace warden::server {

// Writes the 40 lower-case hex digits of SHA-1(data) and a terminating NUL.
void Sha1Hex(std::string_view data, char (&out)[41]);

}  // namespace warden::server
