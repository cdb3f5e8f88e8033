#include "server/scripting/redis_api.h"

#include <cmath>
#include <lua.hpp>
#include <string>

#include "server/command_table.h"
#include "server/scripting/lua_bridge.h"
#include "server/scripting/lua_debugger.h"
#include "server/scripting/sha1.h"
#include "server/version.h"

namespace warden::server {
namespace {

void SetConstant(lua_State* lua, const char* name, lua_Number value) {
  lua_pushnumber(lua, value);
  lua_setfield(lua, -2, name);
}

int RedisErrorReply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    PushErrorTable(lua, "wrong number or type of arguments");
    return 1;
  }
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, 1, &len);
  const std::string_view raw(s, len);
  // Without its '-', the text reads as a reply's error would after one ("CODE message").
  if (!raw.empty() && raw[0] == '-') {
    PushErrorTable(lua, raw);
  } else {
    LogScriptError(lua, raw, "-");
    PushReplyErrorTable(lua, raw);
  }
  return 1;
}

int RedisStatusReply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
    PushErrorTable(lua, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(lua);
  lua_pushvalue(lua, 1);
  lua_setfield(lua, -2, "ok");
  return 1;
}

int RedisSha1Hex(lua_State* lua) {
  if (lua_gettop(lua) != 1) return RaiseRedisError(lua, "wrong number of arguments");
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, 1, &len);
  char digest[41];
  Sha1Hex(std::string_view(s != nullptr ? s : "", s != nullptr ? len : 0), digest);
  lua_pushstring(lua, digest);
  return 1;
}

int RedisSetRepl(lua_State* lua) {
  if (lua_gettop(lua) != 1) return RaiseRedisError(lua, "redis.set_repl() requires two arguments.");
  const lua_Number flags = lua_tonumber(lua, 1);
  if (flags < 0 || flags > 3 || flags != std::floor(flags)) {
    return RaiseRedisError(
        lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;
}

int RedisReplicateCommands(lua_State* lua) {
  lua_pushboolean(lua, 1);
  return 1;
}

}  // namespace

int RaiseRedisError(lua_State* lua, std::string_view message) {
  PushErrorTable(lua, message);
  return lua_error(lua);
}

void AddStatelessRedisApi(lua_State* lua) {
  const struct {
    const char* name;
    lua_CFunction fn;
  } functions[] = {
      {"error_reply", RedisErrorReply},
      {"status_reply", RedisStatusReply},
      {"sha1hex", RedisSha1Hex},
      {"set_repl", RedisSetRepl},
      {"replicate_commands", RedisReplicateCommands},
      {"breakpoint", LuaDebugger::Breakpoint},
      {"debug", LuaDebugger::Debug},
  };
  for (const auto& f : functions) {
    lua_pushcfunction(lua, f.fn);
    lua_setfield(lua, -2, f.name);
  }
  SetConstant(lua, "REPL_NONE", 0);
  SetConstant(lua, "REPL_AOF", 1);
  SetConstant(lua, "REPL_SLAVE", 2);
  SetConstant(lua, "REPL_REPLICA", 2);
  SetConstant(lua, "REPL_ALL", 3);
}

void AddLogConstants(lua_State* lua) {
  SetConstant(lua, "LOG_DEBUG", 0);
  SetConstant(lua, "LOG_VERBOSE", 1);
  SetConstant(lua, "LOG_NOTICE", 2);
  SetConstant(lua, "LOG_WARNING", 3);
}

void AddVersionConstants(lua_State* lua) {
  SetConstant(lua, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_pushlstring(lua, kRedisVersion.data(), kRedisVersion.size());
  lua_setfield(lua, -2, "REDIS_VERSION");
}

}  // namespace warden::server
