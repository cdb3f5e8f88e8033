// MONITOR: every command executed is shown to the clients that asked, as one status line:
//
//   +<unix seconds>.<microseconds> [<db> <ip:port>] "SET" "k" "v"
//
// `[<db> lua]` for a command a script ran, `[<db> unix:<path>]` for a unix-socket client;
// arguments quoted as Redis's sdscatrepr does. Call() feeds it after a command ran (the db is the
// one after SELECT), and a script runner (flagged skip_monitor) before, so that its script's
// commands follow it. Nothing is paid while no one monitors: Call tests active() once.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/session.h"

namespace warden::server {

class ServerState;

class Monitors {
 public:
  bool active() const { return !clients_.empty(); }
  std::size_t size() const { return clients_.size(); }

  // MONITOR: `session` receives the line of every command from now on.
  void Add(Session& session);
  // The client closed or sent RESET.
  void Remove(Session& session);
  // Shows `args`, run by `session` in database `db`, to every monitor.
  void Feed(const ServerState& server, const Session& session, int db,
            std::span<const std::string_view> args);

 private:
  std::vector<Session*> clients_;
  std::string line_;  // capacity kept between commands
};

// Appends `data` in double quotes with Redis's escapes (sdscatrepr).
void AppendQuoted(std::string& out, std::string_view data);

}  // namespace warden::server
