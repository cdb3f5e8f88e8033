// A client's MULTI state: the commands it queued, and why its EXEC would fail.
//
// Queued arguments are copied (the request buffer is reused for the next read) into one buffer
// per transaction, with one offset per argument and one record per command: a million queued
// `SET k v` cost the bytes of their arguments plus about 40 bytes each, and no allocation per
// command beyond the vectors' growth. The state lives in the Session; the watched keys it names
// are in the registry of ServerState (watched_keys.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warden::protocol {
class ReplyWriter;
}

namespace warden::server {

struct CommandSpec;
struct Session;
class ServerState;

class QueuedCommands {
 public:
  void Add(const CommandSpec& spec, std::span<const std::string_view> args);
  std::size_t size() const { return commands_.size(); }
  const CommandSpec& spec(std::size_t i) const { return *commands_[i].spec; }
  // Fills `out` with views of command i's arguments, valid until the queue changes.
  void Args(std::size_t i, std::vector<std::string_view>& out) const;
  // Empties the queue; gives its memory back unless it is small.
  void Clear();
  void Swap(QueuedCommands& other) {
    commands_.swap(other.commands_);
    arg_ends_.swap(other.arg_ends_);
    bytes_.swap(other.bytes_);
  }
  // What CLIENT LIST counts as multi-mem: argument bytes plus the bookkeeping.
  std::size_t memory_bytes() const;

 private:
  struct Command {
    const CommandSpec* spec;
    std::size_t first_arg;  // index into arg_ends_
    std::size_t argc;
  };
  std::vector<Command> commands_;
  std::vector<std::size_t> arg_ends_;  // each argument's end offset in bytes_
  std::string bytes_;
};

// A key a client watches: its database and name.
struct WatchedKeyName {
  int db;
  std::string key;
};

struct MultiState {
  QueuedCommands queued;
  // A command was refused while queueing (Redis's CLIENT_DIRTY_EXEC): EXEC answers EXECABORT.
  bool refused = false;
  // A watched key changed (CLIENT_DIRTY_CAS): EXEC answers a null array.
  bool watch_touched = false;
  // EXEC is running the queued commands (CLIENT_DENY_BLOCKING): blocking commands do not wait.
  bool executing = false;
  // While EXEC runs them, the queue is moved out: how many commands it holds (CLIENT LIST).
  std::size_t running = 0;
  std::vector<WatchedKeyName> watched;
  // EXEC's views of one queued command's arguments, reused.
  std::vector<std::string_view> exec_args;
};

// Dispatch's step for a client in MULTI, once the command was admitted (a no_multi command is
// refused there): queues it and replies +QUEUED. False for the commands that run at once inside
// MULTI (EXEC, DISCARD, MULTI, WATCH, QUIT, RESET).
bool QueueInTransaction(Session& session, const CommandSpec& spec,
                        std::span<const std::string_view> args, protocol::ReplyWriter& reply);

// Leaves MULTI and forgets the watched keys (EXEC, DISCARD, RESET, a closed connection).
void DiscardTransaction(ServerState& server, Session& session);

}  // namespace warden::server
