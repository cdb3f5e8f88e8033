// How the Lua debugger shows Lua values (AppendLuaValue, Redis's ldbCatStackValue), on a bare
// Lua state. Whole sessions are compared with redis-server in tests/clients/python/test_ldb.py.
#include "server/scripting/lua_debugger.h"

#include <gtest/gtest.h>

#include <lua.hpp>
#include <string>

namespace warden::server {
namespace {

class LuaDebuggerValueTest : public ::testing::Test {
 protected:
  LuaDebuggerValueTest() : lua_(luaL_newstate()) { luaL_openlibs(lua_); }
  ~LuaDebuggerValueTest() override { lua_close(lua_); }

  std::string Show(const std::string& expression) {
    EXPECT_EQ(luaL_dostring(lua_, ("return " + expression).c_str()), 0);
    std::string out;
    AppendLuaValue(out, lua_, -1);
    lua_settop(lua_, 0);
    return out;
  }

  lua_State* lua_;
};

TEST_F(LuaDebuggerValueTest, Scalars) {
  EXPECT_EQ(Show("'a\\nb'"), "\"a\\nb\"");
  EXPECT_EQ(Show("1.5"), "1.5");
  EXPECT_EQ(Show("1e20"), "1e+20");
  EXPECT_EQ(Show("true"), "true");
  EXPECT_EQ(Show("nil"), "nil");
}

TEST_F(LuaDebuggerValueTest, ArrayAndMapTables) {
  EXPECT_EQ(Show("{1, 'x', {}}"), "{1; \"x\"; {}}");
  EXPECT_EQ(Show("{k = 'v'}"), "{[\"k\"]=\"v\"}");
  EXPECT_EQ(Show("{[2] = 'b'}"), "{[2]=\"b\"}");
}

TEST_F(LuaDebuggerValueTest, FunctionsShowTheirAddress) {
  EXPECT_EQ(Show("print").substr(0, 12), "\"function@0x");
}

TEST_F(LuaDebuggerValueTest, DeepNestingStopsAtTenLevels) {
  const std::string shown = Show("(function() local t = {} t[1] = t return t end)()");
  EXPECT_NE(shown.find("<max recursion level reached! Nested table?>"), std::string::npos);
  EXPECT_EQ(shown.substr(0, 10), "{{{{{{{{{{");
}

}  // namespace
}  // namespace warden::server
