// libFuzzer target: argument vectors through the dispatcher, against the server of
// fuzz_harness.h.
//
// The input is text, one command per line, split as an inline request is ("..." with \xHH for
// binary bytes), so seeds and reproducers read like a redis-cli session:
//
//   SET lock tok NX PX 30000
//   @advance 30000
//   GET lock
//
// Two shortcuts keep one mutated byte meaningful: a one-byte command name picks a (sub)command of
// the real table, and a one-byte argument below 0x20 picks a number near an edge. Lines starting
// with @ steer the harness instead of reaching the server:
//
//   @advance <ms>   moves the clock; keys that ran out expire
//   @client <n>     sends the following lines from client n (0 and 1 RESP2, 2 and 3 RESP3)
//   @cron           one background cycle: an active-expiry slice and rehash steps
//
// While a script is busy, the next line is sent by another client, as a request arriving then.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "protocol/request_parser.h"
#include "server/command_table.h"

namespace warden::fuzz {
namespace {

constexpr std::string_view kEdgeNumbers[] = {
    "0",
    "1",
    "-1",
    "-2",
    "30000",
    "2147483647",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "9223372036854775",  // * 1000 just fits in int64
    "9223372036854776",  // * 1000 does not
    "-9223372036854775",
    "1e3",
    " 1",
    "1 ",
    "+1",
    "-0",
    "01",
    "1.5",
    "inf",
    "nan",
    "",
};

constexpr std::int64_t kMaxAdvanceMs = 100LL * 365 * 24 * 3600 * 1000;
// Full SCAN and DBSIZE checks cost O(keys): run them every few commands and at the end.
constexpr int kScanCheckEvery = 16;

// Every command and subcommand of the table, as the arguments that name it.
std::vector<std::vector<std::string_view>> TableNames() {
  std::vector<std::vector<std::string_view>> names;
  for (const server::CommandSpec& spec : server::Commands()) {
    if (spec.handler != nullptr) names.push_back({spec.name});
    if (!spec.is_container()) continue;
    for (const server::CommandSpec& sub : spec.subcommands()) {
      names.push_back({spec.name, sub.short_name()});
    }
  }
  return names;
}

class CommandFuzzer {
 public:
  explicit CommandFuzzer(std::string_view input) : input_(input) {
    server_.set_on_busy([this] {
      if (!input_.empty()) Execute(NextLine(), /*nested=*/true);
    });
  }

  void RunAll() {
    while (!input_.empty() && !server_.out_of_time()) Execute(NextLine(), /*nested=*/false);
    server_.CheckScanSeesEveryKey();
  }

 private:
  std::string_view NextLine() {
    const std::size_t newline = input_.find('\n');
    const std::string_view line = input_.substr(0, newline);
    input_.remove_prefix(newline == std::string_view::npos ? input_.size() : newline + 1);
    return line;
  }

  void Execute(std::string_view line, bool nested) {
    std::string storage;
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    if (!protocol::SplitInlineArgs(line, storage, spans) || spans.empty()) return;
    std::vector<std::string_view> args;
    for (const auto& [offset, length] : spans) {
      args.push_back(std::string_view(storage).substr(offset, length));
    }
    if (args[0].starts_with('@')) {
      if (!nested) Steer(args);
      return;
    }
    if (args[0].size() == 1) {
      static const std::vector<std::vector<std::string_view>> kTableNames = TableNames();
      const auto& name = kTableNames[static_cast<unsigned char>(args[0][0]) % kTableNames.size()];
      args.erase(args.begin());
      args.insert(args.begin(), name.begin(), name.end());
    }
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i].size() != 1) continue;
      const auto byte = static_cast<unsigned char>(args[i][0]);
      if (byte < 0x20) args[i] = kEdgeNumbers[byte % std::size(kEdgeNumbers)];
    }
    server_.Run(nested ? (client_ + 1) % FuzzServer::kClients : client_, args);
    if (!nested && ++commands_ % kScanCheckEvery == 0) server_.CheckScanSeesEveryKey();
  }

  void Steer(std::span<const std::string_view> args) {
    std::int64_t n = 0;
    const bool has_number = args.size() == 2 && protocol::ParseStrictInt64(args[1], n);
    if (args[0] == "@advance" && has_number && n >= 0) {
      server_.AdvanceClock(n < kMaxAdvanceMs ? n : kMaxAdvanceMs);
    } else if (args[0] == "@client" && has_number && n >= 0) {
      client_ = static_cast<std::size_t>(n) % FuzzServer::kClients;
    } else if (args[0] == "@cron") {
      server_.Cron();
    }
  }

  std::string_view input_;
  FuzzServer server_;
  std::size_t client_ = 0;
  int commands_ = 0;
};

}  // namespace
}  // namespace warden::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  warden::fuzz::CommandFuzzer(std::string_view(reinterpret_cast<const char*>(data), size)).RunAll();
  return 0;
}
