// The Lua debugger's text, without Lua or sockets: how replies and strings are shown, the
// trimming to `maxlen`, the source listing's lines, and the debugging client's requests. Each
// function follows the Redis 7.0 function named beside it (eval.c, sds.c), byte for byte.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::server::ldb {

// Redis's LDB_MAX_LEN_DEFAULT: replies and values logged are cut past this many bytes.
inline constexpr std::size_t kDefaultMaxLen = 256;

// C's atoi on a view: leading spaces, a sign, then digits up to the first other byte.
int Atoi(std::string_view s);

// Appends one RESP reply read from the start of `resp` as the debugger shows it, and returns how
// many bytes it took (ldbRedisProtocolToHuman): integers bare, bulk strings quoted, a null bulk
// or array as NULL, status and error lines quoted with their '+' or '-', arrays in [], sets in
// ~(), maps in {k => v}, RESP3's null, booleans and doubles as (null), #true/#false,
// (double) <text>. Types Redis does not show (big numbers, verbatim strings, pushes, attributes)
// add nothing. `resp` must hold a whole reply, as a command's writer leaves it.
std::size_t AppendReplyText(std::string& out, std::string_view resp);

// The error replies in one RESP reply, without their '-', in the order Redis converts them
// to Lua (each is logged as "<error> -<text>").
void CollectErrors(std::string_view resp, std::vector<std::string_view>& errors);

// Cuts `entry` to `maxlen` bytes and adds " ..." when it is longer and `maxlen` is not 0
// (ldbLogWithMaxLen). Returns whether it did.
bool TrimToMaxLen(std::string& entry, std::size_t maxlen);

// The "maxlen <len>" argument as ldbMaxlen reads it: atoi, then anything from 1 to 60 (and any
// negative number) becomes 60; 0 means unlimited.
std::size_t ParseMaxLen(std::string_view arg);

// A listing line (ldbLogSourceLine): "->" marks the current line, "#" a breakpoint, then the
// number left-aligned in three columns and the source.
std::string SourceLine(int number, std::string_view source, bool current, bool breakpoint);

// The script split at '\n' after dropping trailing CR and LF, as ldbStartSession splits it.
std::vector<std::string> SplitSource(std::string_view body);

// The debugging client's next request (ldbReplParseCommand), a forgiving RESP array reader:
// skips to the first '*', accepts 1 to 1024 arguments of 1 to 1024 bytes each.
enum class ReplParse { kNeedMore, kError, kCommand };
ReplParse ParseReplCommand(std::string_view buffer, std::vector<std::string>& args);

// The text "help" answers (ldbRepl).
std::span<const std::string_view> HelpLines();

}  // namespace warden::server::ldb
