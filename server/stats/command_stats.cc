#include "server/stats/command_stats.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "server/command_table.h"

namespace warden::server {
namespace {

// HdrHistogram with lowest value 1 and 2 significant digits: 256 sub-buckets per bucket, the
// lower half of each bucket after the first overlapping the previous one, so each bucket adds
// 128 counts.
constexpr int kSubBucketHalfMagnitude = 7;
constexpr std::int64_t kSubBucketHalfCount = 1 << kSubBucketHalfMagnitude;
constexpr std::int64_t kSubBucketCount = 2 * kSubBucketHalfCount;
constexpr std::int64_t kSubBucketMask = kSubBucketCount - 1;

constexpr int BucketCount() {
  int buckets = 1;
  for (std::int64_t untrackable = kSubBucketCount; untrackable <= LatencyHistogram::kMaxValue;
       untrackable <<= 1) {
    ++buckets;
  }
  return buckets;
}
constexpr std::size_t kCountsLen =
    static_cast<std::size_t>(BucketCount() + 1) * kSubBucketHalfCount;

int BucketIndex(std::int64_t value) {
  return 64 - std::countl_zero(static_cast<std::uint64_t>(value | kSubBucketMask)) -
         (kSubBucketHalfMagnitude + 1);
}

std::size_t CountsIndex(std::int64_t value) {
  const int bucket = BucketIndex(value);
  const std::int64_t sub_bucket = value >> bucket;
  return static_cast<std::size_t>(
      ((static_cast<std::int64_t>(bucket) + 1) << kSubBucketHalfMagnitude) +
      (sub_bucket - kSubBucketHalfCount));
}

std::int64_t ValueAtIndex(std::size_t index) {
  int bucket = static_cast<int>(index >> kSubBucketHalfMagnitude) - 1;
  std::int64_t sub_bucket =
      static_cast<std::int64_t>(index & (kSubBucketHalfCount - 1)) + kSubBucketHalfCount;
  if (bucket < 0) {
    sub_bucket -= kSubBucketHalfCount;
    bucket = 0;
  }
  return sub_bucket << bucket;
}

std::int64_t LowestEquivalent(std::int64_t value) {
  const int bucket = BucketIndex(value);
  return (value >> bucket) << bucket;
}

std::int64_t HighestEquivalent(std::int64_t value) {
  const int bucket = BucketIndex(value);
  const std::int64_t sub_bucket = value >> bucket;
  const int adjusted = sub_bucket >= kSubBucketCount ? bucket + 1 : bucket;
  return LowestEquivalent(value) + (std::int64_t{1} << adjusted) - 1;
}

// The part of an error reply INFO errorstats files it under.
std::string_view ErrorCode(std::string_view text) {
  const std::size_t space = text.substr(0, 31).find(' ');
  return space == std::string_view::npos ? std::string_view("ERR") : text.substr(0, space);
}

// INFO keeps its "name:value" lines parseable (Redis's getSafeInfoString).
void AppendSafe(std::string& out, std::string_view text) {
  for (char c : text) out.push_back(c == '#' || c == ':' || c == '\n' || c == '\r' ? '_' : c);
}

// "%f" with trailing zeros (and a trailing point) removed, as Redis's trimDoubleString.
std::string_view PercentileName(double percentile, char (&buf)[64]) {
  int len = std::snprintf(buf, sizeof(buf), "%f", percentile);
  if (std::string_view(buf, static_cast<std::size_t>(len)).find('.') != std::string_view::npos) {
    while (len > 0 && buf[len - 1] == '0') --len;
    if (len > 0 && buf[len - 1] == '.') --len;
  }
  return std::string_view(buf, static_cast<std::size_t>(len));
}

}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kCountsLen, 0) {}

void LatencyHistogram::Record(std::int64_t value_ns) {
  ++counts_[CountsIndex(std::clamp(value_ns, kMinValue, kMaxValue))];
  ++total_count_;
}

std::int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  const double requested = std::min(percentile, 100.0);
  const auto wanted = std::max<std::int64_t>(
      static_cast<std::int64_t>(requested / 100 * static_cast<double>(total_count_) + 0.5), 1);
  std::int64_t seen = 0;
  std::int64_t value = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += static_cast<std::int64_t>(counts_[i]);
    if (seen >= wanted) {
      value = ValueAtIndex(i);
      break;
    }
  }
  return percentile == 0.0 ? LowestEquivalent(value) : HighestEquivalent(value);
}

std::vector<std::pair<std::int64_t, std::uint64_t>> LatencyHistogram::LogSteps(
    std::int64_t first, std::int64_t base) const {
  // A port of hdr_iter_log_init/log_iter_next, with the state of its hdr_iter.
  std::vector<std::pair<std::int64_t, std::uint64_t>> steps;
  const auto len = static_cast<std::int64_t>(counts_.size());
  std::int64_t index = -1;
  std::uint64_t cumulative = 0;
  std::int64_t value = 0;
  std::int64_t highest = 0;
  std::int64_t next_level = first;
  std::int64_t next_level_lowest = LowestEquivalent(first);
  const auto move_next = [&]() {
    ++index;
    if (index >= len) return false;
    cumulative += counts_[static_cast<std::size_t>(index)];
    value = ValueAtIndex(static_cast<std::size_t>(index));
    highest = HighestEquivalent(value);
    return true;
  };
  std::uint64_t previous = 0;
  while (true) {
    const bool more =
        cumulative < total_count_ ||
        (index < len && ValueAtIndex(static_cast<std::size_t>(index + 1)) > next_level_lowest);
    if (!more) break;
    while (true) {
      if (value >= next_level_lowest) {
        next_level *= base;
        next_level_lowest = LowestEquivalent(next_level);
        break;
      }
      if (!move_next()) break;
    }
    if (cumulative > previous) steps.emplace_back(highest, cumulative);
    previous = cumulative;
    if (index >= len) break;
  }
  return steps;
}

CommandStats::CommandStats() {
  const auto add = [this](std::span<const CommandSpec> table) {
    ranges_.push_back(
        {reinterpret_cast<std::uintptr_t>(table.data()), table.size(), specs_.size()});
    for (const CommandSpec& spec : table) specs_.push_back(&spec);
  };
  add(Commands());
  for (const CommandSpec& spec : Commands()) {
    if (spec.is_container()) add(spec.subcommands());
  }
  counters_.resize(specs_.size());
  top_begin_ = reinterpret_cast<std::uintptr_t>(Commands().data());
  top_bytes_ = Commands().size() * sizeof(CommandSpec);
}

void CommandStats::Reject(const CommandSpec* spec) {
  if (spec != nullptr) ++For(*spec).rejected_calls;
  error_mark_ = total_error_replies_;
}

CommandCounters& CommandStats::ForSubcommand(const CommandSpec& spec) {
  const auto at = reinterpret_cast<std::uintptr_t>(&spec);
  for (const Range& range : ranges_) {
    const std::uintptr_t offset = (at - range.begin) / sizeof(CommandSpec);
    if (at >= range.begin && offset < range.size) return counters_[range.base + offset];
  }
  return orphan_;
}

void CommandStats::OnErrorReply(std::string_view text, bool repeat) {
  if (repeat) {
    uncounted_failure_ = true;
    return;
  }
  ++total_error_replies_;
  const std::string_view code = ErrorCode(text);
  const auto it = errors_.find(code);
  if (it != errors_.end()) {
    ++it->second;
  } else {
    errors_.emplace(std::string(code), 1);
  }
}

void CommandStats::Reset() {
  for (CommandCounters& counters : counters_) counters = CommandCounters{};
  orphan_ = CommandCounters{};
  errors_.clear();
  total_error_replies_ = 0;
  error_mark_ = 0;
}

void AppendCommandStats(const CommandStats& stats, std::string& out) {
  stats.ForEach([&out](const CommandSpec& spec, const CommandCounters& c) {
    if (c.calls == 0 && c.failed_calls == 0 && c.rejected_calls == 0) return;
    char line[256];
    // Redis divides in float, not double: the two decimals follow float rounding.
    const double per_call =
        c.calls == 0 ? 0 : static_cast<float>(c.usec) / static_cast<float>(c.calls);
    std::snprintf(line, sizeof(line),
                  ":calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
                  "failed_calls=%llu\r\n",
                  static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(c.usec),
                  per_call, static_cast<unsigned long long>(c.rejected_calls),
                  static_cast<unsigned long long>(c.failed_calls));
    out.append("cmdstat_");
    AppendSafe(out, spec.name);
    out.append(line);
  });
}

void AppendErrorStats(const CommandStats& stats, std::string& out) {
  for (const auto& [code, count] : stats.errors()) {
    out.append("errorstat_");
    AppendSafe(out, code);
    out.append(":count=");
    out.append(std::to_string(count));
    out.append("\r\n");
  }
}

void AppendLatencyStats(const CommandStats& stats, std::span<const double> percentiles,
                        std::string& out) {
  stats.ForEach([&](const CommandSpec& spec, const CommandCounters& c) {
    if (c.latency == nullptr) return;
    out.append("latency_percentiles_usec_");
    AppendSafe(out, spec.name);
    out.push_back(':');
    for (std::size_t i = 0; i < percentiles.size(); ++i) {
      char name_buf[64];
      char value[64];
      std::snprintf(value, sizeof(value), "=%.3f",
                    static_cast<double>(c.latency->ValueAtPercentile(percentiles[i])) / 1000.0);
      if (i != 0) out.push_back(',');
      out.push_back('p');
      out.append(PercentileName(percentiles[i], name_buf));
      out.append(value);
    }
    out.append("\r\n");
  });
}

}  // namespace warden::server
