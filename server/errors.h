// Every error text warden sends, byte for byte as Redis 7.0 sends it (without the leading "-",
// which ReplyWriter adds). The texts that embed a name or an argument are helpers that write
// straight into the reply.
#pragma once

#include <span>
#include <string_view>

#include "protocol/reply_writer.h"

namespace warden::server::errors {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kIncrOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoScript = "NOSCRIPT No matching script. Please use EVAL.";
// warden's own: the Lua debugger does blocking I/O on the client's socket, which TLS rules out.
inline constexpr std::string_view kScriptDebugUnsupported =
    "ERR SCRIPT DEBUG is not supported on TLS connections";
// A string that is not a HyperLogLog, and one whose sparse registers do not add up (hyperloglog.c).
inline constexpr std::string_view kNotHll =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";
inline constexpr std::string_view kCorruptHll = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr std::string_view kDbIndexOutOfRange = "ERR DB index is out of range";
// getIntFromObjectOrReply's range error, for values that are integers but not ints (SELECT).
inline constexpr std::string_view kIntOutOfRange =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
// MULTI, EXEC, DISCARD and WATCH (multi.c, and processCommand for kNotAllowedInMulti).
inline constexpr std::string_view kMultiNested = "ERR MULTI calls can not be nested";
inline constexpr std::string_view kExecWithoutMulti = "ERR EXEC without MULTI";
inline constexpr std::string_view kDiscardWithoutMulti = "ERR DISCARD without MULTI";
inline constexpr std::string_view kWatchInsideMulti = "ERR WATCH inside MULTI is not allowed";
inline constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
// Followed by the refusal's text without its leading "-": a refused EXEC (execCommandAbort).
inline constexpr std::string_view kExecAbortBecause =
    "EXECABORT Transaction discarded because of: ";
inline constexpr std::string_view kNotAllowedInMulti =
    "ERR Command not allowed inside a transaction";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kHelloProtoNotInteger =
    "ERR Protocol version is not an integer or out of range";
inline constexpr std::string_view kHelloNoAuth =
    "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH "
    "<user> <pass> option can be used to authenticate the client and select the RESP protocol "
    "version at the same time";
inline constexpr std::string_view kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";
inline constexpr std::string_view kInvalidClientId = "ERR Invalid client ID";
inline constexpr std::string_view kExpireNxAndOthers =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtAndLt =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
// Sent to a client from elsewhere than 127.0.0.1, ::1 or a unix socket while protected mode is on
// and there is no password.
inline constexpr std::string_view kProtectedMode =
    "DENIED Redis is running in protected mode because protected mode is enabled and no password "
    "is set for the default user. In this mode connections are only accepted from the loopback "
    "interface. If you want to connect from external computers to Redis you may adopt one of the "
    "following solutions: 1) Just disable protected mode sending the command 'CONFIG SET "
    "protected-mode no' from the loopback interface by connecting to Redis from the same host the "
    "server is running, however MAKE SURE Redis is not publicly accessible from internet if you do "
    "so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable "
    "the protected mode by editing the Redis configuration file, and setting the protected mode "
    "option to 'no', and then restarting the server. 3) If you started the server manually just "
    "for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication "
    "password for the default user. NOTE: You only need to do one of the above things in order for "
    "the server to start accepting connections from the outside.";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
// Followed by strerror of the failure (Redis's writeCommandsGetDiskErrorMessage).
inline constexpr std::string_view kMisconfAof = "MISCONF Errors writing to the AOF file: ";
inline constexpr std::string_view kMisconfRdb =
    "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
    "disk. Commands that may modify the data set are disabled, because this instance is "
    "configured to report errors during writes if RDB snapshotting fails "
    "(stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB "
    "error.";
inline constexpr std::string_view kBusy =
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
// While a function runs (FCALL).
inline constexpr std::string_view kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
inline constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";
// Redis 8.4 (DELEX, SET IFDEQ/IFDNE): only the digest's length is checked.
// warden's own: entries keep 28 bits of key length.
inline constexpr std::string_view kKeyTooLong = "ERR key is longer than warden's 256 MB limit";
// A hash field or set member is a key of the value's own table: the same limit.
inline constexpr std::string_view kElementTooLong =
    "ERR field or member is longer than warden's 256 MB limit";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kHashNotInteger = "ERR hash value is not an integer";
inline constexpr std::string_view kHashNotFloat = "ERR hash value is not a float";
inline constexpr std::string_view kIncrNanOrInf = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kHashNanOrInf = "ERR value is NaN or Infinity";
inline constexpr std::string_view kOutOfRangePositive =
    "ERR value is out of range, must be positive";
inline constexpr std::string_view kOutOfRange = "ERR value is out of range";
inline constexpr std::string_view kCountOutOfRange =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
inline constexpr std::string_view kOffsetOutOfRange = "ERR offset is out of range";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kNumkeysZero = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kNumkeysTooMany =
    "ERR Number of keys can't be greater than number of args";
inline constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";
// Bitmaps (bitops.c).
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kBitposBit = "ERR The bit argument must be 1 or 0.";
inline constexpr std::string_view kBitopNotOneKey =
    "ERR BITOP NOT must be called with a single source key.";
inline constexpr std::string_view kBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
inline constexpr std::string_view kBitfieldOverflow = "ERR Invalid OVERFLOW type specified";
inline constexpr std::string_view kBitfieldRoWrite =
    "ERR BITFIELD_RO only supports the GET subcommand";
// Sorted sets (t_zset.c).
inline constexpr std::string_view kZsetNanResult = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kZsetRangeNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kZsetLexRangeInvalid =
    "ERR min or max not valid string range item";
inline constexpr std::string_view kZsetWeightNotFloat = "ERR weight value is not a float";
inline constexpr std::string_view kMpopCountZero = "ERR count should be greater than 0";
inline constexpr std::string_view kZaddXxAndNx =
    "ERR XX and NX options at the same time are not compatible";
inline constexpr std::string_view kZaddGtLtNx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
inline constexpr std::string_view kZaddIncrPairs =
    "ERR INCR option supports a single increment-element pair";
inline constexpr std::string_view kZrangeLimitNeedsRange =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
inline constexpr std::string_view kZrangeWithscoresLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
inline constexpr std::string_view kInvalidFirstDb = "ERR invalid first DB index";
inline constexpr std::string_view kInvalidSecondDb = "ERR invalid second DB index";
inline constexpr std::string_view kLcsNotStrings =
    "ERR The specified keys must contain string values";
inline constexpr std::string_view kLcsLenAndIdx =
    "ERR If you want both the length and indexes, please just use IDX.";
inline constexpr std::string_view kDigestLength = "ERR must be exactly 16 hexadecimal characters";
// Lists.
inline constexpr std::string_view kIndexOutOfRange = "ERR index out of range";
inline constexpr std::string_view kLposRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
inline constexpr std::string_view kLposCountNegative = "ERR COUNT can't be negative";
inline constexpr std::string_view kLposMaxlenNegative = "ERR MAXLEN can't be negative";
// Geo (geo.c). The three prefixes are followed by the pair ("%f,%f") or the command as sent.
inline constexpr std::string_view kGeoBadPairPrefix = "ERR invalid longitude,latitude pair ";
inline constexpr std::string_view kGeoFromPrefix =
    "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ";
inline constexpr std::string_view kGeoByPrefix =
    "ERR exactly one of BYRADIUS and BYBOX can be specified for ";
inline constexpr std::string_view kGeoBadUnit =
    "ERR unsupported unit provided. please use M, KM, FT, MI";
inline constexpr std::string_view kGeoNoMember = "ERR could not decode requested zset member";
inline constexpr std::string_view kGeoRadiusNotNumber = "ERR need numeric radius";
inline constexpr std::string_view kGeoRadiusNegative = "ERR radius cannot be negative";
inline constexpr std::string_view kGeoWidthNotNumber = "ERR need numeric width";
inline constexpr std::string_view kGeoHeightNotNumber = "ERR need numeric height";
inline constexpr std::string_view kGeoBoxNegative = "ERR height or width cannot be negative";
inline constexpr std::string_view kGeoCountNotPositive = "ERR COUNT must be > 0";
inline constexpr std::string_view kGeoAnyWithoutCount =
    "ERR the ANY argument requires COUNT argument";
inline constexpr std::string_view kGeoRadiusStoreOptions =
    "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD "
    "options";
inline constexpr std::string_view kGeoSearchStoreOptions =
    "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
// SORT (sort.c).
inline constexpr std::string_view kSortNotDouble =
    "ERR One or more scores can't be converted into double";
inline constexpr std::string_view kSortByDenied =
    "ERR BY option of SORT denied due to insufficient ACL permissions.";
inline constexpr std::string_view kSortGetDenied =
    "ERR GET option of SORT denied due to insufficient ACL permissions.";

// Redis formats the texts below with "%s", so an argument shows only up to its first NUL byte.
inline std::string_view CString(std::string_view arg) { return arg.substr(0, arg.find('\0')); }

// ERR unknown command '<name>', with args beginning with: '<a>' '<b>' (trailing space kept)
void UnknownCommand(protocol::ReplyWriter& reply, std::span<const std::string_view> args);
// ERR unknown subcommand '<sub>'. Try <CONTAINER> HELP.
// Redis's addReplySubcommandSyntaxError: "unknown subcommand or wrong number of arguments for
// '<sub>'. Try <COMMAND> HELP." with the command name upper-cased as sent.
void SubcommandSyntax(protocol::ReplyWriter& reply, std::string_view command, std::string_view sub);
void UnknownSubcommand(protocol::ReplyWriter& reply, std::string_view container,
                       std::string_view sub);
// ERR wrong number of arguments for '<fullname>' command
void WrongArity(protocol::ReplyWriter& reply, std::string_view fullname);
// ERR invalid expire time in '<fullname>' command
void InvalidExpireTime(protocol::ReplyWriter& reply, std::string_view fullname);
// ERR Unsupported option <opt>
void UnsupportedOption(protocol::ReplyWriter& reply, std::string_view option);

}  // namespace warden::server::errors
