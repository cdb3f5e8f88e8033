#include "server/scripting/lua_bridge.h"

#include <cmath>
#include <lua.hpp>
#include <string>

#include "server/scripting/lua_debugger.h"

namespace warden::server {
namespace {

void SetStringField(lua_State* lua, const char* name, std::string_view value) {
  lua_pushlstring(lua, value.data(), value.size());
  lua_setfield(lua, -2, name);
}

// Reads t[name] without metamethods and leaves it on the stack.
int RawField(lua_State* lua, int table, const char* name) {
  lua_pushstring(lua, name);
  lua_rawget(lua, table);
  return lua_type(lua, -1);
}

void WriteStatusLine(protocol::ReplyWriter& out, std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  out.Status(line);
}

// {map = t} and {set = t}: every key of t (with its value for a map), in lua_next order.
void WriteHashPart(lua_State* lua, int table, int resp, protocol::ReplyWriter& out,
                   bool with_values) {
  std::size_t count = 0;
  lua_pushnil(lua);
  while (lua_next(lua, table) != 0) {
    ++count;
    lua_pop(lua, 1);
  }
  if (with_values) {
    out.MapHeader(count);
  } else {
    out.SetHeader(count);
  }
  lua_pushnil(lua);
  while (lua_next(lua, table) != 0) {
    WriteLuaValue(lua, -2, resp, out);
    if (with_values) WriteLuaValue(lua, -1, resp, out);
    lua_pop(lua, 1);
  }
}

}  // namespace

std::int64_t TruncateNumber(double value) {
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<std::int64_t>(value);
}

namespace {

// "CODE message", as a reply's error reads after its '-': the first word is the code, unless
// there is no second word.
ErrorParts SplitCoded(std::string_view text) {
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return {"ERR", text};
  return {text.substr(0, space), text.substr(space + 1)};
}

ErrorParts Trimmed(ErrorParts parts) {
  std::string_view& m = parts.message;
  while (!m.empty() && (m.back() == '\r' || m.back() == '\n')) m.remove_suffix(1);
  while (!m.empty() && (m.front() == '\r' || m.front() == '\n')) m.remove_prefix(1);
  return parts;
}

// Pushes {err = "<code> <message>"}. The parts are views: nothing here owns memory that a Lua
// error (an allocation failing under script-memory-limit) could jump over.
void PushParts(lua_State* lua, ErrorParts parts) {
  lua_newtable(lua);
  lua_pushlstring(lua, parts.code.data(), parts.code.size());
  lua_pushlstring(lua, " ", 1);
  lua_pushlstring(lua, parts.message.data(), parts.message.size());
  lua_concat(lua, 3);
  lua_setfield(lua, -2, "err");
}

}  // namespace

ErrorParts SplitErrorText(std::string_view text) {
  if (text.empty() || text[0] != '-') return Trimmed({"ERR", text});
  return Trimmed(SplitCoded(text.substr(1)));
}

void PushErrorTable(lua_State* lua, std::string_view text) {
  // Redis's luaPushErrorBuff logs every error it hands a script while a debugger steps.
  LogScriptError(lua, text);
  PushParts(lua, SplitErrorText(text));
}

void PushReplyErrorTable(lua_State* lua, std::string_view reply_error) {
  PushParts(lua, Trimmed(SplitCoded(reply_error)));
}

std::string ScriptErrorText(std::string_view text) {
  const ErrorParts parts = SplitErrorText(text);
  std::string err;
  err.reserve(parts.code.size() + 1 + parts.message.size());
  err.append(parts.code).append(" ").append(parts.message);
  return err;
}

void WriteErrorPlace(protocol::ReplyWriter& reply, std::string_view sha, std::string_view source,
                     std::string_view line) {
  reply.Raw(" script: ");
  reply.Raw(sha);
  reply.Raw(", on ");
  reply.Raw(source);
  reply.Raw(":");
  reply.Raw(line);
  reply.Raw(".");
}

void PushReply(lua_State* lua, const protocol::Reply& reply, int resp) {
  using protocol::ReplyType;
  if (!lua_checkstack(lua, 5)) {
    PushErrorTable(lua, "reached lua stack limit");
    return;
  }
  switch (reply.type) {
    case ReplyType::kStatus:
      lua_newtable(lua);
      SetStringField(lua, "ok", reply.text);
      return;
    case ReplyType::kError: {
      PushReplyErrorTable(lua, reply.text);
      // The command already counted this error; Redis marks the table so it is not counted again.
      lua_pushboolean(lua, 1);
      lua_setfield(lua, -2, "ignore_error_stats_update");
      return;
    }
    case ReplyType::kInteger:
      lua_pushnumber(lua, static_cast<lua_Number>(reply.integer));
      return;
    case ReplyType::kBulk:
      lua_pushlstring(lua, reply.text.data(), reply.text.size());
      return;
    case ReplyType::kNull:
      if (resp == 3) {
        lua_pushnil(lua);
      } else {
        lua_pushboolean(lua, 0);
      }
      return;
    case ReplyType::kArray:
    case ReplyType::kPush:
      lua_createtable(lua, static_cast<int>(reply.elements.size()), 0);
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        PushReply(lua, reply.elements[i], resp);
        lua_rawseti(lua, -2, static_cast<int>(i + 1));
      }
      return;
    case ReplyType::kSet:
      lua_newtable(lua);
      lua_newtable(lua);
      for (const protocol::Reply& element : reply.elements) {
        PushReply(lua, element, resp);
        lua_pushboolean(lua, 1);
        lua_rawset(lua, -3);
      }
      lua_setfield(lua, -2, "set");
      return;
    case ReplyType::kMap:
      lua_newtable(lua);
      lua_newtable(lua);
      for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
        PushReply(lua, reply.elements[i], resp);
        PushReply(lua, reply.elements[i + 1], resp);
        lua_rawset(lua, -3);
      }
      lua_setfield(lua, -2, "map");
      return;
    case ReplyType::kBoolean:
      lua_pushboolean(lua, reply.boolean ? 1 : 0);
      return;
    case ReplyType::kDouble:
      lua_newtable(lua);
      lua_pushnumber(lua, reply.number);
      lua_setfield(lua, -2, "double");
      return;
    case ReplyType::kBigNumber:
      lua_newtable(lua);
      SetStringField(lua, "big_number", reply.text);
      return;
    case ReplyType::kVerbatim:
      lua_newtable(lua);
      lua_newtable(lua);
      SetStringField(lua, "format", reply.format);
      SetStringField(lua, "string", reply.text);
      lua_setfield(lua, -2, "verbatim_string");
      return;
  }
}

void WriteLuaValue(lua_State* lua, int index, int resp, protocol::ReplyWriter& out) {
  index = index < 0 ? lua_gettop(lua) + index + 1 : index;
  // Redis checks the Lua stack before converting any element, so past the limit every element
  // of the innermost array becomes this error.
  if (!lua_checkstack(lua, 4)) {
    out.Error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(lua, index)) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, index, &len);
      out.Bulk(std::string_view(s, len));
      return;
    }
    case LUA_TBOOLEAN: {
      const bool value = lua_toboolean(lua, index) != 0;
      if (resp == 3) {
        out.Boolean(value);
      } else if (value) {
        out.Integer(1);
      } else {
        out.Null();
      }
      return;
    }
    case LUA_TNUMBER:
      out.Integer(TruncateNumber(lua_tonumber(lua, index)));
      return;
    case LUA_TTABLE:
      break;
    default:
      out.Null();
      return;
  }
  // Tables: the special shapes first, read raw so no metamethod runs.
  const int top = lua_gettop(lua);
  std::size_t len = 0;
  if (RawField(lua, index, "err") == LUA_TSTRING) {
    const char* s = lua_tolstring(lua, -1, &len);
    const std::string_view text(s, len);
    // An error table made from a redis.call reply was counted when the command replied it.
    if (RawField(lua, index, "ignore_error_stats_update") == LUA_TBOOLEAN &&
        lua_toboolean(lua, -1)) {
      out.RepeatedError(text);
    } else {
      out.Error(text);
    }
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "ok") == LUA_TSTRING) {
    const char* s = lua_tolstring(lua, -1, &len);
    WriteStatusLine(out, std::string_view(s, len));
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "double") == LUA_TNUMBER) {
    out.Double(lua_tonumber(lua, -1));
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "big_number") == LUA_TSTRING) {
    const char* s = lua_tolstring(lua, -1, &len);
    std::string digits(s, len);
    for (char& c : digits) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    out.BigNumber(digits);
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "map") == LUA_TTABLE) {
    WriteHashPart(lua, lua_gettop(lua), resp, out, /*with_values=*/true);
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "set") == LUA_TTABLE) {
    WriteHashPart(lua, lua_gettop(lua), resp, out, /*with_values=*/false);
    lua_settop(lua, top);
    return;
  }
  lua_settop(lua, top);
  if (RawField(lua, index, "verbatim_string") == LUA_TTABLE) {
    const int verbatim = lua_gettop(lua);
    if (RawField(lua, verbatim, "string") == LUA_TSTRING) {
      const char* s = lua_tolstring(lua, -1, &len);
      out.Verbatim(std::string_view(s, len));
      lua_settop(lua, top);
      return;
    }
  }
  lua_settop(lua, top);
  // An array: t[1], t[2], ... up to the first nil; the hash part is ignored.
  std::size_t count = 0;
  while (true) {
    lua_rawgeti(lua, index, static_cast<int>(count + 1));
    const bool end = lua_isnil(lua, -1);
    lua_pop(lua, 1);
    if (end) break;
    ++count;
  }
  out.ArrayHeader(count);
  for (std::size_t i = 1; i <= count; ++i) {
    lua_rawgeti(lua, index, static_cast<int>(i));
    WriteLuaValue(lua, -1, resp, out);
    lua_pop(lua, 1);
  }
}

}  // namespace warden::server
