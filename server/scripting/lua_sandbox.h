// The sandbox Redis puts around scripts, rebuilt on a stock Lua 5.1.
//
// Redis patches its Lua to make tables read-only. Here the same effect comes from proxies: scripts
// see _G and every library table (string, math, table, coroutine, bit, cjson, struct, cmsgpack,
// redis) through empty tables whose metatables read from the real ones and refuse writes with
// Redis's text, "Attempt to modify a readonly table". Reading a global that does not exist raises
// "Script attempted to access nonexistent global variable '<name>'". The functions that could
// reach past a proxy (rawset, setmetatable, rawget, next, pairs, ipairs, unpack and the table
// library) are wrapped to see through or refuse proxies; loadstring and load refuse precompiled
// bytecode and give loaded code the sandboxed globals; os, io, debug, require, dofile, loadfile,
// print, getfenv, setfenv and newproxy are removed.
#pragma once

struct lua_State;

namespace warden::server {

// Opens the allowed libraries into `lua`, installs the wrappers and proxies, and returns a
// registry reference to the sandboxed globals table that compiled scripts get as environment.
// The `redis` table must already be a real global; it is proxied with the libraries.
int InstallSandbox(lua_State* lua);

// Opens the standard libraries Redis exposes (base with coroutine, table, string, math, bit,
// cjson, struct, cmsgpack) into the real globals and removes the ones it does not.
void OpenLibraries(lua_State* lua);

// The environment of function libraries (Redis 7.0's function engine): every library's chunk,
// and so every function it registers, sees one empty read-only table. While a library loads it
// reads through to the load API alone (a `redis` table holding what the caller put in the
// table on top of the stack, which this pops); when its functions run, to the sandboxed globals
// without eval's KEYS and ARGV. Call after InstallSandbox.
void InstallFunctionEnvironment(lua_State* lua);
// Switches what that environment reads through to.
void SetFunctionEnvironmentLoading(lua_State* lua, bool loading);
// Gives the function on top of the stack that environment.
void SetFunctionEnvironment(lua_State* lua);

}  // namespace warden::server
