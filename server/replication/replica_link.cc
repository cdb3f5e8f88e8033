#include "server/replication/replica_link.h"

#include <netdb.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/connection.h"
#include "server/dispatcher.h"
#include "server/log.h"
#include "server/persistence/aof.h"
#include "server/persistence/rdb_file.h"
#include "server/replication/replication.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::int64_t kMasterNowMs = 1;

void CloseHandle(uv_tcp_t* tcp) {
  tcp->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(tcp),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
}

}  // namespace

ReplicaLink::ReplicaLink(Replication& replication, std::string host, int port)
    : replication_(replication), host_(std::move(host)), port_(port) {
  session_.is_master = true;
  session_.authenticated = true;
  session_.name = "";
  session_.addr = host_ + ":" + std::to_string(port_);
  session_.id = replication_.server().NewClientId();
  protocol::ParserLimits limits;
  limits.max_bulk_len = replication_.server().config.proto_max_bulk_len;
  parser_.set_limits(limits);
}

ReplicaLink::~ReplicaLink() {
  if (tcp_ != nullptr) CloseHandle(tcp_);
  ForgetSession(replication_.server(), session_);
}

void ReplicaLink::CacheMaster(const std::string& replid, std::int64_t offset) {
  cached_replid_ = replid;
  offset_ = offset;
  read_offset_ = offset;
}

std::int64_t ReplicaLink::last_io_seconds() const {
  return (replication_.server().clock.NowMs() - last_io_ms_) / 1000;
}

std::int64_t ReplicaLink::down_seconds() const {
  if (down_since_ms_ < 0) return -1;
  return (replication_.server().clock.NowMs() - down_since_ms_) / 1000;
}

void ReplicaLink::Connect() {
  ServerState& server = replication_.server();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(port_);
  if (getaddrinfo(host_.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
    if (server.log != nullptr) {
      server.log->Log(LogLevel::kWarning, "Unable to connect to MASTER: can't resolve %s",
                      host_.c_str());
    }
    return;
  }
  tcp_ = new uv_tcp_t;
  uv_tcp_init(replication_.loop(), tcp_);
  tcp_->data = this;
  auto* req = new uv_connect_t;
  const int rc = uv_tcp_connect(req, tcp_, found->ai_addr, OnConnect);
  freeaddrinfo(found);
  if (rc != 0) {
    delete req;
    Drop(uv_strerror(rc));
    return;
  }
  if (server.log != nullptr) {
    server.log->Log(LogLevel::kNotice, "Connecting to MASTER %s:%d", host_.c_str(), port_);
  }
  state_ = State::kConnecting;
  connect_started_ms_ = server.clock.NowMs();
  last_io_ms_ = connect_started_ms_;
}

void ReplicaLink::OnConnect(uv_connect_t* req, int status) {
  auto* self = static_cast<ReplicaLink*>(req->handle->data);
  delete req;
  if (self == nullptr) return;
  if (status != 0) {
    self->Drop(uv_strerror(status));
    return;
  }
  ServerState& server = self->replication_.server();
  if (server.log != nullptr) {
    server.log->Log(LogLevel::kNotice, "MASTER <-> REPLICA sync started");
  }
  uv_tcp_nodelay(self->tcp_, 1);
  // CLIENT LIST's line of the master's client: its socket, local address and age.
  Session& s = self->session_;
  s.created_ms = server.clock.NowMs();
  s.last_interaction_ms = s.created_ms;
  uv_os_fd_t fd = -1;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(self->tcp_), &fd) == 0) s.fd = fd;
  sockaddr_storage local{};
  int len = sizeof(local);
  if (uv_tcp_getsockname(self->tcp_, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    bool loopback = false;
    s.laddr = FormatSocketAddress(local, loopback);
  }
  self->state_ = State::kHandshake;
  self->step_ = Step::kPong;
  self->input_.clear();
  self->input_pos_ = 0;
  uv_read_start(reinterpret_cast<uv_stream_t*>(self->tcp_), OnAlloc, OnRead);
  self->SendCommand({"PING"});
}

void ReplicaLink::OnAlloc(uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
  auto* self = static_cast<ReplicaLink*>(handle->data);
  // Bytes already taken are dropped before the buffer grows.
  if (self->input_pos_ > 0) {
    self->input_.erase(0, self->input_pos_);
    self->input_pos_ = 0;
  }
  const std::size_t used = self->input_.size();
  self->input_.resize(used + kReadChunk);
  *buf = uv_buf_init(self->input_.data() + used, static_cast<unsigned int>(kReadChunk));
}

void ReplicaLink::OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  auto* self = static_cast<ReplicaLink*>(stream->data);
  if (self == nullptr) return;
  // What OnAlloc added past the bytes read goes.
  const std::size_t unused = buf->len - static_cast<std::size_t>(nread > 0 ? nread : 0);
  self->input_.resize(self->input_.size() - unused);
  if (nread < 0) {
    self->Drop(nread == UV_EOF ? "connection closed by the master"
                               : uv_strerror(static_cast<int>(nread)));
    return;
  }
  if (nread == 0) return;
  self->last_io_ms_ = self->replication_.server().clock.NowMs();
  self->Process();
}

void ReplicaLink::Drop(const char* why) {
  ServerState& server = replication_.server();
  // Redis's words: a working link is "lost" (why, at verbose); a failed attempt says why.
  if (server.log != nullptr && state_ == State::kConnected) {
    server.log->Log(LogLevel::kNotice, "Connection with master lost.");
    server.log->Log(LogLevel::kNotice, "Caching the disconnected master state.");
    if (why != nullptr) server.log->Log(LogLevel::kVerbose, "%s", why);
  } else if (server.log != nullptr && why != nullptr) {
    server.log->Log(LogLevel::kWarning, "%s", why);
  }
  if (tcp_ != nullptr) {
    CloseHandle(tcp_);
    tcp_ = nullptr;
  }
  if (state_ == State::kConnected) {
    down_since_ms_ = server.clock.NowMs();
    // Redis caches the master: the next connect asks to continue from here, at once rather
    // than a second later, before the backlog moves on.
    cached_replid_ = replication_.replid();
    last_attempt_mono_ms_ = -1000000;
  }
  // A transaction the master had begun is not finished now.
  ForgetSession(server, session_);
  session_.in_multi = false;
  session_.fd = -1;
  parser_.Reset();
  input_.clear();
  input_pos_ = 0;
  payload_.clear();
  outgoing_.clear();
  write_pending_ = false;
  state_ = State::kConnect;
}

void ReplicaLink::Send(std::string_view bytes) {
  if (tcp_ == nullptr) return;
  if (write_pending_) {
    outgoing_.append(bytes);
    return;
  }
  uv_buf_t buf =
      uv_buf_init(const_cast<char*>(bytes.data()), static_cast<unsigned int>(bytes.size()));
  const int n = uv_try_write(reinterpret_cast<uv_stream_t*>(tcp_), &buf, 1);
  std::size_t sent = n > 0 ? static_cast<std::size_t>(n) : 0;
  if (n < 0 && n != UV_EAGAIN) {
    Drop(uv_strerror(n));
    return;
  }
  if (sent == bytes.size()) return;
  writing_.assign(bytes.substr(sent));
  write_pending_ = true;
  auto* req = new uv_write_t;
  buf = uv_buf_init(writing_.data(), static_cast<unsigned int>(writing_.size()));
  if (uv_write(req, reinterpret_cast<uv_stream_t*>(tcp_), &buf, 1, OnWrite) != 0) {
    delete req;
    write_pending_ = false;
    Drop("write failed");
  }
}

void ReplicaLink::OnWrite(uv_write_t* req, int status) {
  auto* self = static_cast<ReplicaLink*>(req->handle->data);
  delete req;
  if (self == nullptr) return;
  self->write_pending_ = false;
  self->writing_.clear();
  if (status != 0) {
    self->Drop(uv_strerror(status));
    return;
  }
  if (!self->outgoing_.empty()) {
    std::string next;
    next.swap(self->outgoing_);
    self->Send(next);
  }
}

void ReplicaLink::SendCommand(std::initializer_list<std::string_view> argv) {
  std::string out;
  AppendCommand(out, std::span<const std::string_view>(argv.begin(), argv.size()));
  Send(out);
}

void ReplicaLink::SetHold(Hold hold) {
  hold_ = hold;
  if (hold == Hold::kDown) {
    Drop("DEBUG REPLICA-LINK DOWN");
    return;
  }
  if (tcp_ == nullptr) return;
  auto* stream = reinterpret_cast<uv_stream_t*>(tcp_);
  if (hold == Hold::kStall) {
    uv_read_stop(stream);
  } else {
    uv_read_start(stream, OnAlloc, OnRead);
  }
}

void ReplicaLink::SendAck() {
  if (state_ != State::kConnected || hold_ == Hold::kStall) return;
  const std::string offset = std::to_string(offset_);
  SendCommand({"REPLCONF", "ACK", offset});
  last_ack_mono_ms_ = replication_.server().clock.MonotonicUs() / 1000;
}

void ReplicaLink::Process() {
  while (tcp_ != nullptr) {
    if (state_ == State::kHandshake) {
      const std::size_t eol = input_.find('\n', input_pos_);
      if (eol == std::string::npos) return;
      std::string_view line(input_.data() + input_pos_, eol - input_pos_);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      input_pos_ = eol + 1;
      const std::string copy(line);
      if (!HandshakeLine(copy)) return;
    } else if (state_ == State::kTransfer) {
      if (!TransferProgress()) return;
    } else if (state_ == State::kConnected) {
      RunStream();
      return;
    } else {
      return;
    }
  }
}

bool ReplicaLink::HandshakeLine(std::string_view line) {
  ServerState& server = replication_.server();
  Logger* log = server.log;
  switch (step_) {
    case Step::kPong: {
      if (line.empty()) return true;
      if (line[0] != '+' && line.rfind("-NOAUTH", 0) != 0 && line.rfind("-NOPERM", 0) != 0 &&
          line.rfind("-ERR operation not permitted", 0) != 0) {
        const std::string why = "Error reply to PING from master: '" + std::string(line) + "'";
        Drop(why.c_str());
        return false;
      }
      if (log != nullptr)
        log->Log(LogLevel::kNotice, "Master replied to PING, replication can continue...");
      const ReplicationConfig& c = server.config.repl;
      if (!c.masterauth.empty()) {
        if (c.masteruser.empty()) {
          SendCommand({"AUTH", c.masterauth});
        } else {
          SendCommand({"AUTH", c.masteruser, c.masterauth});
        }
      }
      const std::string port =
          std::to_string(c.announce_port != 0 ? c.announce_port : server.config.port);
      SendCommand({"REPLCONF", "listening-port", port});
      if (!c.announce_ip.empty()) SendCommand({"REPLCONF", "ip-address", c.announce_ip});
      SendCommand({"REPLCONF", "capa", "eof", "capa", "psync2"});
      step_ = c.masterauth.empty() ? Step::kPort : Step::kAuth;
      return true;
    }
    case Step::kAuth:
      if (line.empty()) return true;
      if (line[0] == '-') {
        const std::string why = "Unable to AUTH to MASTER: " + std::string(line);
        Drop(why.c_str());
        return false;
      }
      step_ = Step::kPort;
      return true;
    case Step::kPort:
      if (line.empty()) return true;
      if (line[0] == '-' && log != nullptr) {
        log->Log(LogLevel::kNotice,
                 "(Non critical) Master does not understand REPLCONF listening-port: %.*s",
                 static_cast<int>(line.size()), line.data());
      }
      step_ = server.config.repl.announce_ip.empty() ? Step::kCapa : Step::kIp;
      return true;
    case Step::kIp:
      if (line.empty()) return true;
      if (line[0] == '-' && log != nullptr) {
        log->Log(LogLevel::kNotice,
                 "(Non critical) Master does not understand REPLCONF ip-address: %.*s",
                 static_cast<int>(line.size()), line.data());
      }
      step_ = Step::kCapa;
      return true;
    case Step::kCapa:
      if (line.empty()) return true;
      if (line[0] == '-' && log != nullptr) {
        log->Log(LogLevel::kNotice, "(Non critical) Master does not understand REPLCONF capa: %.*s",
                 static_cast<int>(line.size()), line.data());
      }
      SendPsync();
      step_ = Step::kPsync;
      return true;
    case Step::kPsync:
      break;
  }
  if (line.empty()) return true;  // the master's keepalive while it prepares
  if (line.rfind("+FULLRESYNC", 0) == 0) {
    // "+FULLRESYNC <replid> <offset>"
    const std::size_t space = line.find(' ', 12);
    std::int64_t offset = 0;
    if (line.size() < 12 + 40 || space == std::string_view::npos ||
        !protocol::ParseStrictInt64(line.substr(space + 1), offset)) {
      Drop("Master replied with wrong +FULLRESYNC syntax.");
      return false;
    }
    sync_replid_.assign(line.substr(12, space - 12));
    sync_offset_ = offset;
    if (log != nullptr) {
      log->Log(LogLevel::kNotice, "Full resync from master: %s:%lld", sync_replid_.c_str(),
               static_cast<long long>(offset));
    }
    state_ = State::kTransfer;
    transfer_size_ = 0;
    eof_mark_.clear();
    payload_.clear();
    replication_.FailoverAnswered(true);
    return true;
  }
  if (line.rfind("+CONTINUE", 0) == 0) {
    if (log != nullptr) {
      log->Log(LogLevel::kNotice, "Successful partial resynchronization with master.");
    }
    if (line.size() >= 10 + 40) {
      const std::string id(line.substr(10, 40));
      if (id != replication_.replid()) replication_.ContinueWithNewId(id);
    }
    state_ = State::kConnected;
    down_since_ms_ = -1;
    if (log != nullptr) {
      log->Log(LogLevel::kNotice,
               "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
    }
    replication_.FailoverAnswered(true);
    return true;
  }
  if (replication_.failing_over()) replication_.FailoverAnswered(false);
  const std::string why = "Unexpected reply to PSYNC from master: " + std::string(line);
  Drop(why.c_str());
  return false;
}

void ReplicaLink::SendPsync() {
  if (cached_replid_.empty()) {
    SendCommand({"PSYNC", "?", "-1"});
    if (replication_.server().log != nullptr) {
      replication_.server().log->Log(LogLevel::kNotice,
                                     "Partial resynchronization not possible (no cached master)");
    }
    return;
  }
  const std::string offset = std::to_string(offset_ + 1);
  if (replication_.failing_over()) {
    SendCommand({"PSYNC", cached_replid_, offset, "FAILOVER"});
  } else {
    SendCommand({"PSYNC", cached_replid_, offset});
  }
  if (replication_.server().log != nullptr) {
    replication_.server().log->Log(LogLevel::kNotice,
                                   "Trying a partial resynchronization (request %s:%s).",
                                   cached_replid_.c_str(), offset.c_str());
  }
}

bool ReplicaLink::TransferProgress() {
  if (transfer_size_ == 0) {
    // The bulk's header, after any keepalive newlines.
    const std::size_t eol = input_.find('\n', input_pos_);
    if (eol == std::string::npos) return false;
    std::string_view line(input_.data() + input_pos_, eol - input_pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    input_pos_ = eol + 1;
    if (line.empty()) return true;
    if (line[0] == '-') {
      const std::string why = "MASTER aborted replication with an error: " + std::string(line);
      Drop(why.c_str());
      return false;
    }
    if (line[0] != '$') {
      const std::string why = "Bad protocol from MASTER, the first byte is not '$' (we received '" +
                              std::string(line) + "'), are you sure the host and port are right?";
      Drop(why.c_str());
      return false;
    }
    if (line.size() == 5 + 40 && line.substr(1, 4) == "EOF:") {
      eof_mark_.assign(line.substr(5));
      transfer_size_ = -1;
    } else if (!protocol::ParseStrictInt64(line.substr(1), transfer_size_) || transfer_size_ <= 0) {
      Drop("Bad payload size from MASTER");
      return false;
    } else {
      payload_.reserve(static_cast<std::size_t>(transfer_size_));
    }
    if (replication_.server().log != nullptr) {
      replication_.server().log->Log(
          LogLevel::kNotice, "MASTER <-> REPLICA sync: receiving %s",
          transfer_size_ < 0
              ? "streamed RDB from master with EOF to disk"
              : (std::to_string(transfer_size_) + " bytes from master to disk").c_str());
    }
    return true;
  }
  const std::string_view avail(input_.data() + input_pos_, input_.size() - input_pos_);
  if (transfer_size_ > 0) {
    const std::size_t need = static_cast<std::size_t>(transfer_size_) - payload_.size();
    const std::size_t take = std::min(need, avail.size());
    payload_.append(avail.substr(0, take));
    input_pos_ += take;
    if (payload_.size() < static_cast<std::size_t>(transfer_size_)) return false;
  } else {
    payload_.append(avail);
    input_pos_ += avail.size();
    if (payload_.size() < eof_mark_.size() ||
        payload_.compare(payload_.size() - eof_mark_.size(), eof_mark_.size(), eof_mark_) != 0) {
      return false;
    }
    payload_.resize(payload_.size() - eof_mark_.size());
  }
  LoadPayload();
  return tcp_ != nullptr;
}

void ReplicaLink::LoadPayload() {
  ServerState& server = replication_.server();
  Logger* log = server.log;
  if (log != nullptr) log->Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Flushing old data");
  // This server's own replicas must sync again from the new data set.
  replication_.DisconnectReplicas();
  server.dbs.FlushAll();
  server.scripts->FlushFunctions();
  if (log != nullptr) log->Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Loading DB in memory");
  RdbLoadOptions options;
  options.drop_expired = false;
  const bool was_loading = server.loading;
  server.loading = true;
  const RdbLoadResult result = LoadRdb(server, payload_, options);
  server.loading = was_loading;
  std::string().swap(payload_);
  if (result.error) {
    if (log != nullptr) {
      log->Log(LogLevel::kWarning,
               "Failed trying to load the MASTER synchronization DB from socket: %s",
               result.error->c_str());
    }
    server.dbs.FlushAll();
    server.scripts->FlushFunctions();
    Drop(nullptr);
    return;
  }
  replication_.AdoptMasterStream(sync_replid_, sync_offset_);
  cached_replid_ = sync_replid_;
  offset_ = sync_offset_;
  read_offset_ = sync_offset_;
  session_.db = 0;
  state_ = State::kConnected;
  down_since_ms_ = -1;
  if (log != nullptr) {
    log->Log(LogLevel::kNotice, "MASTER <-> REPLICA sync: Finished with success");
  }
  // Redis's replica answers an EOF-marked payload with an ACK at once: the master waits for it
  // before it starts the stream.
  if (transfer_size_ < 0) SendAck();
  transfer_size_ = 0;
}

void ReplicaLink::RunStream() {
  ServerState& server = replication_.server();
  while (tcp_ != nullptr && state_ == State::kConnected) {
    const std::string_view data(input_.data() + input_pos_, input_.size() - input_pos_);
    if (data.empty()) break;
    const protocol::ParseStatus status = parser_.Parse(data, true);
    if (status == protocol::ParseStatus::kNeedMore) break;
    if (status == protocol::ParseStatus::kError) {
      const std::string why = "Protocol error from MASTER: " + std::string(parser_.error());
      Drop(why.c_str());
      return;
    }
    const std::size_t consumed = parser_.consumed();
    read_offset_ += static_cast<std::int64_t>(consumed);
    if (status == protocol::ParseStatus::kRequest) {
      session_.last_interaction_ms = server.clock.NowMs();
      reply_sink_.clear();
      protocol::ReplyWriter writer(&reply_sink_, 2);
      // The master's commands see no key as expired (Redis's lookupKey for the master client):
      // its time is held at the epoch's first millisecond, before any deadline, as the
      // append-only file's loading holds it. Deadlines travel as absolute times.
      const std::int64_t frozen = server.call.frozen_now_ms;
      server.call.frozen_now_ms = kMasterNowMs;
      Dispatch(server, session_, parser_.args(), writer);
      server.call.frozen_now_ms = frozen;
    }
    // Counted once it ran, so an ACK a GETACK asked for excludes the GETACK itself.
    offset_ += static_cast<std::int64_t>(consumed);
    replication_.AppliedFromMaster(data.substr(0, consumed));
    input_pos_ += consumed;
    parser_.Reset();
  }
  if (input_pos_ == input_.size()) {
    input_.clear();
    input_pos_ = 0;
  }
}

void ReplicaLink::Cron() {
  ServerState& server = replication_.server();
  const std::int64_t now = server.clock.NowMs();
  const std::int64_t timeout_ms = server.config.repl.timeout_s * 1000;
  if (hold_ != Hold::kNone) return;
  switch (state_) {
    case State::kConnect:
      // Once a second, as Redis's replicationCron tries.
      if (server.clock.MonotonicUs() / 1000 - last_attempt_mono_ms_ < 1000) return;
      last_attempt_mono_ms_ = server.clock.MonotonicUs() / 1000;
      Connect();
      return;
    case State::kConnecting:
    case State::kHandshake:
      if (now - connect_started_ms_ > timeout_ms) Drop("Timeout connecting to the MASTER...");
      return;
    case State::kTransfer:
      if (now - last_io_ms_ > timeout_ms) {
        Drop(
            "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
            "'repl-timeout' parameter in redis.conf to a larger value.");
      }
      return;
    case State::kConnected:
      if (now - last_io_ms_ > timeout_ms) {
        Drop("MASTER timeout: no data nor PING received...");
        return;
      }
      if (server.clock.MonotonicUs() / 1000 - last_ack_mono_ms_ >= 1000) SendAck();
      return;
  }
}

}  // namespace warden::server
