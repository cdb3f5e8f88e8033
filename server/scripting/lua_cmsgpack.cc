// The `cmsgpack` library Redis bundles for scripts (lua-cmsgpack 0.4.0), written again here with
// the same encoding choices, results and error texts:
//
//   cmsgpack.pack(v1, v2, ...)        the values' MessagePack encodings, concatenated
//   cmsgpack.unpack(s)                every value in s
//   cmsgpack.unpack_one(s [, off])    the next offset (-1 at the end), then one value
//   cmsgpack.unpack_limit(s, n [, off])  the next offset, then up to n values
//
// Encoding: a number with an exact 64-bit integer value is the smallest integer form; any other
// number is a float32 if that holds it exactly, else a float64; strings use fixstr/str8/16/32;
// a table whose keys are exactly 1..n is an array, any other a map (in lua_next's order); a
// table nested 16 deep, and any value of another type, is nil. Decoding knows the forms this
// encoder writes (no bin or ext types): anything else is "Bad data format in input.", a value
// cut short "Missing bytes in input.".
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <lua.hpp>

#include "server/scripting/lua_libraries.h"

namespace warden::server {
namespace {

constexpr int kMaxNesting = 16;

// The bytes packed so far, in a userdata held at a fixed stack slot: Lua's memory, counted against
// script-memory-limit, and left to Lua's collector when packing stops half way, as it does when
// a table's metamethod raises or an allocation fails. A C++ string there would leak: the error
// is a longjmp past its destructor.
class PackBuffer {
 public:
  PackBuffer(lua_State* lua, int slot) : lua_(lua), slot_(slot) {}

  void push_back(char c) {
    Reserve(1);
    data_[size_++] = c;
  }
  void append(const char* s, std::size_t n) {
    Reserve(n);
    std::memcpy(data_ + size_, s, n);
    size_ += n;
  }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  void Reserve(std::size_t more) {
    if (capacity_ - size_ >= more) return;
    const std::size_t capacity = std::max({capacity_ * 2, size_ + more, std::size_t{64}});
    luaL_checkstack(lua_, 1, "in function mp_buf_append");
    auto* grown = static_cast<char*>(lua_newuserdata(lua_, capacity));
    if (size_ > 0) std::memcpy(grown, data_, size_);
    lua_replace(lua_, slot_);
    data_ = grown;
    capacity_ = capacity;
  }

  lua_State* lua_;
  int slot_;
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Big-endian bytes of `value`'s low `n` bytes, after `tag`.
void AppendTagged(PackBuffer& out, unsigned char tag, std::uint64_t value, int n) {
  out.push_back(static_cast<char>(tag));
  for (int shift = (n - 1) * 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void EncodeInteger(PackBuffer& out, std::int64_t n) {
  const auto u = static_cast<std::uint64_t>(n);
  if (n >= 0) {
    if (n <= 127) {
      out.push_back(static_cast<char>(n));
    } else if (n <= 0xff) {
      AppendTagged(out, 0xcc, u, 1);
    } else if (n <= 0xffff) {
      AppendTagged(out, 0xcd, u, 2);
    } else if (n <= 0xffffffffLL) {
      AppendTagged(out, 0xce, u, 4);
    } else {
      AppendTagged(out, 0xcf, u, 8);
    }
  } else if (n >= -32) {
    out.push_back(static_cast<char>(n));
  } else if (n >= -128) {
    AppendTagged(out, 0xd0, u, 1);
  } else if (n >= -32768) {
    AppendTagged(out, 0xd1, u, 2);
  } else if (n >= -2147483648LL) {
    AppendTagged(out, 0xd2, u, 4);
  } else {
    AppendTagged(out, 0xd3, u, 8);
  }
}

void EncodeDouble(PackBuffer& out, double d) {
  const auto f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof(bits));
    AppendTagged(out, 0xca, bits, 4);
  } else {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof(bits));
    AppendTagged(out, 0xcb, bits, 8);
  }
}

// A count (array, map or string length) in the smallest of the three forms each has.
void EncodeLength(PackBuffer& out, std::uint64_t n, unsigned char fix, int fix_max,
                  unsigned char tag16, unsigned char tag32) {
  if (n <= static_cast<std::uint64_t>(fix_max)) {
    out.push_back(static_cast<char>(fix | n));
  } else if (n <= 0xffff) {
    AppendTagged(out, tag16, n, 2);
  } else {
    AppendTagged(out, tag32, n, 4);
  }
}

void EncodeString(PackBuffer& out, const char* s, std::size_t len) {
  if (len >= 32 && len <= 0xff) {
    AppendTagged(out, 0xd9, len, 1);
  } else {
    EncodeLength(out, len, 0xa0, 31, 0xda, 0xdb);
  }
  out.append(s, len);
}

// A Lua number holds an exact int64 when converting it there and back changes nothing (C's cast
// is undefined outside the range, where Redis's x86 build finds no match either).
bool HoldsInt64(lua_Number n) {
  return n >= -9223372036854775808.0 && n < 9223372036854775808.0 &&
         static_cast<lua_Number>(static_cast<std::int64_t>(n)) == n;
}

// lua-cmsgpack's table_is_an_array: every key a positive number with an exact int value, and
// as many keys as the largest.
bool IsArray(lua_State* lua) {
  const int top = lua_gettop(lua);
  luaL_checkstack(lua, 2, "in function table_is_an_array");
  long long count = 0;
  long long max = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pop(lua, 1);
    const lua_Number key = lua_type(lua, -1) == LUA_TNUMBER ? lua_tonumber(lua, -1) : 0;
    if (!(key > 0) || key > INT_MAX || static_cast<lua_Number>(static_cast<int>(key)) != key) {
      lua_settop(lua, top);
      return false;
    }
    max = std::max(max, static_cast<long long>(key));
    ++count;
  }
  lua_settop(lua, top);
  return max == count;
}

void EncodeTop(lua_State* lua, PackBuffer& out, int level);

void EncodeTable(lua_State* lua, PackBuffer& out, int level) {
  if (IsArray(lua)) {
    const std::size_t len = lua_objlen(lua, -1);
    EncodeLength(out, len, 0x90, 15, 0xdc, 0xdd);
    luaL_checkstack(lua, 1, "in function mp_encode_lua_table_as_array");
    for (std::size_t i = 1; i <= len; ++i) {
      lua_pushnumber(lua, static_cast<lua_Number>(i));
      lua_gettable(lua, -2);
      EncodeTop(lua, out, level + 1);
    }
    return;
  }
  luaL_checkstack(lua, 3, "in function mp_encode_lua_table_as_map");
  std::uint64_t len = 0;
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pop(lua, 1);
    ++len;
  }
  EncodeLength(out, len, 0x80, 15, 0xde, 0xdf);
  lua_pushnil(lua);
  while (lua_next(lua, -2) != 0) {
    lua_pushvalue(lua, -2);
    EncodeTop(lua, out, level + 1);  // the key
    EncodeTop(lua, out, level + 1);  // the value
  }
}

// Encodes the value on top of the stack and pops it.
void EncodeTop(lua_State* lua, PackBuffer& out, int level) {
  int type = lua_type(lua, -1);
  // Cyclic tables end here.
  if (type == LUA_TTABLE && level == kMaxNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* s = lua_tolstring(lua, -1, &len);
      EncodeString(out, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      out.push_back(static_cast<char>(lua_toboolean(lua, -1) ? 0xc3 : 0xc2));
      break;
    case LUA_TNUMBER: {
      const lua_Number n = lua_tonumber(lua, -1);
      if (HoldsInt64(n)) {
        EncodeInteger(out, static_cast<std::int64_t>(n));
      } else {
        EncodeDouble(out, n);
      }
      break;
    }
    case LUA_TTABLE:
      EncodeTable(lua, out, level);
      break;
    default:
      out.push_back(static_cast<char>(0xc0));
  }
  lua_pop(lua, 1);
}

int Pack(lua_State* lua) {
  const int argc = lua_gettop(lua);
  if (argc == 0) return luaL_argerror(lua, 0, "MessagePack pack needs input.");
  if (lua_checkstack(lua, argc) == 0) {
    return luaL_argerror(lua, 0, "Too many arguments for MessagePack pack.");
  }
  lua_pushnil(lua);  // the buffer's slot
  PackBuffer out(lua, argc + 1);
  for (int i = 1; i <= argc; ++i) {
    luaL_checkstack(lua, 1, "in function mp_check");
    lua_pushvalue(lua, i);
    EncodeTop(lua, out, 0);
  }
  lua_pushlstring(lua, out.data(), out.size());
  return 1;
}

enum class DecodeError { kNone, kMissing, kBadFormat };

struct Cursor {
  const unsigned char* p;
  std::size_t left;
  DecodeError error = DecodeError::kNone;

  bool Need(std::size_t n) {
    if (left >= n) return true;
    error = DecodeError::kMissing;
    return false;
  }
  void Skip(std::size_t n) {
    p += n;
    left -= n;
  }
  // The big-endian unsigned number in the `n` bytes after the tag.
  std::uint64_t Field(int n) const {
    std::uint64_t v = 0;
    for (int i = 1; i <= n; ++i) v = (v << 8) | p[i];
    return v;
  }
};

void DecodeOne(lua_State* lua, Cursor& c);

void DecodeArray(lua_State* lua, Cursor& c, std::size_t len) {
  lua_newtable(lua);
  luaL_checkstack(lua, 1, "in function mp_decode_to_lua_array");
  for (std::size_t i = 1; i <= len; ++i) {
    lua_pushnumber(lua, static_cast<lua_Number>(i));
    DecodeOne(lua, c);
    if (c.error != DecodeError::kNone) return;
    lua_settable(lua, -3);
  }
}

void DecodeMap(lua_State* lua, Cursor& c, std::size_t len) {
  lua_newtable(lua);
  for (std::size_t i = 0; i < len; ++i) {
    DecodeOne(lua, c);
    if (c.error != DecodeError::kNone) return;
    DecodeOne(lua, c);
    if (c.error != DecodeError::kNone) return;
    lua_settable(lua, -3);
  }
}

void DecodeString(lua_State* lua, Cursor& c, std::size_t header, std::size_t len) {
  if (!c.Need(header + len)) return;
  lua_pushlstring(lua, reinterpret_cast<const char*>(c.p + header), len);
  c.Skip(header + len);
}

// A fixed-size item of `n` bytes after its tag: pushes `value` once the bytes are there.
template <typename Push>
void DecodeFixed(Cursor& c, int n, Push push) {
  if (!c.Need(static_cast<std::size_t>(n) + 1)) return;
  push(c.Field(n));
  c.Skip(static_cast<std::size_t>(n) + 1);
}

void DecodeOne(lua_State* lua, Cursor& c) {
  if (!c.Need(1)) return;
  // Decoded values may outnumber the stack Lua gave the call.
  luaL_checkstack(lua, 1,
                  "too many return values at once; use unpack_one or unpack_limit instead.");
  const auto push_int = [lua](lua_Number n) { lua_pushnumber(lua, n); };
  const unsigned char tag = c.p[0];
  switch (tag) {
    case 0xcc:
    case 0xcd:
    case 0xce: {
      const int n = tag == 0xcc ? 1 : tag == 0xcd ? 2 : 4;
      DecodeFixed(c, n, [&](std::uint64_t v) { push_int(static_cast<lua_Number>(v)); });
      return;
    }
    case 0xcf:
      // Above 2^63 the value wraps negative, as lua_pushinteger does it in Redis.
      DecodeFixed(c, 8, [&](std::uint64_t v) {
        push_int(static_cast<lua_Number>(static_cast<std::int64_t>(v)));
      });
      return;
    case 0xd0:
      DecodeFixed(c, 1, [&](std::uint64_t v) { push_int(static_cast<std::int8_t>(v)); });
      return;
    case 0xd1:
      DecodeFixed(c, 2, [&](std::uint64_t v) { push_int(static_cast<std::int16_t>(v)); });
      return;
    case 0xd2:
      DecodeFixed(c, 4, [&](std::uint64_t v) { push_int(static_cast<std::int32_t>(v)); });
      return;
    case 0xd3:
      DecodeFixed(c, 8, [&](std::uint64_t v) {
        push_int(static_cast<lua_Number>(static_cast<std::int64_t>(v)));
      });
      return;
    case 0xc0:
      lua_pushnil(lua);
      c.Skip(1);
      return;
    case 0xc2:
    case 0xc3:
      lua_pushboolean(lua, tag == 0xc3);
      c.Skip(1);
      return;
    case 0xca:
      DecodeFixed(c, 4, [&](std::uint64_t v) {
        const auto bits = static_cast<std::uint32_t>(v);
        float f = 0;
        std::memcpy(&f, &bits, sizeof(f));
        lua_pushnumber(lua, f);
      });
      return;
    case 0xcb:
      DecodeFixed(c, 8, [&](std::uint64_t bits) {
        double d = 0;
        std::memcpy(&d, &bits, sizeof(d));
        lua_pushnumber(lua, d);
      });
      return;
    case 0xd9:
    case 0xda:
    case 0xdb: {
      const int n = tag == 0xd9 ? 1 : tag == 0xda ? 2 : 4;
      if (!c.Need(static_cast<std::size_t>(n) + 1)) return;
      DecodeString(lua, c, static_cast<std::size_t>(n) + 1, c.Field(n));
      return;
    }
    case 0xdc:
    case 0xdd:
    case 0xde:
    case 0xdf: {
      const int n = tag == 0xdc || tag == 0xde ? 2 : 4;
      if (!c.Need(static_cast<std::size_t>(n) + 1)) return;
      const std::size_t len = c.Field(n);
      c.Skip(static_cast<std::size_t>(n) + 1);
      if (tag <= 0xdd) {
        DecodeArray(lua, c, len);
      } else {
        DecodeMap(lua, c, len);
      }
      return;
    }
    default:
      break;
  }
  if ((tag & 0x80) == 0) {
    push_int(tag);
    c.Skip(1);
  } else if ((tag & 0xe0) == 0xe0) {
    push_int(static_cast<std::int8_t>(tag));
    c.Skip(1);
  } else if ((tag & 0xe0) == 0xa0) {
    DecodeString(lua, c, 1, tag & 0x1f);
  } else if ((tag & 0xf0) == 0x90) {
    c.Skip(1);
    DecodeArray(lua, c, tag & 0xf);
  } else if ((tag & 0xf0) == 0x80) {
    c.Skip(1);
    DecodeMap(lua, c, tag & 0xf);
  } else {
    c.error = DecodeError::kBadFormat;
  }
}

// lua-cmsgpack's mp_unpack_full: `limit` and `offset` both 0 decode everything and return just
// the values; otherwise the next offset (-1 at the end) comes first.
int UnpackFull(lua_State* lua, lua_Integer limit, lua_Integer offset) {
  std::size_t len = 0;
  const char* s = luaL_checklstring(lua, 1, &len);
  const bool everything = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    // Redis's text shows the input's length where it says limit.
    return luaL_error(lua, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<std::size_t>(offset) > len) {
    return luaL_error(lua, "Start offset %d greater than input length %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (everything) limit = INT_MAX;
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset,
           len - static_cast<std::size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    DecodeOne(lua, c);
    if (c.error == DecodeError::kMissing) return luaL_error(lua, "Missing bytes in input.");
    if (c.error == DecodeError::kBadFormat) return luaL_error(lua, "Bad data format in input.");
  }
  if (everything) return count;
  luaL_checkstack(lua, 1, "in function mp_unpack_full");
  lua_pushinteger(lua, c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left));
  // The offset goes before the values, after the one argument left on the stack.
  lua_insert(lua, 2);
  return count + 1;
}

int Unpack(lua_State* lua) { return UnpackFull(lua, 0, 0); }

int UnpackOne(lua_State* lua) {
  const lua_Integer offset = luaL_optinteger(lua, 2, 0);
  lua_pop(lua, lua_gettop(lua) - 1);
  return UnpackFull(lua, 1, offset);
}

int UnpackLimit(lua_State* lua) {
  const lua_Integer limit = luaL_checkinteger(lua, 2);
  const lua_Integer offset = luaL_optinteger(lua, 3, 0);
  lua_pop(lua, lua_gettop(lua) - 1);
  return UnpackFull(lua, limit, offset);
}

}  // namespace

int OpenCmsgpackLibrary(lua_State* lua) {
  lua_newtable(lua);
  const struct {
    const char* name;
    lua_CFunction fn;
  } functions[] = {
      {"pack", Pack}, {"unpack", Unpack}, {"unpack_one", UnpackOne}, {"unpack_limit", UnpackLimit}};
  for (const auto& f : functions) {
    lua_pushcfunction(lua, f.fn);
    lua_setfield(lua, -2, f.name);
  }
  const struct {
    const char* name;
    const char* value;
  } about[] = {{"_NAME", "cmsgpack"},
               {"_VERSION", "lua-cmsgpack 0.4.0"},
               {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
               {"_DESCRIPTION", "MessagePack C implementation for Lua"}};
  for (const auto& a : about) {
    lua_pushstring(lua, a.value);
    lua_setfield(lua, -2, a.name);
  }
  lua_pushvalue(lua, -1);
  lua_setglobal(lua, "cmsgpack");
  return 1;
}

}  // namespace warden::server
