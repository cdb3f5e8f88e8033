// One client connection: the libuv stream, the input buffer and parser, and the replies.
//
// Reading: libuv reads into the input buffer; every complete request in it is executed before the
// next read, and the replies of that batch go out in one write (uv_try_write, then uv_write for
// whatever the kernel did not take). While a write is in flight new replies collect in a second
// buffer. A client whose unsent replies pile up past a threshold is not read from (and its
// buffered requests are not run) until the writes drain, so memory stays bounded even with
// Redis's default of no output limit for normal clients; client-output-buffer-limit, when set,
// disconnects such a client as Redis does. And a client runs at most kTurnBytes of requests per
// loop turn: the rest waits, unread, for the next turn, after every other client has had its
// own (a transaction or a script still runs whole).
//
// Ownership: the Server creates connections and keeps them in its list; a connection frees
// itself in its close callback, after unlinking from the server.
#pragma once

#include <uv.h>

#include <memory>
#include <string>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/blocking.h"
#include "server/io_buffer.h"
#include "server/session.h"
#include "server/tls.h"

namespace warden::server {

class Server;

// "ip:port" of a socket address, and whether it is exactly 127.0.0.1 or ::1 (Redis's
// islocalClient).
std::string FormatSocketAddress(const sockaddr_storage& addr, bool& loopback);

class Connection final : public BlockedClientHost {
 public:
  // kTls: a TCP client of the tls-port listener, spoken to through a TlsChannel.
  enum class Kind { kTcp, kUnix, kTls };

  Connection(Server& server, Kind kind);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&handle_); }
  Session& session() { return session_; }
  const Session& session() const { return session_; }

  // Called once the stream is accepted: fills in addresses and starts reading.
  void Start();
  // Sends what is queued (best effort, without waiting) and closes.
  void Close();
  // Stops reading, and closes once every reply already computed has been written (shutdown).
  void CloseWhenFlushed();
  // Closes the client if its unsent replies are over client-output-buffer-limit. Returns true if
  // it did.
  bool EnforceOutputLimit();
  // Writes a reply and closes after it (rejecting a client at accept time).
  void Reject(std::string_view error);
  bool closing() const { return closing_; }
  // Forgets the replies not yet handed to the kernel (a client killed by CLIENT KILL).
  void DropOutput() { output_.clear(); }
  // Reads what the socket holds without the loop and runs it (used while a script is busy).
  void PollOnce();
  // Goes on with the requests that waited while the client was blocked.
  void Resume();
  // A TLS client still in its handshake tls-handshake-timeout after it connected is closed.
  // `now_ms` is the loop's real time.
  void CloseIfHandshakeOverdue(std::uint64_t now_ms);

  // BlockedClientHost
  std::string& reply_buffer() override { return output_; }
  void Unblocked() override;
  void ScheduleFlush() override;
  bool HoldReplies(std::int64_t delay_ms) override;
  std::size_t pending_output_bytes() const override { return PendingOutputBytes(); }
  bool write_in_flight() const override { return write_pending_; }
  // From the server's flush list: sends what other clients' commands appended, or closes the
  // client if that put it over its output limit.
  void FlushScheduled();

  Connection* next = nullptr;  // the server's list
  Connection* prev = nullptr;

 private:
  static void OnAlloc(uv_handle_t* handle, std::size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);
  static void OnClose(uv_handle_t* handle);
  static void OnDelayTimer(uv_timer_t* timer);
  static void OnDiscardAlloc(uv_handle_t* handle, std::size_t suggested, uv_buf_t* buf);
  static void OnDiscardRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);

  void ProcessInput();
  // Takes `n` bytes just read: already in input_ for a plain socket; at `data` for TLS, which
  // decrypts them into input_. Returns false if that closed the connection (a TLS error, the
  // query buffer limit).
  bool Ingest(const char* data, std::size_t n);
  // What the socket is sent next: output_ itself, or for TLS the ciphertext buffer after output_
  // is sealed into it. Null after a TLS error.
  std::string* WireBytes();
  // Prefetches the hash buckets of the next pipelined requests' keys (protocol/request_peek.h).
  void PrefetchAhead(std::string_view data);
  // Every reply is out and close_after_reply is set: closes, lingering first on shutdown.
  void CloseAfterReplies();
  void Flush();
  void UpdateReading();
  bool OutputBacklogged() const;
  std::size_t PendingOutputBytes() const;

  Server& server_;
  Kind kind_;
  union {
    uv_tcp_t tcp;
    uv_pipe_t pipe;
  } handle_;
  Session session_;
  IoBuffer input_;
  protocol::RequestParser parser_;
  std::string output_;   // replies not yet handed to the kernel
  std::string writing_;  // bytes owned by the in-flight uv_write
  // TLS only: the session, and ciphertext (handshake records, sealed replies) not yet written.
  std::unique_ptr<TlsChannel> tls_;
  std::string tls_wire_;
  std::uint64_t accepted_at_ms_ = 0;  // loop time, for the handshake timeout
  uv_write_t write_req_;
  // A DELAY fault (HoldReplies): replies wait on this timer until delay_until_ms_ (loop time).
  // Initialised on first use; the connection is freed once every handle it owns has closed.
  uv_timer_t delay_timer_;
  bool delay_timer_open_ = false;
  bool delaying_ = false;
  std::uint64_t delay_until_ms_ = 0;
  int open_handles_ = 1;
  bool write_pending_ = false;
  bool reading_ = false;
  bool closing_ = false;
  bool flush_scheduled_ = false;  // on the server's flush list
  // Pipelined requests ahead whose keys' buckets were prefetched, at most kPrefetchDepth.
  static constexpr std::size_t kPrefetchDepth = 16;
  // Below this many keys in its database a client's requests are not peeked at for prefetching.
  static constexpr std::size_t kPrefetchMinKeys = 1 << 16;
  std::size_t prefetched_ = 0;
  bool linger_ = false;      // shutting down: half-close and wait for the peer before closing
  bool discarding_ = false;  // lingering: reads are thrown away until the peer closes
  bool executing_ = false;   // inside Dispatch: a busy script's polling must not re-enter
  // The fairness budget: the bytes of requests run in the loop turn `turn_`. Past kTurnBytes the
  // client waits, not reading, until the next turn (throttled_), so that one pipelining client
  // cannot hold up the others.
  std::uint64_t turn_ = 0;
  std::size_t turn_bytes_ = 0;
  bool throttled_ = false;
  // When the unsent replies first went over the soft output limit (0: they are under it).
  std::int64_t soft_limit_since_ms_ = 0;
};

}  // namespace warden::server
