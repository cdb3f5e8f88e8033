// The append-only file's work that may wait on a busy disk, on a thread of its own (Redis's
// bio): everysec's fsync, the fsync and close of an increment file a rewrite replaced, and the
// close of a deleted history file, whose blocks the kernel frees only when its last descriptor
// goes (a gigabyte of them takes a fraction of a second). Jobs run in the order they were
// asked for, so a file's last fsync always comes before its close.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace warden::server {

class AofJobs {
 public:
  AofJobs() = default;
  ~AofJobs() { Drain(); }
  AofJobs(const AofJobs&) = delete;
  AofJobs& operator=(const AofJobs&) = delete;

  void Fsync(int fd) { Post(Kind::kFsync, fd); }
  void FsyncAndClose(int fd) { Post(Kind::kFsyncClose, fd); }
  void Close(int fd) { Post(Kind::kClose, fd); }

  // Whether an fsync is queued or running (Redis's sync_in_progress).
  bool fsync_pending() const;
  // The errno of the last background fsync if it failed; 0 again once one succeeds (Redis's
  // aof_bio_fsync_status): writes are refused meanwhile.
  int fsync_errno() const { return fsync_errno_.load(std::memory_order_relaxed); }

  // Runs every queued job, then ends the thread (started again by the next job).
  void Drain();

 private:
  enum class Kind { kFsync, kFsyncClose, kClose };
  struct Job {
    Kind kind;
    int fd;
  };

  void Post(Kind kind, int fd);
  void Run();

  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  int fsyncs_pending_ = 0;
  bool stop_ = false;
  std::atomic<int> fsync_errno_{0};
};

}  // namespace warden::server
