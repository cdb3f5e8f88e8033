// Fault rules (DEBUG FAULT): which requests fail, stall or lose their connection, and how.
//
// A rule is a set of matchers (command name, a key glob, a client-name glob), a schedule (let the
// first AFTER matching requests pass, fire at most TIMES times, fire with PROBABILITY p) and one
// action. The dispatcher shows each request a client sends to the rules once, after Redis's own
// checks and before the command runs: commands queued in MULTI are shown as they are queued, EXEC
// and EVAL as themselves, and the commands EXEC or a script runs are never shown. DEBUG is never
// shown, so a rule cannot lock a test out of its own controls.
//
// Rules are tried in the order they were added; the first that fires acts and the rules after it
// do not see the request. Each rule draws from its own generator, seeded from --seed and the rule's
// id, so its faults depend only on the requests it matched: the same seed, rules and requests
// replay the same faults whatever else the server does (active expiry, other rules' draws).
// CLEAR restarts ids at 1, so a test that clears its rules first replays alike run alone or not.
//
// With no rule installed, the dispatcher's one test of armed() is all a request pays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/random.h"

namespace warden::server {

struct CommandSpec;

enum class FaultAction {
  kError,      // answer the error; the command does not run
  kDelay,      // run the command; hold its reply (and what follows it) delay_ms, real time
  kDrop,       // close the connection; the command does not run
  kDropAfter,  // run the command; close the connection instead of sending its reply
};

struct FaultRule {
  // Matchers; empty optionals match anything. `command` is lower case: "set", or "client|kill"
  // for one subcommand, or "client" for all of them.
  std::optional<std::string> command;
  std::optional<std::string> key_glob;
  std::optional<std::string> client_name_glob;
  // Schedule.
  std::int64_t after = 0;
  std::int64_t times = -1;  // -1: unlimited
  double probability = 1.0;
  std::string probability_text = "1";  // as written, for LIST
  // Action.
  FaultAction action = FaultAction::kError;
  std::string error;  // kError: the reply, without '-' and CRLF
  std::int64_t delay_ms = 0;
  std::int64_t jitter_ms = 0;

  // Assigned by FaultRules.
  std::int64_t id = 0;
  std::int64_t matched = 0;  // requests its matchers accepted
  std::int64_t hits = 0;     // times it fired
};

// What to do with one request. Owns the error text: a rule that fired its last time is gone.
struct FaultHit {
  FaultAction action;
  std::string error;
  std::int64_t delay_ms = 0;
};

// Parses DEBUG FAULT ADD's arguments after ADD. Returns the error to answer, or nullopt once `out`
// is filled. Names of unknown commands are refused: they never reach the rules.
std::optional<std::string> ParseFaultRule(std::span<const std::string_view> args, FaultRule& out);

// The rule's action as LIST shows it: "ERROR <text>", "DELAY 100 JITTER 20", "DROP", "DROP-AFTER".
std::string DescribeFaultAction(const FaultRule& rule);

class FaultRules {
 public:
  explicit FaultRules(std::uint64_t seed) : seed_(seed) {}

  bool armed() const { return !rules_.empty(); }

  // Shows one request to the rules (see the header comment). `spec` is the resolved (sub)command.
  std::optional<FaultHit> Match(const CommandSpec& spec, std::span<const std::string_view> args,
                                std::string_view client_name);

  // Installs `rule` last and returns its id.
  std::int64_t Add(FaultRule rule);
  // Removes one rule; false if there is none with that id.
  bool Remove(std::int64_t id);
  // Removes every rule and restarts ids at 1. Returns how many were removed.
  std::size_t Clear();
  const std::vector<FaultRule>& rules() const { return rules_; }

  // DEBUG FAIL-NEXT and REPLY-DELAY: each keeps at most one rule, which the next call replaces.
  // A null rule only removes the previous one.
  void ReplaceShorthand(std::int64_t& slot, std::optional<FaultRule> rule);
  std::int64_t fail_next_id = 0;
  std::int64_t reply_delay_id = 0;

 private:
  bool Matches(const FaultRule& rule, const CommandSpec& spec,
               std::span<const std::string_view> args, std::string_view client_name) const;

  std::uint64_t seed_;
  std::int64_t next_id_ = 1;
  std::vector<FaultRule> rules_;
  std::vector<storage::Random> randoms_;  // one per rule, same order
};

}  // namespace warden::server
