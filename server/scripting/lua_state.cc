// The engine's Lua state: made on the first script and unmade by SCRIPT FLUSH, its allocator
// holding scripts to script-memory-limit, Redis's math.random, and the library calls that run
// outside the cap because a Lua error inside them would leak what they hold.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <lua.hpp>
#include <new>
#include <string_view>

#include "server/scripting/lua_sandbox.h"
#include "server/scripting/redis_api.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

// Redis's lrand48 state before any seeding (rand.c: X0, X1, X2).
constexpr std::uint64_t kDefaultRandomState = 0x1234ABCD330EULL;

// The message handler for every script call: turns the error into a Redis error table and
// records where in the script it was raised (Redis's __redis__err__handler).
int ErrorHandler(lua_State* lua) {
  // The position is that of the innermost Lua function on the stack: the script line that
  // called error(), redis.call() or a library function.
  lua_Debug ar;
  bool have = false;
  for (int level = 1; lua_getstack(lua, level, &ar) != 0; ++level) {
    if (lua_getinfo(lua, "nSl", &ar) != 0 && std::strcmp(ar.what, "C") != 0) {
      have = true;
      break;
    }
  }
  if (!lua_istable(lua, 1)) {
    // err = {err = 'ERR ' .. tostring(err)}, in Lua strings: running out of memory here raises,
    // and nothing of ours may be alive when it does.
    lua_pushliteral(lua, "ERR ");
    const char* text = lua_tostring(lua, 1);
    if (text != nullptr) {
      lua_pushstring(lua, text);  // up to a NUL, as Redis reads it back
    } else if (lua_isnil(lua, 1)) {
      lua_pushliteral(lua, "nil");
    } else if (lua_isboolean(lua, 1)) {
      lua_pushstring(lua, lua_toboolean(lua, 1) ? "true" : "false");
    } else {
      lua_pushstring(lua, luaL_typename(lua, 1));
    }
    lua_concat(lua, 2);
    lua_newtable(lua);
    lua_insert(lua, -2);
    lua_setfield(lua, -2, "err");
    lua_replace(lua, 1);
  }
  if (have) {
    lua_pushstring(lua, ar.source);
    lua_setfield(lua, 1, "source");
    lua_pushinteger(lua, ar.currentline);
    lua_setfield(lua, 1, "line");
  }
  lua_settop(lua, 1);
  return 1;
}

int Panic(lua_State* lua) {
  std::fprintf(stderr, "warden: unprotected Lua error: %s\n", lua_tostring(lua, -1));
  std::abort();
}

}  // namespace

ScriptEngine::ScriptEngine(ServerState& server)
    : server_(server),
      lua_memory_limit_(static_cast<std::size_t>(server.config.script_memory_limit)),
      random_state_(kDefaultRandomState) {
  script_session_.is_script = true;
  script_session_.authenticated = true;
  if (server.config.seed.has_value()) SeedRandom(static_cast<std::int32_t>(*server.config.seed));
  // The Lua state is created by the first script: a server that never runs one (most test
  // doubles) starts faster and smaller.
}

ScriptEngine::~ScriptEngine() { DestroyState(); }

ScriptEngine& ScriptEngine::Self(lua_State* lua) {
  return *static_cast<ScriptEngine*>(lua_touserdata(lua, lua_upvalueindex(1)));
}

void* ScriptEngine::Allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size) {
  auto* self = static_cast<ScriptEngine*>(ud);
  if (new_size == 0) {
    if (ptr != nullptr) {
      self->lua_memory_ -= old_size;
      self->lua_pool_.Free(ptr, old_size);
    }
    return nullptr;
  }
  // The cap applies while a script runs or a library loads; the engine's own work
  // (conversions after the script) must not fail half way.
  const std::size_t grown = new_size > old_size ? new_size - old_size : 0;
  if (ptr != nullptr || grown > 0) {
    if ((self->running_ != nullptr || self->loading_library_ != nullptr) &&
        self->uncapped_calls_ == 0) {
      if (self->lua_memory_limit_ != 0 && self->lua_memory_ + grown > self->lua_memory_limit_) {
        return nullptr;
      }
      if (grown > 0 && self->refuse_next_allocation_) {
        self->refuse_next_allocation_ = false;
        return nullptr;
      }
      if (grown > 0 && self->fail_after_ >= 0 && self->fail_after_-- == 0) {
        if (self->fail_sticky_) self->fail_after_ = 0;
        ++self->injected_failures_;
        return nullptr;
      }
    }
  }
  // Lua's strings, tables and closures are mostly small and short-lived: the pool's size
  // classes serve them from slabs, with none of malloc's bookkeeping.
  void* block = ptr;
  if (ptr == nullptr || !storage::EntryPool::Fits(ptr, old_size, new_size)) {
    try {
      block = self->lua_pool_.Allocate(new_size);
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    if (ptr != nullptr) {
      std::memcpy(block, ptr, std::min(old_size, new_size));
      self->lua_pool_.Free(ptr, old_size);
    }
  }
  self->lua_memory_ = self->lua_memory_ - (ptr != nullptr ? old_size : 0) + new_size;
  return block;
}

void ScriptEngine::CreateState() {
  lua_ = lua_newstate(Allocate, this);
  if (lua_ == nullptr) throw std::bad_alloc();
  lua_atpanic(lua_, Panic);
  OpenLibraries(lua_);

  // math.random and math.randomseed use Redis's own generator.
  lua_getglobal(lua_, "math");
  lua_pushlightuserdata(lua_, this);
  lua_pushcclosure(lua_, MathRandom, 1);
  lua_setfield(lua_, -2, "random");
  lua_pushlightuserdata(lua_, this);
  lua_pushcclosure(lua_, MathRandomSeed, 1);
  lua_setfield(lua_, -2, "randomseed");
  lua_pop(lua_, 1);

  // cjson holds malloc'd buffers on the C stack while it makes Lua values, and a Lua error is a
  // longjmp past them: an allocation failing under the memory cap inside it would leak them.
  // Its encoder and decoder run uncapped, and the cap is checked when they return.
  lua_getglobal(lua_, "cjson");
  for (const char* name : {"encode", "decode"}) {
    lua_pushlightuserdata(lua_, this);
    lua_getfield(lua_, -2, name);
    lua_pushcclosure(lua_, UncappedCall, 2);
    lua_setfield(lua_, -2, name);
  }
  lua_pop(lua_, 1);

  lua_newtable(lua_);
  // The API that needs the engine, as closures over it; then the rest (redis_api.cc).
  const struct {
    const char* name;
    lua_CFunction fn;
  } functions[] = {
      {"call", RedisCall},       {"pcall", RedisPcall},
      {"setresp", RedisSetResp}, {"acl_check_cmd", RedisAclCheckCmd},
      {"log", RedisLog},
  };
  for (const auto& f : functions) {
    lua_pushlightuserdata(lua_, this);
    lua_pushcclosure(lua_, f.fn, 1);
    lua_setfield(lua_, -2, f.name);
  }
  AddStatelessRedisApi(lua_);
  AddLogConstants(lua_);
  AddVersionConstants(lua_);
  lua_setglobal(lua_, "redis");

  lua_pushcfunction(lua_, ErrorHandler);
  lua_setglobal(lua_, "__redis__err__handler");
  // Made once: pushing a C function allocates a closure, and Run needs these two every call.
  lua_pushcfunction(lua_, ErrorHandler);
  error_handler_ref_ = luaL_ref(lua_, LUA_REGISTRYINDEX);
  lua_pushcfunction(lua_, Trampoline);
  trampoline_ref_ = luaL_ref(lua_, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(lua_, this);
  lua_setfield(lua_, LUA_REGISTRYINDEX, "warden.engine");

  InstallSandbox(lua_);
  // Keeps the chunk name of every script alive, so parsing never sees it collected.
  lua_pushstring(lua_, "@user_script");
  lua_setfield(lua_, LUA_REGISTRYINDEX, "warden.chunkname");
  lua_sethook(lua_, Hook, LUA_MASKCOUNT, kHookInstructions);
  functions_installed_ = false;
}

void ScriptEngine::DestroyState() {
  if (lua_ != nullptr) lua_close(lua_);
  lua_ = nullptr;
  key_table_ = arg_table_ = ArgTable{};
  lua_memory_ = 0;
  lua_pool_.Trim(static_cast<std::size_t>(-1));
  scripts_.clear();
}

void ScriptEngine::Flush() {
  // The functions share the state and keep what their libraries hold (Redis gives them a state
  // of their own that SCRIPT FLUSH leaves alone): while any is loaded only the scripts go.
  if (libraries_.empty() || lua_ == nullptr) {
    DestroyState();
    return;
  }
  for (const auto& [sha, script] : scripts_) {
    luaL_unref(lua_, LUA_REGISTRYINDEX, script.function_ref);
  }
  scripts_.clear();
  lua_gc(lua_, LUA_GCCOLLECT, 0);
}

void ScriptEngine::SeedRandom(std::int32_t seed) {
  random_state_ = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(seed)) << 16) | 0x330E;
}

std::int32_t ScriptEngine::NextRandom() {
  random_state_ = (0x5DEECE66DULL * random_state_ + 0xB) & ((1ULL << 48) - 1);
  return static_cast<std::int32_t>(random_state_ >> 17);
}

// Redis's math.random over its lrand48: r in [0, 1), then Lua 5.1's interval rules.
int ScriptEngine::MathRandom(lua_State* lua) {
  ScriptEngine& self = Self(lua);
  const lua_Number r =
      static_cast<lua_Number>(self.NextRandom() % INT32_MAX) / static_cast<lua_Number>(INT32_MAX);
  switch (lua_gettop(lua)) {
    case 0:
      lua_pushnumber(lua, r);
      break;
    case 1: {
      const int u = luaL_checkint(lua, 1);
      luaL_argcheck(lua, 1 <= u, 1, "interval is empty");
      lua_pushnumber(lua, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      const int l = luaL_checkint(lua, 1);
      const int u = luaL_checkint(lua, 2);
      luaL_argcheck(lua, l <= u, 2, "interval is empty");
      lua_pushnumber(lua, std::floor(r * (u - l + 1)) + l);
      break;
    }
    default:
      return luaL_error(lua, "wrong number of arguments");
  }
  return 1;
}

int ScriptEngine::MathRandomSeed(lua_State* lua) {
  Self(lua).SeedRandom(luaL_checkint(lua, 1));
  return 0;
}

namespace {

// Raises the error on top of the stack as a library function called by the script itself would
// have raised it: the pcall UncappedCall puts between them hides the script's call from
// luaL_error's position ("user_script:1: ") and from luaL_argerror's function name.
int RaiseAsCaller(lua_State* lua, int status) {
  std::size_t len = 0;
  const char* text = lua_tolstring(lua, -1, &len);
  if (status == LUA_ERRMEM || text == nullptr) return lua_error(lua);
  std::string_view message(text, len);
  constexpr std::string_view kBadArgument = "bad argument #";
  constexpr std::string_view kUnnamed = " to '?' (";
  if (message.starts_with(kBadArgument) && message.ends_with(")")) {
    message.remove_prefix(kBadArgument.size());
    int narg = 0;
    while (!message.empty() && message[0] >= '0' && message[0] <= '9' && narg < 1000) {
      narg = narg * 10 + (message[0] - '0');
      message.remove_prefix(1);
    }
    if (message.starts_with(kUnnamed)) {
      message.remove_prefix(kUnnamed.size());
      message.remove_suffix(1);
      lua_pushlstring(lua, message.data(), message.size());
      return luaL_argerror(lua, narg, lua_tostring(lua, -1));
    }
  }
  luaL_where(lua, 1);
  lua_insert(lua, -2);
  lua_concat(lua, 2);
  return lua_error(lua);
}

}  // namespace

int ScriptEngine::UncappedCall(lua_State* lua) {
  ScriptEngine& self = Self(lua);
  const int argc = lua_gettop(lua);
  luaL_checkstack(lua, 1, "too many arguments");
  lua_pushvalue(lua, lua_upvalueindex(2));
  lua_insert(lua, 1);
  ++self.uncapped_calls_;
  const int status = lua_pcall(lua, argc, LUA_MULTRET, 0);
  bool over = status == 0 && self.lua_memory_limit_ != 0;
  if (over && self.lua_memory_ > self.lua_memory_limit_) {
    // Past the cap: first the call's garbage, then, if its results alone are too big, they go
    // too. Still uncapped, since a collection allocates (Lua shrinks its string table into a new
    // array) and must not fail half way.
    lua_gc(lua, LUA_GCCOLLECT, 0);
    if (self.lua_memory_ > self.lua_memory_limit_) {
      lua_settop(lua, 0);
      lua_gc(lua, LUA_GCCOLLECT, 0);
    } else {
      over = false;
    }
  } else {
    over = false;
  }
  --self.uncapped_calls_;
  if (status != 0) return RaiseAsCaller(lua, status);
  if (over) {
    // The script runs out of memory here, as it would have inside the call.
    self.refuse_next_allocation_ = true;
    lua_newtable(lua);  // raises LUA_ERRMEM
  }
  return lua_gettop(lua);
}

}  // namespace warden::server
