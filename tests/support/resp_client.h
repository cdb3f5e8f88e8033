// A blocking RESP client over loopback TCP for tests. It sends raw bytes or commands and reads
// back exactly one complete reply as its raw bytes, so a test can compare servers byte for byte.
// Every wait has a deadline; nothing blocks forever. One client owns one socket; it is movable,
// not copyable, and closes the socket when destroyed.
#ifndef WARDEN_TESTS_SUPPORT_RESP_CLIENT_H_
#define WARDEN_TESTS_SUPPORT_RESP_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warden::testing {

// How long a test waits for one reply unless it says otherwise.
inline constexpr int kDefaultReplyTimeoutMs = 5000;

enum class ReadStatus {
  kOk,         // `bytes` is one complete reply
  kClosed,     // the server closed the connection; `bytes` holds what arrived before
  kTimeout,    // the deadline passed; `bytes` holds what arrived (maybe part of a reply)
  kMalformed,  // what arrived is not RESP; `bytes` holds it
};

struct ReadResult {
  ReadStatus status = ReadStatus::kTimeout;
  std::string bytes;
};

// Names a status for messages: "ok", "closed", "timeout", "malformed".
std::string_view ReadStatusName(ReadStatus status);

// A TLS client's files (PEM); an empty name leaves that part out (no client certificate, no
// verification of the server).
struct TlsClientFiles {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

class RespClient {
 public:
  // Connects to 127.0.0.1:`port`. Returns nullopt if no connection is made within `timeout_ms`.
  static std::optional<RespClient> Connect(std::uint16_t port, int timeout_ms = 2000);
  // The same from the local address `source_ip` (say "127.0.0.2", which servers treat as a
  // remote client: only 127.0.0.1 and ::1 count as local).
  static std::optional<RespClient> ConnectFrom(const std::string& source_ip, std::uint16_t port,
                                               int timeout_ms = 2000);

  // Connects and completes a TLS handshake. Returns nullopt if either fails within
  // `timeout_ms`; `error` (if given) then says why, in OpenSSL's words.
  static std::optional<RespClient> ConnectTls(std::uint16_t port, const TlsClientFiles& files,
                                              std::string* error = nullptr, int timeout_ms = 2000);

  RespClient(RespClient&& other) noexcept;
  RespClient& operator=(RespClient&& other) noexcept;
  RespClient(const RespClient&) = delete;
  RespClient& operator=(const RespClient&) = delete;
  ~RespClient();

  // Sends all of `bytes`. False if the connection broke or the deadline passed first.
  bool SendRaw(std::string_view bytes, int timeout_ms = kDefaultReplyTimeoutMs);
  // Sends `argv` as an array of bulk strings.
  bool Send(const std::vector<std::string>& argv, int timeout_ms = kDefaultReplyTimeoutMs);

  // Reads exactly one RESP2/RESP3 reply. Bytes after it stay buffered for the next read.
  ReadResult ReadReply(int timeout_ms = kDefaultReplyTimeoutMs);
  // Reads until the server closes the connection, returning every byte received (including
  // any already buffered). kClosed on success, kTimeout if still open at the deadline.
  ReadResult ReadUntilClose(int timeout_ms = kDefaultReplyTimeoutMs);

  // Send(argv) then ReadReply(); a failed send reads as kClosed.
  ReadResult Command(const std::vector<std::string>& argv, int timeout_ms = kDefaultReplyTimeoutMs);

  // TLS only: the server certificate's subject ("/O=.../CN=..."), empty otherwise.
  std::string PeerSubject() const;

 private:
  explicit RespClient(int fd) : fd_(fd) {}
  void Release();
  // Appends whatever the socket has to `buffer_`, waiting up to `timeout_ms`.
  // Returns kOk after reading some bytes, or kClosed / kTimeout.
  ReadStatus Fill(int timeout_ms);
  // Returns the buffered bytes not yet returned and empties the buffer.
  std::string TakeBuffered();

  int fd_ = -1;
  // OpenSSL's SSL and SSL_CTX when the connection is TLS (kept opaque to spare includers the
  // OpenSSL headers).
  void* ssl_ = nullptr;
  void* ssl_ctx_ = nullptr;
  std::string buffer_;  // received bytes; those before read_pos_ were already returned
  std::size_t read_pos_ = 0;
};

}  // namespace warden::testing

#endif  // WARDEN_TESTS_SUPPORT_RESP_CLIENT_H_
