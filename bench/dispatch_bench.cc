// The whole command path without sockets: lookup, arity, handler, reply; and EVALSHA into Lua.
#include <benchmark/benchmark.h>

#include <span>
#include <string>

#include "protocol/reply_writer.h"
#include "server/config/config.h"
#include "server/debug/debug_controls.h"
#include "server/dispatcher.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "storage/clock.h"

namespace {

using namespace warden;

struct Bench {
  Bench() : state(Config(), clock) { out.reserve(4096); }
  static server::Config Config() {
    server::Config config;
    config.seed = 1;
    return config;
  }
  void Run(std::initializer_list<std::string_view> args) {
    out.clear();
    protocol::ReplyWriter writer(&out, 2);
    server::Dispatch(state, session, std::span<const std::string_view>(args.begin(), args.size()),
                     writer);
  }
  storage::ManualClock clock;
  server::ServerState state;
  server::Session session;
  std::string out;
};

void BM_DispatchLockCycle(benchmark::State& state) {
  Bench b;
  for (auto _ : state) {
    b.Run({"SET", "lock:order:1001", "0123456789abcdef0123456789abcdef0123", "NX", "PX", "30000"});
    b.Run({"GET", "lock:order:1001"});
    b.Run({"DEL", "lock:order:1001"});
  }
  state.SetItemsProcessed(state.iterations() * 3);
}
BENCHMARK(BM_DispatchLockCycle);

// The same with DEBUG COMMAND-LOG on and full: each command is copied into a reused slot.
void BM_DispatchLockCycleCommandLog(benchmark::State& state) {
  Bench b;
  b.state.debug->command_log.Start(1026);
  for (auto _ : state) {
    b.Run({"SET", "lock:order:1001", "0123456789abcdef0123456789abcdef0123", "NX", "PX", "30000"});
    b.Run({"GET", "lock:order:1001"});
    b.Run({"DEL", "lock:order:1001"});
  }
  state.SetItemsProcessed(state.iterations() * 3);
}
BENCHMARK(BM_DispatchLockCycleCommandLog);

// The lock cycle as the default user (range 0) and as an ACL user limited to ~lock:* with 20
// other users defined (range 1): what the per-request ACL check costs.
void LoginAs(Bench& b, bool limited) {
  for (int i = 0; i < 20; ++i) {
    const std::string name = "team" + std::to_string(i);
    const std::string keys = "~" + name + ":*";
    b.Run({"ACL", "SETUSER", name, "on", ">pw", keys, "+@all", "-@dangerous"});
  }
  b.Run({"ACL", "SETUSER", "locks", "on", ">pw", "~lock:*", "&lock.*", "+@all", "-@dangerous"});
  b.session.user = &b.state.acl.default_user();
  if (limited) b.Run({"AUTH", "locks", "pw"});
}

void BM_DispatchLockCycleAcl(benchmark::State& state) {
  Bench b;
  LoginAs(b, state.range(0) != 0);
  for (auto _ : state) {
    b.Run({"SET", "lock:order:1001", "0123456789abcdef0123456789abcdef0123", "NX", "PX", "30000"});
    b.Run({"GET", "lock:order:1001"});
    b.Run({"DEL", "lock:order:1001"});
  }
  if (b.out != ":1\r\n") state.SkipWithError("the cycle was refused");
  state.SetItemsProcessed(state.iterations() * 3);
}
BENCHMARK(BM_DispatchLockCycleAcl)->Arg(0)->Arg(1);

constexpr std::string_view kCompareAndDelete =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else "
    "return 0 end";

// SET NX PX then the compare-and-delete release by EVALSHA; state.range(0) 0 runs the release in
// the Lua interpreter (lua-native-scripts no), 1 as its native form.
void BM_DispatchEvalshaCompareAndDelete(benchmark::State& state) {
  Bench b;
  b.state.config.lua_native_scripts = state.range(0) != 0;
  b.Run({"SCRIPT", "LOAD", kCompareAndDelete});
  const std::string sha = b.out.substr(5, 40);
  for (auto _ : state) {
    b.Run({"SET", "lock:order:1001", "token", "NX", "PX", "30000"});
    b.Run({"EVALSHA", sha, "1", "lock:order:1001", "token"});
  }
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_DispatchEvalshaCompareAndDelete)->Arg(0)->Arg(1);

// The release script in Lua as the default user (range 0) and as the limited user (range 1):
// EVALSHA's key and each redis.call inside are checked.
void BM_DispatchEvalshaAcl(benchmark::State& state) {
  Bench b;
  b.state.config.lua_native_scripts = false;
  b.Run({"SCRIPT", "LOAD", kCompareAndDelete});
  const std::string sha = b.out.substr(5, 40);
  LoginAs(b, state.range(0) != 0);
  for (auto _ : state) {
    b.Run({"SET", "lock:order:1001", "token", "NX", "PX", "30000"});
    b.Run({"EVALSHA", sha, "1", "lock:order:1001", "token"});
  }
  if (b.out != ":1\r\n") state.SkipWithError("the release was refused");
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_DispatchEvalshaAcl)->Arg(0)->Arg(1);

// EVALSHA of `script` with one key and one argument, the shape of the lock scripts.
void RunEvalsha(benchmark::State& state, const char* script) {
  Bench b;
  b.Run({"SCRIPT", "LOAD", script});
  const std::string sha = b.out.substr(5, 40);
  for (auto _ : state) b.Run({"EVALSHA", sha, "1", "lock:order:1001", "token"});
  state.SetItemsProcessed(state.iterations());
}

// The fixed cost of a script call: lookup by SHA-1, KEYS and ARGV, the Lua call, the reply.
void BM_DispatchEvalshaReturnOnly(benchmark::State& state) { RunEvalsha(state, "return 0"); }
BENCHMARK(BM_DispatchEvalshaReturnOnly);

// One redis.call from a script, on top of the fixed cost.
void BM_DispatchEvalshaOneCall(benchmark::State& state) {
  RunEvalsha(state, "return redis.call('get', KEYS[1])");
}
BENCHMARK(BM_DispatchEvalshaOneCall);

}  // namespace
