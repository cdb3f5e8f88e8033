// Functions: FUNCTION LOAD's libraries and FCALL's runs, on the script engine's Lua state
// (Redis 7.0's functions.c and function_lua.c).
#include <strings.h>

#include <cstring>
#include <lua.hpp>

#include "protocol/request_parser.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/scripting/lua_bridge.h"
#include "server/scripting/lua_sandbox.h"
#include "server/scripting/redis_api.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

constexpr char kBadName[] =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one "
    "character long";

// Redis's functionsVerifyName: [a-zA-Z0-9_]+.
bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

struct Metadata {
  std::string engine;
  std::string name;
  std::string_view code;  // from the newline that ends the #! line
};

// Redis's functionExtractLibMetaData. The payload is read as C reads it, up to a NUL.
bool ExtractMetadata(std::string_view payload, Metadata& md, std::string& error) {
  const std::string_view text = payload.substr(0, payload.find('\0'));
  if (text.substr(0, 2) != "#!") {
    error = "Missing library metadata";
    return false;
  }
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) {
    error = "Invalid library metadata";
    return false;
  }
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (!protocol::SplitInlineArgs(text.substr(0, newline), storage, spans) || spans.empty()) {
    error = "Invalid library metadata";
    return false;
  }
  auto part = [&](std::size_t i) {
    return std::string_view(storage).substr(spans[i].first, spans[i].second);
  };
  md.engine.assign(part(0).substr(std::min<std::size_t>(2, part(0).size())));
  bool have_name = false;
  for (std::size_t i = 1; i < spans.size(); ++i) {
    const std::string_view p = part(i);
    if (p.size() >= 5 && strncasecmp(p.data(), "name=", 5) == 0) {
      if (have_name) {
        error = "Invalid metadata value, name argument was given multiple times";
        return false;
      }
      have_name = true;
      md.name.assign(p.substr(5));
      continue;
    }
    error = "Invalid metadata value given: ";
    error.append(p.substr(0, p.find('\0')));
    return false;
  }
  if (!have_name) {
    error = "Library name was not given";
    return false;
  }
  md.code = payload.substr(newline);
  return true;
}

// Reads the flags table on top of the stack (luaRegisterFunctionReadFlags).
bool ReadFlags(lua_State* lua, std::uint8_t& flags) {
  flags = 0;
  for (int j = 1;; ++j) {
    lua_pushnumber(lua, j);
    lua_gettable(lua, -2);
    if (lua_isnil(lua, -1)) {
      lua_pop(lua, 1);
      return true;
    }
    if (!lua_isstring(lua, -1)) {
      lua_pop(lua, 1);
      return false;
    }
    const char* flag = lua_tostring(lua, -1);
    bool found = false;
    for (std::size_t i = 0; i < std::size(kFunctionFlagNames); ++i) {
      if (strcasecmp(kFunctionFlagNames[i].data(), flag) == 0) {
        flags |= static_cast<std::uint8_t>(1u << i);
        found = true;
        break;
      }
    }
    lua_pop(lua, 1);
    if (!found) return false;
  }
}

}  // namespace

std::size_t ScriptEngine::NoCaseHash::operator()(std::string_view s) const {
  std::size_t h = 14695981039346656037ULL;  // FNV-1a over the lower-cased bytes
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    h *= 1099511628211ULL;
  }
  return h;
}

bool ScriptEngine::NoCaseEqual::operator()(std::string_view a, std::string_view b) const {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Every Lua call below may raise (a bad argument, or an allocation failing under
// script-memory-limit), and a raise is a longjmp that skips C++ destructors. So until the last
// call into Lua, the function being registered lives only in Lua: its name, description and
// callback in stack slots of their own. Its C++ record is built after.
int ScriptEngine::RedisRegisterFunction(lua_State* lua) {
  ScriptEngine& self = Self(lua);
  FunctionLibrary* library = self.loading_library_;
  // A callback that kept the function from its library's load and calls it later.
  if (library == nullptr) {
    return RaiseRedisError(lua,
                           "redis.register_function can only be called on FUNCTION LOAD command");
  }
  const int argc = lua_gettop(lua);
  if (argc < 1 || argc > 2) {
    return RaiseRedisError(lua, "wrong number of arguments to redis.register_function");
  }
  const int name_slot = argc + 1;
  const int description_slot = argc + 2;
  const int callback_slot = argc + 3;
  lua_settop(lua, callback_slot);  // three nils: what has not been given
  std::uint8_t flags = 0;
  if (argc == 2) {
    if (!lua_isstring(lua, 1)) {
      return RaiseRedisError(lua, "first argument to redis.register_function must be a string");
    }
    if (!lua_isfunction(lua, 2)) {
      return RaiseRedisError(lua, "second argument to redis.register_function must be a function");
    }
    lua_pushvalue(lua, 1);
    lua_replace(lua, name_slot);
    lua_pushvalue(lua, 2);
    lua_replace(lua, callback_slot);
  } else {
    if (!lua_istable(lua, 1)) {
      return RaiseRedisError(lua,
                             "calling redis.register_function with a single argument is only "
                             "applicable to Lua table (representing named arguments).");
    }
    lua_pushnil(lua);
    while (lua_next(lua, 1) != 0) {
      if (!lua_isstring(lua, -2)) {
        return RaiseRedisError(
            lua, "named argument key given to redis.register_function is not a string");
      }
      const char* key = lua_tostring(lua, -2);
      int slot = 0;
      if (strcasecmp(key, "function_name") == 0) {
        if (!lua_isstring(lua, -1)) {
          return RaiseRedisError(
              lua, "function_name argument given to redis.register_function must be a string");
        }
        slot = name_slot;
      } else if (strcasecmp(key, "description") == 0) {
        if (!lua_isstring(lua, -1)) {
          return RaiseRedisError(
              lua, "description argument given to redis.register_function must be a string");
        }
        slot = description_slot;
      } else if (strcasecmp(key, "callback") == 0) {
        if (!lua_isfunction(lua, -1)) {
          return RaiseRedisError(
              lua, "callback argument given to redis.register_function must be a function");
        }
        slot = callback_slot;
      } else if (strcasecmp(key, "flags") == 0) {
        if (!lua_istable(lua, -1)) {
          return RaiseRedisError(lua,
                                 "flags argument to redis.register_function must be a table "
                                 "representing function flags");
        }
        if (!ReadFlags(lua, flags)) return RaiseRedisError(lua, "unknown flag given");
      } else {
        return RaiseRedisError(lua, "unknown argument given to redis.register_function");
      }
      if (slot != 0) {
        lua_pushvalue(lua, -1);
        lua_replace(lua, slot);
      }
      lua_pop(lua, 1);
    }
    if (lua_isnil(lua, name_slot)) {
      return RaiseRedisError(lua, "redis.register_function must get a function name argument");
    }
    if (lua_isnil(lua, callback_slot)) {
      return RaiseRedisError(lua, "redis.register_function must get a callback argument");
    }
  }
  // A number names the function by its string form, as Redis's luaGetStringSds reads it.
  std::size_t name_len = 0;
  const char* name_chars = lua_tolstring(lua, name_slot, &name_len);
  const std::string_view name(name_chars, name_len);
  std::size_t description_len = 0;
  const char* description = lua_tolstring(lua, description_slot, &description_len);
  if (!ValidName(name)) return RaiseRedisError(lua, kBadName);
  // Case-insensitively, unlike Redis 7.0: its library keeps "f" and "F" apart but its index
  // of all functions does not, and deleting or replacing such a library crashes it.
  for (const LuaFunction& other : library->functions) {
    if (NoCaseEqual{}(other.name, name)) {
      return RaiseRedisError(lua, "Function already exists in the library");
    }
  }
  lua_pushvalue(lua, callback_slot);
  const int function_ref = luaL_ref(lua, LUA_REGISTRYINDEX);
  // No Lua call from here on.
  LuaFunction& function = library->functions.emplace_back();
  function.name.assign(name);
  if (description != nullptr) function.description.emplace(description, description_len);
  function.flags = flags;
  function.function_ref = function_ref;
  return 0;
}

void ScriptEngine::InstallFunctions() {
  if (lua_ == nullptr) CreateState();
  if (functions_installed_) return;
  // The load API's `redis`: register_function, log and the constants (luaEngineInitEngine).
  lua_newtable(lua_);
  lua_pushlightuserdata(lua_, this);
  lua_pushcclosure(lua_, RedisRegisterFunction, 1);
  lua_setfield(lua_, -2, "register_function");
  lua_pushlightuserdata(lua_, this);
  lua_pushcclosure(lua_, RedisLog, 1);
  lua_setfield(lua_, -2, "log");
  AddLogConstants(lua_);
  AddVersionConstants(lua_);
  InstallFunctionEnvironment(lua_);
  SetFunctionEnvironmentLoading(lua_, false);
  functions_installed_ = true;
}

bool ScriptEngine::RunLibraryCode(std::string_view code, FunctionLibrary& library, bool timeout,
                                  std::string& error) {
  InstallFunctions();
  lua_State* lua = lua_;
  const int base = lua_gettop(lua);
  // Anchored while Lua parses (see LoadChunk in lua_sandbox.cc).
  lua_pushstring(lua, "@user_function");
  if (luaL_loadbuffer(lua, code.data(), code.size(), "@user_function") != 0) {
    const char* message = lua_tostring(lua, -1);
    error = "Error compiling function: ";
    error += message != nullptr ? message : "";
    lua_settop(lua, base);
    return false;
  }
  SetFunctionEnvironment(lua);
  SetFunctionEnvironmentLoading(lua, true);
  loading_library_ = &library;
  load_start_us_ = server_.clock.MonotonicUs();
  load_timeout_ = timeout;
  const int status = lua_pcall(lua, 0, 0, 0);
  loading_library_ = nullptr;
  SetFunctionEnvironmentLoading(lua, false);
  lua_sethook(lua, Hook, LUA_MASKCOUNT, kHookInstructions);
  if (status != 0) {
    // Redis's luaExtractErrorInformation: a string gets ERR, a table gives its err.
    error = "Error registering functions: ";
    if (lua_isstring(lua, -1)) {
      error += "ERR ";
      error += lua_tostring(lua, -1);
    } else if (lua_istable(lua, -1)) {
      lua_getfield(lua, -1, "err");
      const char* message = lua_isstring(lua, -1) ? lua_tostring(lua, -1) : nullptr;
      error += message != nullptr ? message : "(null)";
    } else {
      error += "(null)";
    }
    lua_settop(lua, base);
    ReleaseFunctions(library);
    lua_gc(lua, LUA_GCCOLLECT, 0);
    return false;
  }
  lua_settop(lua, base);
  return true;
}

void ScriptEngine::ReleaseFunctions(FunctionLibrary& library) {
  if (lua_ != nullptr) {
    for (const LuaFunction& f : library.functions)
      luaL_unref(lua_, LUA_REGISTRYINDEX, f.function_ref);
  }
  library.functions.clear();
}

void ScriptEngine::IndexFunctions() {
  function_index_.clear();
  for (const auto& [name, library] : libraries_) {
    for (const LuaFunction& f : library.functions) function_index_.emplace(f.name, &f);
  }
}

std::optional<std::string> ScriptEngine::LoadLibrary(std::string_view payload, bool replace,
                                                     bool timeout, std::string& error) {
  Metadata md;
  if (!ExtractMetadata(payload, md, error)) return std::nullopt;
  if (!ValidName(md.name)) {
    error = kBadName;
    return std::nullopt;
  }
  if (strcasecmp(md.engine.c_str(), "lua") != 0 || md.engine.size() != 3) {
    error = "Engine '" + md.engine + "' not found";
    return std::nullopt;
  }
  const auto old = libraries_.find(md.name);
  if (old != libraries_.end() && !replace) {
    error = "Library '" + md.name + "' already exists";
    return std::nullopt;
  }
  FunctionLibrary library;
  library.name = md.name;
  if (!RunLibraryCode(md.code, library, timeout, error)) return std::nullopt;
  auto fail = [&](std::string message) {
    error = std::move(message);
    ReleaseFunctions(library);
    return std::nullopt;
  };
  if (library.functions.empty()) return fail("No functions registered");
  for (const LuaFunction& f : library.functions) {
    const auto it = function_index_.find(f.name);
    // Replacing a library frees its own names.
    const bool own = old != libraries_.end() && it != function_index_.end() &&
                     std::any_of(old->second.functions.begin(), old->second.functions.end(),
                                 [&](const LuaFunction& g) { return &g == it->second; });
    if (it != function_index_.end() && !own) return fail("Function " + f.name + " already exists");
  }
  library.code.assign(payload);
  if (old != libraries_.end()) {
    ReleaseFunctions(old->second);
    old->second = std::move(library);
  } else {
    libraries_.emplace(md.name, std::move(library));
  }
  IndexFunctions();
  return md.name;
}

bool ScriptEngine::DeleteLibrary(std::string_view name) {
  const auto it = libraries_.find(name);
  if (it == libraries_.end()) return false;
  ReleaseFunctions(it->second);
  libraries_.erase(it);
  IndexFunctions();
  return true;
}

void ScriptEngine::FlushFunctions() {
  for (auto& [name, library] : libraries_) ReleaseFunctions(library);
  libraries_.clear();
  function_index_.clear();
  if (lua_ != nullptr) lua_gc(lua_, LUA_GCCOLLECT, 0);
}

const LuaFunction* ScriptEngine::FindFunction(std::string_view name) const {
  const auto it = function_index_.find(name);
  return it == function_index_.end() ? nullptr : it->second;
}

std::size_t ScriptEngine::functions_bytes() const {
  std::size_t n = 0;
  for (const auto& [name, library] : libraries_) {
    n += sizeof(FunctionLibrary) + name.size() + library.code.size();
    for (const LuaFunction& f : library.functions) {
      n += sizeof(LuaFunction) + f.name.size() + (f.description ? f.description->size() : 0);
    }
  }
  return n;
}

void ScriptEngine::CallFunction(const LuaFunction& function, Session& caller,
                                std::span<const std::string_view> command,
                                std::span<const std::string_view> keys,
                                std::span<const std::string_view> args, bool read_only,
                                protocol::ReplyWriter& reply) {
  RunState run;
  run.function = true;
  run.command = command;
  const bool no_writes = (function.flags & kFunctionNoWrites) != 0;
  const std::int64_t outer_now_ms = BeginRun(run, function.name, caller, read_only || no_writes);
  run.deny_oom = server_.ScriptOomDenied() && (function.flags & kFunctionAllowOom) == 0;
  Invoke(function.function_ref, true, keys, args, outer_now_ms, reply);
}

std::int64_t ScriptEngine::running_ms() const {
  return (server_.clock.MonotonicUs() - running_->start_us) / 1000;
}

std::string_view ScriptEngine::busy_error() const {
  return running_function() ? errors::kBusyFunction : errors::kBusy;
}

}  // namespace warden::server
