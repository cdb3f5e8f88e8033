#include "server/pubsub.h"

namespace warden::server {

std::size_t PubSub::Publish(std::string_view, std::string_view) { return 0; }

}  // namespace warden::server
