#include "server/service.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "server/log.h"

namespace warden::server {

bool Daemonize() {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid > 0) std::_Exit(0);
  setsid();
  const int fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
  return true;
}

void WritePidFile(const std::string& path, Logger& log) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    log.Log(LogLevel::kWarning, "Failed to write PID file: %s", std::strerror(errno));
    return;
  }
  std::fprintf(f, "%d\n", static_cast<int>(getpid()));
  std::fclose(f);
}

void RemovePidFile(const std::string& path, Logger& log) {
  log.Log(LogLevel::kNotice, "Removing the pid file.");
  unlink(path.c_str());
}

bool SupervisedBySystemd(std::string_view supervised) {
  if (supervised == "systemd") return true;
  return supervised == "auto" && std::getenv("NOTIFY_SOCKET") != nullptr;
}

bool NotifySystemd(std::string_view state, Logger& log) {
  const char* name = std::getenv("NOTIFY_SOCKET");
  if (name == nullptr || name[0] == '\0') {
    log.Log(LogLevel::kWarning,
            "systemd supervision requested or auto-detected, but NOTIFY_SOCKET is not set.");
    return false;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::size_t len = std::strlen(name);
  if (len >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, name, len);
  // A name starting with '@' is in the abstract namespace, where the first byte is a NUL.
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const auto addr_len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len);
  const ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                              reinterpret_cast<const sockaddr*>(&addr), addr_len);
  close(fd);
  if (sent < 0) {
    log.Log(LogLevel::kWarning, "Could not notify systemd: %s", std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace warden::server
