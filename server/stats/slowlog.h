// SLOWLOG's memory: the newest commands that ran at least slowlog-log-slower-than microseconds,
// at most slowlog-max-len of them, with their arguments cut as Redis cuts them. Call() offers
// every command; an entry is built (and allocates) only when one is logged.
//
// LatencyMonitor is LATENCY's memory: per event ("command", "fast-command", "expire-cycle"), the
// highest latency of each second over the last 160 seconds that had one at or above
// latency-monitor-threshold milliseconds.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::server {

struct CommandSpec;

struct SlowlogEntry {
  std::int64_t id = 0;
  std::int64_t unix_s = 0;
  std::int64_t duration_us = 0;
  std::vector<std::string> args;
  std::string client_addr;
  std::string client_name;
};

// Redis's redactClientCommandArgument callers: whether args[i] is a secret that logs store as
// "(redacted)" (AUTH's arguments, HELLO's AUTH pair, ACL SETUSER's rules, and the value of a
// sensitive option in CONFIG SET: requirepass, tls-key-file-pass).
bool RedactedArgument(const CommandSpec& spec, std::span<const std::string_view> args,
                      std::size_t i);

class Slowlog {
 public:
  // Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
  static constexpr std::size_t kMaxArgs = 32;
  static constexpr std::size_t kMaxArgBytes = 128;

  // Adds an entry for `args` (newest first). Secrets (AUTH's password, CONFIG SET requirepass's
  // value) are stored as "(redacted)".
  void Push(const CommandSpec& spec, std::span<const std::string_view> args,
            std::int64_t duration_us, std::int64_t unix_s, std::string_view client_addr,
            std::string_view client_name);
  // Drops the oldest entries past `max_len`. Redis does this at every command the slow log sees
  // (logged or not), so a lowered slowlog-max-len applies from the command that lowers it.
  // Costs one comparison unless an entry was added or max_len changed since the last trim.
  void Trim(std::int64_t max_len) {
    if (max_len == trimmed_to_) return;
    while (static_cast<std::int64_t>(entries_.size()) > max_len) entries_.pop_back();
    trimmed_to_ = max_len;
  }
  // Empties the log; ids keep counting.
  void Reset() { entries_.clear(); }
  const std::deque<SlowlogEntry>& entries() const { return entries_; }

 private:
  std::deque<SlowlogEntry> entries_;
  std::int64_t next_id_ = 0;
  // The max_len the entries were last trimmed to; -1 after a Push.
  std::int64_t trimmed_to_ = -1;
};

class LatencyMonitor {
 public:
  static constexpr std::size_t kHistoryLen = 160;  // Redis's LATENCY_TS_LEN

  struct Sample {
    std::int64_t unix_s = 0;
    std::uint32_t latency_ms = 0;
  };
  struct Series {
    std::size_t next = 0;  // where the next sample goes
    std::uint32_t max_ms = 0;
    std::array<Sample, kHistoryLen> samples{};
    const Sample& latest() const { return samples[(next + kHistoryLen - 1) % kHistoryLen]; }
  };

  void AddSample(std::string_view event, std::int64_t latency_ms, std::int64_t unix_s);
  // Forgets `event` (case-insensitive); returns how many series were dropped.
  int Reset(std::string_view event);
  int ResetAll();
  const Series* Find(std::string_view event) const;
  const std::map<std::string, Series, std::less<>>& events() const { return events_; }

 private:
  std::map<std::string, Series, std::less<>> events_;
};

}  // namespace warden::server
