// TLS for client connections, with OpenSSL over memory BIOs.
//
// libuv owns the sockets, so OpenSSL never touches one: ciphertext read by libuv is handed to
// the session's read BIO, and what OpenSSL writes to its write BIO (handshake records, sealed
// replies) is taken out and written by libuv like any other bytes. The connection keeps its
// plaintext buffers and its parser as they are; only its two ends change.
//
// TlsContext is the server's settings made into an OpenSSL context (Redis's tlsConfigure);
// CONFIG SET of a tls-* option builds a new one, and connections already open keep the one they
// started with (OpenSSL counts the references).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "server/config/config.h"
#include "server/io_buffer.h"

// OpenSSL's types, without its headers in every file that includes this one.
struct ssl_ctx_st;
struct ssl_st;
struct bio_st;

namespace warden::server {

class TlsContext {
 public:
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Builds the context from config's tls-* options. On failure returns nullptr and sets
  // `error` to the line Redis logs for that cause ("Failed to load certificate: ...").
  static std::shared_ptr<TlsContext> Create(const Config& config, std::string& error);

  ssl_ctx_st* ctx() const { return ctx_; }

 private:
  explicit TlsContext(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* ctx_;
};

// One connection's TLS session, server side.
class TlsChannel {
 public:
  // `auth_clients` is tls-auth-clients at accept time, as in Redis.
  TlsChannel(const TlsContext& context, TlsAuthClients auth_clients);
  ~TlsChannel();
  TlsChannel(const TlsChannel&) = delete;
  TlsChannel& operator=(const TlsChannel&) = delete;

  enum class Status { kOk, kClosed, kError };

  // Takes ciphertext from the socket and decrypts what it can into `plain` (reserving at least
  // `chunk` bytes at a time there). Drives the handshake as needed; its replies wait in the
  // write BIO for TakeOutgoing. kClosed: the peer sent close_notify. kError: see error().
  Status Receive(std::string_view cipher, IoBuffer& plain, std::size_t chunk);
  // Seals `plain` (all of it, then clears it) once the handshake is done; before that it stays
  // where it is. Then appends every pending ciphertext byte to `wire`. False on an OpenSSL
  // error (see error()).
  bool Seal(std::string& plain, std::string& wire);
  // Ciphertext is waiting to be written (handshake records).
  bool HasOutgoing() const;
  bool established() const { return established_; }
  // The OpenSSL error that ended the session, as ERR_error_string_n words it.
  const std::string& error() const { return error_; }

 private:
  void TakeOutgoing(std::string& wire);
  void SetError(int ssl_error);

  ssl_st* ssl_;
  bio_st* in_;   // owned by ssl_
  bio_st* out_;  // owned by ssl_
  bool established_ = false;
  std::string error_;
};

}  // namespace warden::server
