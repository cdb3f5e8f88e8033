#include "server/persistence/aof_jobs.h"

#include <unistd.h>

#include <cerrno>

namespace warden::server {

void AofJobs::Post(Kind kind, int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  jobs_.push_back({kind, fd});
  if (kind == Kind::kFsync) ++fsyncs_pending_;
  if (!thread_.joinable()) {
    stop_ = false;
    thread_ = std::thread([this] { Run(); });
  }
  cv_.notify_one();
}

bool AofJobs::fsync_pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return fsyncs_pending_ != 0;
}

void AofJobs::Drain() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) return;
    stop_ = true;
    cv_.notify_one();
  }
  thread_.join();
}

void AofJobs::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [this] { return !jobs_.empty() || stop_; });
    if (jobs_.empty()) return;
    const Job job = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    if (job.kind != Kind::kClose) {
      // EBADF and EINVAL: the descriptor is not a file that can be synced, which no later
      // fsync would change (Redis ignores them too).
      if (fdatasync(job.fd) == 0) {
        fsync_errno_.store(0, std::memory_order_relaxed);
      } else if (errno != EBADF && errno != EINVAL) {
        fsync_errno_.store(errno, std::memory_order_relaxed);
      }
    }
    if (job.kind != Kind::kFsync) close(job.fd);
    lock.lock();
    if (job.kind == Kind::kFsync) --fsyncs_pending_;
  }
}

}  // namespace warden::server
