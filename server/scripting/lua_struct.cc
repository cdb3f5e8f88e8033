// The `struct` library Redis bundles for scripts (Roberto Ierusalimschy's struct 0.2 with Redis's
// bounds checks): struct.pack(fmt, ...), struct.unpack(fmt, data [, pos]) and struct.size(fmt),
// written again here with the same formats, results and error texts.
//
// A format is a sequence of options: ">" big endian, "<" little endian, "![n]" alignment (a
// power of two; default the platform's), "x" a zero byte, "b"/"B" "h"/"H" "l"/"L" "T" signed and
// unsigned char, short, long and size_t, "i[n]"/"I[n]" an n-byte integer (1..32; default 4), "f"
// and "d" float and double in native format, "c[n]" n chars ("c0": the whole string when packing,
// the previous number read as the length when unpacking), "s" a zero-terminated string, " "
// nothing. Numbers are Lua numbers (doubles) on both sides.
#include <bit>
#include <cctype>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <lua.hpp>
#include <utility>

#include "server/scripting/lua_libraries.h"

namespace warden::server {
namespace {

constexpr int kMaxIntSize = 32;
// The alignment "!" means without a number: that of a double after a char, at least an int's.
struct CharThenDouble {
  char c;
  double d;
};
constexpr int kMaxAlign = static_cast<int>(
    offsetof(CharThenDouble, d) > sizeof(int) ? offsetof(CharThenDouble, d) : sizeof(int));

enum class Endian { kBig, kLittle };
constexpr Endian kNative =
    std::endian::native == std::endian::little ? Endian::kLittle : Endian::kBig;

struct Header {
  Endian endian = kNative;
  int align = 1;
};

// The digits at *fmt as a number (advancing past them), or `fallback` if there are none.
int ReadCount(lua_State* lua, const char** fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return fallback;
  int n = 0;
  do {
    const int digit = **fmt - '0';
    if (n > INT_MAX / 10 || n * 10 > INT_MAX - digit) luaL_error(lua, "integral size overflow");
    n = n * 10 + digit;
    ++*fmt;
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return n;
}

// The size an option takes in the data (0 for the control options and "s").
std::size_t OptionSize(lua_State* lua, char opt, const char** fmt) {
  switch (opt) {
    case 'b':
    case 'B':
      return sizeof(char);
    case 'h':
    case 'H':
      return sizeof(short);
    case 'l':
    case 'L':
      return sizeof(long);
    case 'T':
      return sizeof(std::size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<std::size_t>(ReadCount(lua, fmt, 1));
    case 'i':
    case 'I': {
      const int size = ReadCount(lua, fmt, sizeof(int));
      if (size > kMaxIntSize) {
        luaL_error(lua, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return static_cast<std::size_t>(size);
    }
    default:
      return 0;
  }
}

// Padding before an item of `size` bytes at offset `at`.
std::size_t Padding(std::size_t at, const Header& h, char opt, std::size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<std::size_t>(h.align)) size = static_cast<std::size_t>(h.align);
  return (size - (at & (size - 1))) & (size - 1);
}

void ControlOption(lua_State* lua, char opt, const char** fmt, Header& h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h.endian = Endian::kBig;
      return;
    case '<':
      h.endian = Endian::kLittle;
      return;
    case '!': {
      const int align = ReadCount(lua, fmt, kMaxAlign);
      if (align <= 0 || (align & (align - 1)) != 0) {
        luaL_error(lua, "alignment %d is not a power of 2", align);
      }
      h.align = align;
      return;
    }
    default:
      luaL_argerror(lua, 1, lua_pushfstring(lua, "invalid format option '%c'", opt));
  }
}

bool IsInteger(char opt) { return std::strchr("bBhHlLTiI", opt) != nullptr; }

// What C's conversion of a double to an unsigned 64-bit integer gives in Redis's x86-64 build,
// defined or not: truncation toward zero (negative values wrap), 0 from 2^64 up, and 2^63 for
// -2^63 and below and for NaN.
std::uint64_t ToUint64AsX86(lua_Number n) {
  if (n >= 9223372036854775808.0) {
    return n < 18446744073709551616.0 ? static_cast<std::uint64_t>(n) : 0;
  }
  if (n > -9223372036854775808.0) return static_cast<std::uint64_t>(static_cast<std::int64_t>(n));
  return std::uint64_t{1} << 63;
}

// A number as `size` bytes of a two's complement integer (only the low 8 bytes carry value;
// any more are zero or sign), as struct's putinteger does through a long.
void PackInteger(lua_State* lua, luaL_Buffer* out, int arg, Endian endian, std::size_t size) {
  const lua_Number n = luaL_checknumber(lua, arg);
  std::uint64_t value = ToUint64AsX86(n);
  char bytes[kMaxIntSize];
  for (std::size_t i = 0; i < size; ++i) {
    bytes[endian == Endian::kLittle ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  luaL_addlstring(out, bytes, size);
}

lua_Number UnpackInteger(const char* data, Endian endian, bool is_signed, std::size_t size) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<unsigned char>(data[endian == Endian::kBig ? i : size - 1 - i]);
    value = (value << 8) | byte;
  }
  // "i0" has no bits, and no sign: 0, as Redis's x86 build computes it (its mask shifts by -1).
  if (!is_signed || size == 0) return static_cast<lua_Number>(value);
  // Sign extension from the item's top bit; an item of 8 bytes or more fills the word already.
  if (size < 8) {
    const std::uint64_t sign = ~std::uint64_t{0} << (size * 8 - 1);
    if ((value & sign) != 0) value |= sign;
  }
  return static_cast<lua_Number>(static_cast<std::int64_t>(value));
}

// Floats and doubles are stored in the machine's format, byte-swapped for the other endianness.
void Reorder(char* bytes, std::size_t size, Endian endian) {
  if (endian == kNative) return;
  for (std::size_t i = 0, j = size - 1; i < j; ++i, --j) std::swap(bytes[i], bytes[j]);
}

template <typename Float>
void PackFloat(luaL_Buffer* out, lua_Number n, Endian endian) {
  const auto value = static_cast<Float>(n);
  char bytes[sizeof(Float)];
  std::memcpy(bytes, &value, sizeof(bytes));
  Reorder(bytes, sizeof(bytes), endian);
  luaL_addlstring(out, bytes, sizeof(bytes));
}

template <typename Float>
lua_Number UnpackFloat(const char* data, Endian endian) {
  char bytes[sizeof(Float)];
  std::memcpy(bytes, data, sizeof(bytes));
  Reorder(bytes, sizeof(bytes), endian);
  Float value = 0;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

int Pack(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  Header h;
  int arg = 2;
  std::size_t total = 0;
  // Marks where the arguments end and the buffer's stack use begins.
  lua_pushnil(lua);
  luaL_Buffer out;
  luaL_buffinit(lua, &out);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    std::size_t size = OptionSize(lua, opt, &fmt);
    std::size_t padding = Padding(total, h, opt, size);
    total += padding;
    while (padding-- > 0) luaL_addchar(&out, '\0');
    if (IsInteger(opt)) {
      PackInteger(lua, &out, arg++, h.endian, size);
    } else if (opt == 'x') {
      luaL_addchar(&out, '\0');
    } else if (opt == 'f') {
      PackFloat<float>(&out, luaL_checknumber(lua, arg++), h.endian);
    } else if (opt == 'd') {
      PackFloat<double>(&out, luaL_checknumber(lua, arg++), h.endian);
    } else if (opt == 'c' || opt == 's') {
      std::size_t len = 0;
      const char* s = luaL_checklstring(lua, arg++, &len);
      if (size == 0) size = len;
      luaL_argcheck(lua, len >= size, arg, "string too short");
      luaL_addlstring(&out, s, size);
      if (opt == 's') {
        luaL_addchar(&out, '\0');
        ++size;
      }
    } else {
      ControlOption(lua, opt, &fmt, h);
    }
    total += size;
  }
  luaL_pushresult(&out);
  return 1;
}

int Unpack(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  std::size_t len = 0;
  const char* data = luaL_checklstring(lua, 2, &len);
  const lua_Integer start = luaL_optinteger(lua, 3, 1);
  luaL_argcheck(lua, start > 0, 3, "offset must be 1 or greater");
  auto at = static_cast<std::size_t>(start - 1);
  Header h;
  int results = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    std::size_t size = OptionSize(lua, opt, &fmt);
    at += Padding(at, h, opt, size);
    luaL_argcheck(lua, size <= len && at <= len - size, 2, "data string too short");
    // The item and, at the end, the next position.
    luaL_checkstack(lua, 2, "too many results");
    if (IsInteger(opt)) {
      const bool is_signed = std::islower(static_cast<unsigned char>(opt)) != 0;
      lua_pushnumber(lua, UnpackInteger(data + at, h.endian, is_signed, size));
      ++results;
    } else if (opt == 'x') {
      // padding: nothing to return
    } else if (opt == 'f' || opt == 'd') {
      lua_pushnumber(lua, opt == 'f' ? UnpackFloat<float>(data + at, h.endian)
                                     : UnpackFloat<double>(data + at, h.endian));
      ++results;
    } else if (opt == 'c') {
      if (size == 0) {
        if (results == 0 || !lua_isnumber(lua, -1)) {
          luaL_error(lua, "format 'c0' needs a previous size");
        }
        const lua_Number previous = lua_tonumber(lua, -1);
        // Converted as Redis's C converts it: a negative length becomes a huge one, which the
        // check below refuses.
        size = ToUint64AsX86(previous);
        lua_pop(lua, 1);
        --results;
        luaL_argcheck(lua, size <= len && at <= len - size, 2, "data string too short");
      }
      lua_pushlstring(lua, data + at, size);
      ++results;
    } else if (opt == 's') {
      const void* end = std::memchr(data + at, '\0', len - at);
      if (end == nullptr) luaL_error(lua, "unfinished string in data");
      size = static_cast<std::size_t>(static_cast<const char*>(end) - (data + at)) + 1;
      lua_pushlstring(lua, data + at, size - 1);
      ++results;
    } else {
      ControlOption(lua, opt, &fmt, h);
    }
    at += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(at + 1));
  return results + 1;
}

int Size(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  Header h;
  std::size_t at = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const std::size_t size = OptionSize(lua, opt, &fmt);
    at += Padding(at, h, opt, size);
    if (opt == 's') {
      luaL_argerror(lua, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(lua, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) ControlOption(lua, opt, &fmt, h);
    at += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(at));
  return 1;
}

}  // namespace

int OpenStructLibrary(lua_State* lua) {
  static const luaL_Reg kFunctions[] = {
      {"pack", Pack}, {"unpack", Unpack}, {"size", Size}, {nullptr, nullptr}};
  luaL_register(lua, "struct", kFunctions);
  return 1;
}

}  // namespace warden::server
