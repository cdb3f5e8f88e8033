// Conversions through the dispatcher (Redis 7.0's script_lua.c): script return values to RESP for
// RESP2 and RESP3 clients, with and without redis.setresp(3), and command replies to Lua values
// as redis.call returns them. Every expected reply is redis-server 7.0's, as pinned by
// tests/differential/cases/scripting_lua_to_resp.txt and scripting_resp_to_lua.txt.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

using namespace std::string_view_literals;

struct ConversionCase {
  std::string_view script;
  std::string_view expected;
};

void PrintTo(const ConversionCase& c, std::ostream* os) {
  for (const char ch : c.script)
    *os << (ch == '\n' ? std::string_view("\\n") : std::string_view(&ch, 1));
}

class LuaToResp2Test : public ScriptTest, public ::testing::WithParamInterface<ConversionCase> {};

TEST_P(LuaToResp2Test, ReplyMatchesRedis) {
  EXPECT_EQ(Eval(GetParam().script), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Values, LuaToResp2Test,
    ::testing::Values(
        ConversionCase{"return 1", ":1\r\n"}, ConversionCase{"return 3.99", ":3\r\n"},
        ConversionCase{"return -3.99", ":-3\r\n"}, ConversionCase{"return -0.5", ":0\r\n"},
        ConversionCase{"return 9007199254740993", ":9007199254740992\r\n"},
        ConversionCase{"return 1e20", ":-9223372036854775808\r\n"},
        ConversionCase{"return -1e20", ":-9223372036854775808\r\n"},
        ConversionCase{"return 2^63", ":-9223372036854775808\r\n"},
        ConversionCase{"return -2^63", ":-9223372036854775808\r\n"},
        ConversionCase{"return 1/0", ":-9223372036854775808\r\n"},
        ConversionCase{"return 0/0", ":-9223372036854775808\r\n"},
        ConversionCase{"return '42'", "$2\r\n42\r\n"}, ConversionCase{"return ''", "$0\r\n\r\n"},
        ConversionCase{"return 'a\\0b'", "$3\r\na\0b\r\n"sv},
        ConversionCase{"return true", ":1\r\n"}, ConversionCase{"return false", "$-1\r\n"},
        ConversionCase{"return nil", "$-1\r\n"}, ConversionCase{"local x = 1", "$-1\r\n"},
        ConversionCase{"return {}", "*0\r\n"},
        ConversionCase{"return {1,2,nil,4}", "*2\r\n:1\r\n:2\r\n"},
        ConversionCase{"return {nil,2}", "*0\r\n"},
        ConversionCase{"return {1,'a',{2,3},true,false,3.7}",
                       "*6\r\n:1\r\n$1\r\na\r\n*2\r\n:2\r\n:3\r\n:1\r\n$-1\r\n:3\r\n"},
        ConversionCase{"return {'a', b='c'}", "*1\r\n$1\r\na\r\n"},
        ConversionCase{"return {b='c'}", "*0\r\n"},
        ConversionCase{"local t = {1,2,3} t[5] = 5 return t", "*3\r\n:1\r\n:2\r\n:3\r\n"},
        ConversionCase{"return setmetatable({1}, {__index = {1, 2, 3}})", "*1\r\n:1\r\n"},
        ConversionCase{"return {1, function() end, 2}", "*3\r\n:1\r\n$-1\r\n:2\r\n"},
        ConversionCase{"return {ok='fine'}", "+fine\r\n"},
        ConversionCase{"return {ok=''}", "+\r\n"},
        ConversionCase{"return {ok='a\\r\\nb'}", "+a  b\r\n"},
        ConversionCase{"return {err='My Error'}", "-My Error\r\n"},
        ConversionCase{"return {err=''}", "-\r\n"},
        ConversionCase{"return {err='a\\r\\nb'}", "-a  b\r\n"},
        ConversionCase{"return {err=1}", "*0\r\n"}, ConversionCase{"return {1, err='x'}", "-x\r\n"},
        ConversionCase{"return {1, 2, {ok='x'}, {err='E y'}}", "*4\r\n:1\r\n:2\r\n+x\r\n-E y\r\n"},
        ConversionCase{"return {double=1.5}", "$3\r\n1.5\r\n"},
        ConversionCase{"return {double=3}", "$1\r\n3\r\n"},
        ConversionCase{"return {double=1e300}", "$23\r\n1.0000000000000001e+300\r\n"},
        ConversionCase{"return {double=-1/0}", "$4\r\n-inf\r\n"},
        ConversionCase{"return {map={a={1,2}}}", "*2\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n"},
        ConversionCase{"return {set={a=true}}", "*1\r\n$1\r\na\r\n"},
        ConversionCase{"return {big_number='12345678901234567890'}",
                       "$20\r\n12345678901234567890\r\n"},
        ConversionCase{"return {verbatim_string={format='txt',string='hi'}}", "$2\r\nhi\r\n"},
        ConversionCase{"redis.setresp(3) return {1,'a',false,true}",
                       "*4\r\n:1\r\n$1\r\na\r\n:0\r\n:1\r\n"},
        ConversionCase{"redis.setresp(3) return nil", "$-1\r\n"},
        ConversionCase{"redis.setresp(3) redis.setresp(2) return false", "$-1\r\n"}));

class LuaToResp3Test : public ScriptTest, public ::testing::WithParamInterface<ConversionCase> {};

TEST_P(LuaToResp3Test, ReplyMatchesRedis) {
  UseResp3();

  EXPECT_EQ(Eval(GetParam().script), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Values, LuaToResp3Test,
    ::testing::Values(
        ConversionCase{"return {1,'a',false,true}", "*4\r\n:1\r\n$1\r\na\r\n_\r\n:1\r\n"},
        ConversionCase{"return false", "_\r\n"}, ConversionCase{"return true", ":1\r\n"},
        ConversionCase{"redis.setresp(3) return {1,'a',false,true}",
                       "*4\r\n:1\r\n$1\r\na\r\n#f\r\n#t\r\n"},
        ConversionCase{"redis.setresp(3) return nil", "_\r\n"},
        ConversionCase{"return {double=1.5}", ",1.5\r\n"},
        ConversionCase{"return {double=3}", ",3\r\n"},
        ConversionCase{"return {double=0.1}", ",0.10000000000000001\r\n"},
        ConversionCase{"return {double=1/0}", ",inf\r\n"},
        ConversionCase{"return {map={a=1}}", "%1\r\n$1\r\na\r\n:1\r\n"},
        ConversionCase{"return {map={}}", "%0\r\n"}, ConversionCase{"return {set={}}", "~0\r\n"},
        ConversionCase{"return {set={a=true}}", "~1\r\n$1\r\na\r\n"},
        ConversionCase{"return {big_number='123'}", "(123\r\n"},
        ConversionCase{"return {verbatim_string={format='txt',string='hi'}}", "=6\r\ntxt:hi\r\n"},
        ConversionCase{"return {1, {double=2.5}, {map={x='y'}}}",
                       "*3\r\n:1\r\n,2.5\r\n%1\r\n$1\r\nx\r\n$1\r\ny\r\n"}));

class RespToLuaTest : public ScriptTest, public ::testing::WithParamInterface<ConversionCase> {
 protected:
  void SetUp() override {
    ASSERT_EQ(Run({"SET", "str", "hello"}), "+OK\r\n");
    ASSERT_EQ(Run({"SET", "num", "42"}), "+OK\r\n");
  }
};

TEST_P(RespToLuaTest, LuaValueMatchesRedis) {
  EXPECT_EQ(Eval(GetParam().script), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Values, RespToLuaTest,
    ::testing::Values(
        ConversionCase{"return type(redis.call('exists', 'str'))", "$6\r\nnumber\r\n"},
        ConversionCase{"return redis.call('exists', 'str') + 0.5", ":1\r\n"},
        ConversionCase{"return type(redis.call('get', 'num'))", "$6\r\nstring\r\n"},
        ConversionCase{"return redis.call('get', 'num') + 1", ":43\r\n"},
        ConversionCase{"return redis.call('get', 'num') == 42", "$-1\r\n"},
        ConversionCase{"return type(redis.call('get', 'nokey'))", "$7\r\nboolean\r\n"},
        ConversionCase{"return tostring(redis.call('get', 'nokey'))", "$5\r\nfalse\r\n"},
        ConversionCase{"return {1, redis.call('get', 'nokey'), 3}", "*3\r\n:1\r\n$-1\r\n:3\r\n"},
        ConversionCase{"redis.setresp(3) return type(redis.call('get', 'nokey'))", "$3\r\nnil\r\n"},
        ConversionCase{"return type(redis.call('set', 'str', 'x', 'NX'))", "$7\r\nboolean\r\n"},
        ConversionCase{"return redis.call('set', 'k', 'v').ok", "$2\r\nOK\r\n"},
        ConversionCase{"return redis.call('ping')", "+PONG\r\n"},
        ConversionCase{"return redis.call('type', 'str')", "+string\r\n"},
        ConversionCase{"return redis.pcall('set', 'k', 'v', 'EX', '0').err",
                       "$40\r\nERR invalid expire time in 'set' command\r\n"},
        ConversionCase{"return redis.pcall('incr', 'str')",
                       "-ERR value is not an integer or out of range\r\n"},
        ConversionCase{
            "local ok, e = pcall(redis.call, 'nosuch') return {tostring(ok), e}",
            "*2\r\n$5\r\nfalse\r\n$44\r\nERR Unknown Redis command called from script\r\n"},
        ConversionCase{"return redis.call('keys', 'nomatch*')", "*0\r\n"},
        ConversionCase{"local r = redis.call('time') return {type(r), #r, type(r[1])}",
                       "*3\r\n$5\r\ntable\r\n:2\r\n$6\r\nstring\r\n"},
        ConversionCase{"return redis.call('command', 'info', 'get')[1][3]",
                       "*2\r\n+readonly\r\n+fast\r\n"},
        ConversionCase{"return redis.call('command', 'info', 'nosuch')", "*1\r\n$-1\r\n"},
        ConversionCase{"redis.setresp(3) local r = redis.call('command', 'info', 'get') "
                       "local out = {} for k, v in pairs(r[1][3].set) do "
                       "out[#out + 1] = k.ok .. '=' .. tostring(v) end table.sort(out) return out",
                       "*2\r\n$9\r\nfast=true\r\n$13\r\nreadonly=true\r\n"},
        ConversionCase{"redis.setresp(3) return redis.call('info', 'nosuchsection')"
                       ".verbatim_string.format",
                       "$3\r\ntxt\r\n"},
        ConversionCase{"return redis.call('echo', 4995.0)", "$4\r\n4995\r\n"},
        ConversionCase{"return redis.call('echo', 0.1)", "$19\r\n0.10000000000000001\r\n"},
        ConversionCase{"return redis.call('echo', 1e20)", "$5\r\n1e+20\r\n"},
        ConversionCase{"return redis.call('echo', 2^63)", "$22\r\n9.2233720368547758e+18\r\n"},
        ConversionCase{"return redis.call('echo', -0.0)", "$2\r\n-0\r\n"}));

TEST_F(ScriptTest, NumberArgumentReachesTheCommandAsAnInteger) {
  Run({"SET", "lock", "me"});
  const std::string script = "return redis.call('pexpire', KEYS[1], 4995.0)";

  EXPECT_EQ(Eval(script, {"lock"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":4995\r\n");
}

TEST_F(ScriptTest, FractionalNumberArgumentIsNotAnInteger) {
  Run({"SET", "lock", "me"});
  const std::string script = "return redis.call('pexpire', KEYS[1], 4995.5)";

  EXPECT_EQ(Eval(script, {"lock"}),
            ErrorReply("ERR value is not an integer or out of range" + Where(script)));
}

}  // namespace
}  // namespace warden::server
