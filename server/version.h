// Versions warden reports.
#pragma once

#include <string_view>

namespace warden::server {

// The Redis version warden answers as (HELLO, INFO, redis.REDIS_VERSION): clients read it to
// decide which commands they may send, and warden behaves as Redis 7.0.
inline constexpr std::string_view kRedisVersion = "7.0.15";
inline constexpr int kRedisVersionNum = 0x07000f;

#ifndef WARDEN_VERSION
#define WARDEN_VERSION "0.0.0"
#endif
inline constexpr std::string_view kWardenVersion = WARDEN_VERSION;

}  // namespace warden::server
