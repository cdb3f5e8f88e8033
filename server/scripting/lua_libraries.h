// The libraries Redis bundles for scripts beyond Lua's own, cjson and bit: struct
// (lua_struct.cc) and cmsgpack (lua_cmsgpack.cc). Each opens its table as a global of that name
// and returns it.
#pragma once

struct lua_State;

namespace warden::server {

int OpenStructLibrary(lua_State* lua);
int OpenCmsgpackLibrary(lua_State* lua);

}  // namespace warden::server
