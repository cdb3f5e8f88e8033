// The scripting engine: one embedded Lua 5.1 state (the interpreter Redis embeds), sandboxed as
// Redis sandboxes it, with a cache of compiled scripts named by the SHA-1 of their text.
//
// A script runs atomically on the server's one thread. Its redis.call goes through the same
// command table and checks as a socket client (RunScriptCommand in dispatcher.h), with time frozen
// at the script's start for expiry decisions. A count hook watches the clock: past
// busy-reply-threshold the engine polls other clients between Lua instructions, so they get BUSY
// and can send SCRIPT KILL. Lua's memory is capped by its allocator, so a script that builds a
// huge value fails with an error instead of exhausting the machine.
//
// Lifetime: owned by ServerState; the Lua state lives until SCRIPT FLUSH or destruction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/reply_reader.h"
#include "protocol/reply_writer.h"
#include "server/scripting/lua_debugger.h"
#include "server/scripting/native_scripts.h"
#include "server/session.h"
#include "storage/entry_pool.h"

struct lua_State;
struct lua_Debug;

namespace warden::server {

class ServerState;
class NativeRunner;

struct Script {
  std::string body;
  int function_ref = 0;  // the compiled chunk, in the Lua registry
  bool has_shebang = false;
  bool no_writes = false;                // shebang flags=no-writes
  bool allow_oom = false;                // shebang flags=allow-oom
  const NativeScript* native = nullptr;  // a known lock script's native form (native_scripts.h)
};

// A function's flags (Redis's scripts_flags_def), in the order FUNCTION LIST names them.
enum FunctionFlag : std::uint8_t {
  kFunctionNoWrites = 1,
  kFunctionAllowOom = 2,
  kFunctionAllowStale = 4,
  kFunctionNoCluster = 8,
  kFunctionAllowCrossSlotKeys = 16,
};
inline constexpr std::string_view kFunctionFlagNames[] = {"no-writes", "allow-oom", "allow-stale",
                                                          "no-cluster", "allow-cross-slot-keys"};

struct LuaFunction {
  std::string name;
  std::optional<std::string> description;
  std::uint8_t flags = 0;  // FunctionFlag bits
  int function_ref = 0;    // the callback, in the Lua registry
};

// A library of functions, as FUNCTION LOAD made it.
struct FunctionLibrary {
  std::string name;
  std::string code;  // the payload as sent, #! line included (what FUNCTION LIST WITHCODE shows)
  std::vector<LuaFunction> functions;  // in the order the code registered them
};

// What EVAL and FCALL, SCRIPT KILL and FUNCTION KILL share (script_commands.cc), each having
// answered when it refuses: numkeys (`not_integer` for a number that does not parse), the
// append-only file's write error for a script that may write, and the KILLs.
struct CommandContext;
[[nodiscard]] bool ParseNumkeys(CommandContext& ctx, std::string_view not_integer,
                                std::int64_t& numkeys);
[[nodiscard]] bool ScriptRefusedByDiskError(CommandContext& ctx);
void KillScript(CommandContext& ctx, bool eval);

class ScriptEngine {
 public:
  explicit ScriptEngine(ServerState& server);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles and caches `body` unless cached. Writes the SHA-1 to `sha`. On a compile or shebang
  // error writes it to `reply` and returns nullptr.
  const Script* Load(std::string_view body, char (&sha)[41], protocol::ReplyWriter& reply);
  // The cached script with this SHA-1 (any case), or nullptr.
  const Script* Find(std::string_view sha) const;

  // Runs a cached script for `caller` and writes its reply. `read_only` for EVAL_RO/EVALSHA_RO.
  void Run(const Script& script, std::string_view sha, Session& caller,
           std::span<const std::string_view> keys, std::span<const std::string_view> args,
           bool read_only, protocol::ReplyWriter& reply);

  // SCRIPT FLUSH: forgets every script and starts a fresh Lua state (or, while function
  // libraries are loaded, keeps the state and drops the scripts).
  void Flush();

  enum class KillResult { kNotBusy, kUnkillable, kOtherKind, kKilled };
  // SCRIPT KILL (`eval`) or FUNCTION KILL: each stops only its own kind (kOtherKind).
  KillResult Kill(bool eval);

  // Functions (function_engine.cc). They share the Lua state with EVAL's scripts but not its
  // globals, and SCRIPT FLUSH leaves them and their state alone.

  // FUNCTION LOAD: checks the #! line, compiles the code and runs it to register its functions
  // (for at most 500 ms unless `timeout` is false, as when loading the append-only file).
  // Returns the library's name, or nullopt having written Redis's error text (without "ERR ")
  // to `error`.
  std::optional<std::string> LoadLibrary(std::string_view payload, bool replace, bool timeout,
                                         std::string& error);
  // FUNCTION DELETE; false when there is no such library.
  bool DeleteLibrary(std::string_view name);
  // FUNCTION FLUSH.
  void FlushFunctions();
  const LuaFunction* FindFunction(std::string_view name) const;
  // By name (Redis answers in its dict's order; clients do not rely on one).
  const std::map<std::string, FunctionLibrary, std::less<>>& libraries() const {
    return libraries_;
  }
  std::size_t function_count() const { return function_index_.size(); }
  // INFO's used_memory_functions: the libraries' code and bookkeeping.
  std::size_t functions_bytes() const;
  // Runs a function for `caller`, FCALL's whole `command` kept for FUNCTION STATS.
  void CallFunction(const LuaFunction& function, Session& caller,
                    std::span<const std::string_view> command,
                    std::span<const std::string_view> keys, std::span<const std::string_view> args,
                    bool read_only, protocol::ReplyWriter& reply);
  // Whether the running script is a function, its name, its FCALL and how long it has run.
  bool running_function() const { return running_ != nullptr && running_->function; }
  std::string_view running_name() const { return running_->name; }
  std::span<const std::string_view> running_command() const { return running_->command; }
  std::int64_t running_ms() const;
  // BUSY's text, naming the KILL that stops what runs.
  std::string_view busy_error() const;

  bool running() const { return running_ != nullptr; }
  // The client whose script is running (null when none), named in the command log.
  const Session* caller() const { return caller_; }
  // Past busy-reply-threshold: other clients are answered BUSY.
  bool busy() const { return busy_; }
  std::size_t cached_scripts() const { return scripts_.size(); }
  // Script runs that took a native form (tests check that they do).
  std::uint64_t native_runs() const { return native_runs_; }

  // The flags (FunctionFlag bits) an EVAL (`by_sha` false: `script` is the body) or EVALSHA, or
  // their _RO forms, declares on its #! line, as Redis's evalGetCommandFlags reads them;
  // nullopt for a script without one, an unknown SHA-1 or a line Redis cannot parse, which keep
  // the command's own flags.
  std::optional<std::uint8_t> DeclaredFlags(bool by_sha, std::string_view script) const;

  // A KEYS or ARGV table kept in the registry between runs, and how many slots the last run
  // filled (Run refills it rather than building a new one per call).
  struct ArgTable {
    int ref = -2;  // LUA_NOREF: none yet
    std::size_t size = 0;
  };
  std::size_t memory_bytes() const { return lua_memory_; }
  // The cached scripts' bodies and their cache entries (INFO's used_memory_scripts_eval).
  std::size_t scripts_bytes() const {
    std::size_t n = 0;
    for (const auto& [sha, script] : scripts_)
      n += sha.size() + script.body.size() + sizeof(Script);
    return n;
  }
  // The Lua debugger (lua_debugger.h): the session the next Run happens in (null: none), set by
  // EvalDebugged around the EVAL; such a run takes no native form.
  void set_debugger(LuaDebugger* debugger) { debugger_ = debugger; }
  // The forked sessions, reaped by the cron and killed on shutdown.
  DebugChildren& debug_children() { return debug_children_; }
  // busy-reply-threshold, which also bounds how long a debugged script runs unstopped.
  std::int64_t busy_threshold_ms() const;
  // After a debugging stop the script's clock starts again, and its frozen time moves to now
  // (Redis resets start_time and snapshot_time).
  void RestartRunClock();
  // Called between Lua instructions while busy, to serve other clients.
  void set_poll_clients(std::function<void()> poll) { poll_clients_ = std::move(poll); }
  // Asked between Lua instructions: true stops the running script even if it wrote (shutdown).
  void set_interrupt_check(std::function<bool()> check) { interrupt_check_ = std::move(check); }
  // Seeds math.random's generator (Redis's lrand48-style one).
  void SeedRandom(std::int32_t seed);
  // For tests of running out of script memory at every point: while a script runs or a library
  // loads, the next `after` Lua allocations succeed and the one after fails, and with `sticky`
  // every later one too, as past script-memory-limit. A negative `after` turns this off.
  void FailLuaAllocations(std::int64_t after, bool sticky) {
    fail_after_ = after;
    fail_sticky_ = sticky;
  }
  // How many allocations FailLuaAllocations has failed so far.
  std::uint64_t injected_allocation_failures() const { return injected_failures_; }

 private:
  friend class NativeRunner;
  // Redis installs its timeout hook every 100000 VM instructions.
  static constexpr int kHookInstructions = 100000;
  struct RunState {
    std::string_view name;  // the script's SHA-1, or the function's name
    bool function = false;
    std::span<const std::string_view> command;  // a function's FCALL
    std::int64_t start_us = 0;
    bool read_only = false;
    bool wrote = false;
    bool killed = false;
    // Started past maxmemory without allow-oom: the first write that may grow memory fails.
    bool deny_oom = false;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  void CreateState();
  void DestroyState();
  // The functions' environment, made in the state once.
  void InstallFunctions();
  // Compiles and runs a library's code into `library`; false having written the error.
  bool RunLibraryCode(std::string_view code, FunctionLibrary& library, bool timeout,
                      std::string& error);
  void ReleaseFunctions(FunctionLibrary& library);
  void IndexFunctions();
  // Calls the compiled chunk or callback `function_ref`: a script with KEYS and ARGV set, or a
  // function with them as its two arguments; writes the reply and ends the run.
  void Invoke(int function_ref, bool as_function, std::span<const std::string_view> keys,
              std::span<const std::string_view> args, std::int64_t outer_now_ms,
              protocol::ReplyWriter& reply);
  // What every run, in Lua or native, sets up and puts back: the running state, the caller, the
  // script's database and protocol, and the frozen time. EndRun takes what BeginRun returned.
  std::int64_t BeginRun(RunState& run, std::string_view name, Session& caller, bool read_only);
  void EndRun(std::int64_t outer_now_ms);
  // Runs a known script's native form (native_run.cc); false, having done nothing, when this
  // call is one the native form does not cover.
  bool RunNative(const NativeScript& native, std::string_view sha, Session& caller,
                 std::span<const std::string_view> keys, std::span<const std::string_view> args,
                 bool read_only, protocol::ReplyWriter& reply);
  static void* Allocate(void* ud, void* ptr, std::size_t old_size, std::size_t new_size);
  static void Hook(lua_State* lua, lua_Debug* ar);

  // The redis.* API, registered as C closures with the engine as upvalue.
  static int RedisCall(lua_State* lua);
  static int RedisPcall(lua_State* lua);
  int CallCommand(lua_State* lua, bool raise);
  // Logs a redis.call's reply, or its refusal, to the stepping debugger.
  void LogCallForDebugger(bool admitted);
  static int RedisSetResp(lua_State* lua);
  static int RedisAclCheckCmd(lua_State* lua);
  static int RedisLog(lua_State* lua);
  static int RedisRegisterFunction(lua_State* lua);
  static int MathRandom(lua_State* lua);
  static int MathRandomSeed(lua_State* lua);
  static int UncappedCall(lua_State* lua);
  // Runs a script or function inside the protected call (script_engine.cc).
  static int Trampoline(lua_State* lua);
  static ScriptEngine& Self(lua_State* lua);
  std::int32_t NextRandom();

  ServerState& server_;
  lua_State* lua_ = nullptr;
  // ErrorHandler and Trampoline in the registry (luaL_ref references, set by CreateState).
  int error_handler_ref_ = 0;
  int trampoline_ref_ = 0;
  ArgTable key_table_;
  ArgTable arg_table_;
  std::unordered_map<std::string, Script, StringHash, std::equal_to<>> scripts_;
  // Declared before the Lua state's users: the state is closed (DestroyState) before it goes.
  storage::EntryPool lua_pool_;
  std::size_t lua_memory_ = 0;
  std::size_t lua_memory_limit_;
  std::int64_t fail_after_ = -1;  // FailLuaAllocations
  bool fail_sticky_ = false;
  std::uint64_t injected_failures_ = 0;
  int uncapped_calls_ = 0;  // UncappedCall's depth: the memory cap waits until it returns
  bool refuse_next_allocation_ = false;  // UncappedCall's way to run out of memory
  std::uint64_t random_state_;

  // The running script, if any.
  RunState* running_ = nullptr;
  const Session* caller_ = nullptr;
  bool busy_ = false;
  std::uint64_t native_runs_ = 0;
  LuaDebugger* debugger_ = nullptr;
  DebugChildren debug_children_;
  std::function<void()> poll_clients_;
  std::function<bool()> interrupt_check_;

  // Reused between redis.call invocations so the command path allocates nothing once warm.
  std::string call_reply_;
  protocol::Reply call_parsed_;
  std::vector<std::string> call_arg_storage_;
  std::vector<std::string_view> call_args_;
  Session script_session_;

  std::map<std::string, FunctionLibrary, std::less<>> libraries_;
  // Function names are case-insensitive across libraries (Redis's functionDictType).
  struct NoCaseHash {
    std::size_t operator()(std::string_view s) const;
  };
  struct NoCaseEqual {
    bool operator()(std::string_view a, std::string_view b) const;
  };
  std::unordered_map<std::string_view, const LuaFunction*, NoCaseHash, NoCaseEqual> function_index_;
  // The library FUNCTION LOAD is running, which redis.register_function adds to.
  FunctionLibrary* loading_library_ = nullptr;
  std::int64_t load_start_us_ = 0;
  bool load_timeout_ = false;
  bool functions_installed_ = false;
};

}  // namespace warden::server
