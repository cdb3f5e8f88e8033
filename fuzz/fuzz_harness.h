// The server the command and script fuzz targets drive: a ServerState without sockets, as the
// command tests build it, with DEBUG enabled, four clients, a clock only the input moves, a 32 MB
// Lua memory cap and an instruction budget that ends every script quickly.
//
// Everything a command could make depend on the outside world is pinned, so a crash replays from
// its input alone: the seed is fixed, wall time is a frozen ControllableClock (DEBUG CLOCK
// reaches it), and monotonic time, which decides when a script turns busy and when an
// active-expiry slice ends, advances 1 ms per reading instead of with real time.
//
// After every command Run() checks what must always hold: the reply is exactly one RESP value,
// a finished command leaves no script running and time unfrozen, and the keyspace passes its
// own Verify(). A broken check prints what failed and aborts, which libFuzzer reports as a crash.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "server/server_state.h"
#include "server/session.h"
#include "storage/clock.h"

namespace warden::fuzz {

// Aborts with `what` unless `ok`: an invariant the fuzz target checks is broken.
void Check(bool ok, const char* what);

class FuzzClock final : public storage::Clock {
 public:
  static constexpr std::int64_t kStartMs = 1'700'000'000'000;

  FuzzClock() { control.Freeze(kStartMs); }
  std::int64_t NowMs() const override { return control.NowMs(); }
  std::int64_t NowUs() const override { return control.NowUs(); }
  std::int64_t MonotonicUs() const override { return monotonic_us_ += 1000; }

  // Wall time; frozen unless a command released it (DEBUG CLOCK REAL).
  storage::ControllableClock control;

 private:
  mutable std::int64_t monotonic_us_ = 0;
};

class FuzzServer {
 public:
  // Clients 0 and 1 start in RESP2, 2 and 3 in RESP3; HELLO may switch them.
  static constexpr std::size_t kClients = 4;
  static constexpr std::chrono::seconds kRealTime{1};

  FuzzServer();

  server::ServerState& state() { return state_; }

  // Sends `args` (not empty) from `client` through the dispatcher and returns the reply. A client
  // whose connection the command closed (QUIT, a cross-protocol request) is replaced by a new one.
  std::string Run(std::size_t client, std::span<const std::string_view> args);

  // What the server's loop does between commands: the clock moves (keys that ran out expire at
  // once, as in Server::AdvanceClock), or one background cycle runs.
  void AdvanceClock(std::int64_t delta_ms);
  void Cron();

  // Called between Lua instructions while a script is busy, as the server serves other clients
  // then. Commands sent from it must come from a client other than the script's caller.
  void set_on_busy(std::function<void()> on_busy) { on_busy_ = std::move(on_busy); }
  // One Lua instruction may copy megabytes (string.rep), so instructions alone do not bound an
  // input's time: a server gets a second of real time, then scripts are stopped and the targets
  // send nothing more. Only inputs that do gigabytes of work depend on the machine's speed.
  bool out_of_time() const { return std::chrono::steady_clock::now() - started_ > kRealTime; }

  // Keyspace::Verify(), and every entry is found by its key.
  void CheckKeyspace() const;
  // A full storage SCAN returns every key (SCAN's guarantee with no writes during the scan), and
  // DBSIZE answers the key count.
  void CheckScanSeesEveryKey();

 private:
  void Connect(std::size_t client);

  FuzzClock clock_;
  server::ServerState state_;
  std::array<server::Session, kClients> sessions_;
  int depth_ = 0;
  int hooks_left_ = 0;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::function<void()> on_busy_;
};

}  // namespace warden::fuzz
