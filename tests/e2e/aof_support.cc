#include "aof_support.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "deadline.h"

namespace warden::testing::aof {

namespace fs = std::filesystem;

std::string Binary(ServerKind kind) {
  return kind == ServerKind::kWarden ? WARDEN_BINARY_PATH : FindExecutable("redis-server");
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "warden-aof-XXXXXX").string();
  path_ = mkdtemp(pattern.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::unique_ptr<ServerProcess> StartWith(ServerKind kind, const std::string& dir,
                                         std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), {"--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--dir", dir,
                             "--databases", "16"});
  std::string err;
  std::unique_ptr<ServerProcess> server = ServerProcess::Start(Binary(kind), err, args);
  if (error != nullptr) *error = err;
  return server;
}

std::string Send(RespClient& client, const std::vector<std::string>& argv) {
  return client.Command(argv).bytes;
}

testing::Reply Parsed(RespClient& client, const std::vector<std::string>& argv) {
  return ParseReply(client.Command(argv).bytes).reply;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool WaitForRewrites(RespClient& c, int rewrites) {
  const std::string done = "aof_rewrites:" + std::to_string(rewrites) + "\r\n";
  // Bounded polling of the server's own state: the cron installs a finished rewrite.
  for (const Deadline deadline(20000); !deadline.Expired();) {
    const std::string info = Send(c, {"INFO", "persistence"});
    if (info.find("aof_rewrite_in_progress:0\r\n") != std::string::npos &&
        info.find(done) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace warden::testing::aof
