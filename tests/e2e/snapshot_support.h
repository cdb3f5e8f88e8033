// What the snapshot (RDB) end-to-end tests share: a server on a directory of its own with the
// append-only file off and the save points each test names, INFO persistence fields and bounded
// waits on them, the pid of the child a server forked, and a data set holding every type in each
// of its encodings, written by commands alike on both servers.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "resp_client.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing::snapshot {

// `kind` on `dir` without the append-only file, with 16 databases and the save points `save`
// ("" for none: always explicit, since Redis's default ones would save behind a test's back),
// then `args`. Null when it does not start; `error` (if given) then holds why, with the log.
std::unique_ptr<ServerProcess> Start(ServerKind kind, const std::string& dir,
                                     const std::string& save, std::vector<std::string> args = {},
                                     std::string* error = nullptr);

// `dir`/dump.rdb.
std::string DumpPath(const std::string& dir);

// The value of `field` in INFO persistence, "" if absent.
std::string Info(RespClient& c, const std::string& field);
// Polls INFO persistence (bounded) until `field` reads `value`.
bool WaitForInfo(RespClient& c, const std::string& field, const std::string& value);
// Polls (bounded) until no background save runs; then rdb_last_bgsave_status ("ok", "err").
std::string WaitForBgsave(RespClient& c);

// The pid of a child process of `pid` (a forked save or rewrite), polled for (bounded): Linux
// lists a process's children per thread in /proc/<pid>/task/<tid>/children. -1 if none shows.
pid_t WaitForChildOf(pid_t pid);

// Writes, into databases 0-2: strings (int, embstr, raw, LZF-compressible, binary), lists (one
// node with every listpack integer width, 3000 elements over many nodes, a plain node), hashes
// (listpack, hashtable by count and by value size), sets (intsets of each width, hashtable, 600
// integers), sorted sets (listpack, skiplist, with infinities and -0), streams (many nodes,
// trimmed, emptied, consumer groups with pending and deleted entries), keys with deadlines and
// two function libraries. Fails the test if a command is refused or a key lacks the encoding it
// is there for. Every command is deterministic except one relative deadline, so two servers
// written alike hold the same values.
void WriteEveryEncoding(RespClient& c);

// DataSet (aof_support.h) plus what a snapshot keeps and the append-only file does not: each
// key's encoding and each stream group's entries-read and lag.
std::string Everything(RespClient& c);

// A key of the data set: its database and name.
struct Key {
  int db;
  std::string name;
};
std::vector<Key> Keys(RespClient& c);

}  // namespace warden::testing::snapshot
