// warden [config-file] [--option value ...]

#include <csignal>
#include <cstdio>
#include <cstring>
#include <span>
#include <string_view>

#include "server/config/config.h"
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
    "Options (also accepted in the config file, one per line, without the dashes):\n"
    "  --port N                    TCP port (default 6379; 0 picks a free one)\n"
    "  --bind ADDR [ADDR ...]      addresses to listen on (default 127.0.0.1)\n"
    "  --unixsocket PATH           also listen on a unix socket\n"
    "  --unixsocketperm OCTAL      permissions of the unix socket\n"
    "  --port-file PATH            write the bound port here once ready\n"
    "  --preload FILE              run the commands in FILE (one per line) before serving\n"
    "  --requirepass PASSWORD      require AUTH\n"
    "  --maxclients N              connection limit (default 10000)\n"
    "  --timeout SECONDS           close idle clients (default 0: never)\n"
    "  --tcp-keepalive SECONDS     TCP keepalive (default 300)\n"
    "  --hz N                      background task frequency (default 10)\n"
    "  --proto-max-bulk-len BYTES  largest bulk argument (default 512mb)\n"
    "  --client-query-buffer-limit BYTES (default 1gb)\n"
    "  --busy-reply-threshold MS   alias lua-time-limit (default 5000)\n"
    "  --active-expire-effort N    1..10 (default 1)\n"
    "  --enable-debug-command yes|no|local (default no)\n"
    "  --seed N                    fix every random choice, for reproducible runs\n"
    "  --command-log-max-entries N most entries DEBUG COMMAND-LOG ON may keep (default 1000000)\n"
    "  --debug-fault-max-rules N   DEBUG FAULT rules installed at once (default 1000)\n"
    "  --loglevel debug|verbose|notice|warning|nothing\n"
    "  --logfile PATH              log here instead of stdout\n"
    "  --appendonly yes|no         keep an append-only file (default no; README \"Persistence\")\n"
    "  --appendfsync always|everysec|no, --dir PATH, --appenddirname, --appendfilename\n"
    "  --save \"\"                   accepted for redis-server compatibility (no RDB)\n";

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
