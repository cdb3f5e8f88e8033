// A Lua error is a longjmp: it skips the destructors of every C++ object alive in the C
// functions it leaves. These tests make each C function warden gives Lua (redis.*, the functions'
// register_function, cmsgpack, struct, the error handler, loadstring) fail, with long arguments
// and in a loop, and check that used_memory comes back to where it started. Then they run each
// case again with the Lua allocator failing at every allocation in turn, as past
// script-memory-limit, which reaches the raises that only running out of memory takes. Under the
// ASan build LeakSanitizer checks the same at exit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "server/scripting/script_engine.h"
#include "server/stats/memory_meter.h"
#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

// Long enough that a leaked copy per run stands far above the noise of Lua's own tables.
const std::string kLong(8192, 'x');

struct Case {
  const char* name;
  std::vector<std::string> command;
};

std::vector<std::string> Eval(const std::string& script) {
  return {"EVAL", script, "1", kLong, kLong};
}

std::vector<std::string> LoadLibrary(const std::string& body) {
  return {"FUNCTION", "LOAD", "#!lua name=leaky\n" + body};
}

std::vector<Case> Cases() {
  const std::string quoted = "'" + kLong + "'";
  return {
      // redis.register_function, each way it refuses its arguments, with long ones given.
      {"register_not_a_function", LoadLibrary("redis.register_function(" + quoted + ", 42)")},
      {"register_bad_name",
       LoadLibrary("redis.register_function(" + quoted + " .. '-', function() end)")},
      {"register_unknown_flag",
       LoadLibrary("redis.register_function{function_name=" + quoted + ", description=" + quoted +
                   ", callback=function() end, flags={'no-writes', " + quoted + "}}")},
      {"register_unknown_argument",
       LoadLibrary("redis.register_function{function_name=" + quoted + ", description=" + quoted +
                   ", callback=function() end, [" + quoted + "]=1}")},
      {"register_no_callback", LoadLibrary("redis.register_function{function_name=" + quoted +
                                           ", description=" + quoted + "}")},
      {"register_twice",
       LoadLibrary("redis.register_function(" + quoted +
                   ", function() end)\nredis.register_function(" + quoted + ", function() end)")},
      {"register_then_error",
       LoadLibrary("redis.register_function{function_name=" + quoted + ", description=" + quoted +
                   ", callback=function() end}\nerror(" + quoted + ")")},
      // redis.call and redis.pcall: a command's error, an unknown command, a bad argument.
      {"call_arity", Eval("return redis.call('set', ARGV[1])")},
      {"call_unknown", Eval("return redis.call(ARGV[1], ARGV[1])")},
      {"call_bad_argument", Eval("return redis.call('get', {})")},
      {"pcall_error", Eval("return redis.pcall('incr', KEYS[1], ARGV[1])")},
      {"call_wrongtype", Eval("redis.call('set', KEYS[1], ARGV[1]) "
                              "return redis.call('lpush', KEYS[1], ARGV[1])")},
      {"call_reply", Eval("redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])")},
      // The other redis.* functions.
      {"setresp", Eval("return redis.setresp(ARGV[1])")},
      {"set_repl", Eval("return redis.set_repl(ARGV[1])")},
      {"error_reply", Eval("return redis.error_reply(ARGV[1] .. ' ' .. ARGV[1])")},
      {"error_reply_coded", Eval("return redis.error_reply('-' .. ARGV[1] .. ' x')")},
      {"status_reply", Eval("return redis.status_reply(ARGV[1])")},
      {"sha1hex", Eval("return redis.sha1hex(ARGV[1])")},
      {"log", Eval("redis.log(redis.LOG_DEBUG, ARGV[1], 1.5, ARGV[1]) return 1")},
      {"acl_check_cmd", Eval("return redis.acl_check_cmd(ARGV[1])")},
      // The error handler: a string, a number and a table raised.
      {"error_string", Eval("error(ARGV[1])")},
      {"error_number", Eval("error(1.5)")},
      {"error_table", Eval("error({err = ARGV[1]})")},
      // cmsgpack and struct, succeeding and failing.
      {"cmsgpack_pack", Eval("return cmsgpack.pack(ARGV[1], {ARGV[1], {k = ARGV[1]}}, 1.5)")},
      {"cmsgpack_unpack_bad", Eval("return cmsgpack.unpack(string.char(0xc1) .. ARGV[1])")},
      {"cmsgpack_unpack_short", Eval("return cmsgpack.unpack(string.char(0xdb, 0, 1, 0, 0))")},
      {"cmsgpack_round_trip", Eval("return cmsgpack.unpack(cmsgpack.pack({ARGV[1], ARGV[1]}))")},
      {"struct_pack", Eval("return struct.pack('>i4s', 7, ARGV[1])")},
      {"struct_pack_bad", Eval("return struct.pack('i4c0', ARGV[1], {})")},
      {"struct_unpack_short", Eval("return struct.unpack('c9000', ARGV[1])")},
      {"struct_size_bad", Eval("return struct.size(ARGV[1])")},
      // The sandbox's loaders, on text and on what looks like bytecode.
      {"loadstring_bytecode", Eval("return loadstring(string.char(27) .. ARGV[1])")},
      {"loadstring_syntax", Eval("return loadstring(ARGV[1] .. ' +')")},
      {"load_bytecode", Eval("local done = false return load(function() if done then return nil "
                             "end done = true return string.char(27) .. ARGV[1] end)")},
      {"cjson", Eval("return cjson.encode({ARGV[1], cjson.decode('[\"' .. ARGV[1] .. '\"]')})")},
  };
}

class LuaErrorLeakTest : public ScriptTest {
 protected:
  static Config LeakConfig() {
    Config config = TestConfig();
    // A slow run under the sanitizers would otherwise keep its long arguments in the slow log.
    config.slowlog_log_slower_than_us = -1;
    return config;
  }
  LuaErrorLeakTest() : ScriptTest(LeakConfig()) {}

  std::string RunCase(const Case& c) { return RunArgs(c.command); }

  // A full collection of the Lua state (a failing script ends with one). Until then a run's
  // strings stay interned, and the next run of the same case finds them instead of allocating.
  void Collect() { ASSERT_EQ(Run({"EVAL", "error('settle')", "0"}).substr(0, 12), "-ERR user_sc"); }

  std::size_t SettledMemory() {
    Collect();
    return UsedMemory(state_);
  }

  // Less than one long argument: a run that leaves one behind is seen.
  static constexpr std::size_t kSlack = 4096;
};

TEST_F(LuaErrorLeakTest, FailingCallsLeaveNothingBehind) {
  const std::vector<Case> cases = Cases();
  for (const Case& c : cases) RunCase(c);  // the command table's, error stats' first entries
  const std::size_t before = SettledMemory();
  for (int round = 0; round < 40; ++round) {
    for (const Case& c : cases) RunCase(c);
  }
  const std::size_t after = SettledMemory();
  EXPECT_LE(after, before + kSlack) << "used_memory " << before << " -> " << after;
}

TEST_F(LuaErrorLeakTest, RunningOutOfMemoryAtEveryAllocationLeavesNothingBehind) {
  const std::vector<Case> cases = Cases();
  for (const Case& c : cases) RunCase(c);
  ScriptEngine& engine = *state_.scripts;
  const std::size_t start = SettledMemory();
  for (const Case& c : cases) {
    const std::size_t before = SettledMemory();
    for (const bool sticky : {false, true}) {
      std::int64_t after = 0;
      for (; after < 5000; ++after) {
        Collect();
        const std::uint64_t failures = engine.injected_allocation_failures();
        engine.FailLuaAllocations(after, sticky);
        const std::string reply = RunCase(c);
        engine.FailLuaAllocations(-1, false);
        ASSERT_FALSE(reply.empty()) << c.name;
        // Past the run's last allocation nothing failed: every point has been tried.
        if (engine.injected_allocation_failures() == failures) break;
      }
      EXPECT_LT(after, 5000) << c.name;
      EXPECT_GT(after, 0) << c.name << ": the case allocated nothing in Lua";
    }
    const std::size_t after = SettledMemory();
    EXPECT_LE(after, before + kSlack) << c.name << ": used_memory " << before << " -> " << after;
  }
  const std::size_t end = SettledMemory();
  EXPECT_LE(end, start + kSlack) << "used_memory " << start << " -> " << end;
  // The engine is still sound: scripts and functions run.
  EXPECT_EQ(Run({"EVAL", "return redis.call('ping')", "0"}), "+PONG\r\n");
  EXPECT_EQ(Run({"FUNCTION", "LOAD",
                 "#!lua name=ok\nredis.register_function('ok', "
                 "function() return 1 end)"}),
            "$2\r\nok\r\n");
  EXPECT_EQ(Run({"FCALL", "ok", "0"}), ":1\r\n");
}

}  // namespace
}  // namespace warden::server
