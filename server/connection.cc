#include "server/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cstdio>

#include "protocol/request_peek.h"
#include "server/commands/commands.h"
#include "server/dispatcher.h"
#include "server/server.h"

namespace warden::server {
namespace {

// Read size when nothing larger is known to be coming.
constexpr std::size_t kReadChunk = 16 * 1024;
// Stop running a client's requests while this many reply bytes wait for the socket.
constexpr std::size_t kOutputBacklogBytes = 4 * 1024 * 1024;
// A read buffer this large is released once empty.
constexpr std::size_t kKeepInputBytes = 64 * 1024;
// Argument slots kept between requests: a few pages, far more than a lock server's commands use.
constexpr std::size_t kKeepParsedArgs = 1024;
// How many bytes of requests one client runs in a loop turn before the others get theirs; a
// single larger request still runs whole. Redis reads 16 KB per client per turn; at 16 KB a
// pipelining client lost 17% of its throughput here, at 32 KB none (bench/neighbour_burst.py).
constexpr std::size_t kTurnBytes = 32 * 1024;

// Where TLS clients' ciphertext is read to. One for all: libuv calls a stream's alloc and read
// callbacks back to back, and the bytes are handed to OpenSSL before the next read.
char* CipherReadBuffer() {
  static const std::unique_ptr<char[]> buffer(new char[kReadChunk]);
  return buffer.get();
}

}  // namespace

std::string FormatSocketAddress(const sockaddr_storage& addr, bool& loopback) {
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  loopback = false;
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
    port = ntohs(in->sin_port);
    // Redis's islocalClient: exactly 127.0.0.1 or ::1, not the rest of 127.0.0.0/8.
    loopback = ntohl(in->sin_addr.s_addr) == INADDR_LOOPBACK;
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
    port = ntohs(in6->sin6_port);
    loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  char buf[INET6_ADDRSTRLEN + 8];
  std::snprintf(buf, sizeof(buf), "%s:%d", ip, port);
  return buf;
}

Connection::Connection(Server& server, Kind kind) : server_(server), kind_(kind) {
  if (kind == Kind::kUnix) {
    uv_pipe_init(server.loop(), &handle_.pipe, 0);
  } else {
    uv_tcp_init(server.loop(), &handle_.tcp);
  }
  if (kind == Kind::kTls) {
    // tls-auth-clients is read as each client connects, as Redis does.
    tls_ =
        std::make_unique<TlsChannel>(*server.state().tls, server.state().config.tls_auth_clients);
  }
  handle_.tcp.data = this;  // the same offset in both members
  session_.host = this;
  write_req_.data = this;
  protocol::ParserLimits limits;
  limits.max_bulk_len = server.state().config.proto_max_bulk_len;
  parser_.set_limits(limits);
}

void Connection::Start() {
  accepted_at_ms_ = uv_now(server_.loop());
  if (kind_ != Kind::kUnix) {
    sockaddr_storage addr{};
    int len = sizeof(addr);
    bool loopback = false;
    if (uv_tcp_getpeername(&handle_.tcp, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      session_.addr = FormatSocketAddress(addr, loopback);
    }
    session_.local = loopback;
    len = sizeof(addr);
    bool unused = false;
    if (uv_tcp_getsockname(&handle_.tcp, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      session_.laddr = FormatSocketAddress(addr, unused);
    }
    uv_tcp_nodelay(&handle_.tcp, 1);
    const int keepalive = server_.state().config.tcp_keepalive_s;
    if (keepalive > 0) uv_tcp_keepalive(&handle_.tcp, 1, static_cast<unsigned>(keepalive));
  } else {
    session_.addr = server_.state().config.unixsocket + ":0";
    session_.laddr = session_.addr;
    session_.local = true;
    session_.unix_socket = true;
  }
  session_.tls = kind_ == Kind::kTls;
  uv_os_fd_t fd = -1;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(&handle_), &fd) == 0) session_.fd = fd;
  UpdateReading();
}

void Connection::Reject(std::string_view error) {
  protocol::ReplyWriter writer(&output_, session_.resp);
  writer.Error(error);
  session_.close_after_reply = true;
  Flush();
}

bool Connection::OutputBacklogged() const {
  return write_pending_ && output_.size() + writing_.size() > kOutputBacklogBytes;
}

std::size_t Connection::PendingOutputBytes() const {
  // The memory held for the client, as Redis's omem counts its reply blocks: an in-flight write
  // keeps its whole buffer until it completes, however much of it the kernel has taken. Counting
  // only the unsent tail let a client that reads nothing stay under a soft limit for good once
  // the kernel's socket buffers (32 MB of receive buffer on recent kernels) took most of it.
  return output_.size() + (write_pending_ ? writing_.size() : 0);
}

bool Connection::EnforceOutputLimit() {
  if (closing_) return false;
  // Redis's getClientType: a subscribed client is of class pubsub; a MONITOR client is normal.
  const Config& config = server_.state().config;
  const bool replica =
      session_.replica != nullptr && session_.replica->phase != ReplicaPeer::Phase::kHandshake;
  const OutputBufferLimit& limit = replica                 ? config.output_limit_replica
                                   : session_.subscribed() ? config.output_limit_pubsub
                                                           : config.output_limit_normal;
  if (limit.hard_bytes == 0 && limit.soft_bytes == 0) return false;
  const auto used = static_cast<std::int64_t>(PendingOutputBytes());
  bool over = limit.hard_bytes > 0 && used >= limit.hard_bytes;
  if (limit.soft_bytes > 0 && used >= limit.soft_bytes) {
    // Redis's rule: over the soft limit for more than soft-seconds, measured from the first time
    // it was seen over.
    const std::int64_t now = server_.state().clock.NowMs();
    if (soft_limit_since_ms_ == 0) {
      soft_limit_since_ms_ = now;
    } else if (now - soft_limit_since_ms_ > limit.soft_seconds * 1000) {
      over = true;
    }
  } else {
    soft_limit_since_ms_ = 0;
  }
  if (!over) return false;
  session_.output_bytes = PendingOutputBytes();
  std::string info;
  AppendClientInfo(session_, server_.state().clock.NowMs(), info);
  server_.log().Log(LogLevel::kWarning,
                    "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
                    info.c_str());
  // As in Redis, nothing more is sent to it: the point is to stop holding its replies.
  output_.clear();
  Close();
  return true;
}

void Connection::CloseAfterReplies() {
  // Closing a socket with unread input makes the kernel send a reset, and a reset makes the peer
  // drop replies it has received but not yet read. So a client caught mid-pipeline by shutdown
  // gets a FIN instead; what it still sends is discarded, and the socket closes when the client
  // closes its end (or the server's shutdown timer runs out). An idle client closes at once.
  int unread = 0;
  const bool mid_pipeline =
      input_.unread_size() > 0 ||
      (session_.fd >= 0 && ioctl(session_.fd, FIONREAD, &unread) == 0 && unread > 0);
  if (!linger_ || !mid_pipeline) {
    Close();
    return;
  }
  if (reading_) uv_read_stop(stream());
  reading_ = false;
  if (session_.fd < 0 || ::shutdown(session_.fd, SHUT_WR) != 0 ||
      uv_read_start(stream(), OnDiscardAlloc, OnDiscardRead) != 0) {
    Close();
    return;
  }
  reading_ = true;
  discarding_ = true;
}

void Connection::OnDiscardAlloc(uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(handle->data);
  self->input_.Consume(self->input_.unread_size());
  char* base = self->input_.Reserve(kReadChunk);
  *buf = uv_buf_init(base, static_cast<unsigned int>(self->input_.free_space()));
}

void Connection::OnDiscardRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
  if (nread < 0) static_cast<Connection*>(stream->data)->Close();
}

void Connection::CloseWhenFlushed() {
  if (closing_) return;
  linger_ = true;
  session_.close_after_reply = true;
  UpdateReading();
  // A write in flight or a reply delay finishes first; their callbacks flush and then close.
  if (!write_pending_ && !delaying_) Flush();
}

void Connection::UpdateReading() {
  if (discarding_) return;
  // A TLS client turned away at accept time (maxclients, protected mode) is told why once its
  // handshake is done, so its handshake goes on.
  const bool handshaking = tls_ != nullptr && !tls_->established();
  const bool want = !closing_ && (!session_.close_after_reply || handshaking) &&
                    !OutputBacklogged() && !throttled_;
  if (want && !reading_) {
    if (uv_read_start(stream(), OnAlloc, OnRead) == 0) reading_ = true;
  } else if (!want && reading_) {
    uv_read_stop(stream());
    reading_ = false;
  }
  // For CLIENT LIST.
  session_.output_bytes = PendingOutputBytes();
  session_.reading = reading_;
  session_.writing = write_pending_;
}

void Connection::OnAlloc(uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(handle->data);
  if (self->tls_ != nullptr) {
    *buf = uv_buf_init(CipherReadBuffer(), static_cast<unsigned int>(kReadChunk));
    return;
  }
  // A declared bulk larger than a chunk is read in one go into a buffer of its size.
  const std::size_t want = std::max(kReadChunk, self->parser_.bytes_wanted());
  char* base = self->input_.Reserve(want);
  *buf = uv_buf_init(base, static_cast<unsigned int>(self->input_.free_space()));
}

void Connection::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<Connection*>(stream->data);
  if (nread < 0) {
    Logger& log = self->server_.log();
    if (nread == UV_EOF && log.enabled(LogLevel::kVerbose)) {
      std::string info;
      AppendClientInfo(self->session_, self->server_.state().clock.NowMs(), info);
      log.Log(LogLevel::kVerbose, "Client closed connection %s", info.c_str());
    }
    self->Close();
    return;
  }
  if (nread == 0) return;
  ++self->server_.state().info_metrics.reads_processed;
  if (self->Ingest(buf->base, static_cast<std::size_t>(nread))) self->ProcessInput();
}

bool Connection::Ingest(const char* data, std::size_t n) {
  ServerState& state = server_.state();
  std::size_t plain = n;
  if (tls_ == nullptr) {
    input_.Commit(n);
  } else {
    const std::size_t before = input_.unread_size();
    const TlsChannel::Status status =
        tls_->Receive({data, n}, input_, std::max(kReadChunk, parser_.bytes_wanted()));
    if (status != TlsChannel::Status::kOk) {
      // Redis's clientAcceptHandler words a failed handshake so; the addresses say whose.
      if (status == TlsChannel::Status::kError && !tls_->established()) {
        server_.log().Log(LogLevel::kWarning,
                          "Error accepting a client connection: %s (addr=%s laddr=%s)",
                          tls_->error().c_str(), session_.addr.c_str(), session_.laddr.c_str());
      }
      // The alert OpenSSL wrote tells the client why (as Redis's socket BIO sends it).
      std::string* wire = WireBytes();
      if (!write_pending_ && wire != nullptr && !wire->empty()) {
        uv_buf_t buf = uv_buf_init(wire->data(), static_cast<unsigned int>(wire->size()));
        uv_try_write(stream(), &buf, 1);
      }
      output_.clear();
      Close();
      return false;
    }
    plain = input_.unread_size() - before;
  }
  // As Redis 7.0: what a master sends is replication traffic, counted apart.
  (session_.is_master ? state.stats.total_net_repl_input_bytes
                      : state.stats.total_net_input_bytes) += static_cast<std::uint64_t>(plain);
  // Redis closes a client whose unparsed input passes client-query-buffer-limit, silently.
  if (input_.unread_size() > static_cast<std::size_t>(state.config.client_query_buffer_limit)) {
    server_.log().Log(LogLevel::kWarning,
                      "Closing client that reached max query buffer length: id=%llu",
                      static_cast<unsigned long long>(session_.id));
    Close();
    return false;
  }
  return true;
}

void Connection::CloseIfHandshakeOverdue(std::uint64_t now_ms) {
  if (tls_ == nullptr || tls_->established() || closing_) return;
  const auto timeout = static_cast<std::uint64_t>(server_.state().config.tls_handshake_timeout_ms);
  if (now_ms - accepted_at_ms_ < timeout) return;
  server_.log().Log(LogLevel::kVerbose, "TLS handshake timed out (addr=%s laddr=%s)",
                    session_.addr.c_str(), session_.laddr.c_str());
  Close();
}

namespace {

// The key a pipelined request will look up first: its first argument, or for EVAL and EVALSHA
// (and their _RO forms) the first of KEYS.
std::string_view KeyToPrefetch(const protocol::PeekedRequest& request) {
  if (request.argc < 2) return {};
  const std::string_view name = request.args[0];
  const bool script = (name.size() == 4 || name.size() == 7 || name.size() == 10) &&
                      (name[0] == 'e' || name[0] == 'E') && (name[1] == 'v' || name[1] == 'V');
  if (!script) return request.args[1];
  if (request.argc < 4 || request.args[2] == "0") return {};
  return request.args[3];
}

}  // namespace

void Connection::PrefetchAhead(std::string_view data) {
  // A keyspace this small stays in the caches: peeking at the requests (a second parse of each)
  // would cost more than the misses it saves. Looked at again kPrefetchDepth requests on.
  const storage::Keyspace& keyspace = server_.state().dbs.db(session_.db);
  if (keyspace.size() < kPrefetchMinKeys) {
    prefetched_ = kPrefetchDepth;
    return;
  }
  protocol::PeekedRequest ahead[kPrefetchDepth];
  const std::size_t n = protocol::PeekRequests(data, ahead);
  prefetched_ = n;
  // A lone request gains nothing: its lookup follows at once.
  if (n < 2) return;
  std::uint64_t hashes[kPrefetchDepth];
  std::size_t keys = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view key = KeyToPrefetch(ahead[i]);
    if (!key.empty()) hashes[keys++] = keyspace.PrefetchBucket(key);
  }
  // Then each key's first entry, as MGET does: the first bucket read waits for its load, the
  // others have arrived meanwhile, and the entries load side by side instead of one per lookup.
  for (std::size_t i = 0; i < keys; ++i) keyspace.PrefetchEntry(hashes[i]);
}

void Connection::ProcessInput() {
  ServerState& state = server_.state();
  protocol::ReplyWriter writer(&output_, session_.resp);
  bool ran = false;
  prefetched_ = 0;
  // The commands of this read are timed back to back (dispatcher.cc's Call), until it returns.
  struct TimingBatch {
    ServerState& state;
    explicit TimingBatch(ServerState& s) : state(s) { state.call.timing_batch = true; }
    ~TimingBatch() {
      state.call.timing_batch = false;
      state.call.next_start_us = -1;
    }
  } timing_batch(state);
  if (turn_ != server_.turn()) {
    turn_ = server_.turn();
    turn_bytes_ = 0;
  }
  while (!closing_ && !session_.close_after_reply && !session_.blocked && !OutputBacklogged()) {
    if (turn_bytes_ >= kTurnBytes && !parser_.in_progress()) {
      throttled_ = true;
      break;
    }
    const std::string_view data = input_.unread();
    if (prefetched_ == 0 && !parser_.in_progress()) PrefetchAhead(data);
    const protocol::ParseStatus status = parser_.Parse(data, session_.authenticated);
    if (status == protocol::ParseStatus::kNeedMore) break;
    if (status == protocol::ParseStatus::kError) {
      // Reply, flush, close; nothing after the bad request runs.
      writer.Error(parser_.error());
      session_.close_after_reply = true;
      break;
    }
    if (status == protocol::ParseStatus::kRequest) {
      session_.query_buffer_bytes = data.size();
      session_.query_buffer_free = input_.free_space();
      // A busy script polls the other clients from inside this call; this one is skipped.
      executing_ = true;
      Dispatch(state, session_, parser_.args(), writer);
      executing_ = false;
      ran = true;
      if (EnforceOutputLimit()) return;
      // One batch of pipelined requests can owe far more than the backlog allows: hand it to
      // the socket now, and if the kernel cannot take it all, the loop stops here.
      if (output_.size() > kOutputBacklogBytes && !write_pending_) {
        Flush();
        state.call.next_start_us = -1;
      }
      if (session_.close_now) {
        // Redis drops the replies still queued for this read, too.
        output_.clear();
        Close();
        return;
      }
    }
    turn_bytes_ += parser_.consumed();
    input_.Consume(parser_.consumed());
    parser_.Reset();
    if (prefetched_ > 0) --prefetched_;
  }
  if (ran) session_.last_interaction_ms = state.clock.NowMs();
  input_.ShrinkIfIdle(kKeepInputBytes);
  parser_.ShrinkIfIdle(kKeepParsedArgs);
  Flush();
  if (throttled_) server_.ScheduleResume(this);
  UpdateReading();
}

void Connection::PollOnce() {
  if (executing_ || !reading_ || session_.fd < 0) return;
  for (int reads = 0; reads < 16; ++reads) {
    char* base = tls_ != nullptr ? CipherReadBuffer() : input_.Reserve(kReadChunk);
    const std::size_t room = tls_ != nullptr ? kReadChunk : input_.free_space();
    const ssize_t n = recv(session_.fd, base, room, MSG_DONTWAIT);
    if (n == 0) {
      Close();
      return;
    }
    if (n < 0) break;  // EAGAIN: nothing more now; other errors surface on the next loop read
    if (!Ingest(base, static_cast<std::size_t>(n))) return;
  }
  if (input_.unread_size() > 0 || (tls_ != nullptr && tls_->HasOutgoing())) ProcessInput();
}

void Connection::Unblocked() {
  if (session_.drop_reply_when_served) [[unlikely]] {
    // A DROP-AFTER fault: the blocked command was served (or timed out) but its client never
    // hears. Replies before it went out when it blocked.
    output_.clear();
    Close();
    return;
  }
  Flush();
  if (input_.unread_size() > 0) server_.ScheduleResume(this);
}

void Connection::ScheduleFlush() {
  if (flush_scheduled_ || closing_) return;
  flush_scheduled_ = true;
  server_.ScheduleFlush(this);
}

void Connection::FlushScheduled() {
  flush_scheduled_ = false;
  if (closing_ || EnforceOutputLimit()) return;
  Flush();
  UpdateReading();
}

void Connection::Resume() {
  throttled_ = false;
  if (closing_ || session_.blocked) return;
  if (input_.unread_size() > 0 && !write_pending_) {
    ProcessInput();
  } else {
    Flush();
    UpdateReading();
  }
}

void Connection::OnDelayTimer(uv_timer_t* timer) {
  auto* self = static_cast<Connection*>(timer->data);
  self->delaying_ = false;
  self->Flush();
  // Requests that arrived meanwhile may have stopped on a full output: go on with them.
  self->UpdateReading();
}

bool Connection::HoldReplies(std::int64_t delay_ms) {
  if (closing_) return false;
  // The replies before the faulted command are not held. Sending them can find the peer gone,
  // which closes this connection: then the command must not run on its session.
  Flush();
  if (closing_) return false;
  if (!delay_timer_open_) {
    uv_timer_init(server_.loop(), &delay_timer_);
    delay_timer_.data = this;
    delay_timer_open_ = true;
    ++open_handles_;
  }
  // A hold already running ends no sooner than it would have.
  const auto delay = static_cast<std::uint64_t>(delay_ms);
  const std::uint64_t now = uv_now(server_.loop());
  if (delaying_ && delay_until_ms_ >= now + delay) return true;
  delaying_ = true;
  delay_until_ms_ = now + delay;
  uv_timer_start(&delay_timer_, OnDelayTimer, delay, 0);
  return true;
}

std::string* Connection::WireBytes() {
  if (tls_ == nullptr) return &output_;
  if (!tls_->Seal(output_, tls_wire_)) {
    server_.log().Log(LogLevel::kWarning, "TLS error writing to client %s: %s",
                      session_.addr.c_str(), tls_->error().c_str());
    return nullptr;
  }
  return &tls_wire_;
}

void Connection::Flush() {
  if (write_pending_ || closing_ || delaying_) return;
  // Handshake records wait for no reply.
  if (output_.empty() && (tls_ == nullptr || !tls_->HasOutgoing())) {
    if (session_.close_after_reply) CloseAfterReplies();
    return;
  }
  // Replies go out once the loop turn's writes are in the append-only file (before poll).
  if (!output_.empty() && server_.state().aof.replies_wait()) [[unlikely]] {
    ScheduleFlush();
    return;
  }
  const std::size_t replies = output_.size();
  std::string* wire = WireBytes();
  if (wire == nullptr) {
    output_.clear();
    Close();
    return;
  }
  // Counted as Redis counts them, before encryption, and once: replies a TLS handshake still
  // holds back are counted when they are sealed.
  if (tls_ == nullptr || output_.empty()) {
    ServerStats& stats = server_.state().stats;
    (session_.is_replica ? stats.total_net_repl_output_bytes : stats.total_net_output_bytes) +=
        replies;
  }
  // A TLS client turned away before its handshake is done: its reply waits for the handshake.
  if (wire->empty()) return;
  uv_buf_t buf = uv_buf_init(wire->data(), static_cast<unsigned int>(wire->size()));
  const int written = uv_try_write(stream(), &buf, 1);
  ++server_.state().info_metrics.writes_processed;
  std::size_t offset = written > 0 ? static_cast<std::size_t>(written) : 0;
  if (written < 0 && written != UV_EAGAIN) {
    Close();
    return;
  }
  if (offset == wire->size()) {
    wire->clear();
    if (session_.close_after_reply && output_.empty()) CloseAfterReplies();
    return;
  }
  // The kernel took part of it: hand the rest to libuv, which owns it until OnWrite.
  writing_.swap(*wire);
  wire->clear();
  write_pending_ = true;
  buf = uv_buf_init(writing_.data() + offset, static_cast<unsigned int>(writing_.size() - offset));
  if (uv_write(&write_req_, stream(), &buf, 1, OnWrite) != 0) {
    write_pending_ = false;
    Close();
  }
}

void Connection::OnWrite(uv_write_t* req, int status) {
  auto* self = static_cast<Connection*>(req->data);
  self->write_pending_ = false;
  self->writing_.clear();
  if (status < 0 || self->closing_) {
    self->Close();
    return;
  }
  // A full sync's payload goes on as the replica takes it.
  if (self->session_.replica != nullptr) [[unlikely]] {
    self->server_.state().replication.Drained();
  }
  // Requests held back while the output was backlogged run now (a throttled client's wait
  // for its next turn).
  if (self->input_.unread_size() > 0 && !self->session_.close_after_reply && !self->throttled_) {
    self->ProcessInput();
  } else {
    self->Flush();
    self->UpdateReading();
  }
}

void Connection::Close() {
  if (closing_) return;
  // Best effort: queued replies (QUIT's +OK, a protocol error) go out if the socket takes them,
  // but not before the writes they acknowledge are in the append-only file.
  Aof& aof = server_.state().aof;
  if (!write_pending_ && !output_.empty() && aof.replies_wait()) aof.Flush();
  if (!write_pending_ && !output_.empty() && !aof.replies_wait()) {
    if (std::string* wire = WireBytes(); wire != nullptr && !wire->empty()) {
      uv_buf_t buf = uv_buf_init(wire->data(), static_cast<unsigned int>(wire->size()));
      uv_try_write(stream(), &buf, 1);
    }
  }
  closing_ = true;
  if (reading_) {
    uv_read_stop(stream());
    reading_ = false;
  }
  server_.Unlink(this);
  uv_close(reinterpret_cast<uv_handle_t*>(&handle_), OnClose);
  if (delay_timer_open_) uv_close(reinterpret_cast<uv_handle_t*>(&delay_timer_), OnClose);
}

void Connection::OnClose(uv_handle_t* handle) {
  auto* self = static_cast<Connection*>(handle->data);
  if (--self->open_handles_ == 0) delete self;
}

}  // namespace warden::server
