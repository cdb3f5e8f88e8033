#include "server/command_table.h"

#include <array>
#include <cstring>
#include <functional>
#include <vector>

#include "server/commands/commands.h"

namespace warden::server {
namespace {

// Arity and flags are Redis 7.0's (COMMAND INFO), so clients that read them see what they expect.
// clang-format off
constexpr CommandSpec kCommandTable[] = {
    // name          arity flags                                   handler             keys      acl categories
    {"get",            2, kReadOnly | kFast,                       GetCommand,         1, 1, 1, "@read @string @fast"},
    {"set",           -3, kWrite | kDenyOom,                       SetCommand,         1, 1, 1, "@write @string @slow"},
    {"setnx",          3, kWrite | kDenyOom | kFast,               SetnxCommand,       1, 1, 1, "@write @string @fast"},
    {"setex",          4, kWrite | kDenyOom,                       SetexCommand,       1, 1, 1, "@write @string @slow"},
    {"psetex",         4, kWrite | kDenyOom,                       PsetexCommand,      1, 1, 1, "@write @string @slow"},
    {"del",           -2, kWrite,                                  DelCommand,         1, -1, 1, "@keyspace @write @slow"},
    {"unlink",        -2, kWrite | kFast,                          DelCommand,         1, -1, 1, "@keyspace @write @fast"},
    {"exists",        -2, kReadOnly | kFast,                       ExistsCommand,      1, -1, 1, "@keyspace @read @fast"},
    {"ttl",            2, kReadOnly | kFast,                       TtlCommand,         1, 1, 1, "@keyspace @read @fast"},
    {"pttl",           2, kReadOnly | kFast,                       PttlCommand,        1, 1, 1, "@keyspace @read @fast"},
    {"expire",        -3, kWrite | kFast,                          ExpireCommand,      1, 1, 1, "@keyspace @write @fast"},
    {"pexpire",       -3, kWrite | kFast,                          PexpireCommand,     1, 1, 1, "@keyspace @write @fast"},
    {"expireat",      -3, kWrite | kFast,                          ExpireatCommand,    1, 1, 1, "@keyspace @write @fast"},
    {"pexpireat",     -3, kWrite | kFast,                          PexpireatCommand,   1, 1, 1, "@keyspace @write @fast"},
    {"persist",        2, kWrite | kFast,                          PersistCommand,     1, 1, 1, "@keyspace @write @fast"},
    {"expiretime",     2, kReadOnly | kFast,                       ExpiretimeCommand,  1, 1, 1, "@keyspace @read @fast"},
    {"pexpiretime",    2, kReadOnly | kFast,                       PexpiretimeCommand, 1, 1, 1, "@keyspace @read @fast"},
    {"type",           2, kReadOnly | kFast,                       TypeCommand,        1, 1, 1, "@keyspace @read @fast"},
    {"scan",          -2, kReadOnly,                               ScanCommand,        0, 0, 0, "@keyspace @read @slow"},
    {"keys",           2, kReadOnly,                               KeysCommand,        0, 0, 0, "@keyspace @read @slow @dangerous"},
    {"randomkey",      1, kReadOnly,                               RandomkeyCommand,   0, 0, 0, "@keyspace @read @slow"},
    {"dbsize",         1, kReadOnly | kFast,                       DbsizeCommand,      0, 0, 0, "@keyspace @read @fast"},
    {"flushdb",       -1, kWrite,                                  FlushdbCommand,     0, 0, 0, "@keyspace @write @slow @dangerous"},
    {"flushall",      -1, kWrite,                                  FlushdbCommand,     0, 0, 0, "@keyspace @write @slow @dangerous"},
    {"incr",           2, kWrite | kDenyOom | kFast,               IncrCommand,        1, 1, 1, "@write @string @fast"},
    {"incrby",         3, kWrite | kDenyOom | kFast,               IncrbyCommand,      1, 1, 1, "@write @string @fast"},
    {"decr",           2, kWrite | kDenyOom | kFast,               DecrCommand,        1, 1, 1, "@write @string @fast"},
    {"decrby",         3, kWrite | kDenyOom | kFast,               DecrbyCommand,      1, 1, 1, "@write @string @fast"},
    // Redis 8.4's Lua-free compare-and-delete and value digest.
    {"delex",         -2, kWrite | kFast,                          DelexCommand,       1, 1, 1, "@write @string @fast"},
    {"digest",         2, kReadOnly | kFast,                       DigestCommand,      1, 1, 1, "@read @string @fast"},
    // The rest of the string commands.
    {"mset",          -3, kWrite | kDenyOom,                       MsetCommand,         1, -1, 2, "@write @string @slow"},
    {"msetnx",        -3, kWrite | kDenyOom,                       MsetnxCommand,       1, -1, 2, "@write @string @slow"},
    {"mget",          -2, kReadOnly | kFast,                       MgetCommand,         1, -1, 1, "@read @string @fast"},
    {"getdel",         2, kWrite | kFast,                          GetdelCommand,       1, 1, 1, "@write @string @fast"},
    {"getex",         -2, kWrite | kFast,                          GetexCommand,        1, 1, 1, "@write @string @fast"},
    {"getset",         3, kWrite | kDenyOom | kFast,               GetsetCommand,       1, 1, 1, "@write @string @fast"},
    {"append",         3, kWrite | kDenyOom | kFast,               AppendCommand,       1, 1, 1, "@write @string @fast"},
    {"strlen",         2, kReadOnly | kFast,                       StrlenCommand,       1, 1, 1, "@read @string @fast"},
    {"getrange",       4, kReadOnly,                               GetrangeCommand,     1, 1, 1, "@read @string @slow"},
    {"setrange",       4, kWrite | kDenyOom,                       SetrangeCommand,     1, 1, 1, "@write @string @slow"},
    {"substr",         4, kReadOnly,                               SubstrCommand,       1, 1, 1, "@read @string @slow"},
    {"incrbyfloat",    3, kWrite | kDenyOom | kFast,               IncrbyfloatCommand,  1, 1, 1, "@write @string @fast"},
    {"lcs",           -3, kReadOnly,                               LcsCommand,          1, 2, 1, "@read @string @slow"},
    // Bitmaps (bitmap_commands.cc, bitfield_commands.cc): strings read and written by bit.
    {"setbit",         4, kWrite | kDenyOom,                       SetbitCommand,       1, 1, 1, "@write @bitmap @slow"},
    {"getbit",         3, kReadOnly | kFast,                       GetbitCommand,       1, 1, 1, "@read @bitmap @fast"},
    {"bitcount",      -2, kReadOnly,                               BitcountCommand,     1, 1, 1, "@read @bitmap @slow"},
    {"bitpos",        -3, kReadOnly,                               BitposCommand,       1, 1, 1, "@read @bitmap @slow"},
    {"bitop",         -4, kWrite | kDenyOom,                       BitopCommand,        2, -1, 1, "@write @bitmap @slow"},
    {"bitfield",      -2, kWrite | kDenyOom,                       BitfieldCommand,     1, 1, 1, "@write @bitmap @slow"},
    {"bitfield_ro",   -2, kReadOnly | kFast,                       BitfieldRoCommand,   1, 1, 1, "@read @bitmap @fast"},
    // HyperLogLog (hyperloglog_commands.cc): strings in Redis's HLL encodings.
    {"pfadd",         -2, kWrite | kDenyOom | kFast,               PfaddCommand,        1, 1, 1, "@write @hyperloglog @fast"},
    {"pfcount",       -2, kReadOnly | kMayReplicate,               PfcountCommand,      1, -1, 1, "@read @hyperloglog @slow"},
    {"pfmerge",       -2, kWrite | kDenyOom,                       PfmergeCommand,      1, -1, 1, "@write @hyperloglog @slow"},
    {"pfdebug",        3, kWrite | kDenyOom | kAdmin,              PfdebugCommand,      2, 2, 1, "@write @hyperloglog @admin @slow @dangerous"},
    {"pfselftest",     1, kAdmin,                                  PfselftestCommand,   0, 0, 0, "@hyperloglog @admin @slow @dangerous"},
    // Hashes.
    {"hset",          -4, kWrite | kDenyOom | kFast,               HsetCommand,         1, 1, 1, "@write @hash @fast"},
    {"hsetnx",         4, kWrite | kDenyOom | kFast,               HsetnxCommand,       1, 1, 1, "@write @hash @fast"},
    {"hget",           3, kReadOnly | kFast,                       HgetCommand,         1, 1, 1, "@read @hash @fast"},
    {"hmset",         -4, kWrite | kDenyOom | kFast,               HmsetCommand,        1, 1, 1, "@write @hash @fast"},
    {"hmget",         -3, kReadOnly | kFast,                       HmgetCommand,        1, 1, 1, "@read @hash @fast"},
    {"hdel",          -3, kWrite | kFast,                          HdelCommand,         1, 1, 1, "@write @hash @fast"},
    {"hlen",           2, kReadOnly | kFast,                       HlenCommand,         1, 1, 1, "@read @hash @fast"},
    {"hstrlen",        3, kReadOnly | kFast,                       HstrlenCommand,      1, 1, 1, "@read @hash @fast"},
    {"hincrby",        4, kWrite | kDenyOom | kFast,               HincrbyCommand,      1, 1, 1, "@write @hash @fast"},
    {"hincrbyfloat",   4, kWrite | kDenyOom | kFast,               HincrbyfloatCommand, 1, 1, 1, "@write @hash @fast"},
    {"hkeys",          2, kReadOnly,                               HkeysCommand,        1, 1, 1, "@read @hash @slow"},
    {"hvals",          2, kReadOnly,                               HvalsCommand,        1, 1, 1, "@read @hash @slow"},
    {"hgetall",        2, kReadOnly,                               HgetallCommand,      1, 1, 1, "@read @hash @slow"},
    {"hexists",        3, kReadOnly | kFast,                       HexistsCommand,      1, 1, 1, "@read @hash @fast"},
    {"hscan",         -3, kReadOnly,                               HscanCommand,        1, 1, 1, "@read @hash @slow"},
    {"hrandfield",    -2, kReadOnly,                               HrandfieldCommand,   1, 1, 1, "@read @hash @slow"},
    // Sets.
    {"sadd",          -3, kWrite | kDenyOom | kFast,               SaddCommand,         1, 1, 1, "@write @set @fast"},
    {"srem",          -3, kWrite | kFast,                          SremCommand,         1, 1, 1, "@write @set @fast"},
    {"smembers",       2, kReadOnly,                               SmembersCommand,     1, 1, 1, "@read @set @slow"},
    {"sismember",      3, kReadOnly | kFast,                       SismemberCommand,    1, 1, 1, "@read @set @fast"},
    {"smismember",    -3, kReadOnly | kFast,                       SmismemberCommand,   1, 1, 1, "@read @set @fast"},
    {"scard",          2, kReadOnly | kFast,                       ScardCommand,        1, 1, 1, "@read @set @fast"},
    {"spop",          -2, kWrite | kFast,                          SpopCommand,         1, 1, 1, "@write @set @fast"},
    {"srandmember",   -2, kReadOnly,                               SrandmemberCommand,  1, 1, 1, "@read @set @slow"},
    {"smove",          4, kWrite | kFast,                          SmoveCommand,        1, 2, 1, "@write @set @fast"},
    {"sinter",        -2, kReadOnly,                               SinterCommand,       1, -1, 1, "@read @set @slow"},
    {"sinterstore",   -3, kWrite | kDenyOom,                       SinterstoreCommand,  1, -1, 1, "@write @set @slow"},
    {"sintercard",    -3, kReadOnly | kMovableKeys,                SintercardCommand,   0, 0, 0, "@read @set @slow"},
    {"sunion",        -2, kReadOnly,                               SunionCommand,       1, -1, 1, "@read @set @slow"},
    {"sunionstore",   -3, kWrite | kDenyOom,                       SunionstoreCommand,  1, -1, 1, "@write @set @slow"},
    {"sdiff",         -2, kReadOnly,                               SdiffCommand,        1, -1, 1, "@read @set @slow"},
    {"sdiffstore",    -3, kWrite | kDenyOom,                       SdiffstoreCommand,   1, -1, 1, "@write @set @slow"},
    {"sscan",         -3, kReadOnly,                               SscanCommand,        1, 1, 1, "@read @set @slow"},
    // Lists.
    {"lpush",         -3, kWrite | kDenyOom | kFast,               LpushCommand,        1, 1, 1, "@write @list @fast"},
    {"rpush",         -3, kWrite | kDenyOom | kFast,               RpushCommand,        1, 1, 1, "@write @list @fast"},
    {"lpushx",        -3, kWrite | kDenyOom | kFast,               LpushxCommand,       1, 1, 1, "@write @list @fast"},
    {"rpushx",        -3, kWrite | kDenyOom | kFast,               RpushxCommand,       1, 1, 1, "@write @list @fast"},
    {"lpop",          -2, kWrite | kFast,                          LpopCommand,         1, 1, 1, "@write @list @fast"},
    {"rpop",          -2, kWrite | kFast,                          RpopCommand,         1, 1, 1, "@write @list @fast"},
    {"llen",           2, kReadOnly | kFast,                       LlenCommand,         1, 1, 1, "@read @list @fast"},
    {"lrange",         4, kReadOnly,                               LrangeCommand,       1, 1, 1, "@read @list @slow"},
    {"lindex",         3, kReadOnly,                               LindexCommand,       1, 1, 1, "@read @list @slow"},
    {"lset",           4, kWrite | kDenyOom,                       LsetCommand,         1, 1, 1, "@write @list @slow"},
    {"linsert",        5, kWrite | kDenyOom,                       LinsertCommand,      1, 1, 1, "@write @list @slow"},
    {"lrem",           4, kWrite,                                  LremCommand,         1, 1, 1, "@write @list @slow"},
    {"ltrim",          4, kWrite,                                  LtrimCommand,        1, 1, 1, "@write @list @slow"},
    {"lpos",          -3, kReadOnly,                               LposCommand,         1, 1, 1, "@read @list @slow"},
    {"lmove",          5, kWrite | kDenyOom,                       LmoveCommand,        1, 2, 1, "@write @list @slow"},
    {"rpoplpush",      3, kWrite | kDenyOom,                       RpoplpushCommand,    1, 2, 1, "@write @list @slow"},
    {"lmpop",         -4, kWrite | kMovableKeys,                   LmpopCommand,        0, 0, 0, "@write @list @slow"},
    // Blocking pops (blocking_commands.cc).
    {"blpop",         -3, kWrite | kNoScript | kBlocking,          BlpopCommand,        1, -2, 1, "@write @list @slow @blocking"},
    {"brpop",         -3, kWrite | kNoScript | kBlocking,          BrpopCommand,        1, -2, 1, "@write @list @slow @blocking"},
    {"blmove",         6, kWrite | kDenyOom | kNoScript | kBlocking, BlmoveCommand,     1, 2, 1, "@write @list @slow @blocking"},
    {"brpoplpush",     4, kWrite | kDenyOom | kNoScript | kBlocking, BrpoplpushCommand, 1, 2, 1, "@write @list @slow @blocking"},
    {"blmpop",        -5, kWrite | kBlocking | kMovableKeys,       BlmpopCommand,       0, 0, 0, "@write @list @slow @blocking"},
    {"bzpopmin",      -3, kWrite | kNoScript | kBlocking | kFast,  BzpopminCommand,     1, -2, 1, "@write @sortedset @fast @blocking"},
    {"bzpopmax",      -3, kWrite | kNoScript | kBlocking | kFast,  BzpopmaxCommand,     1, -2, 1, "@write @sortedset @fast @blocking"},
    {"bzmpop",        -5, kWrite | kBlocking | kMovableKeys,       BzmpopCommand,       0, 0, 0, "@write @sortedset @slow @blocking"},
    // Sorted sets.
    {"zadd",            -4, kWrite | kDenyOom | kFast,             ZaddCommand,             1, 1, 1, "@write @sortedset @fast"},
    {"zincrby",          4, kWrite | kDenyOom | kFast,             ZincrbyCommand,          1, 1, 1, "@write @sortedset @fast"},
    {"zscore",           3, kReadOnly | kFast,                     ZscoreCommand,           1, 1, 1, "@read @sortedset @fast"},
    {"zmscore",         -3, kReadOnly | kFast,                     ZmscoreCommand,          1, 1, 1, "@read @sortedset @fast"},
    {"zcard",            2, kReadOnly | kFast,                     ZcardCommand,            1, 1, 1, "@read @sortedset @fast"},
    {"zcount",           4, kReadOnly | kFast,                     ZcountCommand,           1, 1, 1, "@read @sortedset @fast"},
    {"zlexcount",        4, kReadOnly | kFast,                     ZlexcountCommand,        1, 1, 1, "@read @sortedset @fast"},
    {"zrange",          -4, kReadOnly,                             ZrangeCommand,           1, 1, 1, "@read @sortedset @slow"},
    {"zrangestore",     -5, kWrite | kDenyOom,                     ZrangestoreCommand,      1, 2, 1, "@write @sortedset @slow"},
    {"zrangebyscore",   -4, kReadOnly,                             ZrangebyscoreCommand,    1, 1, 1, "@read @sortedset @slow"},
    {"zrevrangebyscore",  -4, kReadOnly,                             ZrevrangebyscoreCommand, 1, 1, 1, "@read @sortedset @slow"},
    {"zrangebylex",     -4, kReadOnly,                             ZrangebylexCommand,      1, 1, 1, "@read @sortedset @slow"},
    {"zrevrangebylex",  -4, kReadOnly,                             ZrevrangebylexCommand,   1, 1, 1, "@read @sortedset @slow"},
    {"zrevrange",       -4, kReadOnly,                             ZrevrangeCommand,        1, 1, 1, "@read @sortedset @slow"},
    {"zrank",            3, kReadOnly | kFast,                     ZrankCommand,            1, 1, 1, "@read @sortedset @fast"},
    {"zrevrank",         3, kReadOnly | kFast,                     ZrevrankCommand,         1, 1, 1, "@read @sortedset @fast"},
    {"zrem",            -3, kWrite | kFast,                        ZremCommand,             1, 1, 1, "@write @sortedset @fast"},
    {"zremrangebyscore",   4, kWrite,                                ZremrangebyscoreCommand, 1, 1, 1, "@write @sortedset @slow"},
    {"zremrangebyrank",   4, kWrite,                                ZremrangebyrankCommand,  1, 1, 1, "@write @sortedset @slow"},
    {"zremrangebylex",   4, kWrite,                                ZremrangebylexCommand,   1, 1, 1, "@write @sortedset @slow"},
    {"zpopmin",         -2, kWrite | kFast,                        ZpopminCommand,          1, 1, 1, "@write @sortedset @fast"},
    {"zpopmax",         -2, kWrite | kFast,                        ZpopmaxCommand,          1, 1, 1, "@write @sortedset @fast"},
    {"zmpop",           -4, kWrite | kMovableKeys,                 ZmpopCommand,            0, 0, 0, "@write @sortedset @slow"},
    {"zunion",          -3, kReadOnly | kMovableKeys,              ZunionCommand,           0, 0, 0, "@read @sortedset @slow"},
    {"zinter",          -3, kReadOnly | kMovableKeys,              ZinterCommand,           0, 0, 0, "@read @sortedset @slow"},
    {"zdiff",           -3, kReadOnly | kMovableKeys,              ZdiffCommand,            0, 0, 0, "@read @sortedset @slow"},
    {"zunionstore",     -4, kWrite | kDenyOom | kMovableKeys,      ZunionstoreCommand,      1, 1, 1, "@write @sortedset @slow"},
    {"zinterstore",     -4, kWrite | kDenyOom | kMovableKeys,      ZinterstoreCommand,      1, 1, 1, "@write @sortedset @slow"},
    {"zdiffstore",      -4, kWrite | kDenyOom | kMovableKeys,      ZdiffstoreCommand,       1, 1, 1, "@write @sortedset @slow"},
    {"zintercard",      -3, kReadOnly | kMovableKeys,              ZintercardCommand,       0, 0, 0, "@read @sortedset @slow"},
    {"zrandmember",     -2, kReadOnly,                             ZrandmemberCommand,      1, 1, 1, "@read @sortedset @slow"},
    {"zscan",           -3, kReadOnly,                             ZscanCommand,            1, 1, 1, "@read @sortedset @slow"},
    // Geo (geo_commands.cc): sorted sets scored by 52-bit geohashes.
    {"geoadd",        -5, kWrite | kDenyOom,                       GeoaddCommand,       1, 1, 1, "@write @geo @slow"},
    {"geopos",        -2, kReadOnly,                               GeoposCommand,       1, 1, 1, "@read @geo @slow"},
    {"geodist",       -4, kReadOnly,                               GeodistCommand,      1, 1, 1, "@read @geo @slow"},
    {"geohash",       -2, kReadOnly,                               GeohashCommand,      1, 1, 1, "@read @geo @slow"},
    {"geosearch",     -7, kReadOnly,                               GeosearchCommand,    1, 1, 1, "@read @geo @slow"},
    {"geosearchstore", -8, kWrite | kDenyOom,                      GeosearchstoreCommand, 1, 2, 1, "@write @geo @slow"},
    {"georadius",     -6, kWrite | kDenyOom | kMovableKeys,        GeoradiusCommand,    1, 1, 1, "@write @geo @slow"},
    {"georadius_ro",  -6, kReadOnly,                               GeoradiusRoCommand,  1, 1, 1, "@read @geo @slow"},
    {"georadiusbymember", -5, kWrite | kDenyOom | kMovableKeys,    GeoradiusbymemberCommand, 1, 1, 1, "@write @geo @slow"},
    {"georadiusbymember_ro", -5, kReadOnly,                        GeoradiusbymemberRoCommand, 1, 1, 1, "@read @geo @slow"},
    // SORT (sort_command.cc), on lists, sets and sorted sets.
    {"sort",          -2, kWrite | kDenyOom | kMovableKeys,        SortCommand,         1, 1, 1, "@write @set @sortedset @list @slow @dangerous"},
    {"sort_ro",       -2, kReadOnly | kMovableKeys,                SortRoCommand,       1, 1, 1, "@read @set @sortedset @list @slow @dangerous"},
    // Streams.
    {"xadd",          -5, kWrite | kDenyOom | kFast,               XaddCommand,         1, 1, 1, "@write @stream @fast"},
    {"xrange",        -4, kReadOnly,                               XrangeCommand,       1, 1, 1, "@read @stream @slow"},
    {"xrevrange",     -4, kReadOnly,                               XrevrangeCommand,    1, 1, 1, "@read @stream @slow"},
    {"xlen",           2, kReadOnly | kFast,                       XlenCommand,         1, 1, 1, "@read @stream @fast"},
    {"xdel",          -3, kWrite | kFast | kNoWake,                          XdelCommand,         1, 1, 1, "@write @stream @fast"},
    {"xtrim",         -4, kWrite | kNoWake,                                  XtrimCommand,        1, 1, 1, "@write @stream @slow"},
    {"xsetid",        -3, kWrite | kDenyOom | kFast | kNoWake,               XsetidCommand,       1, 1, 1, "@write @stream @fast"},
    {"xread",         -4, kReadOnly | kBlocking | kMovableKeys,    XreadCommand,        0, 0, 0, "@read @stream @slow @blocking"},
    {"xreadgroup",    -7, kWrite | kBlocking | kMovableKeys | kNoWake,       XreadgroupCommand,   0, 0, 0, "@write @stream @slow @blocking"},
    {"xack",          -4, kWrite | kFast | kNoWake,                          XackCommand,         1, 1, 1, "@write @stream @fast"},
    {"xpending",      -3, kReadOnly,                               XpendingCommand,     1, 1, 1, "@read @stream @slow"},
    {"xclaim",        -6, kWrite | kFast | kNoWake,                          XclaimCommand,       1, 1, 1, "@write @stream @fast"},
    {"xautoclaim",    -6, kWrite | kFast | kNoWake,                          XautoclaimCommand,   1, 1, 1, "@write @stream @fast"},
    {"xgroup",        -2, 0,                                       nullptr,             0, 0, 0, "@slow", XgroupSubcommands},
    {"xinfo",         -2, 0,                                       nullptr,             0, 0, 0, "@slow", XinfoSubcommands},
    // Keys of any type.
    {"rename",         3, kWrite,                                  RenameCommand,       1, 2, 1, "@keyspace @write @slow"},
    {"renamenx",       3, kWrite | kFast,                          RenamenxCommand,     1, 2, 1, "@keyspace @write @fast"},
    {"copy",          -3, kWrite | kDenyOom,                       CopyCommand,         1, 2, 1, "@keyspace @write @slow"},
    {"dump",           2, kReadOnly,                               DumpCommand,         1, 1, 1, "@keyspace @read @slow"},
    {"restore",       -4, kWrite | kDenyOom,                       RestoreCommand,      1, 1, 1, "@keyspace @write @slow @dangerous"},
    {"migrate",       -6, kWrite | kMovableKeys,                   MigrateCommand,      3, 3, 1, "@keyspace @write @slow @dangerous"},
    {"move",           3, kWrite | kFast,                          MoveCommand,         1, 1, 1, "@keyspace @write @fast"},
    {"swapdb",         3, kWrite | kFast,                          SwapdbCommand,       0, 0, 0, "@keyspace @write @fast @dangerous"},
    {"touch",         -2, kReadOnly | kFast,                       TouchCommand,        1, -1, 1, "@keyspace @read @fast"},
    {"object",        -2, 0,                                       nullptr,             0, 0, 0, "@slow", ObjectSubcommands},
    {"memory",        -2, 0,                                       nullptr,             0, 0, 0, "@slow", MemorySubcommands},
    {"eval",          -3, kNoScript | kStale | kSkipMonitor | kMayReplicate | kNoMandatoryKeys | kMovableKeys, EvalCommand, 0, 0, 0, "@slow @scripting"},
    {"evalsha",       -3, kNoScript | kStale | kSkipMonitor | kMayReplicate | kNoMandatoryKeys | kMovableKeys, EvalshaCommand, 0, 0, 0, "@slow @scripting"},
    {"eval_ro",       -3, kReadOnly | kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys, EvalRoCommand, 0, 0, 0, "@slow @scripting"},
    {"evalsha_ro",    -3, kReadOnly | kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys, EvalshaRoCommand, 0, 0, 0, "@slow @scripting"},
    {"script",        -2, 0,                                       nullptr,            0, 0, 0, "@slow", ScriptSubcommands},
    {"fcall",         -3, kNoScript | kStale | kSkipMonitor | kMayReplicate | kNoMandatoryKeys | kMovableKeys, FcallCommand, 0, 0, 0, "@slow @scripting"},
    {"fcall_ro",      -3, kReadOnly | kNoScript | kStale | kSkipMonitor | kNoMandatoryKeys | kMovableKeys, FcallRoCommand, 0, 0, 0, "@slow @scripting"},
    {"function",      -2, 0,                                       nullptr,            0, 0, 0, "@slow", FunctionSubcommands},
    {"ping",          -1, kFast,                                   PingCommand,        0, 0, 0, "@fast @connection"},
    {"lolwut",        -1, kReadOnly | kFast,                       LolwutCommand,      0, 0, 0, "@read @fast"},
    {"echo",           2, kLoading | kStale | kFast,               EchoCommand,        0, 0, 0, "@fast @connection"},
    {"quit",          -1, kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy, QuitCommand, 0, 0, 0, "@fast @connection"},
    {"reset",          1, kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy, ResetCommand, 0, 0, 0, "@fast @connection"},
    {"select",         2, kLoading | kStale | kFast,               SelectCommand,      0, 0, 0, "@fast @connection"},
    {"hello",         -1, kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy, HelloCommand, 0, 0, 0, "@fast @connection"},
    {"auth",          -2, kNoScript | kLoading | kStale | kFast | kNoAuth | kAllowBusy, AuthCommand, 0, 0, 0, "@fast @connection"},
    {"client",        -2, 0,                                       nullptr,            0, 0, 0, "@slow", ClientSubcommands},
    {"info",          -1, kLoading | kStale,                       InfoCommand,        0, 0, 0, "@slow @dangerous"},
    {"bgrewriteaof",   1, kAdmin | kNoScript,                      BgrewriteaofCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"save",           1, kAdmin | kNoScript | kNoAsyncLoading | kNoMulti, SaveCommand,        0, 0, 0, "@admin @slow @dangerous"},
    {"bgsave",        -1, kAdmin | kNoScript | kNoAsyncLoading,    BgsaveCommand,      0, 0, 0, "@admin @slow @dangerous"},
    {"lastsave",       1, kLoading | kStale | kFast,               LastsaveCommand,    0, 0, 0, "@admin @fast @dangerous"},
    {"command",       -1, kLoading | kStale,                       CommandCommand,     0, 0, 0, "@slow @connection", CommandSubcommands},
    {"config",        -2, 0,                                       nullptr,            0, 0, 0, "@slow", ConfigSubcommands},
    {"slowlog",       -2, 0,                                       nullptr,            0, 0, 0, "@slow", SlowlogSubcommands},
    {"latency",       -2, 0,                                       nullptr,            0, 0, 0, "@slow", LatencySubcommands},
    {"time",           1, kLoading | kStale | kFast,               TimeCommand,        0, 0, 0, "@fast"},
    {"wait",           3, kNoScript,                               WaitCommand,        0, 0, 0, "@slow @connection"},
    // Replication.
    {"sync",           1, kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, SyncCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"psync",         -3, kAdmin | kNoScript | kNoMulti | kNoAsyncLoading, SyncCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"replconf",      -1, kAdmin | kNoScript | kLoading | kStale | kAllowBusy, ReplconfCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"replicaof",      3, kAdmin | kNoScript | kStale | kNoAsyncLoading, ReplicaofCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"slaveof",        3, kAdmin | kNoScript | kStale | kNoAsyncLoading, ReplicaofCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"failover",      -1, kAdmin | kNoScript | kStale,             FailoverCommand,    0, 0, 0, "@admin @slow @dangerous"},
    {"role",           1, kNoScript | kLoading | kStale | kFast,   RoleCommand,        0, 0, 0, "@admin @fast @dangerous"},
    // Pub/sub and MONITOR.
    {"subscribe",     -2, kPubSub | kNoScript | kLoading | kStale, SubscribeCommand,    0, 0, 0, "@pubsub @slow"},
    {"unsubscribe",   -1, kPubSub | kNoScript | kLoading | kStale, UnsubscribeCommand,  0, 0, 0, "@pubsub @slow"},
    {"psubscribe",    -2, kPubSub | kNoScript | kLoading | kStale, PsubscribeCommand,   0, 0, 0, "@pubsub @slow"},
    {"punsubscribe",  -1, kPubSub | kNoScript | kLoading | kStale, PunsubscribeCommand, 0, 0, 0, "@pubsub @slow"},
    {"ssubscribe",    -2, kPubSub | kNoScript | kLoading | kStale, SsubscribeCommand,   1, -1, 1, "@pubsub @slow"},
    {"sunsubscribe",  -1, kPubSub | kNoScript | kLoading | kStale, SunsubscribeCommand, 1, -1, 1, "@pubsub @slow"},
    {"publish",        3, kPubSub | kLoading | kStale | kFast | kMayReplicate, PublishCommand, 0, 0, 0, "@pubsub @fast"},
    {"spublish",       3, kPubSub | kLoading | kStale | kFast | kMayReplicate, SpublishCommand, 1, 1, 1, "@pubsub @fast"},
    {"pubsub",        -2, 0,                                       nullptr,            0, 0, 0, "@slow", PubsubSubcommands},
    {"monitor",        1, kAdmin | kNoScript | kLoading | kStale,  MonitorCommand,     0, 0, 0, "@admin @slow @dangerous"},
    // Transactions (transaction_commands.cc).
    {"multi",          1, kNoScript | kLoading | kStale | kFast | kAllowBusy, MultiCommand, 0, 0, 0, "@fast @transaction"},
    {"exec",           1, kNoScript | kLoading | kStale | kSkipSlowlog, ExecCommand, 0, 0, 0, "@slow @transaction"},
    {"discard",        1, kNoScript | kLoading | kStale | kFast | kAllowBusy, DiscardCommand, 0, 0, 0, "@fast @transaction"},
    {"watch",         -2, kNoScript | kLoading | kStale | kFast | kAllowBusy, WatchCommand, 1, -1, 1, "@fast @transaction"},
    {"unwatch",        1, kNoScript | kLoading | kStale | kFast | kAllowBusy, UnwatchCommand, 0, 0, 0, "@fast @transaction"},
    {"debug",         -2, kAdmin | kNoScript | kLoading | kStale | kProtected, DebugCommand, 0, 0, 0, "@admin @slow @dangerous"},
    // The operator's commands (shutdown_commands.cc, acl_commands.cc).
    {"shutdown",      -1, kAdmin | kNoScript | kLoading | kStale | kAllowBusy | kNoMulti, ShutdownCommand, 0, 0, 0, "@admin @slow @dangerous"},
    {"acl",           -2, 0,                                       nullptr,            0, 0, 0, "@slow", AclSubcommands},
};
// clang-format on

// Lower-cases `name` into `buf`; false if it is longer than any command name.
bool FoldName(std::string_view name, char* buf, std::size_t size, std::string_view& out) {
  if (name.size() > size) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    buf[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  }
  out = std::string_view(buf, name.size());
  return true;
}

constexpr std::size_t kMaxNameLength = 32;

constexpr std::uint32_t NameHash(std::string_view lower) {
  std::uint32_t h = 2166136261u;
  for (char c : lower) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// An open-addressing index over kCommandTable, built at compile time.
constexpr std::size_t kIndexSlots = 512;
static_assert(std::size(kCommandTable) < kIndexSlots / 2);

constexpr std::array<const CommandSpec*, kIndexSlots> BuildIndex() {
  std::array<const CommandSpec*, kIndexSlots> slots{};
  for (const CommandSpec& spec : kCommandTable) {
    std::size_t i = NameHash(spec.name) & (kIndexSlots - 1);
    while (slots[i] != nullptr) i = (i + 1) & (kIndexSlots - 1);
    slots[i] = &spec;
  }
  return slots;
}

constexpr std::array<const CommandSpec*, kIndexSlots> kCommandIndex = BuildIndex();

}  // namespace

std::span<const CommandSpec> Commands() { return kCommandTable; }

const CommandSpec* FindCommand(std::span<const CommandSpec> table, std::string_view name) {
  char buf[kMaxNameLength];
  std::string_view lower;
  if (!FoldName(name, buf, sizeof(buf), lower)) return nullptr;
  for (const CommandSpec& spec : table) {
    if (spec.short_name() == lower) return &spec;
  }
  return nullptr;
}

const CommandSpec* FindTopLevelCommand(std::string_view name) {
  // Every request comes here: the name is lower-cased and hashed in one pass (NameHash's), and
  // compared with a candidate byte by byte rather than through memcmp.
  if (name.size() > kMaxNameLength) return nullptr;
  char buf[kMaxNameLength];
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    buf[i] = lower;
    h = (h ^ static_cast<unsigned char>(lower)) * 16777619u;
  }
  for (std::size_t i = h & (kIndexSlots - 1);; i = (i + 1) & (kIndexSlots - 1)) {
    const CommandSpec* spec = kCommandIndex[i];
    if (spec == nullptr) return nullptr;
    if (spec->name.size() != name.size()) continue;
    std::size_t k = 0;
    while (k < name.size() && spec->name[k] == buf[k]) ++k;
    if (k == name.size()) return spec;
  }
}

namespace {

// Each table (the top level, then each container's) as a range of ids.
struct IdRange {
  const CommandSpec* begin;
  const CommandSpec* end;
  std::uint16_t first;
};

struct IdTables {
  std::vector<IdRange> ranges;
  std::vector<const CommandSpec*> by_id;
};

void AddTable(std::span<const CommandSpec> table, IdTables& out) {
  // The table's own entries get consecutive ids; its containers' subcommands come after.
  out.ranges.push_back(
      {table.data(), table.data() + table.size(), static_cast<std::uint16_t>(out.by_id.size())});
  for (const CommandSpec& spec : table) out.by_id.push_back(&spec);
  for (const CommandSpec& spec : table) {
    if (spec.is_container()) AddTable(spec.subcommands(), out);
  }
}

const IdTables& Ids() {
  static const IdTables* tables = [] {
    auto* t = new IdTables;
    AddTable(Commands(), *t);
    return t;
  }();
  return *tables;
}

}  // namespace

std::uint16_t CommandId(const CommandSpec& spec) {
  for (const IdRange& r : Ids().ranges) {
    // Compared as addresses: std::less gives a total order over unrelated arrays.
    if (!std::less<const CommandSpec*>()(&spec, r.begin) &&
        std::less<const CommandSpec*>()(&spec, r.end)) {
      return static_cast<std::uint16_t>(r.first + (&spec - r.begin));
    }
  }
  return 0;  // not a table entry: never asked
}

std::size_t CommandIdCount() { return Ids().by_id.size(); }

const CommandSpec& CommandById(std::uint16_t id) { return *Ids().by_id[id]; }

void ReplyHelp(protocol::ReplyWriter& reply, std::span<const std::string_view> lines) {
  reply.ArrayHeader(lines.size());
  for (std::string_view line : lines) reply.Status(line);
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (fold(a[i]) != fold(b[i])) return false;
  }
  return true;
}

bool ArgIs(std::string_view arg, std::string_view lower_name) {
  if (arg.size() != lower_name.size()) return false;
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const char c = arg[i];
    const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    if (lower != lower_name[i]) return false;
  }
  return true;
}

}  // namespace warden::server
