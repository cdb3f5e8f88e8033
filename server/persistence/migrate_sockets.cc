#include "server/persistence/migrate_sockets.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>

namespace warden::server {
namespace {

// A non-blocking connect bounded by `timeout_ms` (Redis's connBlockingConnect): writable is
// connected, so a refused connection fails at the first write, as in Redis ("error or timeout
// writing to target instance"). -1 if no address took the connection in time.
int Connect(const std::string& host, const std::string& port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  int connected = -1;
  for (addrinfo* a = found; a != nullptr && connected < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, timeout_ms) == 1) {
        connected = fd;
        break;
      }
    }
    close(fd);
  }
  freeaddrinfo(found);
  return connected;
}

}  // namespace

MigrateSocket::~MigrateSocket() { close(fd_); }

bool MigrateSocket::Write(std::string_view data, int timeout_ms) {
  while (!data.empty()) {
    const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (!Wait(POLLOUT, timeout_ms)) {
      timed_out_ = true;
      return false;
    }
  }
  return true;
}

bool MigrateSocket::ReadLine(std::string& line, int timeout_ms) {
  line.clear();
  for (;;) {
    const std::size_t nl = buffer_.find("\r\n");
    if (nl != std::string::npos) {
      line.assign(buffer_, 0, nl);
      buffer_.erase(0, nl + 2);
      return true;
    }
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) return false;
    if (!Wait(POLLIN, timeout_ms)) {
      timed_out_ = true;
      return false;
    }
  }
}

bool MigrateSocket::Wait(short events, int timeout_ms) {
  pollfd p{fd_, events, 0};
  return poll(&p, 1, timeout_ms) == 1;
}

std::string MigrateSockets::Key(std::string_view host, std::string_view port) {
  std::string key(host);
  key += ':';
  key += port;
  return key;
}

MigrateSocket* MigrateSockets::Get(std::string_view host, std::string_view port, int timeout_ms,
                                   std::int64_t now_ms) {
  std::string key = Key(host, port);
  if (auto it = sockets_.find(key); it != sockets_.end()) {
    it->second.last_use_ms = now_ms;
    it->second.timed_out_ = false;
    return &it->second;
  }
  if (sockets_.size() >= kMaxSockets) {
    sockets_.erase(
        std::next(sockets_.begin(), static_cast<std::ptrdiff_t>(random_.Below(sockets_.size()))));
  }
  const int fd = Connect(std::string(host), std::string(port), timeout_ms);
  if (fd < 0) return nullptr;
  MigrateSocket& socket = sockets_.try_emplace(std::move(key), fd).first->second;
  socket.last_use_ms = now_ms;
  return &socket;
}

void MigrateSockets::Close(std::string_view host, std::string_view port) {
  sockets_.erase(Key(host, port));
}

void MigrateSockets::CloseIdle(std::int64_t now_ms) {
  std::erase_if(sockets_, [now_ms](const auto& entry) {
    return now_ms - entry.second.last_use_ms > kIdleMs;
  });
}

}  // namespace warden::server
