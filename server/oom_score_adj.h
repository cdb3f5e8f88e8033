// The OOM killer's score of this process, as Redis's setOOMScoreAdj sets it: with oom-score-adj
// on, a master, a replica and a forked child each get their oom-score-adj-values entry, as it
// is (absolute) or added to the score the process had when warden first took over (relative,
// Redis's `yes`), kept within [-1000, 1000]. Turned off again, the score goes back to that
// first one. The score is written to /proc/self/oom_score_adj; a forked child writes its own.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "server/config/config.h"

namespace warden::server {

// Which of oom-score-adj-values applies: Redis's CONFIG_OOM_MASTER, _REPLICA and _BGCHILD.
enum class OomClass { kMaster = 0, kReplica = 1, kChild = 2 };

// The score for `cls` under `mode` (not kNo), `base` being the score at takeover.
int OomScoreFor(OomScoreAdj mode, const std::array<int, 3>& values, OomClass cls, int base);

// Whether the values rise from master to replica to child; Redis warns otherwise, since an
// unprivileged process cannot lower its score.
bool OomValuesRise(const std::array<int, 3>& values);
inline constexpr char kOomValuesMayNotWork[] =
    "The oom-score-adj-values configuration may not work for non-privileged processes! Please "
    "consult the documentation.";

class OomScoreAdjuster {
 public:
  // `path`: the file the score is read from and written to (tests give their own).
  explicit OomScoreAdjuster(std::string path = "/proc/self/oom_score_adj")
      : path_(std::move(path)) {}

  // Sets the score for `cls` as `mode` and `values` say; with kNo, restores the score at
  // takeover if it was changed, else leaves it. Returns Redis's log line on a failure
  // ("Unable to write oom_score_adj: Permission denied").
  std::optional<std::string> Apply(OomScoreAdj mode, const std::array<int, 3>& values,
                                   OomClass cls);

 private:
  std::string path_;
  bool adjusted_ = false;  // the score is ours: base_ is the one to go back to
  int base_ = 0;
};

}  // namespace warden::server
