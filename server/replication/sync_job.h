// One full sync under way (Redis's RDB child of type DISK or SOCKET and the replicas waiting
// on it): a forked child writes the data set as it was at the fork, either into a pipe that the
// loop reads and forwards to every target as an EOF-marked bulk, or into `dir`/`dbfilename`,
// which is sent as a sized bulk once the child is done. The loop reads no faster than the
// slowest target's socket takes the bytes, so a slow replica holds back the child rather than
// the memory of the master.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warden::server {

class Replication;
struct ReplicaPeer;

class SyncJob {
 public:
  // Forks the child for `targets` (all asking for the same payload). Null when fork failed;
  // the targets are then closed by the caller.
  static std::unique_ptr<SyncJob> Start(Replication& replication, bool to_socket,
                                        std::vector<ReplicaPeer*> targets);
  ~SyncJob();
  SyncJob(const SyncJob&) = delete;
  SyncJob& operator=(const SyncJob&) = delete;

  // A target went away.
  void Forget(ReplicaPeer* peer);
  // Reaps the child.
  void Cron();
  // Moves payload bytes to the targets as far as their buffers allow.
  void Pump();
  bool done() const { return done_; }
  bool to_socket() const { return to_socket_; }

 private:
  SyncJob(Replication& replication, bool to_socket) : repl_(replication), to_socket_(to_socket) {}
  static void OnReadable(uv_poll_t* poll, int status, int events);
  // Whether every target can take more now.
  bool TargetsHaveRoom() const;
  void SendToTargets(std::string_view bytes);
  void ChildExited(bool ok);
  void DataEnded();
  void Fail(const char* why);
  void Finish();
  // Stops watching and closes the pipe or file.
  void CloseSource();
  // An idle handle runs Pump each loop turn while the payload can move without waiting.
  void StartIdle();
  void StopIdle();

  Replication& repl_;
  bool to_socket_;
  pid_t pid_ = -1;
  int fd_ = -1;
  uv_poll_t* poll_ = nullptr;
  bool polling_ = false;
  uv_idle_t* idle_ = nullptr;
  bool idling_ = false;
  std::string path_;
  std::string mark_;
  std::uint64_t size_ = 0;
  std::uint64_t sent_ = 0;
  std::int64_t last_progress_ms_ = 0;  // monotonic: when payload last moved
  bool child_done_ = false;
  bool data_done_ = false;
  bool done_ = false;
  std::vector<ReplicaPeer*> targets_;
  std::string buffer_;
};

}  // namespace warden::server
