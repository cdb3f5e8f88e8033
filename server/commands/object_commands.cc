// TOUCH, and the OBJECT and MEMORY containers: what a value looks like inside.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/commands/typed_lookup.h"
#include "server/errors.h"
#include "server/scripting/script_engine.h"
#include "server/stats/memory_meter.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/zset.h"

namespace warden::server {

std::string_view EncodingName(const storage::Entry& e) {
  using storage::Encoding;
  switch (e.encoding()) {
    case Encoding::kString:
    case Encoding::kStringUnshared: {
      // Redis's tryObjectEncoding: a canonical integer of at most 20 characters is shared or
      // int-encoded; otherwise up to 44 bytes live with the object header.
      std::int64_t n = 0;
      const std::string_view v = e.value();
      if (v.size() <= 20 && storage::ParseCanonicalInt64(v, n)) return "int";
      return v.size() <= 44 ? "embstr" : "raw";
    }
    case Encoding::kStringNoInt:
      return e.value().size() <= 44 ? "embstr" : "raw";
    case Encoding::kStringRaw:
      return "raw";
    case Encoding::kHashPacked:
    case Encoding::kZsetPacked:
      return "listpack";
    case Encoding::kHashTable:
    case Encoding::kSetPacked:
    case Encoding::kSetTable:
      return "hashtable";
    case Encoding::kSetInts:
      return "intset";
    case Encoding::kZsetSorted:
      return "skiplist";
    case Encoding::kListPacked:
    case Encoding::kListChunked:
      return "quicklist";
    case Encoding::kStream:
      return "stream";
  }
  return "raw";
}

std::size_t ValueMemoryBytes(const storage::Entry& e, std::size_t samples) {
  std::size_t bytes = storage::Keyspace::BlockBytes(e) + sizeof(void*);  // entry and its bucket
  if (!storage::IsLarge(e.encoding())) return bytes;
  if (e.encoding() == storage::Encoding::kListChunked) {
    return bytes + storage::ListOf(e)->memory_bytes();
  }
  if (e.encoding() == storage::Encoding::kStream) {
    return bytes + storage::StreamOf(e)->memory_bytes();
  }
  const bool zset = e.encoding() == storage::Encoding::kZsetSorted;
  const auto* sorted = zset ? static_cast<const storage::SortedSet*>(e.large()) : nullptr;
  const storage::Keyspace& table = zset ? sorted->members() : *e.table();
  if (zset) bytes += sizeof(storage::SortedSet) + sorted->tree().memory_bytes();
  bytes += table.bucket_bytes() + sizeof(storage::Keyspace);
  // As Redis does, a large value is estimated from its first `samples` elements (0: all).
  std::size_t seen = 0;
  std::size_t seen_bytes = 0;
  table.ForEachUntil([&](const storage::Entry& field) {
    seen_bytes += storage::Keyspace::BlockBytes(field);
    return ++seen < samples || samples == 0;
  });
  if (seen > 0) bytes += seen_bytes * table.size() / seen;
  return bytes;
}

namespace {

using storage::Entry;

// OBJECT's subcommands read the key without expiring it or counting an access (Redis's
// LOOKUP_NOTOUCH), but a key past its deadline is missing all the same.
const Entry* ObjectKey(CommandContext& ctx) {
  return ctx.keyspace().Find(ctx.arg(2), ctx.now_ms, storage::Touch::kNo);
}

void ObjectEncodingCommand(CommandContext& ctx) {
  const Entry* e = ObjectKey(ctx);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(EncodingName(*e));
}

void ObjectRefcountCommand(CommandContext& ctx) {
  const Entry* e = ObjectKey(ctx);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  // Redis shares one object for each integer 0..9999 and reports it as referenced INT_MAX times.
  std::int64_t n = -1;
  const bool shared = e->encoding() == storage::Encoding::kString && EncodingName(*e) == "int" &&
                      storage::ParseCanonicalInt64(e->value(), n) && n >= 0 && n < 10000;
  ctx.reply.Integer(shared ? 2147483647 : 1);
}

// Redis's LFU policies track access frequency instead of idle time (MAXMEMORY_FLAG_LFU).
bool LfuPolicy(const CommandContext& ctx) {
  const std::string& policy = ctx.server.config.maxmemory_policy;
  return policy == "volatile-lfu" || policy == "allkeys-lfu";
}

void ObjectIdletimeCommand(CommandContext& ctx) {
  const Entry* e = ObjectKey(ctx);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (LfuPolicy(ctx)) {
    ctx.reply.Error(
        "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
        "switching between policies at runtime LRU and LFU data will take some time to adjust.");
    return;
  }
  const storage::AccessClock& clock = ctx.server.dbs.access_clock();
  ctx.reply.Integer(storage::AccessClock::IdleSeconds(e->access_stamp(), clock.now));
}

void ObjectFreqCommand(CommandContext& ctx) {
  const Entry* e = ObjectKey(ctx);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!LfuPolicy(ctx)) {
    ctx.reply.Error(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time "
        "to adjust.");
    return;
  }
  ctx.reply.Integer(ctx.server.dbs.access_clock().LfuCounter(e->access_stamp()));
}

void ObjectHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

void MemoryUsageCommand(CommandContext& ctx) {
  std::int64_t samples = 5;
  for (std::size_t j = 3; j < ctx.argc(); ++j) {
    if (ArgIs(ctx.arg(j), "samples") && j + 1 < ctx.argc()) {
      if (!IntegerArg(ctx, ctx.arg(j + 1), samples)) return;
      if (samples < 0) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      ++j;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  // Redis reads its dictionary directly: a key past its deadline still has a size.
  const Entry* e = ctx.keyspace().Peek(ctx.arg(2));
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Integer(
      static_cast<std::int64_t>(ValueMemoryBytes(*e, static_cast<std::size_t>(samples))));
}

std::size_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0;
  unsigned long resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &pages, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// Redis's getMemoryDoctorReport: under 5 MB an instance is "empty"; warden detects none of the
// issues (fragmentation, peaks, big client buffers) Redis looks for beyond that.
void MemoryDoctorCommand(CommandContext& ctx) {
  if (UsedMemory(ctx.server) < 5 * 1024 * 1024) {
    ctx.reply.Verbatim(
        "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill it "
        "with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.\n");
    return;
  }
  ctx.reply.Verbatim(
      "Hi Sam, I can't find any memory issue in your instance. I can only account for what "
      "occurs on this base.\n");
}

// MEMORY STATS with Redis 7.0's fields and order. warden's figures: the allocator's bytes in use
// (no peak is tracked, so the peak is now), clients' query and reply buffers, the script cache,
// and each database's bucket arrays as its hash table overhead (expiry needs no second table).
void MemoryStatsCommand(CommandContext& ctx) {
  const std::size_t allocated = UsedMemory(ctx.server);
  const std::size_t resident = ResidentBytes();
  std::size_t clients = 0;
  if (ctx.server.connections != nullptr) {
    ctx.server.connections->ForEachSession([&clients](const Session& s) {
      clients += s.query_buffer_bytes + s.query_buffer_free + s.output_bytes;
    });
  }
  const std::size_t lua = ctx.server.scripts->scripts_bytes();
  std::size_t overhead = clients + lua;
  std::size_t keys = 0;
  int databases_with_keys = 0;
  for (int i = 0; i < ctx.server.dbs.count(); ++i) {
    const storage::Keyspace& db = ctx.server.dbs.db(i);
    if (db.size() == 0) continue;
    ++databases_with_keys;
    keys += db.size();
    overhead += db.bucket_bytes();
  }
  const double net = static_cast<double>(allocated);
  const std::size_t dataset = allocated > overhead ? allocated - overhead : 0;
  const auto ratio = [](double a, double b) { return b == 0 ? 0.0 : a / b; };
  ctx.reply.MapHeader(27 + static_cast<std::size_t>(databases_with_keys));
  const auto field = [&ctx](std::string_view name, std::int64_t value) {
    ctx.reply.Bulk(name);
    ctx.reply.Integer(value);
  };
  const auto dfield = [&ctx](std::string_view name, double value) {
    ctx.reply.Bulk(name);
    ctx.reply.Double(value);
  };
  field("peak.allocated", static_cast<std::int64_t>(allocated));
  field("total.allocated", static_cast<std::int64_t>(allocated));
  field("startup.allocated", 0);
  field("replication.backlog", 0);
  field("clients.slaves", 0);
  field("clients.normal", static_cast<std::int64_t>(clients));
  field("cluster.links", 0);
  field("aof.buffer", 0);
  field("lua.caches", static_cast<std::int64_t>(lua));
  field("functions.caches", 0);
  for (int i = 0; i < ctx.server.dbs.count(); ++i) {
    const storage::Keyspace& db = ctx.server.dbs.db(i);
    if (db.size() == 0) continue;
    ctx.reply.Bulk("db." + std::to_string(i));
    ctx.reply.MapHeader(2);
    field("overhead.hashtable.main", static_cast<std::int64_t>(db.bucket_bytes()));
    field("overhead.hashtable.expires", 0);
  }
  field("overhead.total", static_cast<std::int64_t>(overhead));
  field("keys.count", static_cast<std::int64_t>(keys));
  field("keys.bytes-per-key", keys == 0 ? 0 : static_cast<std::int64_t>(allocated / keys));
  field("dataset.bytes", static_cast<std::int64_t>(dataset));
  dfield("dataset.percentage", ratio(static_cast<double>(dataset) * 100, net));
  dfield("peak.percentage", 100.0);
  field("allocator.allocated", static_cast<std::int64_t>(allocated));
  field("allocator.active", static_cast<std::int64_t>(allocated));
  field("allocator.resident", static_cast<std::int64_t>(resident));
  dfield("allocator-fragmentation.ratio", 1.0);
  field("allocator-fragmentation.bytes", 0);
  dfield("allocator-rss.ratio", ratio(static_cast<double>(resident), net));
  field("allocator-rss.bytes",
        static_cast<std::int64_t>(resident) - static_cast<std::int64_t>(allocated));
  dfield("rss-overhead.ratio", 1.0);
  field("rss-overhead.bytes", 0);
  dfield("fragmentation", ratio(static_cast<double>(resident), net));
  field("fragmentation.bytes",
        static_cast<std::int64_t>(resident) - static_cast<std::int64_t>(allocated));
}

void MemoryMallocStatsCommand(CommandContext& ctx) {
  ctx.reply.Verbatim("Stats not supported for the current allocator");
}

void MemoryPurgeCommand(CommandContext& ctx) {
  ctx.server.dbs.pool().Trim(SIZE_MAX);
  ctx.reply.Ok();
}

void MemoryHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kObjectTable[] = {
    {"object|encoding",  3, kReadOnly,          ObjectEncodingCommand, 2, 2, 1, "@keyspace @read @slow"},
    {"object|freq",      3, kReadOnly,          ObjectFreqCommand,     2, 2, 1, "@keyspace @read @slow"},
    {"object|help",      2, kLoading | kStale,  ObjectHelpCommand,     0, 0, 0, "@keyspace @slow"},
    {"object|idletime",  3, kReadOnly,          ObjectIdletimeCommand, 2, 2, 1, "@keyspace @read @slow"},
    {"object|refcount",  3, kReadOnly,          ObjectRefcountCommand, 2, 2, 1, "@keyspace @read @slow"},
};

constexpr CommandSpec kMemoryTable[] = {
    {"memory|purge",        2, 0,                  MemoryPurgeCommand,       0, 0, 0, "@slow"},
    {"memory|help",         2, kLoading | kStale,  MemoryHelpCommand,        0, 0, 0, "@slow"},
    {"memory|malloc-stats", 2, 0,                  MemoryMallocStatsCommand, 0, 0, 0, "@slow"},
    {"memory|doctor",       2, 0,                  MemoryDoctorCommand,      0, 0, 0, "@slow"},
    {"memory|stats",        2, 0,                  MemoryStatsCommand,       0, 0, 0, "@slow"},
    {"memory|usage",       -3, kReadOnly,          MemoryUsageCommand,       2, 2, 1, "@read @slow"},
};
// clang-format on

}  // namespace

void TouchCommand(CommandContext& ctx) {
  std::int64_t found = 0;
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.keyspace().Find(ctx.arg(i), ctx.now_ms) != nullptr) {
      ++found;
    } else {
      NotifyKeyMiss(ctx, ctx.arg(i));
    }
  }
  ctx.reply.Integer(found);
}

std::span<const CommandSpec> ObjectSubcommands() { return kObjectTable; }

std::span<const CommandSpec> MemorySubcommands() { return kMemoryTable; }

}  // namespace warden::server
