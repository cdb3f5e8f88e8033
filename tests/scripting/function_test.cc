// Functions through the dispatcher with a manual clock: what warden does where Redis 7.0 cannot
// be compared with (it crashes), the libraries' state across SCRIPT FLUSH, INFO, and
// deadlines read inside a function on the fixture's clock. Everything Redis also does is pinned by
// tests/differential/cases/functions.txt.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

class FunctionTest : public ScriptTest {
 protected:
  FunctionTest() = default;
  explicit FunctionTest(Config config) : ScriptTest(std::move(config)) {}
  std::string Load(const std::string& code, bool replace = false) {
    if (replace) return RunArgs({"FUNCTION", "LOAD", "REPLACE", code});
    return RunArgs({"FUNCTION", "LOAD", code});
  }
};

TEST_F(FunctionTest, TwoNamesDifferingOnlyInCaseAreRefused) {
  // Redis 7.0 loads this library and crashes when it is deleted or replaced.
  EXPECT_EQ(Load("#!lua name=twins\nredis.register_function('f', function() return 1 end)\n"
                 "redis.register_function('F', function() return 2 end)"),
            "-ERR Error registering functions: ERR Function already exists in the library\r\n");
  EXPECT_EQ(Run({"FUNCTION", "LIST"}), "*0\r\n");
  EXPECT_EQ(Run({"FCALL", "f", "0"}), "-ERR Function not found\r\n");
}

TEST_F(FunctionTest, ScriptFlushKeepsTheLibrariesAndTheirState) {
  // As in Redis, whose functions have a Lua state SCRIPT FLUSH does not touch.
  ASSERT_EQ(Load("#!lua name=counter\nlocal n = 0\n"
                 "redis.register_function('next', function() n = n + 1 return n end)"),
            "$7\r\ncounter\r\n");
  EXPECT_EQ(Run({"FCALL", "next", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"FCALL", "next", "0"}), ":2\r\n");
  ASSERT_EQ(Run({"EVAL", "return 1", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"SCRIPT", "FLUSH"}), "+OK\r\n");
  EXPECT_EQ(Run({"SCRIPT", "EXISTS", Sha("return 1")}), "*1\r\n:0\r\n");
  EXPECT_EQ(Run({"FCALL", "next", "0"}), ":3\r\n");
  EXPECT_EQ(Run({"FUNCTION", "LIST"}).substr(0, 4), "*1\r\n");
  // And EVAL still works in the new state, beside them.
  EXPECT_EQ(Run({"EVAL", "return KEYS[1]", "1", "k"}), "$1\r\nk\r\n");
}

TEST_F(FunctionTest, EvalAndFunctionsDoNotShareGlobals) {
  ASSERT_EQ(Load("#!lua name=g\nredis.register_function('keys_seen', function() "
                 "return rawget(_G, 'KEYS') == nil end)"),
            "$1\r\ng\r\n");
  ASSERT_EQ(Run({"EVAL", "return #KEYS", "1", "evalkey"}), ":1\r\n");
  EXPECT_EQ(Run({"FCALL", "keys_seen", "0"}), ":1\r\n");
}

TEST_F(FunctionTest, InfoCountsLibrariesAndFunctions) {
  ASSERT_EQ(Load("#!lua name=a\nredis.register_function('a1', function() end)\n"
                 "redis.register_function('a2', function() end)"),
            "$1\r\na\r\n");
  ASSERT_EQ(Load("#!lua name=b\nredis.register_function('b1', function() end)"), "$1\r\nb\r\n");
  const std::string info = Run({"INFO", "memory"});
  EXPECT_NE(info.find("\r\nnumber_of_functions:3\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("\r\nnumber_of_libraries:2\r\n"), std::string::npos);
  EXPECT_EQ(info.find("\r\nused_memory_functions:0\r\n"), std::string::npos);
  EXPECT_EQ(Run({"FUNCTION", "FLUSH"}), "+OK\r\n");
  const std::string after = Run({"INFO", "memory"});
  EXPECT_NE(after.find("\r\nnumber_of_functions:0\r\n"), std::string::npos);
  EXPECT_NE(after.find("\r\nused_memory_functions:0\r\n"), std::string::npos);
}

TEST_F(FunctionTest, AFunctionReadsDeadlinesOnTheServersClock) {
  ASSERT_EQ(Run({"SET", "lease", "x", "PX", "100"}), "+OK\r\n");
  ASSERT_EQ(Load("#!lua name=t\nredis.register_function('ttl_twice', function(keys) "
                 "return {redis.call('pttl', keys[1]), redis.call('exists', keys[1])} end)"),
            "$1\r\nt\r\n");
  EXPECT_EQ(Run({"FCALL", "ttl_twice", "1", "lease"}), "*2\r\n:100\r\n:1\r\n");
  clock_.AdvanceMs(99);
  EXPECT_EQ(Run({"FCALL", "ttl_twice", "1", "lease"}), "*2\r\n:1\r\n:1\r\n");
  clock_.AdvanceMs(2);
  EXPECT_EQ(Run({"FCALL", "ttl_twice", "1", "lease"}), "*2\r\n:-2\r\n:0\r\n");
}

TEST_F(FunctionTest, ReplaceThatFailsKeepsTheOldLibrary) {
  ASSERT_EQ(Load("#!lua name=r\nredis.register_function('r1', function() return 'old' end)"),
            "$1\r\nr\r\n");
  ASSERT_EQ(Load("#!lua name=other\nredis.register_function('taken', function() end)"),
            "$5\r\nother\r\n");
  EXPECT_EQ(Load("#!lua name=r\nredis.register_function('taken', function() end)", true),
            "-ERR Function taken already exists\r\n");
  EXPECT_EQ(Run({"FCALL", "r1", "0"}), "$3\r\nold\r\n");
  EXPECT_EQ(Load("#!lua name=r\nredis.register_function('R1', function() return 'new' end)", true),
            "$1\r\nr\r\n");
  EXPECT_EQ(Run({"FCALL", "r1", "0"}), "$3\r\nnew\r\n");
}

class FunctionMemoryTest : public FunctionTest {
 protected:
  static Config SmallLua() {
    Config config = TestConfig();
    config.script_memory_limit = 1 << 20;
    return config;
  }
  FunctionMemoryTest() : FunctionTest(SmallLua()) {}
};

TEST_F(FunctionMemoryTest, ALoadIsHeldToTheScriptMemoryLimit) {
  EXPECT_EQ(Load("#!lua name=big\nlocal t = {} for i = 1, 1e7 do t[i] = i end"),
            "-ERR Error registering functions: ERR not enough memory\r\n");
  EXPECT_EQ(Load("#!lua name=small\nredis.register_function('s', function() return 1 end)"),
            "$5\r\nsmall\r\n");
  EXPECT_EQ(Run({"FCALL", "s", "0"}), ":1\r\n");
}

}  // namespace
}  // namespace warden::server
