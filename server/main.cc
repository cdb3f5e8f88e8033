// warden [config-file] [--option value ...]

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "server/config/config.h"
#include "server/config/config_options.h"
#include "server/debug/debug_controls.h"
#include "server/log.h"
#include "server/server.h"
#include "server/service.h"
#include "server/version.h"
#include "storage/clock.h"

namespace {

constexpr char kUsage[] =
    "Usage: warden [/path/to/warden.conf] [--option value ...]\n"
    "       warden --version\n"
    "       warden --help\n"
    "\n"
    "A single-threaded lock server that speaks the Redis protocol.\n"
    "\n"
    "Every option is also taken in the config file, one per line, without the dashes, and by\n"
    "CONFIG GET and CONFIG SET.\n"
    "\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace warden::server;
  const std::span<char* const> args(argv, static_cast<std::size_t>(argc));
  if (argc == 2 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-v") == 0)) {
    std::printf("warden v=%.*s redis-compat=%.*s\n", static_cast<int>(kWardenVersion.size()),
                kWardenVersion.data(), static_cast<int>(kRedisVersion.size()),
                kRedisVersion.data());
    return 0;
  }
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    std::fputs(OptionsHelp().c_str(), stdout);
    return 0;
  }
  Config config;
  if (auto err = ParseCommandLine(args, config)) {
    if (err->log) {
      Logger(LogLevel::kNotice, "").Log(LogLevel::kWarning, "%s", err->message.c_str());
    } else {
      std::fprintf(stderr, "%s\n", err->message.c_str());
    }
    return 1;
  }
  // A vanished client must not kill the server: write errors are handled per connection.
  std::signal(SIGPIPE, SIG_IGN);
  // Nor a file-size limit (ulimit -f): an append-only write past it fails with EFBIG and is
  // handled as a full disk is, instead of the signal ending the process.
  std::signal(SIGXFSZ, SIG_IGN);
  // Before the event loop exists: a fork must not share it.
  if (config.daemonize && !Daemonize()) {
    std::fprintf(stderr, "Fatal error, can't fork into the background: %s\n", std::strerror(errno));
    return 1;
  }
  Logger log(ParseLogLevel(config.loglevel), config.logfile);
  if (config.syslog_enabled)
    log.OpenSyslog(config.syslog_ident, SyslogFacility(config.syslog_facility));
  const std::string pidfile =
      config.pidfile.empty() && config.daemonize ? std::string(kDefaultPidFile) : config.pidfile;
  const bool systemd = SupervisedBySystemd(config.supervised);
  for (const std::string& name : InertOptionsSet(config)) {
    log.Log(LogLevel::kNotice, "Option '%s' is accepted for Redis compatibility but has no effect",
            name.c_str());
  }
  // The system clock, movable by DEBUG CLOCK when enable-debug-command allows it.
  warden::storage::ControllableClock clock;
  Server server(std::move(config), clock, log);
  server.state().debug->clock_control = &clock;
  if (!pidfile.empty()) WritePidFile(pidfile, log);
  if (auto err = server.Start()) {
    log.Log(LogLevel::kWarning, "%s", err->c_str());
    server.Shutdown();
    server.Run();
    if (!pidfile.empty()) RemovePidFile(pidfile, log);
    return 1;
  }
  if (systemd) NotifySystemd("STATUS=Ready to accept connections\nREADY=1\n", log);
  const int status = server.Run();
  if (systemd) NotifySystemd("STOPPING=1\n", log);
  if (!pidfile.empty()) RemovePidFile(pidfile, log);
  return status;
}
