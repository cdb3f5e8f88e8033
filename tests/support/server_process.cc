#include "server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <utility>

#include "child_process.h"
#include "deadline.h"
#include "resp_client.h"

namespace warden::testing {
namespace {

// How long a server may take from exec to answering PING (generous for sanitizer builds).
constexpr int kStartTimeoutMs = 15000;
// Attempts with a fresh port when another process took the port first.
constexpr int kStartAttempts = 5;

// Inodes of the sockets listening on `port`, from /proc/net/tcp and tcp6 (port and state in
// hex; state 0A is LISTEN). Nullopt if /proc cannot be read.
std::optional<std::set<std::string>> ListeningInodes(std::uint16_t port) {
  char port_hex[8];
  std::snprintf(port_hex, sizeof(port_hex), ":%04X", port);
  std::set<std::string> inodes;
  bool readable = false;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    if (!in) continue;
    readable = true;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode;
      if (state == "0A" && local.ends_with(port_hex)) inodes.insert(inode);
    }
  }
  if (!readable) return std::nullopt;
  return inodes;
}

// True when process `pid` holds a socket listening on `port` (or when /proc cannot tell), so a
// PING answered on that port came from this server and not from one that won a port race.
bool ProcessListensOn(pid_t pid, std::uint16_t port) {
  const std::optional<std::set<std::string>> inodes = ListeningInodes(port);
  if (!inodes) return true;
  const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(fd_dir, error)) {
    const std::string target = std::filesystem::read_symlink(entry.path(), error).string();
    if (target.starts_with("socket:[") && target.ends_with("]") &&
        inodes->contains(target.substr(8, target.size() - 9))) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::uint16_t FindFreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  std::uint16_t port = 0;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::vector<std::string> RedisLikeServerArgs(std::uint16_t port) {
  // warden serves database 0 only; Redis is given the same shape so SELECT and CONFIG GET agree.
  return {"--port", std::to_string(port),     "--bind", "127.0.0.1",   "--save", "", "--appendonly",
          "no",     "--enable-debug-command", "yes",    "--databases", "1"};
}

std::unique_ptr<ServerProcess> ServerProcess::Start(const std::string& binary, std::string& error,
                                                    const std::vector<std::string>& extra_args) {
  for (int attempt = 1; attempt <= kStartAttempts; ++attempt) {
    const std::uint16_t port = FindFreePort();
    if (port == 0) {
      error = "no free port: " + std::string(std::strerror(errno));
      return nullptr;
    }
    std::string log_path =
        (std::filesystem::temp_directory_path() / "warden-test-server-XXXXXX").string();
    const int log_fd = mkostemp(log_path.data(), O_CLOEXEC);
    if (log_fd < 0) {
      error = "cannot create a log file: " + std::string(std::strerror(errno));
      return nullptr;
    }
    std::vector<std::string> argv = {binary};
    for (std::string& arg : RedisLikeServerArgs(port)) argv.push_back(std::move(arg));
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    const pid_t pid = SpawnChild(argv, {.stdout_fd = log_fd, .stderr_fd = log_fd}, error);
    close(log_fd);
    if (pid < 0) {
      unlink(log_path.c_str());
      return nullptr;
    }
    std::unique_ptr<ServerProcess> server(new ServerProcess(binary, port, pid, log_path));
    const Readiness readiness = server->WaitUntilReady(kStartTimeoutMs, error);
    if (readiness == Readiness::kReady) return server;
    // An early exit may be a lost race for the port; a server that hangs is not retried.
    if (readiness == Readiness::kTimeout) return nullptr;
  }
  return nullptr;
}

ServerProcess::~ServerProcess() {
  Stop();
  unlink(log_path_.c_str());
}

ServerProcess::Readiness ServerProcess::WaitUntilReady(int timeout_ms, std::string& error) {
  const Deadline deadline(timeout_ms);
  const std::string name = binary_ + " on port " + std::to_string(port_);
  while (!deadline.Expired()) {
    if (std::optional<RespClient> client = RespClient::Connect(port_, deadline.RemainingMs())) {
      if (!ProcessListensOn(pid_, port_)) {
        // Redis listens before it loads its files, and may exit over them just after (running
        // its RDB checker first, which takes a while on a busy machine): that is an exit to
        // report, not a lost race for the port, unless the log says the bind failed.
        if (std::optional<int> status = WaitForChild(pid_, 2000)) {
          exit_status_ = status;
          const std::string log = LogTail();
          if (log.find("Address already in use") != std::string::npos) {
            error = name + ": the port belongs to another process";
            return Readiness::kPortTaken;
          }
          error =
              name + " exited during start-up (" + DescribeWaitStatus(*status) + "); log:\n" + log;
          return Readiness::kExited;
        }
        // Another process listens on our port; ours will fail to bind. Let Start retry.
        Stop();
        error = name + ": the port belongs to another process";
        return Readiness::kPortTaken;
      }
      const ReadResult pong = client->Command({"PING"}, deadline.RemainingMs());
      // A server started with requirepass answers too, if not with PONG.
      if (pong.status == ReadStatus::kOk &&
          (pong.bytes == "+PONG\r\n" || pong.bytes == "-NOAUTH Authentication required.\r\n")) {
        return Readiness::kReady;
      }
    }
    // Not listening yet: wait a little, but wake at once if the server exits.
    if (std::optional<int> status = WaitForChild(pid_, 10)) {
      exit_status_ = status;
      error = name + " exited during start-up (" + DescribeWaitStatus(*status) + "); log:\n" +
              LogTail();
      return Readiness::kExited;
    }
  }
  Stop();
  error = name + " did not answer PING within " + std::to_string(timeout_ms) + " ms; log:\n" +
          LogTail();
  return Readiness::kTimeout;
}

bool ServerProcess::IsRunning() {
  if (exit_status_) return false;
  exit_status_ = WaitForChild(pid_, 0);
  return !exit_status_;
}

std::optional<int> ServerProcess::WaitForExit(int timeout_ms) {
  if (!exit_status_) exit_status_ = WaitForChild(pid_, timeout_ms);
  return exit_status_;
}

int ServerProcess::Stop(int grace_ms) {
  if (exit_status_) return *exit_status_;
  kill(pid_, SIGTERM);
  exit_status_ = WaitForChild(pid_, grace_ms);
  if (!exit_status_) {
    kill(pid_, SIGKILL);
    exit_status_ = WaitForChild(pid_, 10000);
  }
  return exit_status_.value_or(-1);
}

std::string ServerProcess::LogTail(std::size_t max_bytes) const {
  std::ifstream in(log_path_, std::ios::binary);
  std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (log.size() > max_bytes) log = "..." + log.substr(log.size() - max_bytes);
  return log;
}

}  // namespace warden::testing
