// warden [config-file] [--option value ...]

#include <csignal>
#include <cstdio>
#include <cstring>
#include <span>
#include <string_view>

#include "server/config/config.h"
#include "server/config/config_options.h"
#include "server/debug/debug_controls.h"
#include "server/log.h"
#include "server/server.h"
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
    std::fprintf(stderr, "warden: %s\n", err->message.c_str());
    std::fprintf(stderr, "Run 'warden --help' for the options.\n");
    return 1;
  }
  // A vanished client must not kill the server: write errors are handled per connection.
  std::signal(SIGPIPE, SIG_IGN);
  // Nor a file-size limit (ulimit -f): an append-only write past it fails with EFBIG and is
  // handled as a full disk is, instead of the signal ending the process.
  std::signal(SIGXFSZ, SIG_IGN);
  Logger log(ParseLogLevel(config.loglevel), config.logfile);
  // The system clock, movable by DEBUG CLOCK when enable-debug-command allows it.
  warden::storage::ControllableClock clock;
  Server server(std::move(config), clock, log);
  server.state().debug->clock_control = &clock;
  if (auto err = server.Start()) {
    log.Log(LogLevel::kWarning, "%s", err->c_str());
    server.Shutdown();
    server.Run();
    return 1;
  }
  return server.Run();
}
