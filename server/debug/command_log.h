// DEBUG COMMAND-LOG: the commands warden ran, in order, so a test can assert what the code under
// test sent ("exactly one SET ... NX, no KEYS"). Call() (dispatcher.cc) appends one entry per
// execution while the log is on, before the command runs, so that EXEC and a script runner come
// before the commands they run. Refused commands (unknown, wrong arity, queued by MULTI, failed
// by a fault) never reach Call() and are not logged; the log's own commands are skipped.
//
// The log is a ring of at most max_entries entries: once full, each new entry overwrites the
// oldest (counted in dropped()). A slot keeps its buffers when overwritten, so a full log copies
// arguments into memory it already has. Off, it costs Call() one branch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::server {

struct CommandSpec;
struct Session;
class ServerState;

// Who issued a command: a client directly, EXEC for a queued command, or a script's
// redis.call/pcall (on behalf of the client that ran the script).
enum class CommandOrigin : std::uint8_t { kClient, kExec, kScript };

std::string_view OriginName(CommandOrigin origin);

class CommandLog {
 public:
  static constexpr std::size_t kDefaultMaxEntries = 10000;
  // An argument longer than this is kept cut, with "... (N more bytes)"; once an entry holds
  // kMaxEntryBytes, the rest of its arguments are one "... (N more arguments)".
  static constexpr std::size_t kMaxArgBytes = 512;
  static constexpr std::size_t kMaxEntryBytes = 4096;

  struct Entry {
    std::uint64_t seq = 0;
    std::int64_t time_ms = 0;  // warden's clock, unix milliseconds
    std::uint64_t client_id = 0;
    std::string client_name;
    int db = 0;
    CommandOrigin origin = CommandOrigin::kClient;
    std::string data;                 // the arguments back to back
    std::vector<std::uint32_t> ends;  // where each argument ends in `data`

    std::size_t argc() const { return ends.size(); }
    std::string_view arg(std::size_t i) const {
      const std::uint32_t begin = i == 0 ? 0 : ends[i - 1];
      return std::string_view(data).substr(begin, ends[i] - begin);
    }
  };

  bool on() const { return on_; }
  // ON: logging from the next command. A log that already holds more than `max_entries` keeps
  // its newest ones.
  void Start(std::size_t max_entries);
  // OFF: entries stay readable.
  void Stop() { on_ = false; }
  // RESET: forgets every entry and the dropped count and frees their memory; sequence numbers
  // keep counting.
  void Reset();

  // Secrets (AUTH's password, CONFIG SET requirepass's value) are stored as "(redacted)", as the
  // slow log stores them.
  void Append(const CommandSpec& spec, std::span<const std::string_view> args, std::int64_t time_ms,
              std::uint64_t client_id, std::string_view client_name, int db, CommandOrigin origin);

  std::size_t size() const { return size_; }
  std::size_t max_entries() const { return max_entries_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t next_seq() const { return next_seq_; }
  // The i-th oldest entry held, i < size().
  const Entry& At(std::size_t i) const { return ring_[(head_ + i) % ring_.size()]; }

 private:
  bool on_ = false;
  std::size_t max_entries_ = kDefaultMaxEntries;
  // Grows to max_entries_ slots, then wraps: head_ is the oldest entry.
  std::vector<Entry> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t dropped_ = 0;
};

// Call()'s hook, while the log is on: appends the command `session` is about to run, unless it
// is one of the log's own. A script's command is logged under the client that ran the script.
void LogCall(ServerState& server, const Session& session, const CommandSpec& spec,
             std::span<const std::string_view> args, std::int64_t now_ms);

}  // namespace warden::server
