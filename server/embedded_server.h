// A warden server inside a test's own process: it runs on a thread of its own, on a free
// loopback port, with a clock the test moves directly. For C++ test suites that want a real
// Redis-protocol server without a child process.
//
//   auto server = warden::EmbeddedServer::Start({"--enable-debug-command", "yes"}, &error);
//   connect to 127.0.0.1:server->port() ...
//   server->AdvanceClockMs(30'000);   // a 30 s lease is over, at once
//   server->SaveSnapshot("clean");    // ... and LoadSnapshot("clean") between tests
//
// The test controls are the DEBUG subcommands a client would send (README, "Using warden in
// tests"), run on a local control client of the server's own: start the server with
// {"--enable-debug-command", "local"} (or "yes") to use them.
//
// Thread safety: every method may be called from any thread; the clock and keyspace changes run
// on the server's thread and have finished when the call returns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace warden {

namespace server {
class Server;
class Logger;
struct Session;
}  // namespace server
namespace storage {
class ControllableClock;
}  // namespace storage

class EmbeddedServer {
 public:
  // Starts a server with redis-server style options (e.g. {"--requirepass", "x"}); it listens on
  // 127.0.0.1 and a free port unless the options say otherwise. Returns nullptr and sets `error`
  // on failure.
  static std::unique_ptr<EmbeddedServer> Start(const std::vector<std::string>& options,
                                               std::string* error);
  ~EmbeddedServer();
  EmbeddedServer(const EmbeddedServer&) = delete;
  EmbeddedServer& operator=(const EmbeddedServer&) = delete;

  int port() const { return port_; }
  // Closes every connection and joins the server thread. Idempotent. A server that a client
  // shut down (SHUTDOWN) is stopped too: the methods below then act on what it left.
  void Stop();

  // The server's clock, in unix milliseconds.
  std::int64_t NowMs() const;
  // Stops time at `unix_ms`.
  void FreezeClock(std::int64_t unix_ms);
  // Stops time now.
  void FreezeClock();
  // Moves time forward and expires every lease that is over by then.
  void AdvanceClockMs(std::int64_t delta_ms);
  // Back to the real clock.
  void RealClock();

  // Runs one command as a client would (the control client: local, authenticated, named
  // "embedded-control") and returns its RESP2 reply, e.g. "+OK\r\n" or "-ERR ...\r\n". One
  // command that answers at once: MULTI, or a command a CLIENT PAUSE holds, is dropped with an
  // error; a blocking command answers at once, as from a script.
  std::string Command(const std::vector<std::string>& args);

  // The controls below return "" on success, else the error text (for instance when the options
  // do not enable DEBUG).
  // DEBUG SNAPSHOT SAVE/LOAD/DROP: a copy of every database and back.
  std::string SaveSnapshot(const std::string& name);
  std::string LoadSnapshot(const std::string& name);
  std::string DropSnapshot(const std::string& name);

  // DEBUG FAULT ADD <rule...>, e.g. {"COMMAND", "set", "TIMES", "1", "ERROR", "READONLY x"}:
  // the rule's id, or -1 with `error` set.
  std::int64_t AddFault(const std::vector<std::string>& rule, std::string* error = nullptr);
  std::string ClearFaults();

  // DEBUG COMMAND-LOG: start an empty log (max_entries 0: the default size), stop it, read it.
  struct LoggedCommand {
    std::uint64_t seq = 0;
    std::int64_t time_ms = 0;  // on the server's clock
    std::uint64_t client_id = 0;
    std::string client_name;
    int db = 0;
    std::vector<std::string> args;
    std::string origin;  // "client", "exec" or "script"
  };
  std::string StartCommandLog(std::size_t max_entries = 0);
  std::string StopCommandLog();
  std::vector<LoggedCommand> CommandLog();

  // Waits (real time) until at least `count` clients are blocked in blocking commands; returns
  // how many are, or -1 after `timeout_ms`.
  std::int64_t WaitBlocked(std::size_t count, std::int64_t timeout_ms = 5000);

 private:
  EmbeddedServer();
  void RunOnServerThread(std::function<void()> task);
  void JoinThread();

  std::unique_ptr<storage::ControllableClock> clock_;
  std::unique_ptr<server::Logger> log_;
  std::unique_ptr<server::Server> server_;
  std::unique_ptr<server::Session> control_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopped_ = false;
  std::once_flag joined_;
};

}  // namespace warden
