// Shared by CLIENT SETNAME, CLIENT SETINFO and HELLO SETNAME.
#pragma once

#include <string_view>

namespace warden::server {

// Redis allows only '!'..'~' in client names and library attributes: no spaces, newlines or
// other special characters.
inline bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}

}  // namespace warden::server
