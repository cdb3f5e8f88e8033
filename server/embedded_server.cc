#include "server/embedded_server.h"

#include <chrono>
#include <future>
#include <string_view>

#include "protocol/reply_writer.h"
#include "server/config/config.h"
#include "server/debug/command_log.h"
#include "server/debug/debug_controls.h"
#include "server/dispatcher.h"
#include "server/log.h"
#include "server/server.h"
#include "server/session.h"
#include "storage/clock.h"

namespace warden {

EmbeddedServer::EmbeddedServer() = default;

std::unique_ptr<EmbeddedServer> EmbeddedServer::Start(const std::vector<std::string>& options,
                                                      std::string* error) {
  // No save points: a server inside a test process writes no snapshot unless asked to.
  std::vector<std::string> words = {"warden", "--port", "0", "--loglevel", "warning", "--save", ""};
  words.insert(words.end(), options.begin(), options.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  server::Config config;
  if (auto err = server::ParseCommandLine(argv, config)) {
    if (error != nullptr) *error = err->message;
    return nullptr;
  }
  std::unique_ptr<EmbeddedServer> self(new EmbeddedServer());
  self->clock_ = std::make_unique<storage::ControllableClock>();
  self->log_ =
      std::make_unique<server::Logger>(server::ParseLogLevel(config.loglevel), config.logfile);
  self->server_ = std::make_unique<server::Server>(std::move(config), *self->clock_, *self->log_,
                                                   /*handle_signals=*/false);
  self->server_->state().debug->clock_control = self->clock_.get();
  if (auto err = self->server_->Start()) {
    if (error != nullptr) *error = *err;
    self->server_->Shutdown();
    self->server_->Run();
    return nullptr;
  }
  self->port_ = self->server_->bound_port();
  self->control_ = std::make_unique<server::Session>();
  self->control_->local = true;
  self->control_->authenticated = true;
  self->control_->name = "embedded-control";
  self->control_->created_ms = self->clock_->NowMs();
  server::Server* running = self->server_.get();
  self->thread_ = std::thread([running] { running->Run(); });
  return self;
}

EmbeddedServer::~EmbeddedServer() { Stop(); }

void EmbeddedServer::Stop() {
  if (server_ == nullptr) return;
  if (!stopped_.exchange(true)) {
    server::Server* running = server_.get();
    server::Session* control = control_.get();
    // Refused when a client's SHUTDOWN got there first; the thread ends on its own then.
    running->Post([running, control] {
      if (control != nullptr) server::ForgetSession(running->state(), *control);
      running->Shutdown();
    });
  }
  JoinThread();
}

void EmbeddedServer::JoinThread() {
  std::call_once(joined_, [this] {
    if (thread_.joinable()) thread_.join();
  });
}

void EmbeddedServer::RunOnServerThread(std::function<void()> task) {
  if (!stopped_) {
    std::promise<void> done;
    if (server_->Post([&] {
          task();
          done.set_value();
        })) {
      done.get_future().wait();
      return;
    }
    // A client's SHUTDOWN got there first: once the thread is done, the caller runs the task.
    stopped_ = true;
  }
  JoinThread();
  task();
}

std::int64_t EmbeddedServer::NowMs() const { return clock_->NowMs(); }

void EmbeddedServer::FreezeClock(std::int64_t unix_ms) {
  RunOnServerThread([&] {
    clock_->Freeze(unix_ms);
    server_->AdvanceClock(0);  // what fell due at the new time happens now, as after ADVANCE
  });
}

void EmbeddedServer::FreezeClock() {
  RunOnServerThread([&] { clock_->Freeze(clock_->NowMs()); });
}

void EmbeddedServer::AdvanceClockMs(std::int64_t delta_ms) {
  RunOnServerThread([&] { server_->AdvanceClock(delta_ms); });
}

void EmbeddedServer::RealClock() {
  RunOnServerThread([&] {
    clock_->Real();
    server_->AdvanceClock(0);
  });
}

std::string EmbeddedServer::Command(const std::vector<std::string>& args) {
  std::string out;
  if (stopped_ || control_ == nullptr) return "-ERR the server is stopped\r\n";
  RunOnServerThread([&] {
    if (stopped_) {  // shut down by a client meanwhile: the task runs after the loop ended
      out = "-ERR the server is stopped\r\n";
      return;
    }
    std::vector<std::string_view> views(args.begin(), args.end());
    protocol::ReplyWriter writer(&out, control_->resp);
    server::Dispatch(server_->state(), *control_, views, writer);
    // The control client runs one command at a time and waits for nothing: a command that was
    // queued (MULTI), blocked or held by a CLIENT PAUSE is dropped, never run later behind the
    // test's back.
    if (out.empty() || control_->in_multi || control_->blocked) {
      server::ForgetSession(server_->state(), *control_);
      out = "-ERR the control client runs single commands that answer at once\r\n";
    }
  });
  return out;
}

namespace {

// "" when `reply` starts with `expected`, else what went wrong: the error's text without '-'
// and CRLF, or the unexpected reply.
std::string Check(const std::string& reply, std::string_view expected) {
  if (reply.compare(0, expected.size(), expected) == 0) return "";
  if (!reply.empty() && reply[0] == '-') return reply.substr(1, reply.find("\r\n") - 1);
  return "unexpected reply: " + reply;
}

}  // namespace

std::string EmbeddedServer::SaveSnapshot(const std::string& name) {
  return Check(Command({"DEBUG", "SNAPSHOT", "SAVE", name}), "+OK\r\n");
}

std::string EmbeddedServer::LoadSnapshot(const std::string& name) {
  return Check(Command({"DEBUG", "SNAPSHOT", "LOAD", name}), "+OK\r\n");
}

std::string EmbeddedServer::DropSnapshot(const std::string& name) {
  const std::string reply = Command({"DEBUG", "SNAPSHOT", "DROP", name});
  if (reply == ":0\r\n") return "no such snapshot '" + name + "'";
  return Check(reply, ":1\r\n");
}

std::int64_t EmbeddedServer::AddFault(const std::vector<std::string>& rule, std::string* error) {
  std::vector<std::string> args = {"DEBUG", "FAULT", "ADD"};
  args.insert(args.end(), rule.begin(), rule.end());
  const std::string reply = Command(args);
  if (reply.empty() || reply[0] != ':') {
    if (error != nullptr) *error = Check(reply, ":");
    return -1;
  }
  return std::stoll(reply.substr(1));
}

std::string EmbeddedServer::ClearFaults() {
  return Check(Command({"DEBUG", "FAULT", "CLEAR"}), ":");
}

std::string EmbeddedServer::StartCommandLog(std::size_t max_entries) {
  std::vector<std::string> on = {"DEBUG", "COMMAND-LOG", "ON"};
  if (max_entries > 0) on.push_back(std::to_string(max_entries));
  std::string error = Check(Command(on), "+OK\r\n");
  if (error.empty()) error = Check(Command({"DEBUG", "COMMAND-LOG", "RESET"}), "+OK\r\n");
  return error;
}

std::string EmbeddedServer::StopCommandLog() {
  return Check(Command({"DEBUG", "COMMAND-LOG", "OFF"}), "+OK\r\n");
}

std::vector<EmbeddedServer::LoggedCommand> EmbeddedServer::CommandLog() {
  std::vector<LoggedCommand> entries;
  RunOnServerThread([&] {
    const server::CommandLog& log = server_->state().debug->command_log;
    for (std::size_t i = 0; i < log.size(); ++i) {
      const server::CommandLog::Entry& e = log.At(i);
      LoggedCommand& out = entries.emplace_back();
      out.seq = e.seq;
      out.time_ms = e.time_ms;
      out.client_id = e.client_id;
      out.client_name = e.client_name;
      out.db = e.db;
      for (std::size_t a = 0; a < e.argc(); ++a) out.args.emplace_back(e.arg(a));
      out.origin = std::string(server::OriginName(e.origin));
    }
  });
  return entries;
}

std::int64_t EmbeddedServer::WaitBlocked(std::size_t count, std::int64_t timeout_ms) {
  // The caller's thread waits, not the server's: polling the count costs the loop one task.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::size_t blocked = 0;
    RunOnServerThread([&] { blocked = server_->state().BlockedClients(); });
    if (stopped_) return -1;
    if (blocked >= count) return static_cast<std::int64_t>(blocked);
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace warden
