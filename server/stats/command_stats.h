// What INFO commandstats, errorstats and latencystats report: per-command counters, error replies
// by code, and per-command latency histograms. Call() (dispatcher.cc) updates them after every
// execution; Dispatch and redis.call count the calls they refuse. A slot exists for every command
// and subcommand of the table from the start, so counting allocates nothing; a histogram is
// allocated at its command's first tracked call, as Redis does.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"

namespace warden::server {

struct CommandSpec;

// HdrHistogram's layout for Redis's settings (1 ns to 1 s, 2 significant digits), so that
// percentiles come out as Redis prints them: each value lands in a bucket whose width is 1/128
// of its power of two, and a percentile is reported as the highest value of its bucket.
class LatencyHistogram {
 public:
  static constexpr std::int64_t kMinValue = 1;
  static constexpr std::int64_t kMaxValue = 1'000'000'000;

  LatencyHistogram();
  // Clamped to [kMinValue, kMaxValue] as Redis's updateCommandLatencyHistogram does.
  void Record(std::int64_t value_ns);
  std::int64_t ValueAtPercentile(double percentile) const;
  // HdrHistogram's logarithmic iteration from `first` with ratio `base`, as LATENCY HISTOGRAM
  // reports it: (highest value of the bucket reached, calls up to it) at each level where the
  // count grew.
  std::vector<std::pair<std::int64_t, std::uint64_t>> LogSteps(std::int64_t first,
                                                               std::int64_t base) const;
  std::uint64_t total_count() const { return total_count_; }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_count_ = 0;
};

struct CommandCounters {
  std::uint64_t calls = 0;
  std::uint64_t usec = 0;
  std::uint64_t rejected_calls = 0;
  std::uint64_t failed_calls = 0;
  std::unique_ptr<LatencyHistogram> latency;
};

class CommandStats final : public protocol::ErrorListener {
 public:
  CommandStats();

  // A top-level command's counters in a subtraction and a compare (every command pays this);
  // a subcommand's through the table of ranges.
  // (A template only so that CommandSpec's size is read where the caller has it complete.)
  template <typename Spec>
  CommandCounters& For(const Spec& spec) {
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(&spec) - top_begin_;
    if (offset < top_bytes_) [[likely]]
      return counters_[offset / sizeof(Spec)];
    return ForSubcommand(spec);
  }
  // Every command and subcommand with its counters, in table order.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (std::size_t i = 0; i < specs_.size(); ++i) fn(*specs_[i], counters_[i]);
  }

  // Counts an error reply under its code: the text up to the first space within its first 31
  // bytes, else "ERR" (Redis's afterErrorReply). A repeat is not counted again, but the command
  // that writes it still counts as failed (ERR_REPLY_FLAG_NO_STATS_UPDATE).
  void OnErrorReply(std::string_view text, bool repeat) override;
  std::uint64_t total_error_replies() const { return total_error_replies_; }
  // Error code -> replies, in byte order as Redis's rax keeps them.
  const std::map<std::string, std::uint64_t, std::less<>>& errors() const { return errors_; }

  // Redis's incrCommandStatsOnError: the first call opens a window for the command about to run;
  // the second says whether an error reply was written in it (or skipped above) and closes it.
  void OpenErrorWindow() { error_mark_ = total_error_replies_; }
  bool CloseErrorWindow() {
    const bool failed = total_error_replies_ != error_mark_ || uncounted_failure_;
    error_mark_ = total_error_replies_;
    uncounted_failure_ = false;
    return failed;
  }
  // A command refused before running (arity, NOAUTH, ...): its error reply is already written.
  // Null for a name that matches no command: nothing to count, but the error is accounted for.
  void Reject(const CommandSpec* spec);

  // CONFIG RESETSTAT: every counter, histogram and error code.
  void Reset();

 private:
  struct Range {
    std::uintptr_t begin;
    std::size_t size;
    std::size_t base;
  };
  CommandCounters& ForSubcommand(const CommandSpec& spec);

  std::uintptr_t top_begin_ = 0;  // the top-level table, whose counters come first
  std::uintptr_t top_bytes_ = 0;
  std::vector<Range> ranges_;
  std::vector<const CommandSpec*> specs_;
  std::vector<CommandCounters> counters_;
  CommandCounters orphan_;  // for a spec outside the table (none in production)
  std::map<std::string, std::uint64_t, std::less<>> errors_;
  std::uint64_t total_error_replies_ = 0;
  std::uint64_t error_mark_ = 0;
  bool uncounted_failure_ = false;
};

// Appends the body of INFO's Commandstats, Errorstats and Latencystats sections (no header).
void AppendCommandStats(const CommandStats& stats, std::string& out);
void AppendErrorStats(const CommandStats& stats, std::string& out);
void AppendLatencyStats(const CommandStats& stats, std::span<const double> percentiles,
                        std::string& out);

}  // namespace warden::server
