// Runs a parsed case file against two servers at once and reports every line whose replies
// differ. Each line is sent to both servers before either reply is read, so a DEBUG SLEEP blocks
// both at the same time and their clocks stay close. The runner owns the two connections; the
// servers belong to the caller.
#ifndef WARDEN_TESTS_DIFFERENTIAL_CASE_RUNNER_H_
#define WARDEN_TESTS_DIFFERENTIAL_CASE_RUNNER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "case_file.h"
#include "resp_client.h"

namespace warden::testing {

// A server taking part in the comparison.
struct Target {
  std::string label;  // "redis-server" or "warden", for messages
  std::uint16_t port = 0;
};

class CaseRunner {
 public:
  // With `trace`, every line and the reference server's replies are printed to stdout: handy
  // when writing a case file.
  CaseRunner(const Target& reference, const Target& candidate, bool trace = false);

  // Opens a fresh connection to each server and sends FLUSHALL, SCRIPT FLUSH and HELLO 2.
  // Returns the problems found; the lines can still run unless a connection failed.
  std::vector<std::string> Start();

  // Runs one line on both servers. Returns a description of the difference (the line and each
  // server's replies; the caller adds the location), or nullopt when the servers agree.
  // Reconnects after a line that closed or broke a connection.
  std::optional<std::string> Run(const CaseLine& line);

  // False once a connection could not be (re)opened: running more lines would only repeat it.
  bool usable() const { return usable_; }

 private:
  struct Side {
    Target target;
    std::optional<RespClient> client;
  };

  // What one server did with one line: the replies read, in order; the last one may record a
  // close, a timeout or bytes that are not RESP.
  using Observation = std::vector<ReadResult>;

  Observation Collect(Side& side, const CaseLine& line);
  std::optional<std::string> CompareReplies(const CaseLine& line, const Observation& a,
                                            const Observation& b) const;
  std::optional<std::string> RunScanAll(const CaseLine& line);
  bool Reconnect();
  std::string Describe(const CaseLine& line) const;

  std::array<Side, 2> sides_;
  bool trace_;
  bool usable_ = true;
};

}  // namespace warden::testing

#endif  // WARDEN_TESTS_DIFFERENTIAL_CASE_RUNNER_H_
