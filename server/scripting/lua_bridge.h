// Conversions between RESP replies and Lua values, both ways, with Redis 7.0's rules.
#pragma once

#include <string>
#include <string_view>

#include "protocol/reply_reader.h"
#include "protocol/reply_writer.h"

struct lua_State;

namespace warden::server {

// Pushes the Lua value for a command's reply, as redis.call returns it. `resp` is the script's
// protocol (redis.setresp): in RESP2 a null is false, in RESP3 nil.
void PushReply(lua_State* lua, const protocol::Reply& reply, int resp);

// Writes the value at `index` as the script's reply. `resp` is the script's protocol, which
// decides how booleans are sent; the writer's protocol is the client's.
void WriteLuaValue(lua_State* lua, int index, int resp, protocol::ReplyWriter& out);

// A script error's two parts, as Redis's luaPushErrorBuff reads them from a text: "-CODE msg"
// gives CODE; any other text (or a dash with no second word) gets ERR. CR and LF around the
// message are trimmed. Views into the text.
struct ErrorParts {
  std::string_view code;
  std::string_view message;
};
ErrorParts SplitErrorText(std::string_view text);

// Pushes a Redis error table {err = "<CODE> <message>"} for `text`, split as above.
void PushErrorTable(lua_State* lua, std::string_view text);
// The same for a command's error reply, read without its leading '-' ("WRONGTYPE ...").
void PushReplyErrorTable(lua_State* lua, std::string_view reply_error);
// The `err` of that table, as one string.
std::string ScriptErrorText(std::string_view text);
// Where an uncaught script error was raised, after its text: " script: <sha>, on <source>:<line>."
// (Redis's luaCallFunction suffix).
void WriteErrorPlace(protocol::ReplyWriter& reply, std::string_view sha, std::string_view source,
                     std::string_view line);

// Lua numbers become integers by C truncation; values outside int64 (and NaN) become INT64_MIN,
// as the x86 conversion Redis relies on does.
std::int64_t TruncateNumber(double value);

}  // namespace warden::server
