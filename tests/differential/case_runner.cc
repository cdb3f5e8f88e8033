#include "case_runner.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <set>
#include <utility>

#include "resp_reply.h"

namespace warden::testing {
namespace {

// A full SCAN iteration that has not returned to cursor 0 after this many calls is reported.
constexpr int kMaxScanCalls = 100000;
// How many keys a scanall difference lists from each side.
constexpr std::size_t kKeysShown = 10;

// True when two complete replies agree under the line's comparison rules.
bool RepliesAgree(const CaseLine& line, const std::string& a, const std::string& b) {
  if (line.type_only) return a.substr(0, 1) == b.substr(0, 1);
  if (!line.sorted && line.integer_tolerance == 0) return a == b;
  ParseResult x = ParseReply(a);
  ParseResult y = ParseReply(b);
  if (line.sorted) {
    SortArrays(x.reply);
    SortArrays(y.reply);
  }
  return RepliesMatch(x.reply, y.reply, line.integer_tolerance);
}

std::string DescribeResult(const ReadResult& result) {
  std::string text = "\"" + EscapeBytes(result.bytes) + "\"";
  if (result.status != ReadStatus::kOk)
    text += " [" + std::string(ReadStatusName(result.status)) + "]";
  return text;
}

// The keys one server returned over a whole SCAN iteration, or why there are none.
struct ScanOutcome {
  std::set<std::string> keys;
  std::string error_reply;  // the raw error reply, when SCAN refused the arguments
  std::string failure;      // a broken connection or an unexpected reply shape
};

ScanOutcome ScanAll(RespClient& client, const std::vector<std::string>& options) {
  ScanOutcome outcome;
  std::string cursor = "0";
  for (int call = 0; call < kMaxScanCalls; ++call) {
    std::vector<std::string> argv = {"SCAN", cursor};
    argv.insert(argv.end(), options.begin(), options.end());
    const ReadResult result = client.Command(argv);
    if (result.status != ReadStatus::kOk) {
      outcome.failure = "SCAN " + cursor + " -> " + DescribeResult(result);
      return outcome;
    }
    const Reply reply = ParseReply(result.bytes).reply;
    if (reply.type == '-') {
      outcome.error_reply = result.bytes;
      return outcome;
    }
    if (reply.type != '*' || reply.elements.size() != 2 || reply.elements[0].type != '$' ||
        reply.elements[1].type != '*') {
      outcome.failure = "SCAN " + cursor + " -> unexpected reply " + DescribeResult(result);
      return outcome;
    }
    for (const Reply& key : reply.elements[1].elements) outcome.keys.insert(key.text);
    cursor = reply.elements[0].text;
    if (cursor == "0") return outcome;
  }
  outcome.failure =
      "SCAN did not return to cursor 0 within " + std::to_string(kMaxScanCalls) + " calls";
  return outcome;
}

// Lists up to kKeysShown keys that are in `a` but not in `b`.
std::string KeysOnlyIn(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> only;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  std::string text = std::to_string(only.size()) + " key(s)";
  for (std::size_t i = 0; i < only.size() && i < kKeysShown; ++i) {
    text += " \"" + EscapeBytes(only[i]) + "\"";
  }
  return text;
}

}  // namespace

CaseRunner::CaseRunner(const Target& reference, const Target& candidate, bool trace)
    : sides_{Side{.target = reference, .client = std::nullopt},
             Side{.target = candidate, .client = std::nullopt}},
      trace_(trace) {}

std::vector<std::string> CaseRunner::Start() {
  std::vector<std::string> problems;
  if (!Reconnect()) {
    problems.push_back("cannot connect to both servers");
    return problems;
  }
  // Each file starts from an empty keyspace, an empty script cache and RESP2.
  const std::vector<std::vector<std::string>> preamble = {
      {"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"HELLO", "2"}};
  for (Side& side : sides_) {
    for (const std::vector<std::string>& command : preamble) {
      const ReadResult result = side.client->Command(command);
      const bool ok =
          result.status == ReadStatus::kOk &&
          (command[0] == "HELLO" ? result.bytes.starts_with("*") : result.bytes == "+OK\r\n");
      if (!ok) {
        problems.push_back("preamble: " + side.target.label + " answered " + command[0] + " with " +
                           DescribeResult(result));
      }
    }
  }
  return problems;
}

std::optional<std::string> CaseRunner::Run(const CaseLine& line) {
  if (!usable_) return Describe(line) + "\n  skipped: no connection";
  if (line.kind == LineKind::kReconnect) {
    if (Reconnect()) return std::nullopt;
    return Describe(line) + "\n  cannot reconnect";
  }
  if (line.kind == LineKind::kScanAll) return RunScanAll(line);

  // Send to both before reading either, so both servers work on the line at the same time.
  std::array<bool, 2> sent;
  for (std::size_t i = 0; i < sides_.size(); ++i) {
    RespClient& client = *sides_[i].client;
    sent[i] = line.kind == LineKind::kCommand ? client.Send(line.args) : client.SendRaw(line.raw);
  }
  std::array<Observation, 2> observed;
  bool connection_broken = line.kind == LineKind::kRawClose;
  for (std::size_t i = 0; i < sides_.size(); ++i) {
    observed[i] = sent[i] ? Collect(sides_[i], line)
                          : Observation{ReadResult{.status = ReadStatus::kClosed, .bytes = ""}};
    if (!observed[i].empty() && observed[i].back().status != ReadStatus::kOk) {
      connection_broken = true;
    }
  }
  std::optional<std::string> difference = CompareReplies(line, observed[0], observed[1]);
  if (trace_) {
    std::cout << Describe(line) << "\n";
    for (const ReadResult& result : observed[0])
      std::cout << "  " << DescribeResult(result) << "\n";
  }
  if (connection_broken && !Reconnect()) {
    return difference.value_or(Describe(line)) + "\n  cannot reconnect afterwards";
  }
  return difference;
}

CaseRunner::Observation CaseRunner::Collect(Side& side, const CaseLine& line) {
  if (line.kind == LineKind::kRawClose) return {side.client->ReadUntilClose()};
  Observation observation;
  const int replies = line.kind == LineKind::kRaw ? line.replies : 1;
  for (int i = 0; i < replies; ++i) {
    observation.push_back(side.client->ReadReply());
    if (observation.back().status != ReadStatus::kOk) break;
  }
  return observation;
}

std::optional<std::string> CaseRunner::CompareReplies(const CaseLine& line, const Observation& a,
                                                      const Observation& b) const {
  bool agree = a.size() == b.size();
  for (std::size_t i = 0; agree && i < a.size(); ++i) {
    const ReadResult& x = a[i];
    const ReadResult& y = b[i];
    if (line.kind == LineKind::kRawClose) {
      // Both must close, after sending the same bytes.
      agree =
          x.status == ReadStatus::kClosed && y.status == ReadStatus::kClosed && x.bytes == y.bytes;
    } else if (x.status == ReadStatus::kOk && y.status == ReadStatus::kOk) {
      agree = RepliesAgree(line, x.bytes, y.bytes);
    } else {
      // A line that gets no reply from either server is a broken case, not an agreement.
      agree = x.status == y.status && x.status != ReadStatus::kTimeout && x.bytes == y.bytes;
    }
  }
  if (agree) return std::nullopt;
  std::string message = Describe(line);
  for (std::size_t side = 0; side < sides_.size(); ++side) {
    const Observation& observation = side == 0 ? a : b;
    message += "\n  " + sides_[side].target.label + ": ";
    for (std::size_t i = 0; i < observation.size(); ++i) {
      message += (i > 0 ? " | " : "") + DescribeResult(observation[i]);
    }
  }
  return message;
}

std::optional<std::string> CaseRunner::RunScanAll(const CaseLine& line) {
  std::array<ScanOutcome, 2> outcomes;
  bool connection_broken = false;
  for (std::size_t i = 0; i < sides_.size(); ++i) {
    outcomes[i] = ScanAll(*sides_[i].client, line.args);
    connection_broken = connection_broken || !outcomes[i].failure.empty();
  }
  std::string message;
  const std::string& a = sides_[0].target.label;
  const std::string& b = sides_[1].target.label;
  for (std::size_t i = 0; i < sides_.size(); ++i) {
    if (!outcomes[i].failure.empty()) {
      message += "\n  " + sides_[i].target.label + ": " + outcomes[i].failure;
    }
  }
  if (message.empty() && outcomes[0].error_reply != outcomes[1].error_reply) {
    message = "\n  " + a + ": \"" + EscapeBytes(outcomes[0].error_reply) + "\"\n  " + b + ": \"" +
              EscapeBytes(outcomes[1].error_reply) + "\"";
  } else if (message.empty() && outcomes[0].keys != outcomes[1].keys) {
    message = "\n  only from " + a + ": " + KeysOnlyIn(outcomes[0].keys, outcomes[1].keys) +
              "\n  only from " + b + ": " + KeysOnlyIn(outcomes[1].keys, outcomes[0].keys);
  }
  if (trace_) {
    std::cout << Describe(line) << "\n  " << outcomes[0].keys.size() << " key(s) "
              << EscapeBytes(outcomes[0].error_reply + outcomes[0].failure) << "\n";
  }
  if (connection_broken && !Reconnect()) message += "\n  cannot reconnect afterwards";
  if (message.empty()) return std::nullopt;
  return Describe(line) + message;
}

bool CaseRunner::Reconnect() {
  for (Side& side : sides_) {
    side.client = RespClient::Connect(side.target.port);
    if (!side.client) usable_ = false;
  }
  return usable_;
}

std::string CaseRunner::Describe(const CaseLine& line) const { return "> " + line.text; }

}  // namespace warden::testing
