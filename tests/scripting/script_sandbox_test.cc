// The sandbox (Redis 7.0's script_lua.c and its tests/unit/scripting.tcl): what scripts cannot
// reach, and the escapes and crashes reported against Redis's Lua, each of which must end in an
// ordinary error reply with the engine still working: bytecode loading, the string metatable,
// unpack's range check (the Lua 5.1 overflow), bit.tohex with INT_MIN (CVE-2024-31449), cjson
// nesting, return values nested past the C stack, and scripts that try to take all the memory.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "server/scripting/script_engine.h"
#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

using ScriptSandboxTest = ScriptTest;

TEST_F(ScriptSandboxTest, LoadstringOfBytecodeReturnsNil) {
  EXPECT_EQ(Eval("return loadstring(string.dump(function() return 1 end)) == nil"), ":1\r\n");
}

TEST_F(ScriptSandboxTest, CallingRefusedBytecodeIsAnError) {
  const std::string script = "return loadstring(string.dump(function() return 1 end))()";

  // Redis's test "Binary code loading failed".
  EXPECT_EQ(Eval(script),
            ErrorReply("ERR user_script:1: attempt to call a nil value" + Where(script)));
}

TEST_F(ScriptSandboxTest, LoadstringOfTheSignatureByteReturnsNil) {
  EXPECT_EQ(Eval("return loadstring('\\27Lua') == nil"), ":1\r\n");
}

TEST_F(ScriptSandboxTest, LoadOfBytecodeFromAReaderReturnsNil) {
  EXPECT_EQ(Eval("local chunk = string.dump(function() return 1 end) "
                 "local f = load(function() local c = chunk chunk = nil return c end) "
                 "return f == nil"),
            ":1\r\n");
}

TEST_F(ScriptSandboxTest, LoadedCodeSeesTheSandboxedGlobals) {
  EXPECT_EQ(Eval("return loadstring('return type(redis) .. type(cjson)')()"),
            "$10\r\ntabletable\r\n");
  EXPECT_EQ(Eval("return {pcall(loadstring('x = 1'))}"),
            "*2\r\n$-1\r\n$54\r\n[string \"x = 1\"]:1: Attempt to modify a readonly table\r\n");
  EXPECT_EQ(Eval("return {pcall(loadstring('return os'))}"),
            "*2\r\n$-1\r\n" + BulkReply("[string \"return os\"]:1: Script attempted to access "
                                        "nonexistent global variable 'os'"));
}

TEST_F(ScriptSandboxTest, CodeLoadedInACoroutineIsSandboxedToo) {
  EXPECT_EQ(Eval("local co = coroutine.create(loadstring('x = 1')) return {coroutine.resume(co)}"),
            "*2\r\n$-1\r\n$54\r\n[string \"x = 1\"]:1: Attempt to modify a readonly table\r\n");
}

class AbsentGlobalTest : public ScriptTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(AbsentGlobalTest, ReadingItIsAnError) {
  const std::string script = std::string("return ") + GetParam();

  EXPECT_EQ(Eval(script),
            ErrorReply(std::string("ERR user_script:1: Script attempted to access nonexistent "
                                   "global variable '") +
                       GetParam() + "'" + Where(script)));
}

TEST_P(AbsentGlobalTest, RawgetFindsNothing) {
  EXPECT_EQ(Eval(std::string("return rawget(_G, '") + GetParam() + "') == nil"), ":1\r\n");
}

INSTANTIATE_TEST_SUITE_P(Names, AbsentGlobalTest,
                         ::testing::Values("os", "io", "debug", "require", "package", "module",
                                           "dofile", "loadfile", "print", "getfenv", "setfenv",
                                           "newproxy"));

TEST_F(ScriptSandboxTest, StringMetatableCannotBeChanged) {
  const std::string script =
      "local mt = getmetatable('') "
      "local a = pcall(function() mt.__index = function() return 'hacked' end end) "
      "local b = pcall(rawset, mt, '__index', {}) "
      "local c = pcall(setmetatable, mt, {}) "
      "return {tostring(a), tostring(b), tostring(c), ('x'):upper()}";

  EXPECT_EQ(Eval(script), "*4\r\n$5\r\nfalse\r\n$5\r\nfalse\r\n$5\r\nfalse\r\n$1\r\nX\r\n");
  EXPECT_EQ(Eval("return ('y'):upper()"), "$1\r\nY\r\n");
}

TEST_F(ScriptSandboxTest, StringMetatableIndexIsTheStringLibrary) {
  // Redis: getmetatable('').__index == string.
  EXPECT_EQ(Eval("return getmetatable('').__index == string"), ":1\r\n");
}

TEST_F(ScriptSandboxTest, FailedWritesLeaveTheLibrariesIntactForLaterScripts) {
  Eval("string.upper = function() return 'hacked' end");
  Eval("rawset(string, 'upper', nil)");
  Eval("redis.call = nil");

  EXPECT_EQ(Eval("return ('x'):upper()"), "$1\r\nX\r\n");
  EXPECT_EQ(Eval("return redis.call('ping')"), "+PONG\r\n");
}

TEST_F(ScriptSandboxTest, UnpackOfAHugeRangeIsAnError) {
  EXPECT_EQ(Eval("return {pcall(unpack, {}, 0, 2^31 - 1)}"),
            "*2\r\n$-1\r\n$26\r\ntoo many results to unpack\r\n");
  EXPECT_EQ(Eval("return {pcall(unpack, {}, -2^31, 2^31 - 1)}"),
            "*2\r\n$-1\r\n$26\r\ntoo many results to unpack\r\n");
}

TEST_F(ScriptSandboxTest, UncaughtUnpackOverflowIsAScriptError) {
  const std::string script = "return unpack({}, 0, 2^31 - 1)";

  EXPECT_EQ(Eval(script),
            ErrorReply("ERR user_script:1: too many results to unpack" + Where(script)));
  EXPECT_EQ(Eval("return {unpack({1, 2, 3}, 2)}"), "*2\r\n:2\r\n:3\r\n");
}

TEST_F(ScriptSandboxTest, BitTohexWithExtremeWidthsIsClamped) {
  // The bytes of redis-server 7.0.15 as Debian ships it (with the CVE-2024-31449 fix).
  EXPECT_EQ(Eval("return bit.tohex(65535, -2147483648)"), "$8\r\n0000FFFF\r\n");
  EXPECT_EQ(Eval("return bit.tohex(65535, 2147483647)"), "$8\r\n0000ffff\r\n");
  EXPECT_EQ(Eval("return bit.tohex(65535, -9)"), "$8\r\n0000FFFF\r\n");
}

TEST_F(ScriptSandboxTest, CjsonRefusesDeepNesting) {
  const std::string decode = "return cjson.decode(string.rep('[', 100000))";
  const std::string encode =
      "local t = {} local c = t for i = 1, 2000 do c[1] = {} c = c[1] end return cjson.encode(t)";

  EXPECT_EQ(Eval(decode),
            ErrorReply("ERR user_script:1: Found too many nested data structures (1001) at "
                       "character 1001" +
                       Where(decode)));
  EXPECT_EQ(
      Eval(encode),
      ErrorReply("ERR user_script:1: Cannot serialise, excessive nesting (1001)" + Where(encode)));
}

TEST_F(ScriptSandboxTest, ReturnNestedPastTheStackLimitEndsInAnErrorElement) {
  const std::string reply =
      Eval("local t = {} local c = t for i = 1, 100000 do c[1] = {} c = c[1] end return t");

  EXPECT_TRUE(reply.starts_with("*1\r\n*1\r\n"));
  EXPECT_TRUE(reply.ends_with("*1\r\n-ERR reached lua stack limit\r\n"));
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
}

TEST_F(ScriptSandboxTest, ReturnOfASelfReferencingTableEndsInAnErrorElement) {
  // Redis's test "Script return recursive object".
  const std::string reply = Eval("local a = {} local b = {a} a[1] = b return a");

  EXPECT_TRUE(reply.ends_with("*1\r\n-ERR reached lua stack limit\r\n"));
  EXPECT_EQ(Eval("return 'after'"), "$5\r\nafter\r\n");
}

TEST_F(ScriptSandboxTest, EveryElementPastTheStackLimitIsAnError) {
  // Redis checks the stack before converting any element, so the innermost array's plain
  // string is an error too: "...*2\r\n-ERR reached lua stack limit\r\n-ERR reached lua stack
  // limit\r\n$1\r\nx\r\n...".
  const std::string reply = Eval("local a = {} a[1] = a a[2] = 'x' return a");

  EXPECT_NE(reply.find("*2\r\n-ERR reached lua stack limit\r\n-ERR reached lua stack limit\r\n"),
            std::string::npos);
}

Config SmallScriptMemory() {
  Config config = TestConfig();
  config.script_memory_limit = 8 * 1024 * 1024;
  return config;
}

class ScriptMemoryTest : public ScriptTest {
 protected:
  ScriptMemoryTest() : ScriptTest(SmallScriptMemory()) {}
};

TEST_F(ScriptMemoryTest, HugeStringRepIsAnErrorReply) {
  const std::string reply = Eval("return #string.rep('x', 64 * 1024 * 1024)");

  EXPECT_TRUE(reply.starts_with("-ERR ")) << reply;
  EXPECT_NE(reply.find("not enough memory"), std::string::npos) << reply;
}

TEST_F(ScriptMemoryTest, EngineWorksAfterRunningOutOfMemory) {
  Eval("return #string.rep('x', 64 * 1024 * 1024)");
  Eval("local t = {} for i = 1, 1e8 do t[i] = i end return #t");
  Eval("local s = 'x' for i = 1, 40 do s = s .. s end return #s");

  EXPECT_EQ(Eval("return #string.rep('x', 1024 * 1024)"), ":1048576\r\n");
  EXPECT_EQ(Eval("return redis.call('set', 'k', 'v')"), "+OK\r\n");
  EXPECT_LT(state_.scripts->memory_bytes(), std::size_t{8 * 1024 * 1024});
}

TEST_F(ScriptMemoryTest, CjsonPastTheCapRunsOutOfMemoryWhenItReturns) {
  // cjson runs uncapped (an allocation failing inside it would leak its buffers), so the cap is
  // checked when it returns: 2 MB of JSON decode to far more than 8 MB of Lua values.
  const std::string decode =
      "local s = '[' .. string.rep('1,', 1024 * 1024) .. '1]' return #cjson.decode(s)";
  EXPECT_EQ(Eval("return {pcall(function() " + decode + " end)}"),
            "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n");
  const std::string reply = Eval(decode);
  EXPECT_TRUE(reply.starts_with("-ERR ")) << reply;
  EXPECT_NE(reply.find("not enough memory"), std::string::npos) << reply;
  EXPECT_LT(state_.scripts->memory_bytes(), std::size_t{8 * 1024 * 1024});
  // Under the cap it answers as before, errors included.
  EXPECT_EQ(Eval("return #cjson.decode('[' .. string.rep('1,', 1000) .. '1]')"), ":1001\r\n");
  EXPECT_EQ(Eval("return cjson.encode({1, 'a'})"), "$7\r\n[1,\"a\"]\r\n");
  const std::string bad = Eval("return cjson.decode('[1,')");
  EXPECT_TRUE(
      bad.starts_with("-ERR user_script:1: Expected value but found T_END at character 4 "
                      "script: "))
      << bad;
}

TEST_F(ScriptMemoryTest, PcallCatchesRunningOutOfMemory) {
  EXPECT_EQ(Eval("return {pcall(string.rep, 'x', 64 * 1024 * 1024)}"),
            "*2\r\n$-1\r\n$17\r\nnot enough memory\r\n");
}

TEST_F(ScriptMemoryTest, ScriptFlushAfterRunningOutOfMemoryStartsClean) {
  Eval("return #string.rep('x', 64 * 1024 * 1024)");

  EXPECT_EQ(Run({"SCRIPT", "FLUSH"}), "+OK\r\n");
  EXPECT_EQ(Eval("return 'fresh'"), "$5\r\nfresh\r\n");
}

}  // namespace
}  // namespace warden::server
