// What the persistence end-to-end tests share: a server started on a directory of its own with
// the append-only file on, waits for the server's own rewrite state, and a whole data set rendered
// as text to compare two servers by (the snapshot tests use it too).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "resp_client.h"
#include "resp_reply.h"
#include "server_fixture.h"
#include "server_process.h"

namespace warden::testing::aof {

std::string Binary(ServerKind kind);

// A fresh directory under the test's temporary directory, removed with the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `kind` on `dir` with appendonly yes (no RDB preamble) and 16 databases, then `args`.
std::unique_ptr<ServerProcess> StartWith(ServerKind kind, const std::string& dir,
                                         std::vector<std::string> args,
                                         std::string* error = nullptr);

// The raw reply to `argv`.
std::string Send(RespClient& client, const std::vector<std::string>& argv);
testing::Reply Parsed(RespClient& client, const std::vector<std::string>& argv);
std::string ReadFile(const std::string& path);

// A stream as text: its entries, its ids and counters, and each group's position, consumers
// and pending entries with their delivery counts (not idle times or seen times, which move).
std::vector<std::string> StreamItems(RespClient& client, const std::string& key);

// The whole data set as text, the same on two servers that hold the same data: every key of
// databases 0-2 in order with its type, its deadline and its contents in a fixed order, then
// the function libraries.
std::string DataSet(RespClient& client);

// Polls INFO persistence (bounded) until no rewrite is under way and `rewrites` have completed.
bool WaitForRewrites(RespClient& c, int rewrites);

}  // namespace warden::testing::aof
