// The commands and subcommands warden answered as unknown, with counts, so that a test suite run
// against warden can say what it needed (DEBUG UNSUPPORTED, and one log line at shutdown).
//
// Only the unknown-command paths record (an error reply that has already cost a lookup), so a
// known command pays nothing. Names are kept lower case and cut to 128 bytes as Redis's error
// text cuts them; a subcommand is "container|sub", Redis's way of naming one. Distinct names are
// bounded: past kMaxNames, new ones are counted together under kOtherName.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace warden::server {

struct CommandSpec;

class UnsupportedCommands {
 public:
  static constexpr std::size_t kMaxNames = 1000;
  static constexpr std::size_t kMaxNameBytes = 128;
  static constexpr std::string_view kOtherName = "(other)";

  // A request the command table did not know: an unknown command, or an unknown subcommand of
  // a container (CONFIG, CLIENT, ...). `top` is the top-level command args[0] calls (nullptr:
  // none), which tells which.
  void RecordRequest(const CommandSpec* top, std::span<const std::string_view> args);
  // An unknown subcommand of a command that dispatches its subcommands itself (DEBUG).
  void RecordSubcommand(std::string_view command, std::string_view sub);

  // Names counted since the last ResetCounts(), in name order, with those counts.
  void ForEachSinceReset(const std::function<void(std::string_view, std::uint64_t)>& fn) const;
  std::size_t names_since_reset() const;
  // CONFIG RESETSTAT: DEBUG UNSUPPORTED starts again; the shutdown summary keeps everything.
  void ResetCounts();
  // "name (count), ..." of everything since start, for the log; empty if nothing.
  std::string SummarySinceStart() const;

 private:
  struct Counts {
    std::uint64_t since_reset = 0;
    std::uint64_t since_start = 0;
  };
  void Record(std::string name);

  std::map<std::string, Counts, std::less<>> names_;
};

}  // namespace warden::server
