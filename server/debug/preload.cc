#include "server/debug/preload.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

#include "protocol/reply_writer.h"
#include "protocol/request_parser.h"
#include "server/dispatcher.h"
#include "server/persistence/rdb_file.h"

namespace warden::server {
namespace {

std::string Where(std::string_view path, std::size_t line_no) {
  return std::string(path) + ":" + std::to_string(line_no) + ": ";
}

// The first line of an error reply, without its '-' and CRLF.
std::string_view ErrorText(std::string_view reply) {
  const std::size_t end = reply.find("\r\n");
  return reply.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
}

}  // namespace

PreloadResult RunPreloadText(ServerState& server, std::string_view path, std::string_view text) {
  PreloadResult result;
  Session session;
  session.local = true;
  session.authenticated = true;
  session.name = "preload";
  session.created_ms = server.clock.NowMs();
  std::string out;
  std::string storage;
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  std::vector<std::string_view> args;
  std::size_t line_no = 0;
  while (!text.empty() && !result.error) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    storage.clear();
    spans.clear();
    if (!protocol::SplitInlineArgs(line, storage, spans)) {
      result.error = Where(path, line_no) + "unbalanced quotes";
      break;
    }
    if (spans.empty()) continue;
    args.clear();
    for (const auto& [start, len] : spans)
      args.push_back(std::string_view(storage).substr(start, len));
    out.clear();
    protocol::ReplyWriter writer(&out, session.resp);
    Dispatch(server, session, args, writer);
    ++result.commands;
    if (!out.empty() && out[0] == '-') {
      result.error = Where(path, line_no) + std::string(ErrorText(out));
    } else if (session.close_after_reply || session.close_now) {
      result.error = Where(path, line_no) + "the command closed the preload client";
    }
  }
  if (!result.error && session.in_multi) {
    result.error = Where(path, line_no) + "MULTI without EXEC at the end of the file";
  }
  ForgetSession(server, session);
  return result;
}

PreloadResult RunPreloadFile(ServerState& server, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    PreloadResult result;
    result.error = path + ": cannot open: " + std::strerror(errno);
    return result;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string data = text.str();
  if (LooksLikeRdb(data)) {
    RdbLoadOptions options;
    options.allow_duplicates = true;
    const bool was_loading = server.loading;
    server.loading = true;
    const RdbLoadResult loaded = LoadRdb(server, data, options);
    server.loading = was_loading;
    PreloadResult result;
    result.snapshot = true;
    result.commands = loaded.keys_loaded;
    if (loaded.error) result.error = path + ": " + *loaded.error;
    return result;
  }
  return RunPreloadText(server, path, data);
}

}  // namespace warden::server
