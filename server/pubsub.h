// Pub/sub: channels and patterns, their subscribers, and delivery of published messages.
// Keyspace notifications and scripts publish through the same Publish.
#pragma once

#include <cstddef>
#include <string_view>

namespace warden::server {

class PubSub {
 public:
  // Delivers `message` on `channel` to its subscribers and to every client whose pattern
  // matches it; returns how many clients received it (PUBLISH's reply).
  std::size_t Publish(std::string_view channel, std::string_view message);
};

}  // namespace warden::server
