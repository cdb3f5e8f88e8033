// The parts of Redis's `redis` Lua table that need no script engine: the functions that only
// build values or check their arguments, and the constants. Each Add* sets its fields in the
// table on top of the stack. EVAL's table gets all of them, a function library's load API only
// the log levels and the version.
#pragma once

#include <string_view>

struct lua_State;

namespace warden::server {

// error_reply, status_reply, sha1hex, set_repl (and the REPL_* constants), replicate_commands,
// breakpoint, debug and acl_check_cmd, as Redis 7.0 answers them.
void AddStatelessRedisApi(lua_State* lua);
// LOG_DEBUG, LOG_VERBOSE, LOG_NOTICE, LOG_WARNING.
void AddLogConstants(lua_State* lua);
// REDIS_VERSION and REDIS_VERSION_NUM.
void AddVersionConstants(lua_State* lua);

// Raises a Redis error table {err = "ERR <message>"}: a redis.* function's argument error.
int RaiseRedisError(lua_State* lua, std::string_view message);

}  // namespace warden::server
