// Loading the append-only file at start-up (Redis's loadAppendOnlyFiles and
// loadSingleAppendOnlyFile).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/command_table.h"
#include "server/dispatcher.h"
#include "server/log.h"
#include "server/persistence/aof.h"
#include "server/persistence/rdb_file.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

// Time stands still while loading at this instant, before any deadline a file can hold: a key
// whose deadline passed while the server was down is loaded, and removed (with its DEL written
// to the file) once the clock runs again, as Redis does after loading.
constexpr std::int64_t kLoadingNowMs = 1;

AofFileLoad LoadOne(ServerState& server, Session& session, const std::string& name,
                    std::string_view data) {
  AofFileLoad result;
  protocol::ParserLimits limits;
  limits.max_bulk_len = INT64_MAX;
  protocol::RequestParser parser(limits);
  std::string out;
  std::size_t pos = 0;
  std::size_t before_multi = 0;
  while (pos < data.size()) {
    // Redis's timestamp annotations (aof-timestamp-enabled): "#TS:<unix time>\r\n".
    if (data[pos] == '#') {
      const std::size_t nl = data.find('\n', pos);
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
      continue;
    }
    if (data[pos] != '*') {
      result.error = "Bad file format reading the append only file " + name + " at offset " +
                     std::to_string(pos) +
                     ": make a backup of your AOF file, then use ./redis-check-aof --fix "
                     "<filename.manifest>";
      return result;
    }
    parser.Reset();
    const protocol::ParseStatus status = parser.Parse(data.substr(pos), true);
    if (status == protocol::ParseStatus::kNeedMore) break;
    if (status == protocol::ParseStatus::kError) {
      result.error = "Bad file format reading the append only file " + name + " at offset " +
                     std::to_string(pos) + " (" + std::string(parser.error()) +
                     "): make a backup of your AOF file, then use ./redis-check-aof --fix "
                     "<filename.manifest>";
      return result;
    }
    if (status == protocol::ParseStatus::kRequest) {
      const std::span<const std::string_view> args = parser.args();
      if (server.command_names.Find(args[0]) == nullptr) {
        result.error = "Unknown command '" + std::string(args[0]) +
                       "' reading the append only file " + name + " at offset " +
                       std::to_string(pos);
        return result;
      }
      out.clear();
      protocol::ReplyWriter writer(&out, 2);
      // The session says whether a transaction is open: a MULTI the dispatcher refused (a
      // damaged file's "MULTI x") opens none, and what follows it runs at once.
      const bool was_in_multi = session.in_multi;
      Dispatch(server, session, args, writer);
      if (!was_in_multi && session.in_multi) before_multi = pos;
      ++result.commands;
    }
    pos += parser.consumed();
  }
  result.valid_up_to = session.in_multi ? before_multi : pos;
  result.truncated = result.valid_up_to < data.size();
  return result;
}

}  // namespace

AofFileLoad LoadAofData(ServerState& server, const std::string& name, std::string_view data) {
  // A client of its own for each file, as Redis's fake client: each file starts in database 0.
  Session session;
  session.local = true;
  session.authenticated = true;
  session.name = "aof-loader";
  const std::int64_t frozen = server.call.frozen_now_ms;
  server.call.frozen_now_ms = kLoadingNowMs;
  const bool was_loading = server.loading;
  server.loading = true;
  // What loads is already in the file (DEBUG LOADAOF loads while the file is on).
  const bool suspended = server.propagation.suspended();
  server.propagation.set_suspended(true);
  AofFileLoad load = LoadOne(server, session, name, data);
  // An unfinished transaction is discarded, as Redis reverts to before its MULTI.
  if (session.in_multi) {
    static constexpr std::string_view kDiscard[] = {"DISCARD"};
    std::string out;
    protocol::ReplyWriter writer(&out, 2);
    Dispatch(server, session, kDiscard, writer);
  }
  ForgetSession(server, session);
  server.propagation.set_suspended(suspended);
  server.loading = was_loading;
  server.call.frozen_now_ms = frozen;
  return load;
}

std::optional<std::string> LoadAof(ServerState& server, const std::string& dir,
                                   const AofManifest& manifest, std::uint64_t* loaded_bytes) {
  std::vector<const AofFileInfo*> files;
  if (manifest.base) files.push_back(&*manifest.base);
  for (const AofFileInfo& info : manifest.incrs) files.push_back(&info);
  std::optional<std::string> error;
  std::uint64_t commands = 0;
  *loaded_bytes = 0;
  std::string data;
  for (std::size_t i = 0; i < files.size() && !error; ++i) {
    const std::string path = dir + "/" + files[i]->name;
    data.clear();
    if (const std::optional<int> err = ReadFileBytes(path, data)) {
      error = "The AOF file " + files[i]->name +
              " doesn't exist or can't be read: " + std::strerror(*err);
      break;
    }
    std::string_view rest = data;
    std::size_t rdb_bytes = 0;
    if (LooksLikeRdb(data)) {
      // An RDB base (or an old single file's preamble), whatever its name, as Redis detects it.
      if (server.log != nullptr) {
        server.log->Log(LogLevel::kNotice, "Reading RDB base file on AOF loading...");
      }
      RdbLoadOptions options;
      options.drop_expired = false;
      const bool was_loading = server.loading;
      server.loading = true;
      const RdbLoadResult rdb = LoadRdb(server, data, options);
      server.loading = was_loading;
      if (rdb.error) {
        error =
            "Bad file format reading the append only file " + files[i]->name + ": " + *rdb.error;
        break;
      }
      rdb_bytes = rdb.end;
      rest = std::string_view(data).substr(rdb.end);
      if (!rest.empty() && server.log != nullptr) {
        server.log->Log(LogLevel::kNotice, "Reading the remaining AOF tail...");
      }
    }
    AofFileLoad load = LoadAofData(server, files[i]->name, rest);
    load.valid_up_to += rdb_bytes;
    commands += load.commands;
    if (load.error) {
      error = load.error;
      break;
    }
    if (load.truncated) {
      const bool last = i + 1 == files.size();
      if (!last || !server.config.aof_load_truncated) {
        error = "Unexpected end of file reading the append only file " + files[i]->name +
                " at offset " + std::to_string(load.valid_up_to) +
                ". You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix "
                "<filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' "
                "configuration option to yes and restart the server.";
        break;
      }
      if (server.log != nullptr) {
        server.log->Log(LogLevel::kWarning,
                        "!!! Warning: short read while loading the AOF file %s!!!",
                        files[i]->name.c_str());
        server.log->Log(LogLevel::kWarning, "!!! Truncating the AOF %s at offset %zu !!!",
                        files[i]->name.c_str(), load.valid_up_to);
      }
      if (truncate(path.c_str(), static_cast<off_t>(load.valid_up_to)) != 0) {
        error = "Error truncating the AOF file " + files[i]->name + ": " + std::strerror(errno);
        break;
      }
      if (server.log != nullptr) {
        server.log->Log(LogLevel::kWarning,
                        "AOF %s loaded anyway because aof-load-truncated is enabled",
                        files[i]->name.c_str());
      }
    }
    *loaded_bytes += load.valid_up_to;
  }
  // What loading ran is not what clients asked for: INFO's counters start from here.
  server.ResetStats();
  server.slowlog.Reset();
  if (!error && server.log != nullptr) {
    server.log->Log(LogLevel::kNotice, "DB loaded from append only file: %llu commands",
                    static_cast<unsigned long long>(commands));
  }
  return error;
}

}  // namespace warden::server
