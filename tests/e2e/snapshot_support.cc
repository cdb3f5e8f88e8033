#include "snapshot_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "aof_support.h"
#include "deadline.h"
#include "resp_reply.h"

namespace warden::testing::snapshot {

namespace fs = std::filesystem;
using aof::Parsed;
using aof::Send;

namespace {

// How long a background save or a start may take in these tests (sanitizer builds are slow).
constexpr int kWaitMs = 30000;

// One command's arguments: `prefix`, then those `make(i)` gives for each i in [0, n).
template <typename Make>
std::vector<std::string> Bulk(std::vector<std::string> prefix, int n, Make make) {
  for (int i = 0; i < n; ++i) {
    for (std::string& arg : make(i)) prefix.push_back(std::move(arg));
  }
  return prefix;
}

// 60 printable characters from a linear congruential sequence: too few repeats for LZF to shrink
// them, so the string is saved as it is (and it is over embstr's 44 bytes).
std::string Incompressible() {
  std::string s;
  unsigned x = 12345;
  for (int i = 0; i < 60; ++i) {
    x = x * 1103515245 + 12345;
    s.push_back(static_cast<char>('!' + (x >> 16) % 90));
  }
  return s;
}

}  // namespace

std::unique_ptr<ServerProcess> Start(ServerKind kind, const std::string& dir,
                                     const std::string& save, std::vector<std::string> args,
                                     std::string* error) {
  args.insert(args.begin(),
              {"--appendonly", "no", "--dir", dir, "--databases", "16", "--save", save});
  std::string err;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(aof::Binary(kind), err, args);
  if (error != nullptr) *error = err;
  return server;
}

std::string DumpPath(const std::string& dir) { return dir + "/dump.rdb"; }

std::string Info(RespClient& c, const std::string& field) {
  const std::string info = "\r\n" + Parsed(c, {"INFO", "persistence"}).text;
  const std::size_t at = info.find("\r\n" + field + ":");
  if (at == std::string::npos) return "";
  const std::size_t start = at + field.size() + 3;
  return info.substr(start, info.find("\r\n", start) - start);
}

bool WaitForInfo(RespClient& c, const std::string& field, const std::string& value) {
  // Bounded polling of the server's own state: its cron reaps a finished child.
  for (const Deadline deadline(kWaitMs); !deadline.Expired();) {
    if (Info(c, field) == value) return true;
  }
  return false;
}

std::string WaitForBgsave(RespClient& c) {
  if (!WaitForInfo(c, "rdb_bgsave_in_progress", "0")) return "still saving";
  return Info(c, "rdb_last_bgsave_status");
}

pid_t WaitForChildOf(pid_t pid) {
  const fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const Deadline deadline(kWaitMs); !deadline.Expired();) {
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(tasks, ec)) {
      std::ifstream children(task.path() / "children");
      pid_t child = -1;
      if (children >> child) return child;
    }
  }
  return -1;
}

void WriteEveryEncoding(RespClient& c) {
  const std::string plain_node(9000, 'p');  // over list-max-listpack-size's 8 KB: a node alone
  const std::vector<std::vector<std::string>> commands = {
      {"SET", "str:int", "12345"},
      {"SET", "str:wide-int", "-9000000000"},  // an int object, saved as a string (over 32 bits)
      {"SET", "str:leading-zero", "007"},
      {"SET", "str:embstr", "a short string"},
      {"SET", "str:embstr-44", std::string(44, 'e')},  // the longest embstr
      {"SET", "str:raw-45", std::string(45, 'r')},
      {"SET", "str:binary", std::string("b\0i\r\nn\xff\x01", 8)},
      {"SET", "str:raw", Incompressible()},
      {"SET", "str:lzf",
       [] {
         std::string s;
         for (int i = 0; i < 200; ++i) s += "lock-token:" + std::to_string(i % 10);
         return s;
       }()},
      // Each of listpack's integer widths, and strings that look like integers but are not.
      {"RPUSH", "list:small", "a", "b", "1", "-2", "127", "-4096", "32767", "8388607", "2147483647",
       "12345678901", "9223372036854775807", "-9223372036854775808", "007", "+1", "-0", "1.5", ""},
      Bulk({"RPUSH", "list:big"}, 3000,
           [](int i) {
             return std::vector<std::string>{i % 3 == 0 ? std::to_string(i * 7)
                                                        : "element-" + std::to_string(i)};
           }),
      {"RPUSH", "list:plain", "before", plain_node, "after"},
      {"HSET", "hash:small", "f1", "v1", "n", "12", "neg", "-3"},
      Bulk({"HSET", "hash:big"}, 600,
           [](int i) {
             return std::vector<std::string>{"field:" + std::to_string(i), std::to_string(i * i)};
           }),
      {"HSET", "hash:long-value", "f", std::string(100, 'v')},
      {"SADD", "set:intset", "1", "2", "3", "-7", "70000", "5000000000"},
      {"SADD", "set:intset16", "1", "-2", "300"},
      {"SADD", "set:intset32", "1", "-2", "70000"},
      {"SADD", "set:strings", "alpha", "beta", "gamma"},
      Bulk({"SADD", "set:big-intset"}, 600,
           [](int i) { return std::vector<std::string>{std::to_string(i * 3 - 100)}; }),
      {"ZADD", "zset:small", "1", "one", "2.5", "two", "-3", "minus", "0.1", "tenth"},
      {"ZADD", "zset:small", "-inf", "low", "+inf", "high", "-0", "negative-zero",
       "3.141592653589793", "pi", "1e-300", "tiny"},
      Bulk({"ZADD", "zset:big"}, 200,
           [](int i) {
             return std::vector<std::string>{std::to_string(i * 1.5 - 20),
                                             "member:" + std::to_string(i)};
           }),
      {"ZADD", "zset:big", "-0", "negative-zero", "3.141592653589793", "pi", "1e-300", "tiny",
       "-inf", "low", "+inf", "high"},
      {"XADD", "stream:plain", "1-1", "type", "created", "job", "7"},
      {"XADD", "stream:plain", "1-2", "type", "started", "job", "7"},
      {"XADD", "stream:plain", "2-0", "other", "fields", "x", "y"},
      {"XADD", "stream:trimmed", "1-0", "f", "1"},
      {"XADD", "stream:trimmed", "2-0", "f", "2"},
      {"XADD", "stream:trimmed", "3-0", "f", "3"},
      {"XADD", "stream:trimmed", "4-0", "f", "4"},
      {"XTRIM", "stream:trimmed", "MAXLEN", "3"},
      {"XDEL", "stream:trimmed", "3-0"},
      {"XADD", "stream:emptied", "5-5", "f", "v"},
      {"XDEL", "stream:emptied", "5-5"},
      {"XSETID", "stream:emptied", "9-9", "ENTRIESADDED", "12", "MAXDELETEDID", "5-5"},
      {"XADD", "stream:groups", "1-1", "type", "created", "job", "7"},
      {"XADD", "stream:groups", "2-0", "type", "started", "job", "7"},
      {"XADD", "stream:groups", "3-0", "type", "done", "job", "7"},
      {"XADD", "stream:groups", "4-0", "other", "fields"},
      {"XADD", "stream:groups", "5-0", "type", "created", "job", "8"},
      {"XGROUP", "CREATE", "stream:groups", "workers", "0"},
      {"XREADGROUP", "GROUP", "workers", "alice", "COUNT", "3", "STREAMS", "stream:groups", ">"},
      {"XACK", "stream:groups", "workers", "1-1"},
      {"XCLAIM", "stream:groups", "workers", "bob", "0", "2-0"},
      {"XGROUP", "CREATE", "stream:groups", "audit", "$", "ENTRIESREAD", "5"},
      {"XGROUP", "CREATECONSUMER", "stream:groups", "audit", "idle-one"},
      {"XGROUP", "CREATE", "stream:groups", "tail", "0"},
      {"XREADGROUP", "GROUP", "tail", "carol", "NOACK", "COUNT", "2", "STREAMS", "stream:groups",
       ">"},
      {"XDEL", "stream:groups", "3-0", "4-0"},  // 3-0 still pending for alice
      {"SET", "ttl:string", "v", "PXAT", "4102444800123"},
      {"HSET", "ttl:hash", "f", "v"},
      {"PEXPIREAT", "ttl:hash", "4102444801000"},
      {"SET", "ttl:relative", "v", "EX", "100000"},
      {"SELECT", "1"},
      {"SET", "db1:string", "in db 1"},
      {"RPUSH", "db1:list", "x", "y"},
      {"ZADD", "db1:zset", "1", "a"},
      {"PEXPIREAT", "db1:zset", "4102444802000"},
      {"SELECT", "2"},
      {"HSET", "db2:hash", "k", "v"},
      {"SADD", "db2:set", "10", "20"},
      {"SELECT", "0"},
      {"FUNCTION", "LOAD",
       "#!lua name=locks\nredis.register_function('acquire', function(keys, args)\n"
       "  return redis.call('set', keys[1], args[1], 'NX', 'PX', args[2])\nend)"},
      {"FUNCTION", "LOAD",
       "#!lua name=counters\nredis.register_function{function_name='bump', "
       "callback=function(keys) return redis.call('incrby', keys[1], 2) end, "
       "description='by two', flags={'allow-oom'}}"},
  };
  for (const auto& command : commands) {
    const std::string reply = Send(c, command);
    ASSERT_FALSE(reply.empty() || reply[0] == '-')
        << command[0] << " " << command[1] << ": " << reply;
  }
  // 250 entries of the same fields: three listpack nodes (stream-node-max-entries 100).
  for (int i = 1; i <= 250; ++i) {
    const std::string id = std::to_string(i) + "-0";
    ASSERT_EQ(Parsed(c, {"XADD", "stream:big", id, "n", std::to_string(i), "kind",
                         "k" + std::to_string(i % 3)})
                  .text,
              id);
  }
  // clang-format off
  const std::map<std::string, std::string> expected = {
      {"str:int", "int"},            {"str:wide-int", "int"},      {"str:leading-zero", "embstr"},
      {"str:embstr", "embstr"},      {"str:embstr-44", "embstr"},  {"str:binary", "embstr"},
      {"str:raw", "raw"},            {"str:raw-45", "raw"},        {"str:lzf", "raw"},
      {"list:small", "quicklist"},   {"list:big", "quicklist"},    {"list:plain", "quicklist"},
      {"hash:small", "listpack"},    {"hash:big", "hashtable"},    {"hash:long-value", "hashtable"},
      {"set:intset", "intset"},      {"set:intset16", "intset"},   {"set:intset32", "intset"},
      {"set:strings", "hashtable"},  {"set:big-intset", "hashtable"},
      {"zset:small", "listpack"},    {"zset:big", "skiplist"},
      {"stream:big", "stream"},      {"stream:groups", "stream"},
  };
  // clang-format on
  for (const auto& [key, encoding] : expected) {
    EXPECT_EQ(Parsed(c, {"OBJECT", "ENCODING", key}).text, encoding) << key;
  }
}

std::vector<Key> Keys(RespClient& c) {
  std::vector<Key> keys;
  for (int db = 0; db < 3; ++db) {
    Send(c, {"SELECT", std::to_string(db)});
    std::vector<std::string> names;
    for (const Reply& k : Parsed(c, {"KEYS", "*"}).elements) names.push_back(k.text);
    std::sort(names.begin(), names.end());
    for (std::string& name : names) keys.push_back({db, std::move(name)});
  }
  Send(c, {"SELECT", "0"});
  return keys;
}

std::string Everything(RespClient& c) {
  std::string out = aof::DataSet(c);
  for (const Key& key : Keys(c)) {
    Send(c, {"SELECT", std::to_string(key.db)});
    out += std::to_string(key.db) + " " + key.name + " " +
           Parsed(c, {"OBJECT", "ENCODING", key.name}).text;
    if (Parsed(c, {"TYPE", key.name}).text == "stream") {
      // XINFO GROUPS holds no times: name, consumers, pending, last id, entries-read, lag.
      out += " " + Send(c, {"XINFO", "GROUPS", key.name});
    }
    out += "\n";
  }
  Send(c, {"SELECT", "0"});
  return out;
}

}  // namespace warden::testing::snapshot
