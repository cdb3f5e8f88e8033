#include "server/debug/faults.h"

#include <algorithm>
#include <cstdlib>

#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

bool Is(std::string_view arg, std::string_view lower) {
  return arg.size() == lower.size() &&
         std::equal(arg.begin(), arg.end(), lower.begin(), [](char a, char b) {
           return (a >= 'A' && a <= 'Z' ? static_cast<char>(a + 32) : a) == b;
         });
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// "set", "client" or "client|kill", as the table names them. DEBUG is never shown to the rules,
// so a rule naming it would silently never fire.
std::optional<std::string> ParseCommandName(std::string_view arg, std::string& out) {
  out = Lower(arg);
  const std::size_t bar = out.find('|');
  const CommandSpec* spec = FindTopLevelCommand(std::string_view(out).substr(0, bar));
  if (spec != nullptr && bar != std::string::npos) {
    spec = spec->is_container() ? FindCommand(spec->subcommands(), out.substr(bar + 1)) : nullptr;
  }
  if (spec == nullptr) return "ERR unknown command '" + std::string(arg) + "' in DEBUG FAULT ADD";
  if ((spec->flags & kProtected) != 0) return std::string("ERR DEBUG commands are never faulted");
  return std::nullopt;
}

constexpr std::int64_t kMaxDelayMs = 86'400'000;

std::optional<std::string> ParseCount(std::string_view arg, std::int64_t min, std::string_view what,
                                      std::int64_t& out) {
  if (!protocol::ParseStrictInt64(arg, out)) {
    return std::string("ERR value is not an integer or out of range");
  }
  if (out < min) {
    return "ERR " + std::string(what) + (min == 0 ? " must not be negative" : " must be positive");
  }
  return std::nullopt;
}

std::optional<std::string> ParseProbability(std::string_view arg, FaultRule& out) {
  const std::string text(arg);
  char* end = nullptr;
  const double p = text.empty() ? -1 : std::strtod(text.c_str(), &end);
  // Also refuses NaN, which compares false both ways.
  if (text.empty() || end != text.c_str() + text.size() || !(p >= 0 && p <= 1)) {
    return std::string("ERR PROBABILITY must be a number between 0 and 1");
  }
  out.probability = p;
  out.probability_text = text;
  return std::nullopt;
}

// The action ends the arguments: everything before it is a matcher or a schedule option.
std::optional<std::string> ParseAction(std::span<const std::string_view> args, FaultRule& out) {
  const std::string_view name = args[0];
  if (Is(name, "error") && args.size() == 2) {
    const std::string_view text = args[1];
    // The text goes out as one RESP error line.
    if (text.empty() || text.find_first_of("\r\n") != std::string_view::npos) {
      return std::string("ERR the ERROR text must be one non-empty line");
    }
    out.action = FaultAction::kError;
    out.error = std::string(text);
    return std::nullopt;
  }
  if (Is(name, "delay") && (args.size() == 2 || (args.size() == 4 && Is(args[2], "jitter")))) {
    out.action = FaultAction::kDelay;
    if (auto e = ParseCount(args[1], 0, "DELAY", out.delay_ms)) return e;
    if (args.size() == 4) {
      if (auto e = ParseCount(args[3], 0, "JITTER", out.jitter_ms)) return e;
    }
    // A day is past any test's patience; the bound keeps delay plus jitter, and the loop time
    // the hold ends at, far from overflow.
    if (out.delay_ms > kMaxDelayMs || out.jitter_ms > kMaxDelayMs) {
      return "ERR DELAY and JITTER must be at most " + std::to_string(kMaxDelayMs) + " ms";
    }
    return std::nullopt;
  }
  if (Is(name, "drop") && args.size() == 1) {
    out.action = FaultAction::kDrop;
    return std::nullopt;
  }
  if (Is(name, "drop-after") && args.size() == 1) {
    out.action = FaultAction::kDropAfter;
    return std::nullopt;
  }
  return std::string("ERR syntax error");
}

// The command's keys: its table positions, and for the EVAL and FCALL family its KEYS.
template <typename Fn>
bool AnyKey(const CommandSpec& spec, std::span<const std::string_view> args, Fn&& fn) {
  const int argc = static_cast<int>(args.size());
  if (spec.first_key > 0) {
    const int last = spec.last_key < 0 ? argc + spec.last_key : std::min(spec.last_key, argc - 1);
    for (int i = spec.first_key; i <= last; i += std::max(spec.key_step, 1)) {
      if (fn(args[static_cast<std::size_t>(i)])) return true;
    }
    return false;
  }
  const std::string_view name = spec.name;
  const bool script = name == "eval" || name == "evalsha" || name == "eval_ro" ||
                      name == "evalsha_ro" || name == "fcall" || name == "fcall_ro";
  std::int64_t numkeys = 0;
  if (!script || argc < 3 || !protocol::ParseStrictInt64(args[2], numkeys)) return false;
  for (std::int64_t i = 0; i < numkeys && 3 + i < argc; ++i) {
    if (fn(args[static_cast<std::size_t>(3 + i)])) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> ParseFaultRule(std::span<const std::string_view> args, FaultRule& out) {
  std::size_t i = 0;
  for (; i + 1 < args.size(); i += 2) {
    const std::string_view option = args[i];
    const std::string_view value = args[i + 1];
    std::optional<std::string> error;
    if (Is(option, "command")) {
      error = ParseCommandName(value, out.command.emplace());
    } else if (Is(option, "key")) {
      out.key_glob = std::string(value);
    } else if (Is(option, "client-name")) {
      out.client_name_glob = std::string(value);
    } else if (Is(option, "after")) {
      error = ParseCount(value, 0, "AFTER", out.after);
    } else if (Is(option, "times")) {
      error = ParseCount(value, 1, "TIMES", out.times);
    } else if (Is(option, "probability")) {
      error = ParseProbability(value, out);
    } else {
      break;
    }
    if (error) return error;
  }
  if (i >= args.size()) {
    return std::string(
        "ERR DEBUG FAULT ADD needs an action: ERROR <text>, DELAY <ms> [JITTER <ms>], DROP or "
        "DROP-AFTER");
  }
  return ParseAction(args.subspan(i), out);
}

std::string DescribeFaultAction(const FaultRule& rule) {
  switch (rule.action) {
    case FaultAction::kError:
      return "ERROR " + rule.error;
    case FaultAction::kDelay:
      return "DELAY " + std::to_string(rule.delay_ms) +
             (rule.jitter_ms > 0 ? " JITTER " + std::to_string(rule.jitter_ms) : "");
    case FaultAction::kDrop:
      return "DROP";
    case FaultAction::kDropAfter:
      return "DROP-AFTER";
  }
  return "";
}

bool FaultRules::Matches(const FaultRule& rule, const CommandSpec& spec,
                         std::span<const std::string_view> args,
                         std::string_view client_name) const {
  if (rule.command) {
    const std::string_view name = spec.name;
    const std::string& want = *rule.command;
    const bool same = name == want || (name.size() > want.size() && name[want.size()] == '|' &&
                                       name.substr(0, want.size()) == want);
    if (!same) return false;
  }
  if (rule.client_name_glob && !storage::GlobMatch(*rule.client_name_glob, client_name)) {
    return false;
  }
  if (rule.key_glob) {
    const std::string& glob = *rule.key_glob;
    if (!AnyKey(spec, args, [&](std::string_view key) { return storage::GlobMatch(glob, key); })) {
      return false;
    }
  }
  return true;
}

std::optional<FaultHit> FaultRules::Match(const CommandSpec& spec,
                                          std::span<const std::string_view> args,
                                          std::string_view client_name) {
  if ((spec.flags & kProtected) != 0) return std::nullopt;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    FaultRule& rule = rules_[i];
    if (!Matches(rule, spec, args, client_name)) continue;
    if (++rule.matched <= rule.after) continue;
    storage::Random& random = randoms_[i];
    // A draw only where there is a choice, so adding PROBABILITY 1 changes nothing.
    if (rule.probability < 1.0 &&
        !(static_cast<double>(random.Next() >> 11) * 0x1.0p-53 < rule.probability)) {
      continue;
    }
    ++rule.hits;
    FaultHit hit{rule.action, rule.error, rule.delay_ms};
    if (rule.jitter_ms > 0) {
      hit.delay_ms +=
          static_cast<std::int64_t>(random.Below(static_cast<std::uint64_t>(rule.jitter_ms) + 1));
    }
    if (rule.times > 0 && rule.hits >= rule.times) Remove(rule.id);
    return hit;
  }
  return std::nullopt;
}

std::int64_t FaultRules::Add(FaultRule rule) {
  rule.id = next_id_++;
  rule.matched = 0;
  rule.hits = 0;
  // Ids are small consecutive integers: spread them before they become a SplitMix64 state.
  randoms_.emplace_back(seed_ ^ (static_cast<std::uint64_t>(rule.id) * 0xD1B54A32D192ED03ULL));
  rules_.push_back(std::move(rule));
  return rules_.back().id;
}

bool FaultRules::Remove(std::int64_t id) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].id != id) continue;
    rules_.erase(rules_.begin() + static_cast<std::ptrdiff_t>(i));
    randoms_.erase(randoms_.begin() + static_cast<std::ptrdiff_t>(i));
    if (fail_next_id == id) fail_next_id = 0;
    if (reply_delay_id == id) reply_delay_id = 0;
    return true;
  }
  return false;
}

std::size_t FaultRules::Clear() {
  const std::size_t n = rules_.size();
  rules_.clear();
  randoms_.clear();
  next_id_ = 1;
  fail_next_id = 0;
  reply_delay_id = 0;
  return n;
}

void FaultRules::ReplaceShorthand(std::int64_t& slot, std::optional<FaultRule> rule) {
  if (slot != 0) Remove(slot);
  slot = rule ? Add(std::move(*rule)) : 0;
}

}  // namespace warden::server
