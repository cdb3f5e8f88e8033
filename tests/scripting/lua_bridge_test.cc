// The Lua bridge on a bare Lua state, without the engine or the dispatcher: numbers to integers,
// error tables, command replies to Lua values and Lua values to replies (Redis 7.0's script_lua.c).
// The same conversions are pinned against redis-server 7.0 in
// tests/differential/cases/scripting_lua_to_resp.txt and scripting_resp_to_lua.txt.
#include "server/scripting/lua_bridge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <lua.hpp>
#include <string>
#include <string_view>

#include "protocol/reply_reader.h"
#include "protocol/reply_writer.h"

namespace warden::server {
namespace {

using namespace std::string_view_literals;

class LuaBridgeTest : public ::testing::Test {
 protected:
  LuaBridgeTest() : lua_(luaL_newstate()) { luaL_openlibs(lua_); }
  ~LuaBridgeTest() override { lua_close(lua_); }

  // Evaluates `expression` and writes it as a script reply: `resp` is the script's protocol
  // (redis.setresp), `client` the client's.
  std::string Write(const std::string& expression, int resp = 2, int client = 2) {
    EXPECT_EQ(luaL_dostring(lua_, ("return " + expression).c_str()), 0) << lua_tostring(lua_, -1);
    std::string out;
    protocol::ReplyWriter writer(&out, client);
    WriteLuaValue(lua_, -1, resp, writer);
    lua_settop(lua_, 0);
    return out;
  }

  // Parses `reply`, pushes it as redis.call would with protocol `resp`, stores it in the global
  // `v` and returns the value of `probe` (a Lua expression over v) as a string.
  std::string Push(std::string_view reply, int resp, const std::string& probe) {
    protocol::Reply parsed;
    const auto consumed = protocol::ReadReply(reply, parsed);
    EXPECT_TRUE(consumed.has_value() && *consumed == reply.size());
    PushReply(lua_, parsed, resp);
    lua_setglobal(lua_, "v");
    return Eval(probe);
  }

  std::string Eval(const std::string& expression) {
    if (luaL_dostring(lua_, ("return tostring(" + expression + ")").c_str()) != 0) {
      return std::string("lua error: ") + lua_tostring(lua_, -1);
    }
    std::string result = lua_tostring(lua_, -1);
    lua_settop(lua_, 0);
    return result;
  }

  lua_State* lua_;
};

struct TruncateCase {
  double value;
  std::int64_t expected;
};

TEST(TruncateNumberTest, TruncatesTowardZeroAndMapsTheRestToInt64Min) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const TruncateCase cases[] = {
      {0.0, 0},
      {-0.0, 0},
      {3.99, 3},
      {-3.99, -3},
      {0.5, 0},
      {-0.5, 0},
      {9007199254740993.0, 9007199254740992},
      {1e15, 1000000000000000},
      {-9223372036854775808.0, kMin},
      {9223372036854774784.0, 9223372036854774784},
      {9223372036854775808.0, kMin},  // 2^63 does not fit
      {1e20, kMin},
      {-1e20, kMin},
      {std::numeric_limits<double>::infinity(), kMin},
      {-std::numeric_limits<double>::infinity(), kMin},
      {std::nan(""), kMin},
  };
  for (const TruncateCase& c : cases) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(TruncateNumber(c.value), c.expected);
  }
}

TEST_F(LuaBridgeTest, ErrorTableKeepsAGivenCode) {
  PushErrorTable(lua_, "-WRONGTYPE Operation against a key");
  lua_setglobal(lua_, "v");

  EXPECT_EQ(Eval("v.err"), "WRONGTYPE Operation against a key");
}

TEST_F(LuaBridgeTest, ErrorTableWithoutCodeGetsErr) {
  PushErrorTable(lua_, "plain message");
  lua_setglobal(lua_, "v");

  EXPECT_EQ(Eval("v.err"), "ERR plain message");
}

TEST_F(LuaBridgeTest, ErrorTableOfOneWordGetsErr) {
  PushErrorTable(lua_, "-OOPS");
  lua_setglobal(lua_, "v");

  EXPECT_EQ(Eval("v.err"), "ERR OOPS");
}

TEST_F(LuaBridgeTest, ErrorTableTrimsLineEnds) {
  PushErrorTable(lua_, "-ERR boom\r\n");
  lua_setglobal(lua_, "v");

  EXPECT_EQ(Eval("v.err"), "ERR boom");
}

TEST_F(LuaBridgeTest, IntegerReplyIsANumber) {
  EXPECT_EQ(Push(":42\r\n", 2, "type(v) .. ' ' .. v"), "number 42");
  EXPECT_EQ(Push(":-9007199254740992\r\n", 2, "v"), "-9.007199254741e+15");
}

TEST_F(LuaBridgeTest, BulkReplyIsABinarySafeString) {
  EXPECT_EQ(Push("$5\r\nhe\0lo\r\n"sv, 2, "type(v) .. ' ' .. #v"), "string 5");
}

TEST_F(LuaBridgeTest, NullIsFalseInResp2AndNilInResp3) {
  EXPECT_EQ(Push("$-1\r\n", 2, "type(v)"), "boolean");
  EXPECT_EQ(Push("$-1\r\n", 2, "v"), "false");
  EXPECT_EQ(Push("*-1\r\n", 2, "v"), "false");
  EXPECT_EQ(Push("_\r\n", 2, "v"), "false");
  EXPECT_EQ(Push("$-1\r\n", 3, "type(v)"), "nil");
  EXPECT_EQ(Push("_\r\n", 3, "type(v)"), "nil");
}

TEST_F(LuaBridgeTest, StatusReplyIsAnOkTable) {
  EXPECT_EQ(Push("+OK\r\n", 2, "type(v) .. ' ' .. v.ok"), "table OK");
}

TEST_F(LuaBridgeTest, ErrorReplyIsAnErrTableWithItsCode) {
  EXPECT_EQ(Push("-ERR syntax error\r\n", 2, "v.err"), "ERR syntax error");
  EXPECT_EQ(Push("-NOSCRIPT No matching script.\r\n", 2, "v.err"), "NOSCRIPT No matching script.");
}

TEST_F(LuaBridgeTest, ArrayReplyIsANestedSequence) {
  const std::string_view reply = "*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n+OK\r\n";

  EXPECT_EQ(Push(reply, 2, "#v .. ' ' .. v[1] .. ' ' .. v[2][1] .. ' ' .. tostring(v[2][2])"),
            "3 1 a false");
  EXPECT_EQ(Push(reply, 2, "v[3].ok"), "OK");
  EXPECT_EQ(Push("*0\r\n", 2, "type(v) .. ' ' .. #v"), "table 0");
}

TEST_F(LuaBridgeTest, Resp3ShapesBecomeTaggedTables) {
  EXPECT_EQ(Push("%1\r\n$1\r\nk\r\n:7\r\n", 3, "v.map.k"), "7");
  EXPECT_EQ(Push("~2\r\n$1\r\na\r\n$1\r\nb\r\n", 3, "tostring(v.set.a) .. tostring(v.set.b)"),
            "truetrue");
  EXPECT_EQ(Push(",1.5\r\n", 3, "v.double"), "1.5");
  EXPECT_EQ(Push("#t\r\n", 3, "v"), "true");
  EXPECT_EQ(Push("#f\r\n", 3, "type(v) .. tostring(v)"), "booleanfalse");
  EXPECT_EQ(Push("(123456789012345678901\r\n", 3, "v.big_number"), "123456789012345678901");
  EXPECT_EQ(Push("=7\r\ntxt:abc\r\n", 3, "v.verbatim_string.format .. v.verbatim_string.string"),
            "txtabc");
}

struct WriteCase {
  const char* expression;
  int resp;    // redis.setresp
  int client;  // HELLO
  std::string_view expected;
};

class LuaWriteTest : public LuaBridgeTest, public ::testing::WithParamInterface<WriteCase> {};

TEST_P(LuaWriteTest, WritesRedisBytes) {
  const WriteCase& c = GetParam();

  EXPECT_EQ(Write(c.expression, c.resp, c.client), c.expected);
}

// Every expected reply here is what redis-server 7.0 sends (scripting_lua_to_resp.txt).
INSTANTIATE_TEST_SUITE_P(
    Values, LuaWriteTest,
    ::testing::Values(
        WriteCase{"3.99", 2, 2, ":3\r\n"}, WriteCase{"-3.99", 2, 2, ":-3\r\n"},
        WriteCase{"1e20", 2, 2, ":-9223372036854775808\r\n"},
        WriteCase{"0/0", 2, 2, ":-9223372036854775808\r\n"},
        WriteCase{"'a\\0b'", 2, 2, "$3\r\na\0b\r\n"sv}, WriteCase{"true", 2, 2, ":1\r\n"},
        WriteCase{"false", 2, 2, "$-1\r\n"}, WriteCase{"false", 2, 3, "_\r\n"},
        WriteCase{"nil", 2, 2, "$-1\r\n"}, WriteCase{"nil", 3, 3, "_\r\n"},
        WriteCase{"true", 3, 3, "#t\r\n"}, WriteCase{"false", 3, 3, "#f\r\n"},
        WriteCase{"true", 3, 2, ":1\r\n"}, WriteCase{"false", 3, 2, ":0\r\n"},
        WriteCase{"{1, 2, nil, 4}", 2, 2, "*2\r\n:1\r\n:2\r\n"},
        WriteCase{"{'a', b = 'c'}", 2, 2, "*1\r\n$1\r\na\r\n"},
        WriteCase{"{b = 'c'}", 2, 2, "*0\r\n"},
        WriteCase{"{{}, {{1}}}", 2, 2, "*2\r\n*0\r\n*1\r\n*1\r\n:1\r\n"},
        WriteCase{"{ok = 'a\\r\\nb'}", 2, 2, "+a  b\r\n"},
        WriteCase{"{err = 'My Error'}", 2, 2, "-My Error\r\n"},
        WriteCase{"{err = 'x', ok = 'y'}", 2, 2, "-x\r\n"}, WriteCase{"{ok = 1}", 2, 2, "*0\r\n"},
        WriteCase{"{double = 1.5}", 2, 2, "$3\r\n1.5\r\n"},
        WriteCase{"{double = 0.1}", 2, 2, "$19\r\n0.10000000000000001\r\n"},
        WriteCase{"{double = 1.5}", 2, 3, ",1.5\r\n"},
        WriteCase{"{double = 1/0}", 2, 3, ",inf\r\n"},
        WriteCase{"{double = '1.5'}", 2, 2, "*0\r\n"},
        WriteCase{"{map = {a = 1}}", 2, 2, "*2\r\n$1\r\na\r\n:1\r\n"},
        WriteCase{"{map = {a = 1}}", 2, 3, "%1\r\n$1\r\na\r\n:1\r\n"},
        WriteCase{"{set = {a = true}}", 2, 2, "*1\r\n$1\r\na\r\n"},
        WriteCase{"{set = {a = true}}", 2, 3, "~1\r\n$1\r\na\r\n"},
        WriteCase{"{big_number = '123'}", 2, 2, "$3\r\n123\r\n"},
        WriteCase{"{big_number = '123'}", 2, 3, "(123\r\n"},
        WriteCase{"{verbatim_string = {format = 'txt', string = 'hi'}}", 2, 2, "$2\r\nhi\r\n"},
        WriteCase{"{verbatim_string = {format = 'txt', string = 'hi'}}", 2, 3, "=6\r\ntxt:hi\r\n"},
        WriteCase{"setmetatable({}, {__index = function() return 1 end})", 2, 2, "*0\r\n"},
        WriteCase{"print", 2, 2, "$-1\r\n"}));

TEST_F(LuaBridgeTest, NestingPastTheStackLimitIsAnErrorElement) {
  ASSERT_EQ(luaL_dostring(lua_,
                          "local t = {} local c = t for i = 1, 100000 do c[1] = {} c = c[1] "
                          "end return t"),
            0);
  std::string out;
  protocol::ReplyWriter writer(&out, 2);

  WriteLuaValue(lua_, -1, 2, writer);

  EXPECT_TRUE(out.starts_with("*1\r\n*1\r\n"));
  EXPECT_TRUE(out.ends_with("*1\r\n-ERR reached lua stack limit\r\n"));
}

}  // namespace
}  // namespace warden::server
