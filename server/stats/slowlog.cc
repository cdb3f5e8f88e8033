#include "server/stats/slowlog.h"

#include <algorithm>

#include "server/command_context.h"
#include "server/command_table.h"
#include "server/config/config_options.h"

namespace warden::server {
namespace {

bool EqualNoCase(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

}  // namespace

// Redis's redactClientCommandArgument callers: AUTH's arguments, HELLO's AUTH pair, ACL
// SETUSER's name and rules, MIGRATE's credentials, and the values of CONFIG SET's sensitive
// options.
bool RedactedArgument(const CommandSpec& spec, std::span<const std::string_view> args,
                      std::size_t i) {
  if (spec.name == "auth") return i >= 1;
  if (spec.name == "acl|setuser") return i >= 2;
  if (spec.name == "hello") {
    // HELLO's own option walk: it stops at the first option it does not know.
    for (std::size_t j = 2; j < args.size(); ++j) {
      const std::size_t more = args.size() - 1 - j;
      if (ArgIs(args[j], "auth") && more >= 2) {
        if (i == j + 1 || i == j + 2) return true;
        j += 2;
      } else if (ArgIs(args[j], "setname") && more >= 1) {
        ++j;
      } else {
        break;
      }
    }
    return false;
  }
  if (spec.name == "migrate") {
    // MIGRATE's own option walk: AUTH's password, AUTH2's user and password.
    for (std::size_t j = 6; j < args.size(); ++j) {
      const std::size_t more = args.size() - 1 - j;
      if (ArgIs(args[j], "auth") && more >= 1) {
        if (i == j + 1) return true;
        ++j;
      } else if (ArgIs(args[j], "auth2") && more >= 2) {
        if (i == j + 1 || i == j + 2) return true;
        j += 2;
      } else if (ArgIs(args[j], "keys")) {
        break;
      }
    }
    return false;
  }
  if (spec.name == "config|set") {
    if (i < 3 || i % 2 == 0) return false;
    const ConfigOption* option = FindConfigOption(args[i - 1]);
    return option != nullptr && (option->flags & kConfigSensitive) != 0;
  }
  return false;
}

void Slowlog::Push(const CommandSpec& spec, std::span<const std::string_view> args,
                   std::int64_t duration_us, std::int64_t unix_s, std::string_view client_addr,
                   std::string_view client_name) {
  SlowlogEntry entry;
  entry.id = next_id_++;
  entry.unix_s = unix_s;
  entry.duration_us = duration_us;
  const std::size_t kept = std::min(args.size(), kMaxArgs);
  entry.args.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i) {
    if (kept != args.size() && i == kept - 1) {
      entry.args.push_back("... (" + std::to_string(args.size() - kept + 1) + " more arguments)");
    } else if (RedactedArgument(spec, args, i)) {
      entry.args.emplace_back("(redacted)");
    } else if (args[i].size() > kMaxArgBytes) {
      std::string cut(args[i].substr(0, kMaxArgBytes));
      cut += "... (" + std::to_string(args[i].size() - kMaxArgBytes) + " more bytes)";
      entry.args.push_back(std::move(cut));
    } else {
      entry.args.emplace_back(args[i]);
    }
  }
  entry.client_addr = client_addr;
  entry.client_name = client_name;
  entries_.push_front(std::move(entry));
  trimmed_to_ = -1;
}

void LatencyMonitor::AddSample(std::string_view event, std::int64_t latency_ms,
                               std::int64_t unix_s) {
  auto it = events_.find(event);
  if (it == events_.end()) it = events_.emplace(std::string(event), Series{}).first;
  Series& series = it->second;
  const auto latency = static_cast<std::uint32_t>(latency_ms);
  series.max_ms = std::max(series.max_ms, latency);
  // One sample per second: a second spike in the same second only raises it.
  Sample& prev = series.samples[(series.next + kHistoryLen - 1) % kHistoryLen];
  if (prev.unix_s == unix_s) {
    prev.latency_ms = std::max(prev.latency_ms, latency);
    return;
  }
  series.samples[series.next] = {unix_s, latency};
  series.next = (series.next + 1) % kHistoryLen;
}

int LatencyMonitor::Reset(std::string_view event) {
  int dropped = 0;
  for (auto it = events_.begin(); it != events_.end();) {
    if (EqualNoCase(it->first, event)) {
      it = events_.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  return dropped;
}

int LatencyMonitor::ResetAll() {
  const int dropped = static_cast<int>(events_.size());
  events_.clear();
  return dropped;
}

const LatencyMonitor::Series* LatencyMonitor::Find(std::string_view event) const {
  const auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second;
}

}  // namespace warden::server
