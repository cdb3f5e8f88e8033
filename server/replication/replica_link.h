// A replica's link to its master (replication.c's connectWithMaster, syncWithMaster,
// readSyncBulkPayload and the master client): connect, PING, AUTH, REPLCONF listening-port /
// ip-address / capa eof capa psync2, PSYNC with the cached replication id and offset (or
// `? -1`), then either +CONTINUE and the stream, or +FULLRESYNC and the payload (`$<size>` or
// `$EOF:<mark>`), which replaces the data set. The stream is then run as the master's client:
// no replies, except REPLCONF ACK <offset> once a second and on GETACK; the offset counts each
// command's bytes once it has run. A link that drops is tried again each cron tick, and asks
// for a partial resync from where it stopped.
#pragma once

#include <uv.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "protocol/request_parser.h"
#include "server/session.h"

namespace warden::server {

class Replication;

class ReplicaLink {
 public:
  // Redis's repl_state, as ROLE and INFO name them.
  enum class State {
    kConnect,     // not connected; the cron connects
    kConnecting,  // connect() under way
    kHandshake,   // PING / AUTH / REPLCONF / PSYNC
    kTransfer,    // receiving the payload
    kConnected,   // the stream
  };

  ReplicaLink(Replication& replication, std::string host, int port);
  ~ReplicaLink();
  ReplicaLink(const ReplicaLink&) = delete;
  ReplicaLink& operator=(const ReplicaLink&) = delete;

  const std::string& host() const { return host_; }
  int port() const { return port_; }
  State state() const { return state_; }
  bool up() const { return state_ == State::kConnected; }
  // slave_repl_offset: the stream's bytes applied; -1 before a sync gave one.
  std::int64_t offset() const { return offset_; }
  std::int64_t read_offset() const { return read_offset_; }
  // Unix-ms-free: seconds since the master last sent anything, and since the link went down
  // (-1: never up).
  std::int64_t last_io_seconds() const;
  std::int64_t down_seconds() const;
  // While a payload arrives: its size (-1: EOF-marked, unknown) and the bytes read.
  std::int64_t transfer_size() const { return transfer_size_; }
  std::int64_t transfer_read() const { return static_cast<std::int64_t>(payload_.size()); }
  Session& master_session() { return session_; }
  const Session& master_session() const { return session_; }

  // The cached master: where a reconnect asks PSYNC to continue from.
  void CacheMaster(const std::string& replid, std::int64_t offset);
  void Cron();
  // REPLCONF GETACK, or the periodic ACK.
  void SendAck();
  // CLIENT KILL TYPE master: dropped, tried again from the cron.
  void Kill() { Drop("killed by CLIENT KILL"); }
  // DEBUG REPLICA-LINK: a test's failures. kDown drops the link and connects no more; kStall
  // keeps it open but reads and acknowledges nothing; kNone ends either.
  enum class Hold { kNone, kDown, kStall };
  void SetHold(Hold hold);

 private:
  static void OnConnect(uv_connect_t* req, int status);
  static void OnAlloc(uv_handle_t* handle, std::size_t suggested, uv_buf_t* buf);
  static void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
  static void OnWrite(uv_write_t* req, int status);

  void Connect();
  // Drops the connection; the cron tries again. `why` is logged.
  void Drop(const char* why);
  void Send(std::string_view bytes);
  void SendCommand(std::initializer_list<std::string_view> argv);
  void Process();
  // Handshake: takes one reply line (without CRLF); false when the link was dropped.
  bool HandshakeLine(std::string_view line);
  void SendPsync();
  bool TransferProgress();
  void LoadPayload();
  void RunStream();

  Replication& replication_;
  Hold hold_ = Hold::kNone;
  std::string host_;
  int port_;
  State state_ = State::kConnect;
  // Which reply the handshake waits for.
  enum class Step { kPong, kAuth, kPort, kIp, kCapa, kPsync } step_ = Step::kPong;
  uv_tcp_t* tcp_ = nullptr;
  std::string input_;
  std::size_t input_pos_ = 0;
  std::string outgoing_;  // waiting for the write in flight
  std::string writing_;
  bool write_pending_ = false;
  Session session_;
  protocol::RequestParser parser_;
  std::string reply_sink_;
  // The transfer.
  std::string payload_;
  std::int64_t transfer_size_ = 0;
  std::string eof_mark_;
  std::string sync_replid_;
  std::int64_t sync_offset_ = 0;
  // The cached master (PSYNC's arguments); empty id: PSYNC ? -1.
  std::string cached_replid_;
  std::int64_t offset_ = -1;
  std::int64_t read_offset_ = -1;
  std::int64_t last_io_ms_ = 0;      // warden's clock, so a test can move past repl-timeout
  std::int64_t down_since_ms_ = -1;  // warden's clock; -1: never up
  std::int64_t last_ack_mono_ms_ = 0;
  std::int64_t last_attempt_mono_ms_ = -1000000;
  std::int64_t connect_started_ms_ = 0;
};

}  // namespace warden::server
