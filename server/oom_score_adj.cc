#include "server/oom_score_adj.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace warden::server {

int OomScoreFor(OomScoreAdj mode, const std::array<int, 3>& values, OomClass cls, int base) {
  int score = values[static_cast<std::size_t>(cls)];
  if (mode == OomScoreAdj::kRelative) score += base;
  return std::clamp(score, -1000, 1000);
}

bool OomValuesRise(const std::array<int, 3>& values) {
  return values[1] >= values[0] && values[2] >= values[1];
}

std::optional<std::string> OomScoreAdjuster::Apply(OomScoreAdj mode,
                                                   const std::array<int, 3>& values, OomClass cls) {
  int score = 0;
  if (mode != OomScoreAdj::kNo) {
    if (!adjusted_) {
      // Redis marks the score as its own before it has read it, so a failed read leaves the
      // base at 0.
      adjusted_ = true;
      char buf[64] = {};
      const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0) {
        const std::string error = std::string("Unable to read oom_score_adj: ") + strerror(errno);
        if (fd >= 0) close(fd);
        return error;
      }
      close(fd);
      base_ = std::atoi(buf);
    }
    score = OomScoreFor(mode, values, cls, base_);
  } else if (adjusted_) {
    adjusted_ = false;
    score = base_;
  } else {
    return std::nullopt;
  }
  char line[16];
  const int len = std::snprintf(line, sizeof(line), "%d\n", score);
  const int fd = open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, line, static_cast<std::size_t>(len)) < 0) {
    const std::string error = std::string("Unable to write oom_score_adj: ") + strerror(errno);
    if (fd >= 0) close(fd);
    return error;
  }
  close(fd);
  return std::nullopt;
}

}  // namespace warden::server
