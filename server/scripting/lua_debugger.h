// The Lua debugger (Redis 7.0's LDB, eval.c): SCRIPT DEBUG YES|SYNC|NO, and the session that an
// EVAL of a client with debugging on runs in, as `redis-cli --ldb` and `--ldb-sync-mode` drive it.
//
// A session takes the client's socket and speaks on it directly with blocking reads and writes
// from inside a Lua line hook, so the server never re-enters its loop while a script is stopped:
// - YES forks. The parent forgets the client without a reply (the child holds the socket now)
//   and goes on serving everyone; the child runs the session and the script, writes the reply
//   and exits, so whatever the script wrote dies with it. The parent reaps such children from its
//   cron and kills them on shutdown (ldbKillForkedSessions).
// - SYNC runs the session on the server's one thread: every other client waits until it ends,
//   and the script's writes stay. The client is closed after the reply.
// Either way the debugger answers each request with an array of status lines (its log), and ends
// with "<endsession>" before the script's own reply.
//
// Ownership: a LuaDebugger lives on the stack of the EVAL that runs the session; while the
// script runs, the Lua registry points at it. Lua raises with longjmp, so the hooks do their C++
// work in functions that return before anything is raised.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct lua_State;
struct lua_Debug;

namespace warden::server {

class ScriptEngine;
class Logger;
struct CommandContext;

class LuaDebugger {
 public:
  // `fd` is the client's socket, already blocking; `body` the script as EVAL sent it.
  LuaDebugger(ScriptEngine& engine, int fd, std::string_view body);
  LuaDebugger(const LuaDebugger&) = delete;
  LuaDebugger& operator=(const LuaDebugger&) = delete;

  // Makes this the debugger of `lua`'s script and sets the line hook (every line, and every
  // 100000 instructions to notice a runaway script); Detach forgets it.
  void Attach(lua_State* lua);
  static void Detach(lua_State* lua);
  // Logs "<endsession>" and sends the log.
  void End();

  // The debugger attached to `lua`, or null outside a session.
  static LuaDebugger* Of(lua_State* lua);
  // While stepping, redis.call and script errors are logged (Redis's ldbIsEnabled).
  bool logging() const { return step_; }
  void LogRedisCommand(std::span<const std::string_view> args);
  // A command's reply (RESP, as its writer left it): its errors, then "<reply> ..." trimmed.
  void LogRedisReply(std::string_view resp);
  void Log(std::string entry) { logs_.push_back(std::move(entry)); }

  // redis.breakpoint() and redis.debug(), which outside a session return false and do nothing.
  static int Breakpoint(lua_State* lua);
  static int Debug(lua_State* lua);

 private:
  // What a stop ends with. Anything but kResume raises a script error once the hook's C++ frames
  // are gone.
  enum class Outcome { kResume, kAbort, kProtocolError, kBufferFull, kTimeoutAndGone };
  static void LineHook(lua_State* lua, lua_Debug* ar);
  Outcome OnLine(lua_State* lua, lua_Debug* ar);
  // Reads and runs the client's requests until one resumes the script (ldbRepl).
  Outcome Repl(lua_State* lua, bool& client_gone);
  void LogWithMaxLen(std::string entry);
  void LogSourceLine(int line);
  void SendLogs();
  bool IsBreakpoint(int line) const;
  bool DeleteBreakpoint(int line);
  void List(int around, int context);
  void LogStackValue(lua_State* lua, std::string prefix);
  void Print(lua_State* lua, const std::string& name);
  void PrintAll(lua_State* lua);
  void Break(std::span<const std::string> args);
  void Eval(lua_State* lua, std::span<const std::string> args);
  void Redis(lua_State* lua, std::span<const std::string> args);
  void Trace(lua_State* lua);
  void MaxLen(std::span<const std::string> args);

  ScriptEngine& engine_;
  int fd_;
  std::vector<std::string> logs_;
  // A plain array, as Redis keeps it: DeleteBreakpoint copies its quirk.
  int breakpoints_[64] = {};
  int breakpoint_count_ = 0;
  bool step_ = true;             // stop at the next line
  bool lua_breakpoint_ = false;  // redis.breakpoint() was called: stop at the next line
  std::vector<std::string> source_;
  int current_line_ = -1;
  std::string input_;
  std::size_t maxlen_;
  bool maxlen_hint_sent_ = false;
};

// Appends the Lua value at `index` as the debugger shows it (ldbCatStackValue): strings quoted,
// numbers with %g, tables as {a; b} when they are arrays and {[k]=v; ...} otherwise, ten levels
// deep at most, and functions, userdata and threads by address.
void AppendLuaValue(std::string& out, lua_State* lua, int index);

// Logs "<error> <text>" for an error a script is handed while a debugger steps (Redis logs in
// luaPushErrorBuff). Does nothing outside a session.
// `prefix` goes before the text.
void LogScriptError(lua_State* lua, std::string_view text, std::string_view prefix = {});

// Writes `data` to the session's blocking socket, giving up at the first error.
void SendBlocking(int fd, std::string_view data);

// SCRIPT DEBUG, in SCRIPT's table.
void ScriptDebugCommand(CommandContext& ctx);
// Runs `eval` (EVAL or EVAL_RO for this request) in a debugging session, forked or not as the
// client asked with SCRIPT DEBUG.
void EvalDebugged(CommandContext& ctx, void (*eval)(CommandContext&));

// The forked sessions still running (Redis's ldb.children).
class DebugChildren {
 public:
  void Add(pid_t pid) { pids_.push_back(pid); }
  // Collects the children that have exited (from the cron).
  void Reap();
  // SIGKILLs every session (shutdown).
  void KillAll(Logger* log);
  std::size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace warden::server
