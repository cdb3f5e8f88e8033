#include "resp_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "deadline.h"
#include "resp_reply.h"

namespace warden::testing {
namespace {

// Waits until `fd` is ready for `events`. False at the deadline.
bool WaitFor(int fd, short events, const Deadline& deadline) {
  while (true) {
    pollfd watch = {.fd = fd, .events = events, .revents = 0};
    const int ready = poll(&watch, 1, deadline.RemainingMs());
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

}  // namespace

std::string_view ReadStatusName(ReadStatus status) {
  switch (status) {
    case ReadStatus::kOk:
      return "ok";
    case ReadStatus::kClosed:
      return "closed";
    case ReadStatus::kTimeout:
      return "timeout";
    case ReadStatus::kMalformed:
      return "malformed";
  }
  return "?";
}

std::optional<RespClient> RespClient::Connect(std::uint16_t port, int timeout_ms) {
  return ConnectFrom("", port, timeout_ms);
}

std::optional<RespClient> RespClient::ConnectFrom(const std::string& source_ip, std::uint16_t port,
                                                  int timeout_ms) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  RespClient client(fd);
  if (!source_ip.empty()) {
    sockaddr_in source = {};
    source.sin_family = AF_INET;
    if (inet_pton(AF_INET, source_ip.c_str(), &source.sin_addr) != 1 ||
        bind(fd, reinterpret_cast<const sockaddr*>(&source), sizeof(source)) != 0) {
      return std::nullopt;
    }
  }
  // Small writes must leave at once: tests split requests byte by byte.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
    return client;
  }
  if (errno != EINPROGRESS || !WaitFor(fd, POLLOUT, Deadline(timeout_ms))) return std::nullopt;
  int error = 0;
  socklen_t length = sizeof(error);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    return std::nullopt;
  }
  return client;
}

RespClient::RespClient(RespClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      buffer_(std::move(other.buffer_)),
      read_pos_(std::exchange(other.read_pos_, 0)) {}

RespClient& RespClient::operator=(RespClient&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
    read_pos_ = std::exchange(other.read_pos_, 0);
  }
  return *this;
}

RespClient::~RespClient() {
  if (fd_ >= 0) close(fd_);
}

bool RespClient::SendRaw(std::string_view bytes, int timeout_ms) {
  const Deadline deadline(timeout_ms);
  while (!bytes.empty()) {
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      if (!WaitFor(fd_, POLLOUT, deadline)) return false;
    } else {
      return false;
    }
  }
  return true;
}

bool RespClient::Send(const std::vector<std::string>& argv, int timeout_ms) {
  return SendRaw(EncodeCommand(argv), timeout_ms);
}

ReadStatus RespClient::Fill(int timeout_ms) {
  const Deadline deadline(timeout_ms);
  // Drop what earlier replies used up before the buffer grows again.
  if (read_pos_ > 0) {
    buffer_.erase(0, read_pos_);
    read_pos_ = 0;
  }
  char chunk[65536];
  while (true) {
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      return ReadStatus::kOk;
    }
    if (n == 0) return ReadStatus::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return ReadStatus::kClosed;  // ECONNRESET and the like
    if (!WaitFor(fd_, POLLIN, deadline)) return ReadStatus::kTimeout;
  }
}

ReadResult RespClient::ReadReply(int timeout_ms) {
  const Deadline deadline(timeout_ms);
  while (true) {
    const ParseResult parsed = ParseReply(std::string_view(buffer_).substr(read_pos_));
    if (parsed.status == ParseStatus::kComplete) {
      ReadResult result{.status = ReadStatus::kOk,
                        .bytes = buffer_.substr(read_pos_, parsed.length)};
      read_pos_ += parsed.length;
      return result;
    }
    ReadStatus status = ReadStatus::kMalformed;
    if (parsed.status == ParseStatus::kIncomplete) status = Fill(deadline.RemainingMs());
    if (status != ReadStatus::kOk) return ReadResult{.status = status, .bytes = TakeBuffered()};
  }
}

std::string RespClient::TakeBuffered() {
  std::string bytes = buffer_.substr(read_pos_);
  buffer_.clear();
  read_pos_ = 0;
  return bytes;
}

ReadResult RespClient::ReadUntilClose(int timeout_ms) {
  const Deadline deadline(timeout_ms);
  ReadStatus status = ReadStatus::kOk;
  while (status == ReadStatus::kOk) status = Fill(deadline.RemainingMs());
  return ReadResult{.status = status, .bytes = TakeBuffered()};
}

ReadResult RespClient::Command(const std::vector<std::string>& argv, int timeout_ms) {
  if (!Send(argv, timeout_ms)) return ReadResult{.status = ReadStatus::kClosed, .bytes = ""};
  return ReadReply(timeout_ms);
}

}  // namespace warden::testing
