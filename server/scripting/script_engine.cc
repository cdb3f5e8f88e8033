#include "server/scripting/script_engine.h"

#include <cmath>
#include <cstdio>
#include <lua.hpp>

#include "protocol/reply_reader.h"
#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/acl/acl.h"
#include "server/command_table.h"
#include "server/dispatcher.h"
#include "server/errors.h"
#include "server/log.h"
#include "server/scripting/lua_bridge.h"
#include "server/scripting/redis_api.h"
#include "server/scripting/sha1.h"
#include "server/server_state.h"

namespace warden::server {

namespace {

constexpr char kScriptKilled[] = "Script killed by user with SCRIPT KILL...";

bool IsKnownFlag(std::string_view flag, Script& script) {
  static constexpr std::string_view kKnown[] = {"no-writes", "allow-oom", "allow-stale",
                                                "no-cluster", "allow-cross-slot-keys"};
  for (std::string_view known : kKnown) {
    if (flag == known) {
      if (flag == "no-writes") script.no_writes = true;
      if (flag == "allow-oom") script.allow_oom = true;
      return true;
    }
  }
  return false;
}

// Parses a "#!lua flags=..." first line (Redis's evalExtractShebangFlags). Returns false after
// writing the error.
bool ParseShebang(std::string_view body, Script& script, std::size_t& shebang_len,
                  protocol::ReplyWriter& reply) {
  shebang_len = 0;
  if (body.substr(0, 2) != "#!") return true;
  const std::size_t newline = body.find('\n');
  if (newline == std::string_view::npos) {
    reply.Error("ERR Invalid script shebang");
    return false;
  }
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (!protocol::SplitInlineArgs(body.substr(0, newline), storage, spans) || spans.empty()) {
    reply.Error("ERR Invalid engine in script shebang");
    return false;
  }
  auto part = [&](std::size_t i) {
    return std::string_view(storage).substr(spans[i].first, spans[i].second);
  };
  if (part(0) != "#!lua") {
    reply.Error({"ERR Unexpected engine in script shebang: ", part(0)});
    return false;
  }
  for (std::size_t i = 1; i < spans.size(); ++i) {
    std::string_view option = part(i);
    if (option.substr(0, 6) != "flags=") {
      reply.Error({"ERR Unknown lua shebang option: ", option});
      return false;
    }
    option.remove_prefix(6);
    // Split like sdssplitlen: "flags=" is no flag, "a," is "a" and an empty (unknown) flag.
    while (!option.empty()) {
      const std::size_t comma = option.find(',');
      const std::string_view flag = option.substr(0, comma);
      if (!IsKnownFlag(flag, script)) {
        reply.Error({"ERR Unexpected flag in script shebang: ", flag});
        return false;
      }
      if (comma == std::string_view::npos) break;
      option.remove_prefix(comma + 1);
      if (option.empty()) {
        reply.Error("ERR Unexpected flag in script shebang: ");
        return false;
      }
    }
  }
  script.has_shebang = true;
  shebang_len = newline;
  return true;
}

}  // namespace

const Script* ScriptEngine::Find(std::string_view sha) const {
  if (sha.size() != 40) return nullptr;
  char lower[40];
  for (std::size_t i = 0; i < 40; ++i) {
    const char c = sha[i];
    lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  }
  const auto it = scripts_.find(std::string_view(lower, 40));
  return it == scripts_.end() ? nullptr : &it->second;
}

std::optional<std::uint8_t> ScriptEngine::DeclaredFlags(bool by_sha,
                                                        std::string_view script) const {
  Script flags;
  if (by_sha) {
    const Script* cached = Find(script);
    if (cached == nullptr) return std::nullopt;
    flags = *cached;
  } else {
    // Only the first line is read, cached or not: a shebang Redis cannot parse leaves EVAL's
    // own flags, and running it answers the parse error.
    std::string scratch;
    protocol::ReplyWriter ignored(&scratch, 2);
    std::size_t shebang_len = 0;
    if (!ParseShebang(script, flags, shebang_len, ignored)) return std::nullopt;
  }
  if (!flags.has_shebang) return std::nullopt;
  return static_cast<std::uint8_t>((flags.no_writes ? kFunctionNoWrites : 0) |
                                   (flags.allow_oom ? kFunctionAllowOom : 0));
}

const Script* ScriptEngine::Load(std::string_view body, char (&sha)[41],
                                 protocol::ReplyWriter& reply) {
  Sha1Hex(body, sha);
  if (const Script* cached = Find(std::string_view(sha, 40))) return cached;
  if (lua_ == nullptr) CreateState();
  Script script;
  std::size_t shebang_len = 0;
  if (!ParseShebang(body, script, shebang_len, reply)) return nullptr;
  // The shebang line is dropped but its newline kept, so line numbers still count it.
  const std::string_view code = body.substr(shebang_len);
  if (luaL_loadbuffer(lua_, code.data(), code.size(), "@user_script") != 0) {
    std::size_t len = 0;
    const char* message = lua_tolstring(lua_, -1, &len);
    reply.Error({"ERR Error compiling script (new function): ",
                 std::string_view(message != nullptr ? message : "", len)});
    lua_pop(lua_, 1);
    return nullptr;
  }
  lua_getglobal(lua_, "_G");  // the sandboxed globals proxy
  lua_setfenv(lua_, -2);
  script.function_ref = luaL_ref(lua_, LUA_REGISTRYINDEX);
  script.body.assign(body);
  script.native = FindNativeScript(std::string_view(sha, 40));
  return &scripts_.emplace(std::string(sha, 40), std::move(script)).first->second;
}

void ScriptEngine::Hook(lua_State* lua, lua_Debug*) {
  // The engine is found through the registry: hooks get no upvalues.
  lua_getfield(lua, LUA_REGISTRYINDEX, "warden.engine");
  auto* self = static_cast<ScriptEngine*>(lua_touserdata(lua, -1));
  lua_pop(lua, 1);
  if (self == nullptr) return;
  if (self->loading_library_ != nullptr) {
    // Redis's luaEngineLoadHook: loading should only register functions. A shutdown stops a
    // load as it stops a script.
    constexpr std::int64_t kLoadTimeoutUs = 500 * 1000;
    const bool late = self->load_timeout_ &&
                      self->server_.clock.MonotonicUs() - self->load_start_us_ > kLoadTimeoutUs;
    if (late || (self->interrupt_check_ && self->interrupt_check_())) {
      lua_sethook(lua, Hook, LUA_MASKLINE, 0);
      PushErrorTable(lua, "FUNCTION LOAD timeout");
      lua_error(lua);
    }
    return;
  }
  if (self->running_ == nullptr) return;
  RunState& run = *self->running_;
  if (!self->busy_) {
    const std::int64_t elapsed_ms = (self->server_.clock.MonotonicUs() - run.start_us) / 1000;
    const std::int64_t threshold = self->server_.config.busy_reply_threshold_ms;
    if (threshold > 0 && elapsed_ms >= threshold) {
      self->busy_ = true;
      if (self->server_.log != nullptr) {
        self->server_.log->Log(
            LogLevel::kWarning,
            "Slow script detected: still in execution after %lld milliseconds. You can try "
            "killing the script using the %s command. Script name is: %.*s.",
            static_cast<long long>(elapsed_ms), run.function ? "FUNCTION KILL" : "SCRIPT KILL",
            static_cast<int>(run.name.size()), run.name.data());
      }
    }
  }
  if (self->busy_ && self->poll_clients_) self->poll_clients_();
  if (self->interrupt_check_ && self->interrupt_check_()) run.killed = true;
  if (run.killed) {
    // From now on every line raises again, so a pcall in the script cannot swallow the kill.
    lua_sethook(lua, Hook, LUA_MASKLINE, 0);
    PushErrorTable(lua, kScriptKilled);
    lua_error(lua);
  }
}

ScriptEngine::KillResult ScriptEngine::Kill(bool eval) {
  if (running_ == nullptr) return KillResult::kNotBusy;
  if (running_->wrote) return KillResult::kUnkillable;
  if (eval == running_->function) return KillResult::kOtherKind;
  running_->killed = true;
  return KillResult::kKilled;
}

int ScriptEngine::RedisCall(lua_State* lua) { return Self(lua).CallCommand(lua, true); }

int ScriptEngine::RedisPcall(lua_State* lua) { return Self(lua).CallCommand(lua, false); }

int ScriptEngine::CallCommand(lua_State* lua, bool raise) {
  const int argc = lua_gettop(lua);
  auto fail = [&](std::string_view message) {
    PushErrorTable(lua, message);
    return raise ? lua_error(lua) : 1;
  };
  if (argc == 0) return fail("Please specify at least one argument for this redis lib call");
  if (call_arg_storage_.size() < static_cast<std::size_t>(argc)) {
    call_arg_storage_.resize(static_cast<std::size_t>(argc));
  }
  call_args_.clear();
  for (int j = 1; j <= argc; ++j) {
    std::string& arg = call_arg_storage_[static_cast<std::size_t>(j - 1)];
    const int type = lua_type(lua, j);
    if (type == LUA_TNUMBER) {
      // Lua's own tostring loses precision: Redis formats numbers with %.17g.
      char buf[64];
      const double number = lua_tonumber(lua, j);
      // snprintf's "-nan" for 0/0 (as Redis passes it) is kept; FormatDouble says "nan".
      const std::size_t n =
          std::isfinite(number)
              ? protocol::FormatDouble(number, buf)
              : static_cast<std::size_t>(std::snprintf(buf, sizeof(buf), "%.17g", number));
      arg.assign(buf, n);
    } else if (type == LUA_TSTRING) {
      // The string stays on the Lua stack for the whole call: a view will do.
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, j, &len);
      call_args_.emplace_back(s, len);
      continue;
    } else {
      return fail("Lua redis lib command arguments must be strings or integers");
    }
    call_args_.emplace_back(arg);
  }
  call_reply_.clear();
  const bool debugging = debugger_ != nullptr && debugger_->logging();
  if (debugging) debugger_->LogRedisCommand(call_args_);
  protocol::ReplyWriter writer(&call_reply_, script_session_.resp);
  const bool admitted = RunScriptCommand(server_, script_session_, call_args_, running_->read_only,
                                         running_->deny_oom, running_->wrote, writer);
  // The arguments are done with (the views into them too): off the stack, as Redis pops them,
  // so a call with as many arguments as the stack holds (unpack of 7999) has room for its reply.
  lua_settop(lua, 0);
  protocol::Reply& parsed = call_parsed_;
  const auto consumed = protocol::ReadReply(call_reply_, parsed);
  if (!consumed.has_value() || *consumed == 0) {
    return fail("internal error: malformed reply from command");
  }
  if (debugging) LogCallForDebugger(admitted);
  PushReply(lua, parsed, script_session_.resp);
  if (parsed.type == protocol::ReplyType::kError && raise) return lua_error(lua);
  return 1;
}

void ScriptEngine::LogCallForDebugger(bool admitted) {
  if (admitted) {
    debugger_->LogRedisReply(call_reply_);
    return;
  }
  // A refused call is Redis's scriptCall error: its text as Redis words it (no "ERR ", which
  // Redis adds later; other codes keep their dash and line end), and no reply line.
  std::string_view text(call_reply_);
  if (text.starts_with("-ERR ")) {
    text.remove_prefix(5);
    text.remove_suffix(2);
  }
  debugger_->Log("<error> " + std::string(text));
}

std::int64_t ScriptEngine::busy_threshold_ms() const {
  return server_.config.busy_reply_threshold_ms;
}

void ScriptEngine::RestartRunClock() {
  if (running_ == nullptr) return;
  running_->start_us = server_.clock.MonotonicUs();
  server_.call.frozen_now_ms = server_.clock.NowMs();
}

namespace {

// redis.acl_check_cmd's work, apart from raising: a Lua error unwinds past C++ frames without
// their destructors, so the vector of arguments must be gone before one is raised. Returns
// the error to raise, or null with `allowed` set.
const char* CheckCommandForScript(lua_State* lua, const CommandNames& names, const Session* caller,
                                  bool& allowed) {
  const int argc = lua_gettop(lua);
  if (argc == 0) return "Please specify at least one argument for this redis lib call";
  std::vector<std::string> words;
  words.reserve(static_cast<std::size_t>(argc));
  for (int j = 1; j <= argc; ++j) {
    const int type = lua_type(lua, j);
    if (type == LUA_TNUMBER) {
      char buf[64];
      const int n = std::snprintf(buf, sizeof(buf), "%.17g", lua_tonumber(lua, j));
      words.emplace_back(buf, static_cast<std::size_t>(n));
    } else if (type == LUA_TSTRING) {
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, j, &len);
      words.emplace_back(s, len);
    } else {
      return "Lua redis lib command arguments must be strings or integers";
    }
  }
  const std::vector<std::string_view> args(words.begin(), words.end());
  const CommandSpec* spec = names.FindFor(args);
  if (spec == nullptr) return "Invalid command passed to redis.acl_check_cmd()";
  int pos = 0;
  allowed = caller == nullptr || caller->user == nullptr ||
            AclCheck(*caller->user, *spec, args, pos) == AclDenial::kNone;
  return nullptr;
}

}  // namespace

// Redis's luaRedisAclCheckCmdPermissionsCommand: whether the user running the script may run
// the command with these arguments (its keys included), without running it.
int ScriptEngine::RedisAclCheckCmd(lua_State* lua) {
  bool allowed = false;
  ScriptEngine& self = Self(lua);
  const char* error = CheckCommandForScript(lua, self.server_.command_names, self.caller_, allowed);
  if (error != nullptr) return RaiseRedisError(lua, error);
  lua_pushboolean(lua, allowed ? 1 : 0);
  return 1;
}

int ScriptEngine::RedisSetResp(lua_State* lua) {
  ScriptEngine& self = Self(lua);
  if (lua_gettop(lua) != 1) return RaiseRedisError(lua, "redis.setresp() requires one argument.");
  const lua_Number resp = lua_tonumber(lua, 1);
  if (resp != 2 && resp != 3) return RaiseRedisError(lua, "RESP version must be 2 or 3.");
  self.script_session_.resp = static_cast<int>(resp);
  return 0;
}

int ScriptEngine::RedisLog(lua_State* lua) {
  ScriptEngine& self = Self(lua);
  const int argc = lua_gettop(lua);
  if (argc < 2) return RaiseRedisError(lua, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(lua, 1))
    return RaiseRedisError(lua, "First argument must be a number (log level).");
  const lua_Number level = lua_tonumber(lua, 1);
  if (level < 0 || level > 3) return RaiseRedisError(lua, "Invalid debug level.");
  // Numbers become strings first: that allocates in Lua and may raise, which must happen before
  // the message below exists.
  for (int j = 2; j <= argc; ++j) lua_tolstring(lua, j, nullptr);
  std::string message;
  for (int j = 2; j <= argc; ++j) {
    std::size_t len = 0;
    const char* s = lua_tolstring(lua, j, &len);
    if (s == nullptr) continue;
    if (j != 2) message.push_back(' ');
    message.append(s, len);
  }
  if (self.server_.log != nullptr) {
    self.server_.log->Log(static_cast<LogLevel>(static_cast<int>(level)), "%s", message.c_str());
  }
  return 0;
}

namespace {

// Runs the script function with KEYS and ARGV set, inside the protected call so that running out
// of memory while building them is an ordinary script error.
struct CallFrame {
  int function_ref;
  std::span<const std::string_view> keys;
  std::span<const std::string_view> args;
  ScriptEngine::ArgTable* key_table;
  ScriptEngine::ArgTable* arg_table;
  bool as_function;
};

// Sets global `name` to the items: in the table the last run left when it may be reused (its
// first `size` slots refilled, the rest of the old ones cleared, so # is the new count), else
// in a new one.
void SetArray(lua_State* lua, const char* name, std::span<const std::string_view> items,
              ScriptEngine::ArgTable& table) {
  if (table.ref == LUA_NOREF) {
    lua_createtable(lua, static_cast<int>(items.size()), 0);
    lua_pushvalue(lua, -1);
    table.ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    table.size = 0;
  } else {
    lua_rawgeti(lua, LUA_REGISTRYINDEX, table.ref);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    lua_pushlstring(lua, items[i].data(), items[i].size());
    lua_rawseti(lua, -2, static_cast<int>(i + 1));
  }
  for (std::size_t i = items.size(); i < table.size; ++i) {
    lua_pushnil(lua);
    lua_rawseti(lua, -2, static_cast<int>(i + 1));
  }
  table.size = items.size();
  lua_setfield(lua, LUA_GLOBALSINDEX, name);
}

}  // namespace

int ScriptEngine::Trampoline(lua_State* lua) {
  const auto* frame = static_cast<const CallFrame*>(lua_touserdata(lua, 1));
  lua_settop(lua, 0);
  if (frame->as_function) {
    // A function gets new tables each call, as its arguments: nothing global to reuse.
    lua_rawgeti(lua, LUA_REGISTRYINDEX, frame->function_ref);
    for (const auto items : {frame->keys, frame->args}) {
      lua_createtable(lua, static_cast<int>(items.size()), 0);
      for (std::size_t i = 0; i < items.size(); ++i) {
        lua_pushlstring(lua, items[i].data(), items[i].size());
        lua_rawseti(lua, -2, static_cast<int>(i + 1));
      }
    }
    lua_call(lua, 2, 1);
    return 1;
  }
  SetArray(lua, "KEYS", frame->keys, *frame->key_table);
  SetArray(lua, "ARGV", frame->args, *frame->arg_table);
  lua_rawgeti(lua, LUA_REGISTRYINDEX, frame->function_ref);
  lua_call(lua, 0, 1);
  return 1;
}

namespace {

// Whether the next run may refill this table: it holds exactly the slots 1..size this run put
// there and has no metatable. A script that added, removed or hid an entry gets a new table
// next time, as every run does in Redis; no other reference to it can outlive the run, since
// a script cannot create globals and the libraries' tables are read-only.
void KeepIfUntouched(lua_State* lua, ScriptEngine::ArgTable& table) {
  if (table.ref == LUA_NOREF) return;
  lua_rawgeti(lua, LUA_REGISTRYINDEX, table.ref);
  const bool has_metatable = lua_getmetatable(lua, -1) != 0;
  bool untouched = !has_metatable;
  std::size_t entries = 0;
  if (untouched) {
    lua_pushnil(lua);
    while (lua_next(lua, -2) != 0) {
      lua_pop(lua, 1);
      ++entries;
    }
    for (std::size_t i = 1; untouched && i <= table.size; ++i) {
      lua_rawgeti(lua, -1, static_cast<int>(i));
      untouched = !lua_isnil(lua, -1);
      lua_pop(lua, 1);
    }
  }
  lua_pop(lua, has_metatable ? 2 : 1);
  if (untouched && entries == table.size) return;
  luaL_unref(lua, LUA_REGISTRYINDEX, table.ref);
  table.ref = LUA_NOREF;
}

}  // namespace

std::int64_t ScriptEngine::BeginRun(RunState& run, std::string_view name, Session& caller,
                                    bool read_only) {
  run.name = name;
  run.start_us = server_.clock.MonotonicUs();
  run.read_only = read_only;
  running_ = &run;
  caller_ = &caller;
  busy_ = false;
  script_session_.db = caller.db;
  script_session_.user = caller.user;
  script_session_.resp = 2;
  // One "now" for the whole script: a key alive at the start stays alive for every call.
  // Inside EXEC, the transaction's.
  const std::int64_t outer_now_ms = server_.call.frozen_now_ms;
  if (outer_now_ms < 0) server_.call.frozen_now_ms = server_.clock.NowMs();
  return outer_now_ms;
}

void ScriptEngine::EndRun(std::int64_t outer_now_ms) {
  server_.call.frozen_now_ms = outer_now_ms;
  running_ = nullptr;
  caller_ = nullptr;
  busy_ = false;
}

void ScriptEngine::Run(const Script& script, std::string_view sha, Session& caller,
                       std::span<const std::string_view> keys,
                       std::span<const std::string_view> args, bool read_only,
                       protocol::ReplyWriter& reply) {
  if (script.native != nullptr && debugger_ == nullptr && server_.config.lua_native_scripts &&
      RunNative(*script.native, sha, caller, keys, args, read_only || script.no_writes, reply)) {
    return;
  }
  RunState run;
  const std::int64_t outer_now_ms = BeginRun(run, sha, caller, read_only || script.no_writes);
  run.deny_oom = server_.ScriptOomDenied() && !script.allow_oom;
  Invoke(script.function_ref, false, keys, args, outer_now_ms, reply);
}

void ScriptEngine::Invoke(int function_ref, bool as_function,
                          std::span<const std::string_view> keys,
                          std::span<const std::string_view> args, std::int64_t outer_now_ms,
                          protocol::ReplyWriter& reply) {
  const std::string_view name = running_->name;
  const int base = lua_gettop(lua_);
  lua_rawgeti(lua_, LUA_REGISTRYINDEX, error_handler_ref_);
  lua_rawgeti(lua_, LUA_REGISTRYINDEX, trampoline_ref_);
  CallFrame frame{function_ref, keys, args, &key_table_, &arg_table_, as_function};
  lua_pushlightuserdata(lua_, &frame);
  if (debugger_ != nullptr) debugger_->Attach(lua_);
  const int status = lua_pcall(lua_, 1, 1, base + 1);
  if (debugger_ != nullptr) LuaDebugger::Detach(lua_);
  if (!as_function) {
    KeepIfUntouched(lua_, key_table_);
    KeepIfUntouched(lua_, arg_table_);
  }

  EndRun(outer_now_ms);
  lua_sethook(lua_, Hook, LUA_MASKCOUNT, kHookInstructions);

  if (status == 0) {
    WriteLuaValue(lua_, -1, script_session_.resp, reply);
  } else if (lua_istable(lua_, -1)) {
    const int err = lua_gettop(lua_);
    lua_getfield(lua_, err, "err");
    lua_getfield(lua_, err, "source");
    lua_getfield(lua_, err, "line");
    lua_getfield(lua_, err, "ignore_error_stats_update");
    const bool repeat = lua_toboolean(lua_, err + 4) != 0;
    std::size_t len = 0;
    const char* message = lua_tolstring(lua_, err + 1, &len);
    const std::size_t mark = reply.BeginError();
    if (message != nullptr && lua_type(lua_, err + 1) == LUA_TSTRING) {
      reply.Raw(std::string_view(message, len));
    } else {
      // Redis 7.0 crashes on error({}); answer with the type instead.
      reply.Raw("ERR user_script: (error object is a table value)");
    }
    const char* source = lua_tostring(lua_, err + 2);
    const char* line = lua_tostring(lua_, err + 3);
    if (source != nullptr && line != nullptr) WriteErrorPlace(reply, name, source, line);
    reply.EndError(mark, repeat);
  } else {
    // Errors the handler never saw (out of memory) arrive as plain strings.
    const char* message = lua_tostring(lua_, -1);
    if (as_function) {
      reply.Error({"ERR Error running script ", name, ", ",
                   message != nullptr ? message : "execution failure"});
    } else {
      reply.Error({"ERR Error running script (call to f_", name,
                   "): @user_script: ", message != nullptr ? message : "unknown error"});
    }
  }
  lua_settop(lua_, base);
  if (status != 0) lua_gc(lua_, LUA_GCCOLLECT, 0);
}

}  // namespace warden::server
