// The figures INFO shows that need history: Redis's instantaneous rates (trackInstantaneous
// Metric: a reading every 100 ms, the mean of the last 16 as a per-second rate), the memory
// peak, the memory in use once the server had started, and the reads and writes the event
// loop made.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace warden::server {

class InfoMetrics {
 public:
  enum Metric : std::uint8_t { kCommands, kNetInput, kNetOutput, kReplInput, kReplOutput, kCount };
  static constexpr std::int64_t kPeriodMs = 100;
  static constexpr std::size_t kSamples = 16;

  // From the cron: one sample of each running total, if kPeriodMs passed since the last.
  void Sample(std::int64_t now_ms, const std::array<std::uint64_t, kCount>& totals) {
    if (last_ms_ != 0 && now_ms - last_ms_ < kPeriodMs) return;
    for (std::size_t m = 0; m < kCount; ++m) {
      const std::int64_t elapsed = now_ms - last_ms_;
      const auto delta = static_cast<std::int64_t>(totals[m] - last_[m]);
      samples_[m][index_] = last_ms_ != 0 && elapsed > 0 ? delta * 1000 / elapsed : 0;
      last_[m] = totals[m];
    }
    index_ = (index_ + 1) % kSamples;
    last_ms_ = now_ms;
  }

  // Per second, as Redis's getInstantaneousMetric (an integer mean over every slot).
  std::int64_t PerSecond(Metric m) const {
    std::int64_t sum = 0;
    for (std::int64_t s : samples_[m]) sum += s;
    return sum / static_cast<std::int64_t>(kSamples);
  }

  // Redis's stat_peak_memory: raised by the cron and by INFO itself, so the peak shown is never
  // below the figure beside it.
  std::size_t NotePeak(std::size_t used) const {
    if (used > peak_) peak_ = used;
    return peak_;
  }
  void ResetPeak(std::size_t used) { peak_ = used; }

  // used_memory once the server was ready (Redis's used_memory_startup).
  std::size_t startup_bytes = 0;
  // Read and write calls on client sockets (total_reads_processed, total_writes_processed).
  std::uint64_t reads_processed = 0;
  std::uint64_t writes_processed = 0;

 private:
  std::array<std::array<std::int64_t, kSamples>, kCount> samples_{};
  std::array<std::uint64_t, kCount> last_{};
  std::int64_t last_ms_ = 0;
  std::size_t index_ = 0;
  // Raised by INFO, which reads the server as const: a cache of the highest figure seen.
  mutable std::size_t peak_ = 0;
};

}  // namespace warden::server
