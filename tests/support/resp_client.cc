#include "resp_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
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

SSL* AsSsl(void* p) { return static_cast<SSL*>(p); }

std::string OpenSslError() {
  char buf[256];
  ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
  ERR_clear_error();
  return buf;
}

// Waits for what the last SSL call wanted. False on the deadline or a real error.
bool WaitForSsl(SSL* ssl, int fd, int result, const Deadline& deadline) {
  const int error = SSL_get_error(ssl, result);
  if (error == SSL_ERROR_WANT_READ) return WaitFor(fd, POLLIN, deadline);
  if (error == SSL_ERROR_WANT_WRITE) return WaitFor(fd, POLLOUT, deadline);
  return false;
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

std::optional<RespClient> RespClient::ConnectTls(std::uint16_t port, const TlsClientFiles& files,
                                                 std::string* error, int timeout_ms) {
  const Deadline deadline(timeout_ms);
  auto fail = [&](std::string why) -> std::optional<RespClient> {
    if (error != nullptr) *error = std::move(why);
    return std::nullopt;
  };
  std::optional<RespClient> client = Connect(port, timeout_ms);
  if (!client) return fail("no TCP connection");
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  client->ssl_ctx_ = ctx;
  if (!files.ca_file.empty()) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (SSL_CTX_load_verify_locations(ctx, files.ca_file.c_str(), nullptr) <= 0) {
      return fail("CA file: " + OpenSslError());
    }
  }
  if (!files.cert_file.empty() &&
      (SSL_CTX_use_certificate_chain_file(ctx, files.cert_file.c_str()) <= 0 ||
       SSL_CTX_use_PrivateKey_file(ctx, files.key_file.c_str(), SSL_FILETYPE_PEM) <= 0)) {
    return fail("client certificate: " + OpenSslError());
  }
  SSL* ssl = SSL_new(ctx);
  client->ssl_ = ssl;
  SSL_set_fd(ssl, client->fd_);
  while (true) {
    const int result = SSL_connect(ssl);
    if (result == 1) return client;
    if (!WaitForSsl(ssl, client->fd_, result, deadline)) {
      return fail("handshake: " + OpenSslError());
    }
  }
}

std::string RespClient::PeerSubject() const {
  if (ssl_ == nullptr) return "";
  X509* cert = SSL_get1_peer_certificate(AsSsl(ssl_));
  if (cert == nullptr) return "";
  char buf[256];
  X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof(buf));
  X509_free(cert);
  return buf;
}

void RespClient::Release() {
  if (ssl_ != nullptr) SSL_free(AsSsl(ssl_));
  if (ssl_ctx_ != nullptr) SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
  if (fd_ >= 0) close(fd_);
  ssl_ = ssl_ctx_ = nullptr;
  fd_ = -1;
}

RespClient::RespClient(RespClient&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      ssl_ctx_(std::exchange(other.ssl_ctx_, nullptr)),
      buffer_(std::move(other.buffer_)),
      read_pos_(std::exchange(other.read_pos_, 0)) {}

RespClient& RespClient::operator=(RespClient&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
    ssl_ctx_ = std::exchange(other.ssl_ctx_, nullptr);
    buffer_ = std::move(other.buffer_);
    read_pos_ = std::exchange(other.read_pos_, 0);
  }
  return *this;
}

RespClient::~RespClient() { Release(); }

bool RespClient::SendRaw(std::string_view bytes, int timeout_ms) {
  const Deadline deadline(timeout_ms);
  while (ssl_ != nullptr && !bytes.empty()) {
    const int n = SSL_write(AsSsl(ssl_), bytes.data(), static_cast<int>(bytes.size()));
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (!WaitForSsl(AsSsl(ssl_), fd_, n, deadline)) {
      return false;
    }
  }
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
  while (ssl_ != nullptr) {
    const int n = SSL_read(AsSsl(ssl_), chunk, sizeof(chunk));
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      return ReadStatus::kOk;
    }
    const int error = SSL_get_error(AsSsl(ssl_), n);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      ERR_clear_error();
      return ReadStatus::kClosed;  // close_notify, an alert, or the socket's end
    }
    if (!WaitForSsl(AsSsl(ssl_), fd_, n, deadline)) return ReadStatus::kTimeout;
  }
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
