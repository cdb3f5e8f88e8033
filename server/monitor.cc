#include "server/monitor.h"

#include <algorithm>
#include <cstdio>

#include "server/blocking.h"
#include "server/command_context.h"
#include "server/command_table.h"
#include "server/server_state.h"
#include "server/stats/slowlog.h"

namespace warden::server {

void AppendQuoted(std::string& out, std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char c : data) {
    switch (c) {
      case '\\':
      case '"':
        out.push_back('\\');
        out.push_back(c);
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\a':
        out.append("\\a");
        break;
      case '\b':
        out.append("\\b");
        break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        // isprint in the C locale: 0x20..0x7e.
        if (u >= 0x20 && u < 0x7f) {
          out.push_back(c);
        } else {
          out.append("\\x");
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 15]);
        }
      }
    }
  }
  out.push_back('"');
}

void Monitors::Add(Session& session) {
  if (session.monitoring()) return;
  session.modes |= Session::kMonitorMode;
  clients_.push_back(&session);
}

void Monitors::Remove(Session& session) {
  if (!session.monitoring()) return;
  session.modes &= static_cast<std::uint8_t>(~Session::kMonitorMode);
  clients_.erase(std::remove(clients_.begin(), clients_.end(), &session), clients_.end());
}

void Monitors::Feed(const ServerState& server, const Session& session, int db,
                    std::span<const std::string_view> args) {
  // Redis reads the wall clock here (gettimeofday), not the cached command time.
  const std::int64_t now_us = server.clock.NowUs();
  char head[64];
  const int n = std::snprintf(head, sizeof(head), "+%lld.%06lld [%d ",
                              static_cast<long long>(now_us / 1000000),
                              static_cast<long long>(now_us % 1000000), db);
  line_.assign(head, static_cast<std::size_t>(n));
  if (session.is_script) {
    line_.append("lua");
  } else if (session.unix_socket) {
    line_.append("unix:");
    line_.append(server.config.unixsocket);
  } else {
    line_.append(session.addr);
  }
  line_.append("] ");
  // Passwords are shown as "(redacted)", as the slow log shows them.
  const CommandSpec* spec = server.command_names.FindFor(args);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) line_.push_back(' ');
    if (spec != nullptr && RedactedArgument(*spec, args, i)) {
      line_.append("\"(redacted)\"");
    } else {
      AppendQuoted(line_, args[i]);
    }
  }
  line_.append("\r\n");
  for (Session* m : clients_) {
    if (m->host == nullptr || m->close_after_reply) continue;
    m->host->reply_buffer().append(line_);
    m->host->ScheduleFlush();
  }
}

}  // namespace warden::server
