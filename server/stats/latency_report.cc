#include "server/stats/latency_report.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "server/server_state.h"

namespace warden::server {
namespace {

struct SparkSample {
  double value;
  std::string label;
};

// sparklineRenderRange with SPARKLINE_FILL: rows of "_o#" and '|', then the labels written
// downwards, one character per row.
void RenderRange(std::string& out, const std::vector<SparkSample>& samples, double min, double max,
                 std::size_t offset, std::size_t len) {
  static constexpr char kFill[] = "_o#";
  constexpr int kCharsetLen = 3;
  constexpr int kRows = 4;
  constexpr int kLabelMarginTop = 1;
  const int steps = kCharsetLen * kRows;
  double relmax = max - min;
  if (relmax == 0) relmax = 1;
  bool has_labels = false;
  for (const SparkSample& s : samples) has_labels |= !s.label.empty();
  std::string chars;
  for (int row = 0;; ++row) {
    bool more = false;
    chars.assign(len, ' ');
    for (std::size_t j = 0; j < len; ++j) {
      const SparkSample& s = samples[j + offset];
      // Redis truncates relval*steps to an int before dividing.
      int step = static_cast<int>(static_cast<int>((s.value - min) * steps) / relmax);
      if (step < 0) step = 0;
      if (step >= steps) step = steps - 1;
      if (row < kRows) {
        const int index = step - ((kRows - row - 1) * kCharsetLen);
        more = true;
        if (index >= 0 && index < kCharsetLen) {
          chars[j] = kFill[index];
        } else if (index >= kCharsetLen) {
          chars[j] = '|';
        }
      } else {
        if (has_labels && row - kRows < kLabelMarginTop) {
          more = true;
          break;
        }
        const int label_char = row - kRows - kLabelMarginTop;
        if (static_cast<int>(s.label.size()) > label_char) {
          more = true;
          chars[j] = s.label[static_cast<std::size_t>(label_char)];
        }
      }
    }
    if (!more) break;
    out += chars;
    out += '\n';
  }
}

struct EventStats {
  std::uint32_t avg = 0;
  std::uint32_t mad = 0;
  std::uint32_t samples = 0;
  std::int64_t period = 0;
};

// analyzeLatencyForEvent.
EventStats Analyze(const LatencyMonitor::Series& series, std::int64_t now_s) {
  EventStats ls;
  std::uint64_t sum = 0;
  for (const auto& s : series.samples) {
    if (s.unix_s == 0) continue;
    ++ls.samples;
    sum += s.latency_ms;
    if (ls.period == 0 || s.unix_s < ls.period) ls.period = s.unix_s;
  }
  if (ls.samples == 0) return ls;
  ls.avg = static_cast<std::uint32_t>(sum / ls.samples);
  ls.period = now_s - ls.period;
  if (ls.period == 0) ls.period = 1;
  sum = 0;
  for (const auto& s : series.samples) {
    if (s.unix_s == 0) continue;
    const std::int64_t delta = static_cast<std::int64_t>(ls.avg) - s.latency_ms;
    sum += static_cast<std::uint64_t>(delta < 0 ? -delta : delta);
  }
  ls.mad = static_cast<std::uint32_t>(sum / ls.samples);
  return ls;
}

}  // namespace

std::string LatencyGraph(std::string_view event, const LatencyMonitor::Series& series,
                         std::int64_t now_s) {
  std::vector<SparkSample> samples;
  std::uint32_t min = 0;
  std::uint32_t max = 0;
  double seq_min = 0;
  double seq_max = 0;
  for (std::size_t j = 0; j < LatencyMonitor::kHistoryLen; ++j) {
    const auto& s = series.samples[(series.next + j) % LatencyMonitor::kHistoryLen];
    if (s.unix_s == 0) continue;
    if (samples.empty()) {
      min = max = s.latency_ms;
      seq_min = seq_max = s.latency_ms;
    } else {
      max = std::max(max, s.latency_ms);
      min = std::min(min, s.latency_ms);
      // sparklineSequenceAddSample's else-if: a new minimum is never also checked as maximum.
      if (s.latency_ms < seq_min) {
        seq_min = s.latency_ms;
      } else if (s.latency_ms > seq_max) {
        seq_max = s.latency_ms;
      }
    }
    const auto elapsed = static_cast<int>(now_s - s.unix_s);
    char label[64];
    if (elapsed < 60) {
      std::snprintf(label, sizeof(label), "%ds", elapsed);
    } else if (elapsed < 3600) {
      std::snprintf(label, sizeof(label), "%dm", elapsed / 60);
    } else if (elapsed < 3600 * 24) {
      std::snprintf(label, sizeof(label), "%dh", elapsed / 3600);
    } else {
      std::snprintf(label, sizeof(label), "%dd", elapsed / (3600 * 24));
    }
    samples.push_back({static_cast<double>(s.latency_ms), label});
  }
  char head[512];
  std::snprintf(head, sizeof(head), "%.*s - high %lu ms, low %lu ms (all time high %lu ms)\n",
                static_cast<int>(event.size()), event.data(), static_cast<unsigned long>(max),
                static_cast<unsigned long>(min), static_cast<unsigned long>(series.max_ms));
  std::string out = head;
  out.append(80, '-');
  out += '\n';
  for (std::size_t j = 0; j < samples.size(); j += 80) {
    if (j != 0) out += '\n';
    RenderRange(out, samples, seq_min, seq_max, j, std::min<std::size_t>(80, samples.size() - j));
  }
  return out;
}

std::string LatencyDoctorReport(const ServerState& server) {
  const auto& events = server.latency.events();
  const Config& config = server.config;
  if (events.empty() && config.latency_monitor_threshold_ms == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it. If we weren't in a deep space mission I'd suggest to take a look "
           "at https://redis.io/topics/latency-monitor.\n";
  }
  const std::int64_t now_s = server.clock.NowMs() / 1000;
  std::string report;
  bool slowlog_enabled = false;
  bool slowlog_tuning = false;
  bool slowlog_inspect = false;
  bool scheduler = false;
  bool hz = false;
  bool large_objects = false;
  int advices = 0;
  int eventnum = 0;
  for (const auto& [event, series] : events) {
    if (++eventnum == 1) {
      report +=
          "Dave, I have observed latency spikes in this Redis instance. You don't mind talking "
          "about it, do you Dave?\n\n";
    }
    const EventStats ls = Analyze(series, now_s);
    char line[512];
    std::snprintf(line, sizeof(line),
                  "%d. %s: %d latency spikes (average %lums, mean deviation %lums, period %.2f "
                  "sec). Worst all time event %lums.",
                  eventnum, event.c_str(), static_cast<int>(ls.samples),
                  static_cast<unsigned long>(ls.avg), static_cast<unsigned long>(ls.mad),
                  static_cast<double>(ls.period) / ls.samples,
                  static_cast<unsigned long>(series.max_ms));
    report += line;
    if (event == "command") {
      if (config.slowlog_log_slower_than_us < 0) {
        slowlog_enabled = true;
        ++advices;
      } else if (config.slowlog_log_slower_than_us / 1000 > config.latency_monitor_threshold_ms) {
        slowlog_tuning = true;
        ++advices;
      }
      slowlog_inspect = true;
      large_objects = true;
      advices += 2;
    } else if (event == "fast-command") {
      scheduler = true;
      ++advices;
    } else if (event == "expire-cycle") {
      hz = true;
      large_objects = true;
      advices += 2;
    }
    report += '\n';
  }
  if (eventnum == 0 && advices == 0) {
    report +=
        "Dave, no latency spike was observed during the lifetime of this Redis instance, not in "
        "the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, "
        "and think things over.\n";
    return report;
  }
  if (eventnum > 0 && advices == 0) {
    report +=
        "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please "
        "use the Redis community to get some help, providing this report in your help "
        "request.\n";
    return report;
  }
  report += "\nI have a few advices for you:\n\n";
  char line[512];
  const auto threshold_us =
      static_cast<unsigned long long>(config.latency_monitor_threshold_ms) * 1000;
  if (slowlog_enabled) {
    std::snprintf(line, sizeof(line),
                  "- There are latency issues with potentially slow commands you are using. Try "
                  "to enable the Slow Log Redis feature using the command 'CONFIG SET "
                  "slowlog-log-slower-than %llu'. If the Slow log is disabled Redis is not able "
                  "to log slow commands execution for you.\n",
                  threshold_us);
    report += line;
  }
  if (slowlog_tuning) {
    std::snprintf(line, sizeof(line),
                  "- Your current Slow Log configuration only logs events that are slower than "
                  "your configured latency monitor threshold. Please use 'CONFIG SET "
                  "slowlog-log-slower-than %llu'.\n",
                  threshold_us);
    report += line;
  }
  if (slowlog_inspect) {
    report +=
        "- Check your Slow Log to understand what are the commands you are running which are too "
        "slow to execute. Please check https://redis.io/commands/slowlog for more information.\n";
  }
  if (scheduler) {
    report +=
        "- The system is slow to execute Redis code paths not containing system calls. This "
        "usually means the system does not provide Redis CPU time to run for long periods. You "
        "should try to:\n"
        "  1) Lower the system load.\n"
        "  2) Use a computer / VM just for Redis if you are running other software in the same "
        "system.\n"
        "  3) Check if you have a \"noisy neighbour\" problem.\n"
        "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in "
        "your system.\n"
        "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if "
        "you are using Jemalloc. However this may create fragmentation problems.\n";
  }
  if (hz && config.hz < 100) {
    report +=
        "- In order to make the Redis keys expiring process more incremental, try to set the "
        "'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n";
  }
  if (large_objects) {
    report +=
        "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
        "blocking operation. If you have very large objects that are often deleted, expired, or "
        "evicted, try to fragment those objects into multiple smaller objects.\n";
  }
  return report;
}

}  // namespace warden::server
