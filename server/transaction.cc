#include "server/transaction.h"

#include <string>

#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/errors.h"
#include "server/server_state.h"
#include "server/session.h"

namespace warden::server {

void QueuedCommands::Add(const CommandSpec& spec, std::span<const std::string_view> args) {
  commands_.push_back({&spec, arg_ends_.size(), args.size()});
  for (std::string_view arg : args) {
    bytes_.append(arg);
    arg_ends_.push_back(bytes_.size());
  }
}

void QueuedCommands::Args(std::size_t i, std::vector<std::string_view>& out) const {
  const Command& c = commands_[i];
  out.resize(c.argc);
  const char* base = bytes_.data();
  std::size_t start = c.first_arg == 0 ? 0 : arg_ends_[c.first_arg - 1];
  for (std::size_t a = 0; a < c.argc; ++a) {
    const std::size_t end = arg_ends_[c.first_arg + a];
    out[a] = std::string_view(base + start, end - start);
    start = end;
  }
}

void QueuedCommands::Clear() {
  // A small queue keeps its buffers for the next transaction (no allocation per MULTI); a
  // large one gives its memory back.
  constexpr std::size_t kKeepBytes = 16 * 1024;
  if (memory_bytes() > kKeepBytes) {
    std::vector<Command>().swap(commands_);
    std::vector<std::size_t>().swap(arg_ends_);
    std::string().swap(bytes_);
  } else {
    commands_.clear();
    arg_ends_.clear();
    bytes_.clear();
  }
}

std::size_t QueuedCommands::memory_bytes() const {
  // An empty string's inline buffer is no memory of the queue's.
  const std::size_t bytes = bytes_.capacity() > std::string().capacity() ? bytes_.capacity() : 0;
  return bytes + arg_ends_.capacity() * sizeof(std::size_t) +
         commands_.capacity() * sizeof(Command);
}

bool QueueInTransaction(Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args, protocol::ReplyWriter& reply) {
  // processCommand's list of what runs at once inside MULTI.
  const Handler h = spec.handler;
  if (h == ExecCommand || h == DiscardCommand || h == MultiCommand || h == WatchCommand ||
      h == QuitCommand || h == ResetCommand) {
    return false;
  }
  // Redis keeps nothing of a transaction that can no longer run.
  if (!session.multi.refused && !session.multi.watch_touched) session.multi.queued.Add(spec, args);
  reply.Raw("+QUEUED\r\n");
  return true;
}

void DiscardTransaction(ServerState& server, Session& session) {
  MultiState& m = session.multi;
  m.queued.Clear();
  m.refused = false;
  m.watch_touched = false;
  session.in_multi = false;
  server.watched_keys.UnwatchAll(session);
}

}  // namespace warden::server
