#include "server/scripting/lua_sandbox.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <lua.hpp>
#include <string>

#include "server/scripting/lua_libraries.h"

extern "C" {
int luaopen_cjson(lua_State* lua);
int luaopen_bit(lua_State* lua);
}

namespace warden::server {
namespace {

constexpr char kReadonly[] = "Attempt to modify a readonly table";
// Registry keys.
constexpr char kProxiesKey[] = "warden.proxies";  // proxy -> real table (weak keys)
constexpr char kGlobalsProxyKey[] = "warden.globals";
constexpr char kDecoyKey[] = "warden.decoy";
constexpr char kFunctionEnvKey[] = "warden.fenv";              // what library chunks see
constexpr char kFunctionEnvMetaKey[] = "warden.fenv.meta";     // its metatable
constexpr char kFunctionLoadApiKey[] = "warden.fenv.load";     // read while a library loads
constexpr char kFunctionGlobalsKey[] = "warden.fenv.globals";  // read when functions run

// Replaces the value at `index` with the real table behind it, if it is a proxy.
void Unwrap(lua_State* lua, int index) {
  if (!lua_istable(lua, index)) return;
  lua_getfield(lua, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(lua, index);
  lua_rawget(lua, -2);
  if (lua_istable(lua, -1))
    lua_replace(lua, index);
  else
    lua_pop(lua, 1);
  lua_pop(lua, 1);
}

bool IsProxy(lua_State* lua, int index) {
  if (!lua_istable(lua, index)) return false;
  lua_getfield(lua, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(lua, index);
  lua_rawget(lua, -2);
  const bool proxy = !lua_isnil(lua, -1);
  lua_pop(lua, 2);
  return proxy;
}

// Raised without a position, as Redis's patched rawset and setmetatable do.
int RaiseReadonly(lua_State* lua) {
  lua_pushstring(lua, kReadonly);
  return lua_error(lua);
}

int ReadonlyNewIndex(lua_State* lua) { return luaL_error(lua, kReadonly); }

// __index of the real globals table, so it runs only for a name that is not there.
int MissingGlobal(lua_State* lua) {
  const char* name = lua_tostring(lua, 2);
  return luaL_error(lua, "Script attempted to access nonexistent global variable '%s'",
                    name != nullptr ? name : "?");
}

// The base functions that could see past a proxy, rewritten with Lua 5.1's own argument checks
// (so their error texts and positions are the stock ones) and reading the real table behind a
// proxy, or refusing to write through one.
int Next(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  Unwrap(lua, 1);
  lua_settop(lua, 2);
  if (lua_next(lua, 1) != 0) return 2;
  lua_pushnil(lua);
  return 1;
}

int Pairs(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  Unwrap(lua, 1);
  lua_pushvalue(lua, lua_upvalueindex(1));  // Next
  lua_pushvalue(lua, 1);
  lua_pushnil(lua);
  return 3;
}

int IpairsStep(lua_State* lua) {
  const int i = luaL_checkint(lua, 2) + 1;
  luaL_checktype(lua, 1, LUA_TTABLE);
  lua_pushinteger(lua, i);
  lua_rawgeti(lua, 1, i);
  return lua_isnil(lua, -1) ? 0 : 2;
}

int Ipairs(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  Unwrap(lua, 1);
  lua_pushvalue(lua, lua_upvalueindex(1));  // IpairsStep
  lua_pushvalue(lua, 1);
  lua_pushinteger(lua, 0);
  return 3;
}

int Rawget(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  luaL_checkany(lua, 2);
  Unwrap(lua, 1);
  lua_settop(lua, 2);
  lua_rawget(lua, 1);
  return 1;
}

int Rawset(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  luaL_checkany(lua, 2);
  luaL_checkany(lua, 3);
  if (IsProxy(lua, 1)) return RaiseReadonly(lua);
  lua_settop(lua, 3);
  lua_rawset(lua, 1);
  return 1;
}

int Setmetatable(lua_State* lua) {
  const int type = lua_type(lua, 2);
  luaL_checktype(lua, 1, LUA_TTABLE);
  luaL_argcheck(lua, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table expected");
  if (IsProxy(lua, 1)) return RaiseReadonly(lua);
  if (luaL_getmetafield(lua, 1, "__metatable") != 0) {
    return luaL_error(lua, "cannot change a protected metatable");
  }
  lua_settop(lua, 2);
  lua_setmetatable(lua, 1);
  return 1;
}

// table.insert writes raw: through a proxy it would store into the shared proxy itself.
int TableInsert(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  int last = static_cast<int>(lua_objlen(lua, 1)) + 1;
  int pos = last;
  switch (lua_gettop(lua)) {
    case 2:
      break;
    case 3:
      pos = luaL_checkint(lua, 2);
      if (pos > last) last = pos;
      for (int i = last; i > pos; --i) {
        lua_rawgeti(lua, 1, i - 1);
        lua_rawseti(lua, 1, i);
      }
      break;
    default:
      return luaL_error(lua, "wrong number of arguments to 'insert'");
  }
  if (IsProxy(lua, 1)) return RaiseReadonly(lua);
  lua_rawseti(lua, 1, pos);
  return 0;
}

// unpack(t, i, j) with the range checked in 64 bits: Lua 5.1's own check overflows for ranges
// like (0, 2^31-1) and crashes the process (the Lua sandbox escape reported against Redis).
int Unpack(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  Unwrap(lua, 1);
  const lua_Integer first = luaL_optint(lua, 2, 1);
  const lua_Integer last =
      lua_isnoneornil(lua, 3) ? static_cast<lua_Integer>(luaL_getn(lua, 1)) : luaL_checkint(lua, 3);
  if (first > last) return 0;
  const long long count = static_cast<long long>(last) - static_cast<long long>(first) + 1;
  if (count >= INT_MAX || !lua_checkstack(lua, static_cast<int>(count))) {
    return luaL_error(lua, "too many results to unpack");
  }
  for (long long i = first; i <= last; ++i) lua_rawgeti(lua, 1, static_cast<int>(i));
  return static_cast<int>(count);
}

// bit.tohex(x [, n]) as LuaBitOp computes it, with n clamped to 8 digits: LuaBitOp 1.0.2 negates
// n, which overflows for INT_MIN and writes outside its buffer (CVE-2024-31449 in Redis).
std::uint32_t BitArg(lua_State* lua, int index) {
  // LuaBitOp's conversion: the low 32 bits of the number's integer part, modulo 2^32.
  const lua_Number n = luaL_checknumber(lua, index);
  const double shifted = n + 6755399441055744.0;  // 2^52 + 2^51
  std::uint64_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return static_cast<std::uint32_t>(bits);
}

int BitTohex(lua_State* lua) {
  std::uint32_t value = BitArg(lua, 1);
  std::int64_t digits = lua_isnone(lua, 2) ? 8 : static_cast<std::int32_t>(BitArg(lua, 2));
  const char* alphabet = "0123456789abcdef";
  if (digits < 0) {
    digits = -digits;
    alphabet = "0123456789ABCDEF";
  }
  if (digits > 8) digits = 8;
  char buf[8];
  for (int i = static_cast<int>(digits); --i >= 0;) {
    buf[i] = alphabet[value & 15];
    value >>= 4;
  }
  lua_pushlstring(lua, buf, static_cast<std::size_t>(digits));
  return 1;
}

bool IsBytecode(const char* s, std::size_t len) { return len > 0 && s[0] == LUA_SIGNATURE[0]; }

// Sets the sandboxed globals as environment of the function on top of the stack.
void SetSandboxEnv(lua_State* lua) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kGlobalsProxyKey);
  lua_setfenv(lua, -2);
}

int LoadChunk(lua_State* lua, const char* s, std::size_t len, const char* chunkname) {
  // Redis's Lua has no binary loader: a chunk that starts with the bytecode signature is parsed
  // as text and fails there. A leading space keeps Lua from taking the binary path and moves
  // nothing (not even line numbers). The copy is a Lua string, left on the stack: an error
  // raised from here on cannot leak it.
  if (IsBytecode(s, len)) {
    lua_pushliteral(lua, " ");
    lua_pushlstring(lua, s, len);
    lua_concat(lua, 2);
    s = lua_tolstring(lua, -1, &len);
  }
  // The chunk name stays on the stack while Lua parses: an unanchored name can be collected in
  // the middle of parsing (CVE-2025-49844 in Redis's Lua).
  lua_pushstring(lua, chunkname);
  if (luaL_loadbuffer(lua, s, len, chunkname) != 0) {
    lua_pushnil(lua);
    lua_insert(lua, -2);
    return 2;
  }
  SetSandboxEnv(lua);
  return 1;
}

int Loadstring(lua_State* lua) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(lua, 1, &len);
  const char* chunkname = luaL_optstring(lua, 2, s);
  return LoadChunk(lua, s, len, chunkname);
}

int Load(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(lua, 2, "=(load)");
  luaL_Buffer buffer;
  luaL_buffinit(lua, &buffer);
  while (true) {
    lua_pushvalue(lua, 1);
    lua_call(lua, 0, 1);
    if (lua_isnil(lua, -1)) {
      lua_pop(lua, 1);
      break;
    }
    if (!lua_isstring(lua, -1)) return luaL_error(lua, "reader function must return a string");
    std::size_t len = 0;
    lua_tolstring(lua, -1, &len);
    if (len == 0) {
      lua_pop(lua, 1);
      break;
    }
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  std::size_t len = 0;
  const char* s = lua_tolstring(lua, -1, &len);
  return LoadChunk(lua, s, len, chunkname);
}

// Redis's pcall: an error that is a Redis error table comes back as its err string.
int Pcall(lua_State* lua) {
  const int args = lua_gettop(lua);
  if (args == 0) {
    // Redis's pcall has no argument check: with nothing to call it fails like this.
    lua_pushboolean(lua, 0);
    lua_pushstring(lua, "attempt to call a boolean value");
    return 2;
  }
  lua_pushboolean(lua, 1);
  lua_insert(lua, 1);
  if (lua_pcall(lua, args - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(lua, 1);
    if (lua_istable(lua, -1)) {
      lua_getfield(lua, -1, "err");
      if (lua_isstring(lua, -1)) {
        lua_replace(lua, -2);
      } else {
        lua_pop(lua, 1);
      }
    }
    lua_pushboolean(lua, 0);
    lua_insert(lua, 1);
  }
  return lua_gettop(lua);
}

// Makes reading a missing name of the table at (absolute) `index` raise Redis's error.
void SetStrict(lua_State* lua, int index) {
  lua_newtable(lua);
  lua_pushcfunction(lua, MissingGlobal);
  lua_setfield(lua, -2, "__index");
  lua_setmetatable(lua, index);
}

// Pushes a shallow copy of the table at `index` (raw, as it is stored), less the names `skip`.
void PushCopyWithout(lua_State* lua, int index, std::initializer_list<const char*> skip) {
  lua_newtable(lua);
  const int copy = lua_gettop(lua);
  lua_pushnil(lua);
  while (lua_next(lua, index) != 0) {
    const char* name = lua_type(lua, -2) == LUA_TSTRING ? lua_tostring(lua, -2) : nullptr;
    const bool skipped =
        name != nullptr && std::any_of(skip.begin(), skip.end(),
                                       [name](const char* s) { return std::strcmp(name, s) == 0; });
    if (skipped) {
      lua_pop(lua, 1);
      continue;
    }
    lua_pushvalue(lua, -2);
    lua_insert(lua, -2);
    lua_rawset(lua, copy);
  }
}

// Pushes a read-only proxy of the table at `index`.
void PushProxy(lua_State* lua, int index, bool strict_globals) {
  index = index < 0 ? lua_gettop(lua) + index + 1 : index;
  lua_newtable(lua);  // proxy
  lua_newtable(lua);  // its metatable
  // Reads go through to the real table inside the VM, with no C call: `redis.call` and
  // `KEYS[1]` are as fast as on Redis's patched Lua. For the globals, the real table's own
  // metatable turns a missing name into Redis's error.
  lua_pushvalue(lua, index);
  lua_setfield(lua, -2, "__index");
  if (strict_globals) SetStrict(lua, index);
  lua_pushcfunction(lua, ReadonlyNewIndex);
  lua_setfield(lua, -2, "__newindex");
  lua_getfield(lua, LUA_REGISTRYINDEX, kDecoyKey);
  if (lua_isnil(lua, -1)) {
    lua_pop(lua, 1);
    lua_pushboolean(lua, 0);
  }
  lua_setfield(lua, -2, "__metatable");
  lua_setmetatable(lua, -2);
  lua_getfield(lua, LUA_REGISTRYINDEX, kProxiesKey);
  lua_pushvalue(lua, -2);
  lua_pushvalue(lua, index);
  lua_rawset(lua, -3);
  lua_pop(lua, 1);
}

}  // namespace

void OpenLibraries(lua_State* lua) {
  const struct {
    const char* name;
    lua_CFunction open;
  } libraries[] = {
      {"", luaopen_base},
      {LUA_TABLIBNAME, luaopen_table},
      {LUA_STRLIBNAME, luaopen_string},
      {LUA_MATHLIBNAME, luaopen_math},
      {"bit", luaopen_bit},
      {"cjson", luaopen_cjson},
      {"struct", OpenStructLibrary},
      {"cmsgpack", OpenCmsgpackLibrary},
  };
  for (const auto& lib : libraries) {
    lua_pushcfunction(lua, lib.open);
    lua_pushstring(lua, lib.name);
    lua_call(lua, 1, 0);
  }
  // luaopen_cjson leaves its table as a return value only; make sure the global exists.
  lua_getglobal(lua, "cjson");
  if (lua_isnil(lua, -1)) {
    lua_pop(lua, 1);
    lua_pushcfunction(lua, luaopen_cjson);
    lua_call(lua, 0, 1);
    lua_setglobal(lua, "cjson");
  } else {
    lua_pop(lua, 1);
  }
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy",
                           "module", "require", "package", "os", "io", "debug"}) {
    lua_pushnil(lua);
    lua_setglobal(lua, name);
  }
}

int InstallSandbox(lua_State* lua) {
  const int globals = LUA_GLOBALSINDEX;
  lua_newtable(lua);
  lua_newtable(lua);
  lua_pushstring(lua, "k");
  lua_setfield(lua, -2, "__mode");
  lua_setmetatable(lua, -2);
  lua_setfield(lua, LUA_REGISTRYINDEX, kProxiesKey);

  // The decoy that getmetatable() returns for protected tables: itself read-only.
  lua_newtable(lua);
  PushProxy(lua, -1, false);
  lua_setfield(lua, LUA_REGISTRYINDEX, kDecoyKey);
  lua_pop(lua, 1);

  const struct {
    const char* name;
    lua_CFunction fn;
    lua_CFunction upvalue;  // a helper the function returns, or null
  } replacements[] = {
      {"next", Next, nullptr},
      {"pairs", Pairs, Next},
      {"ipairs", Ipairs, IpairsStep},
      {"rawget", Rawget, nullptr},
      {"unpack", Unpack, nullptr},
      {"rawset", Rawset, nullptr},
      {"setmetatable", Setmetatable, nullptr},
      {"loadstring", Loadstring, nullptr},
      {"load", Load, nullptr},
      {"pcall", Pcall, nullptr},
  };
  for (const auto& r : replacements) {
    if (r.upvalue != nullptr) {
      lua_pushcfunction(lua, r.upvalue);
      lua_pushcclosure(lua, r.fn, 1);
    } else {
      lua_pushcfunction(lua, r.fn);
    }
    lua_setfield(lua, globals, r.name);
  }

  // The other table functions only read raw, or write nothing through an (empty) proxy.
  lua_getglobal(lua, LUA_TABLIBNAME);
  lua_pushcfunction(lua, TableInsert);
  lua_setfield(lua, -2, "insert");
  lua_pop(lua, 1);

  lua_getglobal(lua, "bit");
  if (lua_istable(lua, -1)) {
    lua_pushcfunction(lua, BitTohex);
    lua_setfield(lua, -2, "tohex");
  }
  lua_pop(lua, 1);

  for (const char* name :
       {"string", "math", "table", "coroutine", "bit", "cjson", "struct", "cmsgpack", "redis"}) {
    lua_getglobal(lua, name);
    if (lua_istable(lua, -1)) {
      PushProxy(lua, -1, false);
      lua_setglobal(lua, name);
    }
    lua_pop(lua, 1);
  }

  // The string metatable would let a script change every string's methods for every later
  // script: getmetatable('') shows a read-only view of it, whose __index is the (proxied)
  // string library, as in Redis.
  lua_pushstring(lua, "");
  lua_getmetatable(lua, -1);
  lua_newtable(lua);
  lua_getglobal(lua, LUA_STRLIBNAME);
  lua_setfield(lua, -2, "__index");
  PushProxy(lua, -1, false);
  lua_setfield(lua, -3, "__metatable");
  lua_pop(lua, 3);

  lua_pushvalue(lua, globals);
  PushProxy(lua, -1, true);
  lua_pushvalue(lua, -1);
  lua_setfield(lua, globals, "_G");
  lua_pushvalue(lua, -1);
  lua_setfield(lua, LUA_REGISTRYINDEX, kGlobalsProxyKey);
  const int ref = luaL_ref(lua, LUA_REGISTRYINDEX);
  lua_pop(lua, 1);
  return ref;
}

void InstallFunctionEnvironment(lua_State* lua) {
  const int api = lua_gettop(lua);
  // The load API: only `redis`, itself strict, so that redis.call names 'call' as missing.
  SetStrict(lua, api);
  lua_newtable(lua);
  PushProxy(lua, api, false);
  lua_setfield(lua, -2, "redis");
  SetStrict(lua, lua_gettop(lua));
  lua_setfield(lua, LUA_REGISTRYINDEX, kFunctionLoadApiKey);

  // The run-time globals: eval's, less what only eval has. A copy, since the real globals hold
  // the KEYS and ARGV of the last EVAL.
  PushCopyWithout(lua, LUA_GLOBALSINDEX, {"KEYS", "ARGV", "_G", "__redis__err__handler"});
  const int copy = lua_gettop(lua);
  PushProxy(lua, copy, true);
  lua_setfield(lua, copy, "_G");
  // And a `redis` without what only EVAL has (Redis's function engine never registers them).
  lua_getfield(lua, copy, "redis");
  Unwrap(lua, lua_gettop(lua));
  PushCopyWithout(lua, lua_gettop(lua), {"breakpoint", "debug", "replicate_commands"});
  PushProxy(lua, -1, false);
  lua_setfield(lua, copy, "redis");
  lua_settop(lua, copy);
  lua_setfield(lua, LUA_REGISTRYINDEX, kFunctionGlobalsKey);

  // Reads go straight to the real tables: no script can reach this environment as a value.
  lua_newtable(lua);  // the environment
  lua_newtable(lua);  // its metatable
  lua_getfield(lua, LUA_REGISTRYINDEX, kFunctionLoadApiKey);
  lua_setfield(lua, -2, "__index");
  lua_pushcfunction(lua, ReadonlyNewIndex);
  lua_setfield(lua, -2, "__newindex");
  lua_getfield(lua, LUA_REGISTRYINDEX, kDecoyKey);
  lua_setfield(lua, -2, "__metatable");
  lua_pushvalue(lua, -1);
  lua_setfield(lua, LUA_REGISTRYINDEX, kFunctionEnvMetaKey);
  lua_setmetatable(lua, -2);
  lua_setfield(lua, LUA_REGISTRYINDEX, kFunctionEnvKey);
  lua_settop(lua, api - 1);
}

void SetFunctionEnvironmentLoading(lua_State* lua, bool loading) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kFunctionEnvMetaKey);
  lua_getfield(lua, LUA_REGISTRYINDEX, loading ? kFunctionLoadApiKey : kFunctionGlobalsKey);
  lua_setfield(lua, -2, "__index");
  lua_pop(lua, 1);
}

void SetFunctionEnvironment(lua_State* lua) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kFunctionEnvKey);
  lua_setfenv(lua, -2);
}

}  // namespace warden::server
