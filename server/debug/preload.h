// --preload FILE: fixtures run before the first client is accepted. The file holds one command
// per line in redis-cli's quoting (Redis's sdssplitargs: "..." with \xHH and the usual escapes,
// '...'); empty lines and lines whose first non-blank is '#' are skipped. Commands run one after
// the other on one client of their own, through the dispatcher as a local client's would, so a
// SELECT or a MULTI carries over to the next line. A file that starts as an RDB snapshot does
// ("REDIS...", a dump.rdb taken from a real Redis, say) is loaded as one instead; its keys and
// libraries replace any of the same name already there.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "server/server_state.h"

namespace warden::server {

struct PreloadResult {
  std::size_t commands = 0;  // or, for a snapshot, the keys loaded
  bool snapshot = false;
  // Set on failure: "FILE:LINE: <what went wrong>", the first error reply or parse error.
  std::optional<std::string> error;
};

// Runs the commands of `text`, read from the file named `path` (which errors name).
PreloadResult RunPreloadText(ServerState& server, std::string_view path, std::string_view text);
// Reads `path` and runs it; an unreadable file is an error too.
PreloadResult RunPreloadFile(ServerState& server, const std::string& path);

}  // namespace warden::server
