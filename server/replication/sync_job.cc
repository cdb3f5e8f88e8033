#include "server/replication/sync_job.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

#include "server/blocking.h"
#include "server/log.h"
#include "server/persistence/rdb_file.h"
#include "server/replication/replication.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {
namespace {

constexpr std::size_t kChunk = 64 * 1024;
// A target holding this much unsent payload stops the reading until it drains.
constexpr std::size_t kTargetRoom = 1024 * 1024;
// At most this much payload is read per loop turn, so the other clients keep being served.
constexpr std::size_t kTurnBudget = 4 * 1024 * 1024;

}  // namespace

std::unique_ptr<SyncJob> SyncJob::Start(Replication& repl, bool to_socket,
                                        std::vector<ReplicaPeer*> targets) {
  ServerState& server = repl.server_;
  std::unique_ptr<SyncJob> job(new SyncJob(repl, to_socket));
  job->targets_ = std::move(targets);
  const ReplicaPeer& first = *job->targets_.front();
  RdbWriteOptions options;
  options.with_replication = true;
  options.repl_id = repl.replid_;
  options.repl_offset = repl.master_repl_offset_;
  options.repl_stream_db = repl.stream_db();
  options.exclude_data = first.filter_set;
  options.exclude_functions = first.filter_set && !first.functions_only;
  int pipe_fds[2] = {-1, -1};
  if (to_socket && pipe2(pipe_fds, O_CLOEXEC) != 0) return nullptr;
  job->path_ = server.snapshots.Path();
  const std::int64_t fork_start_us = server.clock.MonotonicUs();
  const pid_t pid = fork();
  if (pid < 0) {
    if (to_socket) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    if (server.log != nullptr) {
      server.log->Log(LogLevel::kWarning, "Can't save in background: fork: %s",
                      std::strerror(errno));
    }
    return nullptr;
  }
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    if (to_socket) {
      // Only the pipe's write end stays open.
      const int w = pipe_fds[1];
      close_range(3, static_cast<unsigned>(w - 1), 0);
      close_range(static_cast<unsigned>(w + 1), ~0U, 0);
      server.EnterForkedChild();
      const int err = WriteRdbToFd(server, w, options);
      _exit(err == 0 ? 0 : 1);
    }
    close_range(3, ~0U, 0);
    server.EnterForkedChild();
    const auto err = SaveRdbFile(server, job->path_, options);
    _exit(err ? 1 : 0);
  }
  server.stats.latest_fork_usec = server.clock.MonotonicUs() - fork_start_us;
  ++server.stats.total_forks;
  job->pid_ = pid;
  job->last_progress_ms_ = repl.MonotonicMs();
  if (server.log != nullptr) {
    server.log->Log(LogLevel::kNotice, "Background RDB transfer started by pid %d to %s",
                    static_cast<int>(pid), to_socket ? "replicas sockets" : "disk");
  }
  if (to_socket) {
    close(pipe_fds[1]);
    job->fd_ = pipe_fds[0];
    fcntl(job->fd_, F_SETFL, fcntl(job->fd_, F_GETFL) | O_NONBLOCK);
    job->poll_ = new uv_poll_t;
    uv_poll_init(repl.loop_, job->poll_, job->fd_);
    job->poll_->data = job.get();
    uv_poll_start(job->poll_, UV_READABLE, OnReadable);
    job->polling_ = true;
    // The mark the payload ends with: 40 random characters, as Redis's.
    static constexpr char kHex[] = "0123456789abcdef";
    job->mark_.resize(40);
    for (char& c : job->mark_) c = kHex[server.random.Below(16)];
    job->SendToTargets("$EOF:" + job->mark_ + "\r\n");
  }
  return job;
}

void SyncJob::CloseSource() {
  StopIdle();
  if (idle_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(idle_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
    idle_ = nullptr;
  }
  // The poll handle first: closing it takes its descriptor out of epoll, which must not happen
  // once the number is closed and perhaps given to a new connection.
  if (poll_ != nullptr) {
    uv_poll_stop(poll_);
    uv_close(reinterpret_cast<uv_handle_t*>(poll_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_poll_t*>(h); });
    poll_ = nullptr;
    polling_ = false;
  }
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
}

SyncJob::~SyncJob() {
  CloseSource();
  if (pid_ > 0) {
    kill(pid_, SIGUSR1);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    if (!to_socket_) {
      const std::string temp =
          path_.substr(0, path_.rfind('/') + 1) + "temp-" + std::to_string(pid_) + ".rdb";
      unlink(temp.c_str());
    }
  }
}

void SyncJob::Forget(ReplicaPeer* peer) {
  targets_.erase(std::remove(targets_.begin(), targets_.end(), peer), targets_.end());
}

bool SyncJob::TargetsHaveRoom() const {
  for (const ReplicaPeer* peer : targets_) {
    if (peer->session->host != nullptr &&
        peer->session->host->pending_output_bytes() > kTargetRoom) {
      return false;
    }
  }
  return true;
}

void SyncJob::SendToTargets(std::string_view bytes) {
  for (ReplicaPeer* peer : targets_) {
    BlockedClientHost* host = peer->session->host;
    if (host == nullptr || peer->closing) continue;
    host->reply_buffer().append(bytes);
    host->ScheduleFlush();
  }
}

void SyncJob::OnReadable(uv_poll_t* poll, int status, int) {
  auto* self = static_cast<SyncJob*>(poll->data);
  if (status < 0) {
    self->Fail("pipe error");
    return;
  }
  self->Pump();
}

void SyncJob::Pump() {
  if (done_ || fd_ < 0 || data_done_) {
    StopIdle();
    return;
  }
  buffer_.resize(kChunk);
  std::size_t moved = 0;
  while (TargetsHaveRoom()) {
    if (moved >= kTurnBudget) {
      // The rest next loop turn, after the other clients.
      StartIdle();
      return;
    }
    const ssize_t n = read(fd_, buffer_.data(), kChunk);
    if (n > 0) {
      SendToTargets(std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
      sent_ += static_cast<std::uint64_t>(n);
      moved += static_cast<std::size_t>(n);
      last_progress_ms_ = repl_.MonotonicMs();
      if (!to_socket_ && sent_ >= size_) {
        DataEnded();
        return;
      }
      continue;
    }
    if (n == 0) {
      DataEnded();
      return;
    }
    if (errno == EAGAIN || errno == EINTR) {
      StopIdle();
      if (to_socket_ && !polling_) {
        uv_poll_start(poll_, UV_READABLE, OnReadable);
        polling_ = true;
      }
      return;
    }
    Fail(std::strerror(errno));
    return;
  }
  // A target's buffer is full. While a write is in flight its completion calls Drained; but the
  // kernel may take the bytes whole when they are flushed before the loop polls, and then
  // nothing would: look again next turn.
  bool in_flight = false;
  for (const ReplicaPeer* peer : targets_) {
    const BlockedClientHost* host = peer->session->host;
    if (host != nullptr && host->write_in_flight()) in_flight = true;
  }
  if (in_flight) {
    StopIdle();
  } else {
    StartIdle();
  }
  (void)moved;
  if (to_socket_ && polling_) {
    uv_poll_stop(poll_);
    polling_ = false;
  }
}

void SyncJob::StartIdle() {
  if (idle_ == nullptr) {
    idle_ = new uv_idle_t;
    uv_idle_init(repl_.loop_, idle_);
    idle_->data = this;
  }
  if (!idling_) {
    uv_idle_start(idle_, [](uv_idle_t* idle) { static_cast<SyncJob*>(idle->data)->Pump(); });
    idling_ = true;
  }
}

void SyncJob::StopIdle() {
  if (idle_ != nullptr && idling_) {
    uv_idle_stop(idle_);
    idling_ = false;
  }
}

void SyncJob::DataEnded() {
  data_done_ = true;
  if (to_socket_) SendToTargets(mark_);
  CloseSource();
  if (child_done_) Finish();
}

void SyncJob::Cron() {
  if (pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      ChildExited(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
  }
  if (!done_) Pump();
  // A diskless target that takes nothing for repl-timeout holds the child back for everyone:
  // it goes (Redis's "Disconnecting timedout replica (full sync)").
  if (!done_ && to_socket_ && last_progress_ms_ > 0 &&
      repl_.MonotonicMs() - last_progress_ms_ > repl_.server_.config.repl.timeout_s * 1000) {
    std::vector<ReplicaPeer*> stuck;
    for (ReplicaPeer* peer : targets_) {
      if (peer->session->host != nullptr &&
          peer->session->host->pending_output_bytes() > kTargetRoom) {
        stuck.push_back(peer);
      }
    }
    for (ReplicaPeer* peer : stuck) {
      if (repl_.server_.log != nullptr) {
        repl_.server_.log->Log(LogLevel::kWarning, "Disconnecting timedout replica (full sync): %s",
                               peer->session->addr.c_str());
      }
      Forget(peer);
      repl_.CloseReplica(*peer);
    }
    last_progress_ms_ = repl_.MonotonicMs();
  }
}

void SyncJob::ChildExited(bool ok) {
  child_done_ = true;
  ServerState& server = repl_.server_;
  if (!ok) {
    Fail("the child writing the snapshot failed");
    return;
  }
  if (server.log != nullptr) {
    server.log->Log(LogLevel::kNotice, "Background RDB transfer terminated with success");
  }
  if (to_socket_) {
    if (data_done_) Finish();
    return;
  }
  fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd_ < 0 || fstat(fd_, &st) != 0) {
    Fail("can't open the snapshot");
    return;
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  for (ReplicaPeer* peer : targets_) peer->phase = ReplicaPeer::Phase::kSendBulk;
  SendToTargets("$" + std::to_string(size_) + "\r\n");
  if (size_ == 0) {
    DataEnded();
    return;
  }
  Pump();
}

void SyncJob::Fail(const char* why) {
  CloseSource();
  ServerState& server = repl_.server_;
  if (server.log != nullptr) {
    server.log->Log(LogLevel::kWarning, "SYNC failed. BGSAVE child returned an error: %s", why);
  }
  done_ = true;
  const std::vector<ReplicaPeer*> targets = targets_;
  targets_.clear();
  for (ReplicaPeer* peer : targets) repl_.CloseReplica(*peer);
}

void SyncJob::Finish() {
  done_ = true;
  const std::vector<ReplicaPeer*> targets = targets_;
  targets_.clear();
  for (ReplicaPeer* peer : targets) {
    if (peer->rdb_only) {
      // redis-cli --rdb: its payload is all it asked for.
      peer->session->close_after_reply = true;
      if (peer->session->host != nullptr) peer->session->host->ScheduleFlush();
      continue;
    }
    // An EOF-marked payload: the stream starts at the replica's first ACK, which says the
    // payload was loaded (Redis's repl_start_cmd_stream_on_ack).
    peer->stream_on_ack = to_socket_ && !peer->acked_payload;
    repl_.ReplicaOnline(*peer);
  }
}

}  // namespace warden::server
