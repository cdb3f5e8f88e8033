// A warden server inside a test's own process: it runs on a thread of its own, on a free
// loopback port, with a clock the test moves directly. For C++ test suites that want a real
// Redis-protocol server without a child process.
//
//   auto server = warden::EmbeddedServer::Start({"--enable-debug-command", "yes"}, &error);
//   connect to 127.0.0.1:server->port() ...
//   server->AdvanceClockMs(30'000);   // a 30 s lease is over, at once
//
// Thread safety: every method may be called from any thread; the clock and keyspace changes run
// on the server's thread and have finished when the call returns.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace warden {

namespace server {
class Server;
class Logger;
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
  // Closes every connection and joins the server thread. Idempotent.
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

 private:
  EmbeddedServer();
  void RunOnServerThread(std::function<void()> task);

  std::unique_ptr<storage::ControllableClock> clock_;
  std::unique_ptr<server::Logger> log_;
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
  int port_ = 0;
  bool stopped_ = false;
};

}  // namespace warden
