// libFuzzer target: an RDB file, a DUMP payload or a FUNCTION DUMP payload from outside must load
// or be refused cleanly, and whatever loads must survive being written out and read back.
//
// The first byte says what the rest is and how it is read:
//   bits 0-1  0: an RDB file, loaded as start-up loads one into the server of fuzz_harness.h
//             1: a payload for RESTORE k 0 <payload> REPLACE, sent through the dispatcher
//             2: a payload for FUNCTION RESTORE
//             3: an RDB file loaded as DEBUG RELOAD MERGE and an append-only base do: duplicate
//                keys replace, expired keys stay
//   bit 2     tight encoding limits (two elements per packed value and list node), so loading
//             converts what a payload packs
//   bit 3     checksums as given; without it the file's CRC is not checked and a payload's
//             footer is recomputed, so mutated inputs get past both
//   bit 4     rdbcompression no (what is written back is not LZF-compressed)
// Checked besides the sanitizers: the keyspace passes its checks; every key reads the same
// forwards and backwards, and the first ones answer read and write commands; a refused payload
// leaves the target key as it was, and a refused FUNCTION RESTORE the libraries; a restored key
// DUMPs to a payload that RESTOREs (+OK) to the same value, and restored libraries FUNCTION DUMP
// to a payload that restores them again; and the whole data set, written with WriteRdb, loads
// again into a fresh server without error, to the same keys, values, deadlines and libraries.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "server/persistence/rdb_file.h"
#include "storage/hash.h"
#include "storage/list.h"
#include "storage/rdb/crc64.h"
#include "storage/rdb/value_codec.h"
#include "storage/set.h"
#include "storage/stream.h"
#include "storage/stream_group.h"
#include "storage/zset.h"

namespace warden::fuzz {
namespace {

namespace rdb = storage::rdb;

constexpr std::uint8_t kModeMask = 3;
constexpr std::uint8_t kModeFile = 0;
constexpr std::uint8_t kModeRestore = 1;
constexpr std::uint8_t kModeFunctionRestore = 2;
constexpr std::uint8_t kModeFileMerge = 3;
constexpr std::uint8_t kTightLimits = 4;
constexpr std::uint8_t kKeepChecksums = 8;
constexpr std::uint8_t kNoCompression = 16;

// Keys that also get commands: each command re-checks the whole keyspace, so doing this for
// every key of a file with thousands would make an input quadratic.
constexpr std::size_t kKeysWithCommands = 16;

struct Options {
  bool tight_limits = false;
  bool keep_checksums = false;
  bool compression = true;
};

void Configure(FuzzServer& server, const Options& options) {
  server::Config& config = server.state().config;
  config.rdbchecksum = options.keep_checksums;
  config.rdbcompression = options.compression;
  if (options.tight_limits) {
    storage::EncodingLimits& limits = config.encoding;
    limits.hash_max_listpack_entries = 2;
    limits.hash_max_listpack_value = 8;
    limits.set_max_intset_entries = 2;
    limits.zset_max_listpack_entries = 2;
    limits.zset_max_listpack_value = 8;
    limits.list_max_listpack_size = 2;
    limits.stream_node_max_entries = 2;
  }
}

// A RESP bulk string's bytes, or false for anything else (a null, an error).
bool BulkOf(std::string_view reply, std::string& out) {
  if (reply.empty() || reply[0] != '$') return false;
  const std::size_t cr = reply.find("\r\n");
  const std::string_view length = reply.substr(1, cr - 1);
  if (length == "-1") return false;
  const std::size_t n = std::stoul(std::string(length));
  out.assign(reply.substr(cr + 2, n));
  return true;
}

// The value of `e`, spelled so that two equal values spell the same whatever order their table
// keeps: the type, then the elements (sorted for sets and hashes). Not the encoding: a value
// rebuilt from its elements may convert at another point (an intset that overflowed into a table
// comes back packed when a string member arrives first), and Redis does not keep encodings
// across DUMP and RESTORE either. Also checks that the value reads the same both ways and that
// its size agrees with what is visited.
std::string Describe(const storage::Entry& e) {
  std::string out(1, static_cast<char>(storage::TypeOf(e.encoding())));
  const auto add = [&out](std::string_view s) {
    out += std::to_string(s.size());
    out.push_back(':');
    out.append(s);
  };
  switch (storage::TypeOf(e.encoding())) {
    case storage::ValueType::kString:
      add(e.value());
      break;
    case storage::ValueType::kList: {
      std::vector<std::string> forward;
      std::vector<std::string> backward;
      storage::ListForEachFrom(e, 0, [&](std::string_view item) {
        forward.emplace_back(item);
        return true;
      });
      storage::ListForEachReverse(e, [&](std::string_view item) {
        backward.emplace_back(item);
        return true;
      });
      std::reverse(backward.begin(), backward.end());
      Check(forward == backward, "a list reads the same backwards");
      Check(!forward.empty() && forward.size() == storage::ListLength(e),
            "a list's length counts its elements");
      for (const std::string& item : forward) add(item);
      break;
    }
    case storage::ValueType::kSet: {
      std::vector<std::string> members;
      storage::SetForEach(e, [&](std::string_view m) { members.emplace_back(m); });
      std::sort(members.begin(), members.end());
      Check(std::adjacent_find(members.begin(), members.end()) == members.end(),
            "a set holds no member twice");
      Check(!members.empty() && members.size() == storage::SetSize(e),
            "a set's size counts its members");
      for (const std::string& m : members) add(m);
      break;
    }
    case storage::ValueType::kHash: {
      std::vector<std::pair<std::string, std::string>> pairs;
      storage::HashForEach(
          e, [&](std::string_view f, std::string_view v) { pairs.emplace_back(f, v); });
      std::sort(pairs.begin(), pairs.end());
      Check(std::adjacent_find(pairs.begin(), pairs.end(),
                               [](const auto& a, const auto& b) { return a.first == b.first; }) ==
                pairs.end(),
            "a hash holds no field twice");
      Check(!pairs.empty() && pairs.size() == storage::HashLength(e),
            "a hash's length counts its fields");
      for (const auto& [f, v] : pairs) {
        add(f);
        add(v);
      }
      break;
    }
    case storage::ValueType::kZset: {
      std::vector<std::pair<std::string, double>> forward;
      std::vector<std::pair<std::string, double>> backward;
      const std::size_t size = storage::ZsetSize(e);
      Check(size > 0, "a sorted set is not empty");
      storage::ZsetVisit(e, 0, false, [&](std::string_view m, double score) {
        forward.emplace_back(m, score);
        return true;
      });
      storage::ZsetVisit(e, size - 1, true, [&](std::string_view m, double score) {
        backward.emplace_back(m, score);
        return true;
      });
      std::reverse(backward.begin(), backward.end());
      Check(forward.size() == size, "a sorted set's size counts its members");
      Check(forward == backward, "a sorted set reads the same backwards");
      Check(std::is_sorted(forward.begin(), forward.end(),
                           [](const auto& a, const auto& b) {
                             return a.second < b.second ||
                                    (a.second == b.second && a.first < b.first);
                           }),
            "a sorted set is in (score, member) order");
      for (const auto& [m, score] : forward) {
        add(m);
        char bits[sizeof score];
        std::memcpy(bits, &score, sizeof score);
        add(std::string_view(bits, sizeof bits));
      }
      break;
    }
    case storage::ValueType::kStream: {
      // A stream's nodes, counters and groups are all in its RDB form, in a fixed order.
      rdb::RdbWriter w(false);
      rdb::WriteValue(w, e);
      add(w.buffer());
      break;
    }
  }
  return out;
}

// Prints two descriptions that should agree, escaped, before the check that fails on them.
void PrintMismatch(std::string_view a, std::string_view b) {
  for (const std::string_view s : {a, b}) {
    std::string out;
    for (const char c : s.substr(0, 2000)) {
      if (c >= 0x20 && c < 0x7F && c != '\\') {
        out.push_back(c);
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
        out += hex;
      }
    }
    std::fprintf(stderr, "value: %s\n", out.c_str());
  }
}

std::vector<std::string> KeysOf(const storage::Keyspace& keyspace) {
  std::vector<std::string> keys;
  keyspace.ForEach([&](const storage::Entry& e) { keys.emplace_back(e.key()); });
  return keys;
}

// Read commands on `key` for its type, then a few writes on it: all must answer one
// well-formed reply each (FuzzServer::Run checks that, and the keyspace after each).
void RunCommands(FuzzServer& server, std::string_view key) {
  const storage::Entry* e = server.state().dbs.db(0).Peek(key);
  if (e == nullptr) return;
  std::vector<std::vector<std::string>> commands = {
      {"TYPE", "{k}"}, {"OBJECT", "ENCODING", "{k}"}, {"MEMORY", "USAGE", "{k}"}};
  const auto add = [&](std::vector<std::vector<std::string>> more) {
    for (auto& c : more) commands.push_back(std::move(c));
  };
  switch (storage::TypeOf(e->encoding())) {
    case storage::ValueType::kString:
      add({{"GET", "{k}"},
           {"STRLEN", "{k}"},
           {"GETRANGE", "{k}", "-3", "-1"},
           {"APPEND", "{k}", "x"},
           {"INCR", "{k}"}});
      break;
    case storage::ValueType::kList:
      add({{"LRANGE", "{k}", "0", "-1"},
           {"LINDEX", "{k}", "-1"},
           {"LPOS", "{k}", "a"},
           {"LPUSH", "{k}", "x"},
           {"RPOP", "{k}"},
           {"LINSERT", "{k}", "BEFORE", "a", "y"},
           {"LTRIM", "{k}", "1", "-2"}});
      break;
    case storage::ValueType::kSet:
      add({{"SMEMBERS", "{k}"},
           {"SISMEMBER", "{k}", "1"},
           {"SRANDMEMBER", "{k}", "-3"},
           {"SADD", "{k}", "x", "2"},
           {"SPOP", "{k}"}});
      break;
    case storage::ValueType::kHash:
      add({{"HGETALL", "{k}"},
           {"HRANDFIELD", "{k}", "-3", "WITHVALUES"},
           {"HSET", "{k}", "x", "1"},
           {"HINCRBY", "{k}", "x", "2"},
           {"HDEL", "{k}", "a"}});
      break;
    case storage::ValueType::kZset:
      add({{"ZRANGE", "{k}", "0", "-1", "WITHSCORES"},
           {"ZRANGEBYSCORE", "{k}", "-inf", "+inf", "LIMIT", "1", "3"},
           {"ZRANGE", "{k}", "[a", "+", "BYLEX"},
           {"ZRANK", "{k}", "a"},
           {"ZADD", "{k}", "1.5", "x"},
           {"ZINCRBY", "{k}", "1", "a"},
           {"ZPOPMIN", "{k}"}});
      break;
    case storage::ValueType::kStream: {
      add({{"XRANGE", "{k}", "-", "+"},
           {"XREVRANGE", "{k}", "+", "-", "COUNT", "3"},
           {"XINFO", "STREAM", "{k}"},
           {"XINFO", "STREAM", "{k}", "FULL"},
           {"XINFO", "GROUPS", "{k}"}});
      std::vector<std::string> groups;
      if (const storage::StreamGroups* all = storage::StreamOf(*e)->groups_if_any()) {
        for (const auto& [name, group] : all->all()) groups.push_back(name);
      }
      for (const std::string& g : groups) {
        add({{"XINFO", "CONSUMERS", "{k}", g},
             {"XPENDING", "{k}", g},
             {"XPENDING", "{k}", g, "-", "+", "5"},
             {"XAUTOCLAIM", "{k}", g, "c", "0", "0-0", "COUNT", "3"},
             {"XREADGROUP", "GROUP", g, "c", "COUNT", "2", "STREAMS", "{k}", ">"}});
      }
      add({{"XADD", "{k}", "*", "f", "v"},
           {"XDEL", "{k}", "0-1"},
           {"XTRIM", "{k}", "MAXLEN", "2"},
           {"XGROUP", "CREATE", "{k}", "new", "0"}});
      break;
    }
  }
  for (std::vector<std::string>& c : commands) {
    std::vector<std::string_view> args;
    for (const std::string& arg : c) args.push_back(arg == "{k}" ? key : std::string_view(arg));
    server.Run(0, args);
  }
}

// DUMP `key`, then RESTORE the payload over it (and under `copy`, when given): +OK and the same
// value each time.
void CheckDumpRestores(FuzzServer& server, std::string_view key, std::string_view copy = {}) {
  storage::Keyspace& keyspace = server.state().dbs.db(0);
  const storage::Entry* e = keyspace.Peek(key);
  if (e == nullptr) return;
  const std::string before = Describe(*e);
  const std::string_view dump[] = {"DUMP", key};
  std::string payload;
  // A key past its deadline is gone as DUMP looks it up.
  if (!BulkOf(server.Run(0, dump), payload)) return;
  const auto restore_as = [&](std::string_view target) {
    const std::string_view restore[] = {"RESTORE", target, "0", payload, "REPLACE"};
    Check(server.Run(0, restore) == "+OK\r\n", "a DUMP payload RESTOREs");
    const storage::Entry* restored = keyspace.Peek(target);
    Check(restored != nullptr, "a restored key exists");
    const std::string after = Describe(*restored);
    if (after != before) PrintMismatch(before, after);
    Check(after == before, "a DUMP payload RESTOREs to the same value");
  };
  if (!copy.empty()) restore_as(copy);
  restore_as(key);
}

// Every key of every database of `a`, in `b`, the same value with the same deadline.
void CheckSameData(const server::ServerState& a, const server::ServerState& b) {
  for (int db = 0; db < a.dbs.count(); ++db) {
    const storage::Keyspace& ka = a.dbs.db(db);
    const storage::Keyspace& kb = b.dbs.db(db);
    Check(ka.size() == kb.size(), "a reloaded database has as many keys");
    ka.ForEach([&](const storage::Entry& e) {
      const storage::Entry* other = kb.Peek(e.key());
      Check(other != nullptr, "a reloaded database has every key");
      Check(other->has_deadline() == e.has_deadline() &&
                (!e.has_deadline() || other->deadline_ms() == e.deadline_ms()),
            "a reloaded key keeps its deadline");
      const std::string before = Describe(e);
      const std::string after = Describe(*other);
      if (after != before) PrintMismatch(before, after);
      Check(after == before, "a reloaded key holds the same value");
    });
  }
}

std::string FunctionDump(FuzzServer& server) {
  const std::string_view dump[] = {"FUNCTION", "DUMP"};
  std::string payload;
  Check(BulkOf(server.Run(0, dump), payload), "FUNCTION DUMP answers a payload");
  return payload;
}

// WriteRdb of the whole data set loads again into a fresh server, without error, to the same
// keys and libraries.
void CheckRoundTrip(FuzzServer& server, const Options& options) {
  rdb::RdbWriter w(options.compression);
  server::WriteRdb(w, server.state(), server::RdbWriteOptions{});
  Check(w.ok(), "WriteRdb writes");
  const std::string written = std::move(w.buffer());

  FuzzServer again;
  Configure(again, options);
  // Written keys past their deadline (kept by a merge load) must come back too.
  server::RdbLoadOptions load_options;
  load_options.drop_expired = false;
  const server::RdbLoadResult load = server::LoadRdb(again.state(), written, load_options);
  if (load.error) std::fprintf(stderr, "reload: %s\n", load.error->c_str());
  Check(!load.error, "a written data set loads again");
  Check(load.end == written.size(), "a written data set loads to its end");
  again.CheckKeyspace();
  CheckSameData(server.state(), again.state());
  Check(FunctionDump(again) == FunctionDump(server), "a written data set keeps its libraries");
}

// Everything loaded: each key reads the same both ways, the first ones answer commands and
// DUMP/RESTORE back to themselves, and the data set round-trips through WriteRdb.
void CheckLoaded(FuzzServer& server, const Options& options) {
  server.CheckKeyspace();
  server.CheckScanSeesEveryKey();
  for (int db = 0; db < server.state().dbs.count(); ++db) {
    server.state().dbs.db(db).ForEach([](const storage::Entry& e) { Describe(e); });
  }
  CheckRoundTrip(server, options);
  // Commands run from client 0 on database 0, where most inputs put their keys.
  const std::vector<std::string> keys = KeysOf(server.state().dbs.db(0));
  for (std::size_t i = 0; i < keys.size() && i < kKeysWithCommands; ++i) {
    CheckDumpRestores(server, keys[i]);
    RunCommands(server, keys[i]);
  }
  server.CheckKeyspace();
}

void LoadFile(std::string_view bytes, const Options& options, bool merge) {
  FuzzServer server;
  Configure(server, options);
  server::RdbLoadOptions load_options;
  load_options.drop_expired = !merge;
  load_options.allow_duplicates = merge;
  const server::RdbLoadResult load = server::LoadRdb(server.state(), bytes, load_options);
  Check(load.error || (load.end >= 9 && load.end <= bytes.size()), "a load ends within the bytes");
  // What a failed load leaves stays loaded (the caller empties the data set or exits): it must
  // be as sound as a whole load.
  CheckLoaded(server, options);
}

// Writes the CRC-64 a payload's footer should end with over its last 8 bytes, as DUMP would.
void Reseal(std::string& payload) {
  if (payload.size() < 10) return;
  const std::uint64_t crc = rdb::Crc64(0, std::string_view(payload).substr(0, payload.size() - 8));
  for (int i = 0; i < 8; ++i) {
    payload[payload.size() - 8 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  }
}

// RESTORE over an existing key: +OK, or an error that leaves the key as it was.
void Restore(std::string payload, const Options& options) {
  FuzzServer server;
  Configure(server, options);
  if (!options.keep_checksums) Reseal(payload);
  const std::string_view set[] = {"SET", "k", "old"};
  server.Run(0, set);
  const std::string_view restore[] = {"RESTORE", "k", "0", payload, "REPLACE"};
  const std::string reply = server.Run(0, restore);
  if (reply != "+OK\r\n") {
    Check(reply.starts_with("-ERR "), "a refused RESTORE answers an error");
    const storage::Entry* e = server.state().dbs.db(0).Peek("k");
    Check(e != nullptr && e->value() == "old", "a refused RESTORE leaves the key as it was");
    Check(server.state().dbs.total_keys() == 1, "a refused RESTORE leaves nothing behind");
    return;
  }
  server.CheckKeyspace();
  CheckDumpRestores(server, "k", "k2");
  CheckLoaded(server, options);
}

// FUNCTION RESTORE: +OK, or an error that leaves the libraries as they were. What restored
// dumps to a payload that restores again (FLUSH) to the same libraries.
void FunctionRestore(std::string payload, const Options& options) {
  FuzzServer server;
  Configure(server, options);
  if (!options.keep_checksums) Reseal(payload);
  const std::string_view load[] = {
      "FUNCTION", "LOAD", "#!lua name=existing\nredis.register_function('f', function() end)"};
  Check(server.Run(0, load) == "$8\r\nexisting\r\n", "the first library loads");
  const std::string before = FunctionDump(server);
  const std::string_view restore[] = {"FUNCTION", "RESTORE", payload};
  const std::string reply = server.Run(0, restore);
  if (reply != "+OK\r\n") {
    Check(reply.starts_with("-ERR "), "a refused FUNCTION RESTORE answers an error");
    Check(FunctionDump(server) == before, "a refused FUNCTION RESTORE leaves the libraries");
    return;
  }
  const std::string after = FunctionDump(server);
  const std::string_view again[] = {"FUNCTION", "RESTORE", after, "FLUSH"};
  Check(server.Run(0, again) == "+OK\r\n", "a FUNCTION DUMP payload restores");
  Check(FunctionDump(server) == after, "a FUNCTION DUMP payload restores the same libraries");
  CheckRoundTrip(server, options);
}

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace warden::fuzz;
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  Options options;
  options.tight_limits = (flags & kTightLimits) != 0;
  options.keep_checksums = (flags & kKeepChecksums) != 0;
  options.compression = (flags & kNoCompression) == 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (flags & kModeMask) {
    case kModeFile:
      LoadFile(rest, options, false);
      break;
    case kModeFileMerge:
      LoadFile(rest, options, true);
      break;
    case kModeRestore:
      Restore(std::string(rest), options);
      break;
    case kModeFunctionRestore:
      FunctionRestore(std::string(rest), options);
      break;
  }
  return 0;
}
