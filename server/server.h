// The network side: one libuv loop, the listeners, the connections, and the timers that drive
// active expiry and incremental rehashing. Owns the ServerState that commands see.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/config/config.h"
#include "server/connection.h"
#include "server/log.h"
#include "server/server_state.h"
#include "storage/clock.h"

namespace warden::server {

class Server final : public ConnectionRegistry {
 public:
  // `handle_signals`: install the process's SIGINT/SIGTERM handling (the warden executable);
  // an embedded server leaves the host process's signals alone.
  Server(Config config, storage::Clock& clock, Logger& log, bool handle_signals = true);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listeners and starts the timers. Returns an error text on failure.
  std::optional<std::string> Start();
  // Runs the loop until Shutdown(); returns the process exit code.
  int Run();
  // Closes the listeners, and each connection once the replies it has been sent are written (or
  // shutdown-timeout has passed), then ends Run().
  void Shutdown();

  // The TCP port actually bound (differs from the configured one for --port 0), or 0.
  int bound_port() const { return bound_port_; }
  ServerState& state() { return state_; }
  uv_loop_t* loop() { return &loop_; }
  Logger& log() { return log_; }

  void Unlink(Connection* connection);
  // A client woken from a blocking command, or one whose turn ran out with requests left, goes on
  // with its pipelined requests from the loop, before it next polls (not inside the command that
  // woke it). The loop does not wait in poll while one is scheduled.
  void ScheduleResume(Connection* connection);
  // The loop turn, counted before each poll: a connection's per-turn budget starts again with
  // each (connection.cc).
  std::uint64_t turn() const { return turn_; }
  // A connection that other clients' commands wrote to (messages, MONITOR lines) is flushed
  // once, before the loop next polls.
  void ScheduleFlush(Connection* connection) { flush_.push_back(connection); }
  // Runs `task` on the loop thread; callable from any thread. False once the server has begun to
  // shut down, when no task is taken any more (tasks taken before run by the time Run returns).
  bool Post(std::function<void()> task);
  // Moves a controllable clock forward and does at once what became due (clock_moves.h).
  void AdvanceClock(std::int64_t delta_ms);

  // ConnectionRegistry
  void DropClients(const Session* keep) override;
  void ForEachSession(const std::function<void(const Session&)>& fn) const override;
  Session* FindSession(std::uint64_t id) const override;
  std::size_t connected_clients() const override { return connection_count_; }
  std::size_t KillClients(const std::function<bool(const Session&)>& match,
                          const Session* keep) override;
  void RequestShutdown() override;
  bool Relisten() override;

 private:
  static void OnTcpConnection(uv_stream_t* listener, int status);
  static void OnUnixConnection(uv_stream_t* listener, int status);
  static void OnTlsConnection(uv_stream_t* listener, int status);
  static void OnCron(uv_timer_t* timer);
  static void OnExpireIdle(uv_idle_t* idle);
  static void OnResumeIdle(uv_idle_t*) {}
  static void OnSignalAsync(uv_async_t* async);
  static void OnTasksAsync(uv_async_t* async);
  void RunTasks();
  static void OnShutdownTimer(uv_timer_t* timer);
  static void OnBeforePoll(uv_prepare_t* prepare);
  static void OnBlockTimer(uv_timer_t* timer);
  static void OnWaitTimer(uv_timer_t* timer);

  void Accept(uv_stream_t* listener, Connection::Kind kind);
  // Registers an accepted connection and starts serving it.
  void Adopt(Connection* connection);
  // Accepts pending connections with accept(2), outside the loop (while a script is busy).
  void AcceptDirectly(uv_stream_t* listener, Connection::Kind kind);
  // On config.port, or config.tls_port for TLS clients.
  std::optional<std::string> Listen(const std::string& address, bool tls);
  void CloseTcpListeners();
  std::optional<std::string> ListenUnix();
  void RunExpirySlice();
  // Times out blocked clients and ends a CLIENT PAUSE due on warden's clock, and sets the timer
  // for the next deadline (none while the clock is frozen: only a test moving it can make one
  // due).
  void ServeBlockedTimeouts();
  void FlushScheduled();
  // Answers the DEBUG WAIT-BLOCKED waiters that can be, and sets the timer for the next real-time
  // deadline among the others. Returns how many it answered.
  std::size_t AnswerBlockedWaits();
  // Closes idle clients (timeout) and those over the soft output limit for too long.
  void ClientsCron();
  void WritePortFile();
  // The start banner: version and pid, the config file, the seed in use, DEBUG's policy.
  void LogBanner();
  // INFO's rates and memory peak (InfoMetrics), from the cron.
  void SampleInfoMetrics();
  // While a script is past busy-reply-threshold: reads and answers the other clients.
  void PollWhileBusy();

  uv_loop_t loop_;
  ServerState state_;
  Logger& log_;
  std::vector<uv_tcp_t*> tcp_listeners_;
  std::vector<std::string> bound_addresses_;  // the bind addresses listened on, for the log
  std::vector<uv_tcp_t*> tls_listeners_;
  uv_pipe_t* unix_listener_ = nullptr;
  uv_timer_t cron_;
  uv_idle_t expire_idle_;
  uv_idle_t resume_idle_;  // active while resume_ is not empty: poll does not block
  bool resume_idle_active_ = false;
  std::uint64_t turn_ = 0;
  uv_prepare_t before_poll_;
  uv_timer_t block_timer_;
  uv_timer_t wait_timer_;  // DEBUG WAIT-BLOCKED's timeouts, in real time
  std::vector<Connection*> resume_;
  std::vector<Connection*> flush_;
  std::vector<Connection*> flushing_;  // the list being flushed, kept for its capacity
  bool expire_idle_active_ = false;
  uv_async_t signal_async_;
  uv_async_t tasks_async_;
  std::mutex tasks_mutex_;
  bool accepting_tasks_ = true;  // guarded by tasks_mutex_; false once tasks_async_ is closing
  std::vector<std::function<void()>> tasks_;
  bool handle_signals_;
  Connection* connections_ = nullptr;
  std::unordered_map<std::uint64_t, Connection*> by_id_;  // CLIENT TRACKING's REDIRECT
  // Where ClientsCron's walk goes on from at the next tick (nullptr: from the head).
  Connection* cron_cursor_ = nullptr;
  std::size_t connection_count_ = 0;
  int bound_port_ = 0;
  bool shutting_down_ = false;
  // SHUTDOWN was asked for: a busy script stops at its next instruction check.
  bool shutdown_requested_ = false;
  uv_timer_t shutdown_timer_;
  bool shutdown_timer_open_ = false;
  bool handles_open_ = false;
};

}  // namespace warden::server
