#include "server/embedded_server.h"

#include <future>

#include "server/config.h"
#include "server/log.h"
#include "server/server.h"
#include "storage/clock.h"

namespace warden {

EmbeddedServer::EmbeddedServer() = default;

std::unique_ptr<EmbeddedServer> EmbeddedServer::Start(const std::vector<std::string>& options,
                                                      std::string* error) {
  std::vector<std::string> words = {"warden", "--port", "0", "--loglevel", "warning"};
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
  self->server_->state().clock_control = self->clock_.get();
  if (auto err = self->server_->Start()) {
    if (error != nullptr) *error = *err;
    self->server_->Shutdown();
    self->server_->Run();
    return nullptr;
  }
  self->port_ = self->server_->bound_port();
  server::Server* running = self->server_.get();
  self->thread_ = std::thread([running] { running->Run(); });
  return self;
}

EmbeddedServer::~EmbeddedServer() { Stop(); }

void EmbeddedServer::Stop() {
  if (stopped_ || server_ == nullptr) return;
  stopped_ = true;
  server::Server* running = server_.get();
  running->Post([running] { running->Shutdown(); });
  if (thread_.joinable()) thread_.join();
}

void EmbeddedServer::RunOnServerThread(std::function<void()> task) {
  if (stopped_) {
    task();
    return;
  }
  std::promise<void> done;
  server_->Post([&] {
    task();
    done.set_value();
  });
  done.get_future().wait();
}

std::int64_t EmbeddedServer::NowMs() const { return clock_->NowMs(); }

void EmbeddedServer::FreezeClock(std::int64_t unix_ms) {
  RunOnServerThread([&] { clock_->Freeze(unix_ms); });
}

void EmbeddedServer::FreezeClock() {
  RunOnServerThread([&] { clock_->Freeze(clock_->NowMs()); });
}

void EmbeddedServer::AdvanceClockMs(std::int64_t delta_ms) {
  RunOnServerThread([&] { server_->AdvanceClock(delta_ms); });
}

void EmbeddedServer::RealClock() {
  RunOnServerThread([&] { clock_->Real(); });
}

}  // namespace warden
