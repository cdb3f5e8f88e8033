// A Redis-compatible server (warden or redis-server) running as a child of the test, on a free
// loopback port. Both binaries take the same flags, so one launcher serves both. The server's
// stdout and stderr go to a temporary log file whose tail failure messages can quote. The object
// owns the process: destroying it stops the server (SIGTERM, then SIGKILL) and reaps it.
#ifndef WARDEN_TESTS_SUPPORT_SERVER_PROCESS_H_
#define WARDEN_TESTS_SUPPORT_SERVER_PROCESS_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace warden::testing {

// Returns a loopback TCP port that was free a moment ago (the kernel's pick for port 0), or 0.
// Another process may take it before the caller binds: ServerProcess::Start retries for that.
std::uint16_t FindFreePort();

// The flags warden and redis-server both accept, as the tests start them.
std::vector<std::string> RedisLikeServerArgs(std::uint16_t port);

class ServerProcess {
 public:
  // Starts `binary` with RedisLikeServerArgs on a free port and waits (bounded) until this very
  // process listens there and answers PING. Returns nullptr and sets `error` (with the log tail)
  // when the server cannot be started.
  // `extra_args` follow the shared ones (a later option overrides an earlier one).
  static std::unique_ptr<ServerProcess> Start(const std::string& binary, std::string& error,
                                              const std::vector<std::string>& extra_args = {});

  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  ~ServerProcess();

  std::uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& binary() const { return binary_; }

  // False once the process has exited (it is reaped then).
  bool IsRunning();
  // Waits (bounded) for the process to exit on its own: its waitpid status, or nullopt if it
  // still runs.
  std::optional<int> WaitForExit(int timeout_ms);
  // Stops the server if it still runs: SIGTERM, and SIGKILL if it has not exited within
  // `grace_ms`. Returns its waitpid status. Calling it again returns the same status.
  int Stop(int grace_ms = 2000);
  // The last `max_bytes` of what the server wrote to stdout and stderr.
  std::string LogTail(std::size_t max_bytes = 2000) const;

 private:
  ServerProcess(std::string binary, std::uint16_t port, pid_t pid, std::string log_path)
      : binary_(std::move(binary)), port_(port), pid_(pid), log_path_(std::move(log_path)) {}
  enum class Readiness { kReady, kExited, kPortTaken, kTimeout };

  // Polls until the server answers PING on its port. Otherwise stops it and sets `error`.
  Readiness WaitUntilReady(int timeout_ms, std::string& error);

  std::string binary_;
  std::uint16_t port_;
  pid_t pid_;
  std::string log_path_;
  std::optional<int> exit_status_;  // set once reaped
};

}  // namespace warden::testing

#endif  // WARDEN_TESTS_SUPPORT_SERVER_PROCESS_H_
