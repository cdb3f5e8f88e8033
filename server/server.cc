#include "server/server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "server/acl/acl_gate.h"
#include "server/config/config_values.h"
#include "server/debug/clock_moves.h"
#include "server/debug/debug_controls.h"
#include "server/debug/preload.h"
#include "server/dispatcher.h"
#include "server/errors.h"
#include "server/eviction.h"
#include "server/scripting/script_engine.h"
#include "server/stats/memory_meter.h"
#include "server/version.h"

namespace warden::server {
namespace {

// SIGINT and SIGTERM: the handler only records the signal and wakes the loop (uv_async_send is
// async-signal-safe). A running script sees the flag between Lua instructions and stops, so a
// runaway script cannot keep the server from shutting down. Process-wide by nature.
std::atomic<int> g_shutdown_signal{0};
uv_async_t* g_signal_async = nullptr;

void OnShutdownSignal(int signum) {
  g_shutdown_signal.store(signum);
  if (g_signal_async != nullptr) uv_async_send(g_signal_async);
}

void CloseAndFree(uv_handle_t* handle) {
  uv_close(handle, [](uv_handle_t* h) { std::free(h); });
}

}  // namespace

Server::Server(Config config, storage::Clock& clock, Logger& log, bool handle_signals)
    : state_(std::move(config), clock), log_(log), handle_signals_(handle_signals) {
  uv_loop_init(&loop_);
  state_.connections = this;
  state_.log = &log_;
  state_.scripts->set_poll_clients([this] { PollWhileBusy(); });
  state_.scripts->set_interrupt_check(
      [this] { return g_shutdown_signal.load() != 0 || shutdown_requested_; });
  uv_timer_init(&loop_, &cron_);
  cron_.data = this;
  uv_idle_init(&loop_, &expire_idle_);
  expire_idle_.data = this;
  uv_idle_init(&loop_, &resume_idle_);
  resume_idle_.data = this;
  uv_prepare_init(&loop_, &before_poll_);
  before_poll_.data = this;
  uv_timer_init(&loop_, &block_timer_);
  block_timer_.data = this;
  uv_timer_init(&loop_, &wait_timer_);
  wait_timer_.data = this;
  uv_async_init(&loop_, &signal_async_, OnSignalAsync);
  signal_async_.data = this;
  uv_async_init(&loop_, &tasks_async_, OnTasksAsync);
  tasks_async_.data = this;
  handles_open_ = true;
  if (handle_signals_) {
    g_signal_async = &signal_async_;
    struct sigaction action {};
    action.sa_handler = OnShutdownSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }
}

bool Server::Post(std::function<void()> task) {
  // Under the lock, so that the handle cannot be closed between the check and the send.
  std::lock_guard<std::mutex> lock(tasks_mutex_);
  if (!accepting_tasks_) return false;
  tasks_.push_back(std::move(task));
  uv_async_send(&tasks_async_);
  return true;
}

void Server::OnTasksAsync(uv_async_t* async) { static_cast<Server*>(async->data)->RunTasks(); }

void Server::RunTasks() {
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard<std::mutex> lock(tasks_mutex_);
    tasks.swap(tasks_);
  }
  for (auto& task : tasks) task();
}

void Server::AdvanceClock(std::int64_t delta_ms) {
  if (state_.debug->clock_control == nullptr) return;
  state_.debug->clock_control->AdvanceMs(delta_ms);
  CatchUpWithClock(state_);
  ServeBlockedTimeouts();
}

void Server::ScheduleResume(Connection* connection) {
  if (std::find(resume_.begin(), resume_.end(), connection) == resume_.end()) {
    resume_.push_back(connection);
  }
  if (!resume_idle_active_) {
    uv_idle_start(&resume_idle_, OnResumeIdle);
    resume_idle_active_ = true;
  }
}

void Server::OnBeforePoll(uv_prepare_t* prepare) {
  auto* self = static_cast<Server*>(prepare->data);
  ++self->turn_;
  self->ServeBlockedTimeouts();
  // Commands held by a pause that has ended run again; the clients they leave unblocked go on
  // with their pipelines below.
  if (self->state_.pause.has_released()) self->state_.pause.DispatchReleased(self->state_);
  // Resuming a client can block it again or wake others: take the list as it is now.
  std::vector<Connection*> resume;
  resume.swap(self->resume_);
  for (Connection* c : resume) c->Resume();
  // After the batch that may have blocked clients (DEBUG WAIT-BLOCKED). The clients answered go
  // on with their pipelines at once: each pass answers a waiter, so this ends with the input.
  while (!self->state_.debug->blocked_waits.empty() && self->AnswerBlockedWaits() != 0) {
    resume.clear();
    resume.swap(self->resume_);
    for (Connection* c : resume) c->Resume();
  }
  if (self->resume_.empty() && self->resume_idle_active_) {
    uv_idle_stop(&self->resume_idle_);
    self->resume_idle_active_ = false;
  }
  self->state_.replication.BeforeSleep();
  self->state_.tracking.BroadcastPending();
  // The loop turn's writes reach the file (and, under always, the disk) before their replies.
  self->state_.aof.Flush();
  self->FlushScheduled();
}

void Server::FlushScheduled() {
  // Flushing can close a client (output limit), which unlinks it from flush_: work on a copy.
  while (!flush_.empty()) {
    flushing_.swap(flush_);
    for (Connection* c : flushing_) c->FlushScheduled();
    flushing_.clear();
  }
}

std::size_t Server::AnswerBlockedWaits() {
  BlockedClientWaits& waits = state_.debug->blocked_waits;
  const std::size_t answered = waits.Answer(state_.BlockedClients(), state_.clock.MonotonicUs());
  if (!handles_open_) return answered;
  const std::int64_t next_us = waits.next_deadline_us();
  if (next_us == 0) {
    uv_timer_stop(&wait_timer_);
    return answered;
  }
  // Never 0 ms: libuv runs a timer re-armed with 0 from its own callback again at once.
  const std::int64_t wait_us = std::max<std::int64_t>(next_us - state_.clock.MonotonicUs(), 1);
  uv_timer_start(&wait_timer_, OnWaitTimer, static_cast<std::uint64_t>((wait_us + 999) / 1000), 0);
  return answered;
}

void Server::OnWaitTimer(uv_timer_t* timer) {
  // The clients answered go on from the before-poll hook, later in this loop turn.
  static_cast<Server*>(timer->data)->AnswerBlockedWaits();
}

void Server::OnBlockTimer(uv_timer_t* timer) {
  static_cast<Server*>(timer->data)->ServeBlockedTimeouts();
}

void Server::ServeBlockedTimeouts() {
  BlockingRegistry& blocking = state_.blocking;
  ClientPause& pause = state_.pause;
  if (blocking.clients_with_deadline() == 0 && !pause.active()) return;
  const std::int64_t now = state_.clock.NowMs();
  if (blocking.clients_with_deadline() != 0) blocking.ExpireTimeouts(now);
  pause.ExpireIfDue(now);
  std::int64_t next = blocking.next_deadline();
  // A pause ends once the clock is past its last instant.
  if (pause.active() && pause.end_ms() < INT64_MAX && (next == 0 || pause.end_ms() + 1 < next)) {
    next = pause.end_ms() + 1;
  }
  const bool frozen =
      state_.debug->clock_control != nullptr && state_.debug->clock_control->frozen();
  if (next == 0 || frozen || !handles_open_) {
    uv_timer_stop(&block_timer_);
    return;
  }
  uv_timer_start(&block_timer_, OnBlockTimer, static_cast<std::uint64_t>(next - now), 0);
}

void Server::PollWhileBusy() {
  // libuv's loop cannot be re-entered from inside a callback, so the sockets are accepted and
  // read directly.
  for (uv_tcp_t* tcp : tcp_listeners_) {
    AcceptDirectly(reinterpret_cast<uv_stream_t*>(tcp), Connection::Kind::kTcp);
  }
  for (uv_tcp_t* tcp : tls_listeners_) {
    AcceptDirectly(reinterpret_cast<uv_stream_t*>(tcp), Connection::Kind::kTls);
  }
  if (unix_listener_ != nullptr) {
    AcceptDirectly(reinterpret_cast<uv_stream_t*>(unix_listener_), Connection::Kind::kUnix);
  }
  for (Connection* c = connections_; c != nullptr;) {
    Connection* next = c->next;
    if (!c->closing()) c->PollOnce();
    c = next;
  }
}

Server::~Server() {
  Shutdown();
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  state_.aof.Stop();
}

std::optional<std::string> Server::Listen(const std::string& address_in, bool tls) {
  // Redis's "-addr" marks an address that may be unavailable (e.g. no IPv6).
  const bool optional = !address_in.empty() && address_in[0] == '-';
  const std::string address = optional ? address_in.substr(1) : address_in;
  sockaddr_storage addr{};
  const int port = tls ? state_.config.tls_port : state_.config.port;
  int rc = address.find(':') != std::string::npos
               ? uv_ip6_addr(address == "*" ? "::" : address.c_str(), port,
                             reinterpret_cast<sockaddr_in6*>(&addr))
               : uv_ip4_addr(address == "*" ? "0.0.0.0" : address.c_str(), port,
                             reinterpret_cast<sockaddr_in*>(&addr));
  if (rc != 0) return "invalid bind address '" + address + "'";
  auto* tcp = static_cast<uv_tcp_t*>(std::malloc(sizeof(uv_tcp_t)));
  uv_tcp_init(&loop_, tcp);
  tcp->data = this;
  rc = uv_tcp_bind(tcp, reinterpret_cast<const sockaddr*>(&addr),
                   address.find(':') != std::string::npos ? UV_TCP_IPV6ONLY : 0);
  if (rc == 0)
    rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), state_.config.tcp_backlog,
                   tls ? OnTlsConnection : OnTcpConnection);
  if (rc != 0) {
    CloseAndFree(reinterpret_cast<uv_handle_t*>(tcp));
    if (optional) return std::nullopt;
    char buf[256];
    std::snprintf(buf, sizeof(buf), "Could not create server TCP listening socket %s:%d: %s",
                  address.c_str(), port, uv_strerror(rc));
    return std::string(buf);
  }
  if (tls) {
    tls_listeners_.push_back(tcp);
    return std::nullopt;
  }
  sockaddr_storage bound{};
  int len = sizeof(bound);
  if (uv_tcp_getsockname(tcp, reinterpret_cast<sockaddr*>(&bound), &len) == 0) {
    bound_port_ =
        ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  tcp_listeners_.push_back(tcp);
  bound_addresses_.push_back(address);
  return std::nullopt;
}

std::optional<std::string> Server::ListenUnix() {
  const std::string& path = state_.config.unixsocket;
  unlink(path.c_str());
  auto* pipe = static_cast<uv_pipe_t*>(std::malloc(sizeof(uv_pipe_t)));
  uv_pipe_init(&loop_, pipe, 0);
  pipe->data = this;
  int rc = uv_pipe_bind(pipe, path.c_str());
  if (rc == 0 && state_.config.unixsocketperm != 0) {
    chmod(path.c_str(), static_cast<mode_t>(state_.config.unixsocketperm));
  }
  if (rc == 0) {
    rc = uv_listen(reinterpret_cast<uv_stream_t*>(pipe), state_.config.tcp_backlog,
                   OnUnixConnection);
  }
  if (rc != 0) {
    CloseAndFree(reinterpret_cast<uv_handle_t*>(pipe));
    return "Failed opening Unix socket " + path + ": " + uv_strerror(rc);
  }
  unix_listener_ = pipe;
  return std::nullopt;
}

namespace {

// warden's own logo, a padlock, where Redis prints its own (redisAsciiArt).
constexpr char kLogo[] =
    "\n"
    "        .-------.\n"
    "       / .-----. \\\n"
    "       | |     | |        warden %.*s (Redis %.*s compatible)\n"
    "     .-'-'-----'-'-.\n"
    "     |     .-.     |      Running in standalone mode\n"
    "     |     '.'     |      Port: %d\n"
    "     |      |      |      PID: %d\n"
    "     '-------------'\n"
    "\n";

}  // namespace

void Server::LogBanner() {
  const Config& c = state_.config;
  log_.Log(LogLevel::kNotice, "warden %.*s (Redis %.*s compatible) starting, pid=%d",
           static_cast<int>(kWardenVersion.size()), kWardenVersion.data(),
           static_cast<int>(kRedisVersion.size()), kRedisVersion.data(),
           static_cast<int>(getpid()));
  // As Redis: on a terminal that the log goes to, or whenever always-show-logo says so.
  if ((!c.syslog_enabled && c.logfile.empty() && isatty(STDOUT_FILENO) != 0) ||
      c.always_show_logo) {
    char logo[sizeof(kLogo) + 64];
    const int n = std::snprintf(logo, sizeof(logo), kLogo, static_cast<int>(kWardenVersion.size()),
                                kWardenVersion.data(), static_cast<int>(kRedisVersion.size()),
                                kRedisVersion.data(), c.port != 0 ? c.port : c.tls_port,
                                static_cast<int>(getpid()));
    log_.LogRaw(LogLevel::kNotice,
                std::string_view(logo, std::min(static_cast<std::size_t>(n), sizeof(logo) - 1)));
  }
  if (c.config_file.empty()) {
    log_.Log(LogLevel::kNotice,
             "Configuration loaded: no config file, the defaults and the "
             "command line");
  } else {
    char* real = realpath(c.config_file.c_str(), nullptr);
    log_.Log(LogLevel::kNotice, "Configuration loaded from %s",
             real != nullptr ? real : c.config_file.c_str());
    std::free(real);
  }
  log_.Log(LogLevel::kNotice, "Seed %llu (%s)", static_cast<unsigned long long>(state_.seed),
           c.seed.has_value() ? "set by the seed option"
                              : "drawn at start: --seed repeats this run's random choices");
  const DebugCommandPolicy debug = c.enable_debug_command;
  log_.Log(LogLevel::kNotice, "DEBUG and its test controls: %s",
           debug == DebugCommandPolicy::kYes     ? "enabled"
           : debug == DebugCommandPolicy::kLocal ? "enabled for local clients"
                                                 : "disabled (enable-debug-command no)");
}

std::optional<std::string> Server::Start() {
  LogBanner();
  // Redis chdirs to `dir` as it reads its configuration, and stops there if it cannot.
  if (const std::string& dir = state_.config.dir; !dir.empty()) {
    struct stat st {};
    const int err = stat(dir.c_str(), &st) != 0 ? errno : (S_ISDIR(st.st_mode) ? 0 : ENOTDIR);
    if (err != 0) return "Can't chdir to '" + dir + "': " + std::strerror(err);
  }
  if (auto err = LoadStartupUsers(state_)) return err;
  // Before the data set loads: a replica's RDB names the stream it continues.
  state_.replication.Attach(&loop_, this);
  // The data set comes back before anything listens, so no client sees it half loaded.
  if (state_.config.appendonly) {
    if (auto err = state_.aof.Start()) return err;
    state_.propagation.set_aof(true);
  } else if (auto err = state_.snapshots.LoadAtStart()) {
    return err;
  }
  // Fixtures run before anything listens, so no client ever sees the data half loaded.
  if (!state_.config.preload.empty()) {
    const auto started = std::chrono::steady_clock::now();
    const PreloadResult preload = RunPreloadFile(state_, state_.config.preload);
    if (preload.error) return "Preload failed: " + *preload.error;
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
    log_.Log(LogLevel::kNotice, "Preloaded %zu %s from %s: %.3f seconds", preload.commands,
             preload.snapshot ? "keys of a snapshot" : "commands", state_.config.preload.c_str(),
             took.count());
  }
  // With tls-port and no unix socket, port 0 means TLS only, as in Redis; otherwise it asks the
  // kernel for a free port.
  const bool tls = state_.config.tls_port != 0;
  if (state_.config.port != 0 || (state_.config.unixsocket.empty() && !tls)) {
    // With several bind addresses the ports must agree, so a port the kernel picked for the first
    // one is reused for the rest.
    for (const std::string& address : state_.config.bind) {
      if (auto err = Listen(address, false)) return err;
      if (state_.config.port == 0 && bound_port_ != 0) state_.config.port = bound_port_;
    }
  }
  if (tls) {
    std::string error;
    state_.tls = TlsContext::Create(state_.config, error);
    if (!state_.tls) return error + "\nFailed to configure TLS. Check logs for more info.";
    for (const std::string& address : state_.config.bind) {
      if (auto err = Listen(address, true)) return err;
    }
  }
  if (!state_.config.unixsocket.empty()) {
    if (auto err = ListenUnix()) return err;
  }
  const std::uint64_t period_ms = 1000 / static_cast<std::uint64_t>(state_.config.hz);
  uv_timer_start(&cron_, OnCron, period_ms, period_ms);
  uv_prepare_start(&before_poll_, OnBeforePoll);
  if (!tcp_listeners_.empty()) {
    // One machine-readable line: a harness that started warden with --port 0 greps "port=".
    std::string addresses;
    for (const std::string& a : bound_addresses_) addresses += (addresses.empty() ? "" : ", ") + a;
    log_.Log(LogLevel::kNotice, "Listening on port=%d (%s)", bound_port_, addresses.c_str());
  }
  if (!tls_listeners_.empty()) {
    log_.Log(LogLevel::kNotice, "Listening on tls-port=%d", state_.config.tls_port);
  }
  if (unix_listener_ != nullptr) {
    log_.Log(LogLevel::kNotice, "Listening on unix socket %s", state_.config.unixsocket.c_str());
  }
  WritePortFile();
  state_.info_metrics.startup_bytes = UsedMemory(state_);
  state_.info_metrics.NotePeak(state_.info_metrics.startup_bytes);
  log_.Log(LogLevel::kNotice, "Ready to accept connections");
  // As Redis's main, once ready (a failure is logged, and the server runs on).
  if (!OomValuesRise(state_.config.oom_score_adj_values)) {
    log_.Log(LogLevel::kWarning, "%s", kOomValuesMayNotWork);
  }
  state_.AdjustOomScore();
  return std::nullopt;
}

void Server::WritePortFile() {
  const std::string& path = state_.config.port_file;
  if (path.empty()) return;
  // Written to a temporary name and renamed, so a reader never sees a partial file.
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%d\n", bound_port_);
    std::fclose(f);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      log_.Log(LogLevel::kWarning, "Could not write port file %s", path.c_str());
    }
  } else {
    log_.Log(LogLevel::kWarning, "Could not write port file %s", path.c_str());
  }
}

int Server::Run() {
  uv_run(&loop_, UV_RUN_DEFAULT);
  // Let close callbacks finish.
  uv_run(&loop_, UV_RUN_DEFAULT);
  // Tasks posted just before the shutdown closed their handle still run: a thread waits on each.
  RunTasks();
  return 0;
}

void Server::Shutdown() {
  if (shutting_down_) return;
  shutting_down_ = true;
  // Writes already made reach the file before the replies still owed go out.
  state_.aof.Flush();
  // The link to a master and a sync child end here; replicas are closed with the clients.
  state_.replication.Detach();
  // Redis's prepareForShutdown kills the forked Lua debugging sessions.
  state_.scripts->debug_children().KillAll(&log_);
  CloseTcpListeners();
  if (unix_listener_ != nullptr) {
    CloseAndFree(reinterpret_cast<uv_handle_t*>(unix_listener_));
    unix_listener_ = nullptr;
    unlink(state_.config.unixsocket.c_str());
  }
  // Replies already computed still go out; a client that does not read them gets
  // shutdown-timeout seconds before it is closed regardless.
  for (Connection* c = connections_; c != nullptr;) {
    Connection* next = c->next;
    c->CloseWhenFlushed();
    c = next;
  }
  if (connections_ != nullptr) {
    uv_timer_init(&loop_, &shutdown_timer_);
    shutdown_timer_.data = this;
    shutdown_timer_open_ = true;
    uv_timer_start(&shutdown_timer_, OnShutdownTimer,
                   static_cast<std::uint64_t>(state_.config.shutdown_timeout_s) * 1000, 0);
  }
  if (handles_open_) {
    handles_open_ = false;
    if (handle_signals_) g_signal_async = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(&cron_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&expire_idle_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&resume_idle_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&before_poll_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&block_timer_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&wait_timer_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&signal_async_), nullptr);
    {
      std::lock_guard<std::mutex> lock(tasks_mutex_);
      accepting_tasks_ = false;
    }
    uv_close(reinterpret_cast<uv_handle_t*>(&tasks_async_), nullptr);
  }
  // What a test suite asked for and did not get: the first thing to read after a red run.
  const std::string unsupported = state_.debug->unsupported.SummarySinceStart();
  if (!unsupported.empty()) {
    log_.Log(LogLevel::kWarning, "Unsupported commands since start: %s", unsupported.c_str());
  }
  log_.Log(LogLevel::kNotice, "warden is now ready to exit, bye bye...");
}

void Server::OnShutdownTimer(uv_timer_t* timer) {
  auto* self = static_cast<Server*>(timer->data);
  for (Connection* c = self->connections_; c != nullptr;) {
    Connection* next = c->next;
    c->Close();
    c = next;
  }
}

void Server::OnSignalAsync(uv_async_t* async) {
  auto* self = static_cast<Server*>(async->data);
  const int signum = g_shutdown_signal.load();
  if (signum == 0) return;
  self->log_.Log(LogLevel::kWarning, "Received %s scheduling shutdown...",
                 signum == SIGINT ? "SIGINT" : "SIGTERM");
  // shutdown-on-sigint and -sigterm: SHUTDOWN's flags (NOW changes nothing: no replica is
  // waited for).
  const config_values::ShutdownFlags flags =
      config_values::ParseShutdownFlags(signum == SIGINT ? self->state_.config.shutdown_on_sigint
                                                         : self->state_.config.shutdown_on_sigterm);
  if (!self->state_.snapshots.SaveBeforeExit(flags.save, flags.nosave, flags.force)) {
    self->log_.Log(LogLevel::kWarning,
                   "%s received but errors trying to shut down the server, check the logs for "
                   "more information",
                   signum == SIGINT ? "SIGINT" : "SIGTERM");
    g_shutdown_signal.store(0);
    return;
  }
  self->Shutdown();
}

void Server::OnTcpConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status == 0) self->Accept(listener, Connection::Kind::kTcp);
}

void Server::OnTlsConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status == 0) self->Accept(listener, Connection::Kind::kTls);
}

void Server::OnUnixConnection(uv_stream_t* listener, int status) {
  auto* self = static_cast<Server*>(listener->data);
  if (status == 0) self->Accept(listener, Connection::Kind::kUnix);
}

void Server::Accept(uv_stream_t* listener, Connection::Kind kind) {
  auto* c = new Connection(*this, kind);
  if (uv_accept(listener, c->stream()) != 0) {
    c->Close();
    return;
  }
  Adopt(c);
}

void Server::AcceptDirectly(uv_stream_t* listener, Connection::Kind kind) {
  uv_os_fd_t listen_fd = -1;
  if (uv_fileno(reinterpret_cast<uv_handle_t*>(listener), &listen_fd) != 0) return;
  for (int accepted = 0; accepted < 64; ++accepted) {
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    auto* c = new Connection(*this, kind);
    const int rc = kind == Connection::Kind::kUnix
                       ? uv_pipe_open(reinterpret_cast<uv_pipe_t*>(c->stream()), fd)
                       : uv_tcp_open(reinterpret_cast<uv_tcp_t*>(c->stream()), fd);
    if (rc != 0) {
      ::close(fd);
      c->Close();
      continue;
    }
    Adopt(c);
  }
}

void Server::Adopt(Connection* c) {
  c->next = connections_;
  if (connections_ != nullptr) connections_->prev = c;
  connections_ = c;
  ++connection_count_;
  ++state_.stats.total_connections;
  Session& s = c->session();
  s.id = state_.NewClientId();
  by_id_.emplace(s.id, c);
  s.created_ms = state_.clock.NowMs();
  s.last_interaction_ms = s.created_ms;
  SetDefaultAuth(state_, s);
  c->Start();
  if (s.unix_socket) {
    log_.Log(LogLevel::kVerbose, "Accepted connection to %s", state_.config.unixsocket.c_str());
  } else {
    log_.Log(LogLevel::kVerbose, "Accepted %s", s.addr.c_str());
  }
  if (connection_count_ > static_cast<std::size_t>(state_.config.maxclients)) {
    ++state_.stats.rejected_connections;
    c->Reject(errors::kMaxClients);
  } else if (state_.config.protected_mode &&
             (state_.acl.default_user().flags & AclUser::kNoPass) != 0 && !s.local) {
    ++state_.stats.rejected_connections;
    c->Reject(errors::kProtectedMode);
  }
}

void Server::Unlink(Connection* c) {
  resume_.erase(std::remove(resume_.begin(), resume_.end(), c), resume_.end());
  flush_.erase(std::remove(flush_.begin(), flush_.end(), c), flush_.end());
  ForgetSession(state_, c->session());
  by_id_.erase(c->session().id);
  if (c->prev != nullptr) {
    c->prev->next = c->next;
  } else if (connections_ == c) {
    connections_ = c->next;
  } else {
    return;  // never linked
  }
  if (c->next != nullptr) c->next->prev = c->prev;
  if (cron_cursor_ == c) cron_cursor_ = c->next;
  c->next = c->prev = nullptr;
  --connection_count_;
  if (connections_ == nullptr && shutdown_timer_open_) {
    shutdown_timer_open_ = false;
    uv_close(reinterpret_cast<uv_handle_t*>(&shutdown_timer_), nullptr);
  }
}

void Server::DropClients(const Session* keep) {
  for (Connection* c = connections_; c != nullptr;) {
    Connection* next = c->next;
    if (&c->session() != keep) c->Close();
    c = next;
  }
}

std::size_t Server::KillClients(const std::function<bool(const Session&)>& match,
                                const Session* keep) {
  std::size_t killed = 0;
  for (Connection* c = connections_; c != nullptr;) {
    Connection* next = c->next;
    if (&c->session() != keep && !c->closing() && match(c->session())) {
      c->DropOutput();
      c->Close();
      ++killed;
    }
    c = next;
  }
  if (const Session* master = state_.replication.master_session();
      master != nullptr && master != keep && match(*master)) {
    state_.replication.DropMasterLink();
    ++killed;
  }
  return killed;
}

void Server::CloseTcpListeners() {
  for (uv_tcp_t* tcp : tcp_listeners_) CloseAndFree(reinterpret_cast<uv_handle_t*>(tcp));
  for (uv_tcp_t* tcp : tls_listeners_) CloseAndFree(reinterpret_cast<uv_handle_t*>(tcp));
  tcp_listeners_.clear();
  tls_listeners_.clear();
}

bool Server::Relisten() {
  if (shutting_down_) return true;
  CloseTcpListeners();
  bound_port_ = 0;
  for (const bool tls : {false, true}) {
    if ((tls ? state_.config.tls_port : state_.config.port) == 0) continue;
    for (const std::string& address : state_.config.bind) {
      if (auto err = Listen(address, tls)) {
        log_.Log(LogLevel::kWarning, "%s", err->c_str());
        CloseTcpListeners();
        return true;
      }
    }
  }
  return false;
}

void Server::RequestShutdown() {
  shutdown_requested_ = true;
  Post([this] { Shutdown(); });
}

Session* Server::FindSession(std::uint64_t id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second->session();
}

void Server::ForEachSession(const std::function<void(const Session&)>& fn) const {
  // The list is newest first; CLIENT LIST shows oldest first.
  const Connection* last = connections_;
  while (last != nullptr && last->next != nullptr) last = last->next;
  for (const Connection* c = last; c != nullptr; c = c->prev) fn(c->session());
  if (const Session* master = state_.replication.master_session()) fn(*master);
}

}  // namespace warden::server
