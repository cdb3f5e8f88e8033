// The debugging session's side inside Lua: the line hook, the requests a stopped script answers,
// and the log (eval.c's ldb* functions). debug_sessions.cc starts and ends sessions.
#include "server/scripting/lua_debugger.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <lua.hpp>

#include "protocol/request_parser.h"
#include "server/command_context.h"
#include "server/monitor.h"
#include "server/scripting/ldb_text.h"
#include "server/scripting/lua_bridge.h"
#include "server/scripting/redis_api.h"
#include "server/scripting/script_engine.h"

namespace warden::server {
namespace {

constexpr char kRegistryKey[] = "warden.ldb";
// Redis's LDB_BREAKPOINTS_MAX, and LDB_MAX_VALUES_DEPTH (LUA_MINSTACK / 2).
constexpr std::size_t kMaxBreakpoints = 64;
constexpr int kMaxValueDepth = LUA_MINSTACK / 2;
// Redis ends a session whose client sent over 1 MB without completing a request.
constexpr std::size_t kMaxInputBytes = 1 << 20;
// Without busy-reply-threshold a session stops a runaway script after this long.
constexpr std::int64_t kDefaultTimeoutMs = 5000;

std::string Printf(const char* format, auto... args) {
  char buf[256];
  const int n = std::snprintf(buf, sizeof(buf), format, args...);
  return std::string(buf, static_cast<std::size_t>(n < 0 ? 0 : std::min<int>(n, sizeof(buf) - 1)));
}

void AppendValue(std::string& out, lua_State* lua, int index, int level) {
  if (level++ == kMaxValueDepth) {
    out.append("<max recursion level reached! Nested table?>");
    return;
  }
  if (index < 0) index = lua_gettop(lua) + index + 1;
  const int type = lua_type(lua, index);
  switch (type) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, index, &len);
      AppendQuoted(out, std::string_view(s, len));
      return;
    }
    case LUA_TBOOLEAN:
      out.append(lua_toboolean(lua, index) ? "true" : "false");
      return;
    case LUA_TNUMBER:
      out.append(Printf("%g", static_cast<double>(lua_tonumber(lua, index))));
      return;
    case LUA_TNIL:
      out.append("nil");
      return;
    case LUA_TTABLE: {
      // Both forms are built at once; the walk tells which one the table is.
      int expected = 1;
      bool is_array = true;
      std::string as_array;
      std::string as_map;
      if (!lua_checkstack(lua, 2)) return;
      lua_pushnil(lua);
      while (lua_next(lua, index) != 0) {
        if (is_array && (lua_type(lua, -2) != LUA_TNUMBER || lua_tonumber(lua, -2) != expected)) {
          is_array = false;
        }
        AppendValue(as_array, lua, -1, level);
        as_array.append("; ");
        as_map.push_back('[');
        AppendValue(as_map, lua, -2, level);
        as_map.append("]=");
        AppendValue(as_map, lua, -1, level);
        as_map.append("; ");
        lua_pop(lua, 1);
        ++expected;
      }
      std::string& chosen = is_array ? as_array : as_map;
      if (!chosen.empty()) chosen.resize(chosen.size() - 2);
      out.push_back('{');
      out.append(chosen);
      out.push_back('}');
      return;
    }
    case LUA_TFUNCTION:
    case LUA_TUSERDATA:
    case LUA_TTHREAD:
    case LUA_TLIGHTUSERDATA: {
      const char* name = type == LUA_TFUNCTION   ? "function"
                         : type == LUA_TUSERDATA ? "userdata"
                         : type == LUA_TTHREAD   ? "thread"
                                                 : "light-userdata";
      out.append(Printf("\"%s@%p\"", name, lua_topointer(lua, index)));
      return;
    }
    default:
      out.append("\"<unknown-lua-type>\"");
  }
}

bool Is(const std::string& arg, std::string_view a, std::string_view b) {
  return ArgIs(arg, a) || ArgIs(arg, b);
}

}  // namespace

void AppendLuaValue(std::string& out, lua_State* lua, int index) {
  AppendValue(out, lua, index, 0);
}

LuaDebugger::LuaDebugger(ScriptEngine& engine, int fd, std::string_view body)
    : engine_(engine), fd_(fd), source_(ldb::SplitSource(body)), maxlen_(ldb::kDefaultMaxLen) {}

void LuaDebugger::Attach(lua_State* lua) {
  lua_pushlightuserdata(lua, this);
  lua_setfield(lua, LUA_REGISTRYINDEX, kRegistryKey);
  lua_sethook(lua, LineHook, LUA_MASKLINE | LUA_MASKCOUNT, 100000);
}

void LuaDebugger::Detach(lua_State* lua) {
  lua_pushnil(lua);
  lua_setfield(lua, LUA_REGISTRYINDEX, kRegistryKey);
}

LuaDebugger* LuaDebugger::Of(lua_State* lua) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kRegistryKey);
  auto* self = static_cast<LuaDebugger*>(lua_touserdata(lua, -1));
  lua_pop(lua, 1);
  return self;
}

void LuaDebugger::End() {
  Log("<endsession>");
  SendLogs();
}

void LuaDebugger::LogWithMaxLen(std::string entry) {
  const bool trimmed = ldb::TrimToMaxLen(entry, maxlen_);
  Log(std::move(entry));
  if (trimmed && !maxlen_hint_sent_) {
    maxlen_hint_sent_ = true;
    Log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
  }
}

void LuaDebugger::SendLogs() {
  std::string proto = "*" + std::to_string(logs_.size()) + "\r\n";
  for (std::string& entry : logs_) {
    for (char& c : entry) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    proto.push_back('+');
    proto.append(entry);
    proto.append("\r\n");
  }
  logs_.clear();
  SendBlocking(fd_, proto);
}

void LuaDebugger::LogRedisCommand(std::span<const std::string_view> args) {
  std::string entry = "<redis>";
  for (std::size_t j = 0; j < args.size(); ++j) {
    if (j == 10) {
      // Redis counts one fewer than it leaves out.
      entry.append(Printf(" ... (%d more)", static_cast<int>(args.size() - j - 1)));
      break;
    }
    entry.push_back(' ');
    entry.append(args[j]);
  }
  Log(std::move(entry));
}

void LuaDebugger::LogRedisReply(std::string_view resp) {
  std::vector<std::string_view> errors;
  ldb::CollectErrors(resp, errors);
  for (std::string_view error : errors) Log("<error> -" + std::string(error));
  std::string entry = "<reply> ";
  ldb::AppendReplyText(entry, resp);
  LogWithMaxLen(std::move(entry));
}

void LogScriptError(lua_State* lua, std::string_view text, std::string_view prefix) {
  LuaDebugger* ldb = LuaDebugger::Of(lua);
  if (ldb == nullptr || !ldb->logging()) return;
  std::string entry = "<error> ";
  entry.append(prefix);
  entry.append(text);
  ldb->Log(std::move(entry));
}

int LuaDebugger::Breakpoint(lua_State* lua) {
  LuaDebugger* self = Of(lua);
  if (self != nullptr) self->lua_breakpoint_ = true;
  lua_pushboolean(lua, self != nullptr ? 1 : 0);
  return 1;
}

int LuaDebugger::Debug(lua_State* lua) {
  LuaDebugger* self = Of(lua);
  if (self == nullptr) return 0;
  const int argc = lua_gettop(lua);
  std::string entry = Printf("<debug> line %d: ", self->current_line_);
  for (int j = 1; j <= argc; ++j) {
    AppendLuaValue(entry, lua, j);
    if (j != argc) entry.append(", ");
  }
  self->Log(std::move(entry));
  return 0;
}

void LuaDebugger::LineHook(lua_State* lua, lua_Debug* ar) {
  LuaDebugger* self = Of(lua);
  if (self == nullptr) return;
  const char* error = nullptr;
  switch (self->OnLine(lua, ar)) {
    case Outcome::kResume:
      return;
    case Outcome::kAbort:
      error = "script aborted for user request";
      break;
    case Outcome::kProtocolError:
      error = "protocol error";
      break;
    case Outcome::kBufferFull:
      error = "max client buffer reached";
      break;
    case Outcome::kTimeoutAndGone:
      error = "timeout during Lua debugging with client closing connection";
      break;
  }
  RaiseRedisError(lua, error);
}

LuaDebugger::Outcome LuaDebugger::OnLine(lua_State* lua, lua_Debug* ar) {
  const int event = ar->event;
  lua_getstack(lua, 0, ar);
  lua_getinfo(lua, "Sl", ar);
  current_line_ = ar->currentline;
  const bool breakpoint = IsBreakpoint(current_line_) || lua_breakpoint_;
  bool timeout = false;
  // Lines outside the script (the sandbox's own Lua) are not the user's.
  if (std::strstr(ar->short_src, "user_script") == nullptr) return Outcome::kResume;
  if (event == LUA_HOOKCOUNT && !step_ && !breakpoint) {
    const std::int64_t threshold = engine_.busy_threshold_ms();
    if (engine_.running_ms() < (threshold > 0 ? threshold : kDefaultTimeoutMs)) {
      return Outcome::kResume;
    }
    timeout = true;
    step_ = true;
  }
  if (!step_ && !breakpoint) return Outcome::kResume;
  const char* reason = "step over";
  if (breakpoint) {
    reason = lua_breakpoint_ ? "redis.breakpoint() called" : "break point";
  } else if (timeout) {
    reason = "timeout reached, infinite loop?";
  }
  step_ = false;
  lua_breakpoint_ = false;
  Log(Printf("* Stopped at %d, stop reason = %s", current_line_, reason));
  LogSourceLine(current_line_);
  SendLogs();
  bool client_gone = false;
  const Outcome outcome = Repl(lua, client_gone);
  if (outcome != Outcome::kResume) return outcome;
  // With nobody to answer, a script stopped for running too long would block for good.
  if (client_gone && timeout) return Outcome::kTimeoutAndGone;
  engine_.RestartRunClock();
  return Outcome::kResume;
}

LuaDebugger::Outcome LuaDebugger::Repl(lua_State* lua, bool& client_gone) {
  std::vector<std::string> args;
  while (true) {
    while (true) {
      const ldb::ReplParse parsed = ldb::ParseReplCommand(input_, args);
      if (parsed == ldb::ReplParse::kCommand) break;
      if (parsed == ldb::ReplParse::kError) return Outcome::kProtocolError;
      char buf[1024];
      ssize_t n = 0;
      do {
        n = recv(fd_, buf, sizeof(buf), 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) {
        // The script goes on without stopping: nobody is there to answer.
        step_ = false;
        breakpoint_count_ = 0;
        client_gone = true;
        return Outcome::kResume;
      }
      input_.append(buf, static_cast<std::size_t>(n));
      if (input_.size() > kMaxInputBytes) {
        input_.clear();
        return Outcome::kBufferFull;
      }
    }
    // Whatever followed the request is dropped, as Redis drops it.
    input_.clear();
    const std::string& name = args[0];
    const std::span<const std::string> all(args);
    if (Is(name, "h", "help")) {
      for (std::string_view line : ldb::HelpLines()) Log(std::string(line));
    } else if (Is(name, "s", "step") || Is(name, "n", "next")) {
      step_ = true;
      return Outcome::kResume;
    } else if (Is(name, "c", "continue")) {
      return Outcome::kResume;
    } else if (Is(name, "t", "trace")) {
      Trace(lua);
    } else if (Is(name, "m", "maxlen")) {
      MaxLen(all);
    } else if (Is(name, "b", "break")) {
      Break(all);
    } else if (Is(name, "e", "eval")) {
      Eval(lua, all);
    } else if (Is(name, "a", "abort")) {
      return Outcome::kAbort;
    } else if (args.size() > 1 && Is(name, "r", "redis")) {
      Redis(lua, all);
    } else if (Is(name, "p", "print")) {
      if (args.size() == 2) {
        Print(lua, args[1]);
      } else {
        PrintAll(lua);
      }
    } else if (Is(name, "l", "list")) {
      int around = current_line_;
      int context = 5;
      if (args.size() > 1) {
        const int number = ldb::Atoi(args[1]);
        if (number > 0) around = number;
      }
      if (args.size() > 2) context = ldb::Atoi(args[2]);
      List(around, context);
    } else if (Is(name, "w", "whole")) {
      List(1, 1000000);
    } else {
      Log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
    }
    SendLogs();
  }
}

bool LuaDebugger::IsBreakpoint(int line) const {
  for (int j = 0; j < breakpoint_count_; ++j) {
    if (breakpoints_[j] == line) return true;
  }
  return false;
}

void LuaDebugger::LogSourceLine(int line) {
  const int index = line - 1;
  const std::string_view source = index < 0 || index >= static_cast<int>(source_.size())
                                      ? "<out of range source code line>"
                                      : std::string_view(source_[static_cast<std::size_t>(index)]);
  Log(ldb::SourceLine(line, source, line == current_line_, IsBreakpoint(line)));
}

void LuaDebugger::List(int around, int context) {
  for (int j = 1; j <= static_cast<int>(source_.size()); ++j) {
    if (around != 0 && std::abs(around - j) > context) continue;
    LogSourceLine(j);
  }
}

void LuaDebugger::LogStackValue(lua_State* lua, std::string prefix) {
  AppendLuaValue(prefix, lua, -1);
  LogWithMaxLen(std::move(prefix));
}

void LuaDebugger::Print(lua_State* lua, const std::string& name) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(lua, level, &ar) != 0; ++level) {
    const char* local = nullptr;
    for (int i = 1; (local = lua_getlocal(lua, &ar, i)) != nullptr; ++i) {
      const bool match = name == local;
      if (match) LogStackValue(lua, "<value> ");
      lua_pop(lua, 1);
      if (match) return;
    }
  }
  // The two globals a script is given.
  if (name == "ARGV" || name == "KEYS") {
    lua_getglobal(lua, name.c_str());
    LogStackValue(lua, "<value> ");
    lua_pop(lua, 1);
  } else {
    Log("No such variable.");
  }
}

void LuaDebugger::PrintAll(lua_State* lua) {
  lua_Debug ar;
  int vars = 0;
  if (lua_getstack(lua, 0, &ar) != 0) {
    const char* local = nullptr;
    for (int i = 1; (local = lua_getlocal(lua, &ar, i)) != nullptr; ++i) {
      if (std::strstr(local, "(*temporary)") == nullptr) {
        LogStackValue(lua, "<value> " + std::string(local) + " = ");
        ++vars;
      }
      lua_pop(lua, 1);
    }
  }
  if (vars == 0) Log("No local variables in the current context.");
}

void LuaDebugger::Break(std::span<const std::string> args) {
  if (args.size() == 1) {
    if (breakpoint_count_ == 0) {
      Log("No breakpoints set. Use 'b <line>' to add one.");
      return;
    }
    Log(std::to_string(breakpoint_count_) + " breakpoints set:");
    for (int j = 0; j < breakpoint_count_; ++j) LogSourceLine(breakpoints_[j]);
    return;
  }
  for (const std::string& arg : args.subspan(1)) {
    std::int64_t line = 0;
    if (!protocol::ParseStrictInt64(arg, line) || line < INT32_MIN || line > INT32_MAX) {
      Log("Invalid argument:'" + arg + "'");
    } else if (line == 0) {
      breakpoint_count_ = 0;
      Log("All breakpoints removed.");
    } else if (line > 0) {
      if (breakpoint_count_ == static_cast<int>(kMaxBreakpoints)) {
        Log("Too many breakpoints set.");
      } else if (line <= static_cast<std::int64_t>(source_.size()) &&
                 !IsBreakpoint(static_cast<int>(line))) {
        breakpoints_[breakpoint_count_++] = static_cast<int>(line);
        List(static_cast<int>(line), 1);
      } else {
        Log("Wrong line number.");
      }
    } else {
      Log(DeleteBreakpoint(static_cast<int>(-line)) ? "Breakpoint removed."
                                                    : "No breakpoint in the specified line.");
    }
  }
}

bool LuaDebugger::DeleteBreakpoint(int line) {
  for (int j = 0; j < breakpoint_count_; ++j) {
    if (breakpoints_[j] != line) continue;
    --breakpoint_count_;
    // Redis's ldbDelBreakpoint moves this many bytes, not ints: deleting any but the last
    // breakpoint leaves the ones after it mangled, and so does this.
    std::memmove(breakpoints_ + j, breakpoints_ + j + 1,
                 static_cast<std::size_t>(breakpoint_count_ - j));
    return true;
  }
  return false;
}

void LuaDebugger::Eval(lua_State* lua, std::span<const std::string> args) {
  std::string code;
  for (std::size_t j = 1; j < args.size(); ++j) {
    if (j > 1) code.push_back(' ');
    code.append(args[j]);
  }
  const std::string expression = "return " + code;
  // An expression first, then a statement.
  if (luaL_loadbuffer(lua, expression.data(), expression.size(), "@ldb_eval") != 0) {
    lua_pop(lua, 1);
    if (luaL_loadbuffer(lua, code.data(), code.size(), "@ldb_eval") != 0) {
      Log("<error> " + std::string(lua_tostring(lua, -1)));
      lua_pop(lua, 1);
      return;
    }
  }
  // The fragment sees what a script sees.
  lua_getglobal(lua, "_G");
  lua_setfenv(lua, -2);
  if (lua_pcall(lua, 0, 1, 0) != 0) {
    std::string entry = "<error> ";
    if (lua_istable(lua, -1)) {
      // Redis would crash formatting a Redis error table; its text is shown instead.
      lua_getfield(lua, -1, "err");
      const char* err = lua_tostring(lua, -1);
      entry.append(err != nullptr ? err : "(error object is a table value)");
      lua_pop(lua, 1);
    } else {
      const char* err = lua_tostring(lua, -1);
      entry.append(err != nullptr ? err : "(null)");
    }
    Log(std::move(entry));
    lua_pop(lua, 1);
    return;
  }
  LogStackValue(lua, "<retval> ");
  lua_pop(lua, 1);
}

void LuaDebugger::Redis(lua_State* lua, std::span<const std::string> args) {
  const int argc = static_cast<int>(args.size());
  if (!lua_checkstack(lua, argc + 1)) {
    // Redis logs this text through its reply formatter, which shows nothing of it.
    LogWithMaxLen("<reply> ");
    return;
  }
  lua_getglobal(lua, "redis");
  lua_getfield(lua, -1, "call");
  for (int j = 1; j < argc; ++j) {
    lua_pushlstring(lua, args[static_cast<std::size_t>(j)].data(),
                    args[static_cast<std::size_t>(j)].size());
  }
  // Stepping, for the call to log itself and its reply.
  step_ = true;
  lua_pcall(lua, argc - 1, 1, 0);
  step_ = false;
  lua_pop(lua, 2);
}

void LuaDebugger::Trace(lua_State* lua) {
  lua_Debug ar;
  int level = 0;
  while (lua_getstack(lua, level, &ar) != 0) {
    lua_getinfo(lua, "Snl", &ar);
    if (std::strstr(ar.short_src, "user_script") != nullptr) {
      Log(std::string(level == 0 ? "In " : "From ") + (ar.name != nullptr ? ar.name : "top level") +
          ":");
      LogSourceLine(ar.currentline);
    }
    ++level;
  }
  if (level == 0) Log("<error> Can't retrieve Lua stack.");
}

void LuaDebugger::MaxLen(std::span<const std::string> args) {
  if (args.size() == 2) {
    maxlen_hint_sent_ = true;  // the user knows about the command
    maxlen_ = ldb::ParseMaxLen(args[1]);
  }
  if (maxlen_ != 0) {
    Log(Printf("<value> replies are truncated at %d bytes.", static_cast<int>(maxlen_)));
  } else {
    Log("<value> replies are unlimited.");
  }
}

}  // namespace warden::server
