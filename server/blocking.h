// Clients blocked in BLPOP, BZPOPMIN and the other blocking commands, and waking them.
//
// A blocking command that finds nothing to serve calls Block(): the client stops running
// requests, and the registry keeps a copy of the command, the keys it waits on (in FIFO queues,
// one per key) and its deadline. Every write command signals the keys it names; once the
// command that wrote is over (a whole script, later a whole transaction) ServeReady() goes
// through the signalled keys and re-runs the waiting commands, oldest first, each told which key
// got data (retry_key()). A command re-run that still finds nothing calls Block() again and
// keeps its place; otherwise it has written its reply and the client goes on with its pipeline.
// So a client blocked on several keys is served by the first that receives data, and a push
// inside a script serves its waiters when the script ends, as in Redis 7.0.
//
// Deadlines are on warden's clock (ServerState::clock): ExpireTimeouts() runs from the loop and
// whenever a test moves the clock, so a frozen clock holds a BLPOP for as long as the test wants.
// Nothing here costs anything while clients wait: no scan of the blocked clients, ever.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "server/session.h"

namespace warden::server {

class ServerState;
struct CommandSpec;

// The connection side of a client that receives output from other clients' commands: a blocked
// client's reply, a published message, a MONITOR line.
class BlockedClientHost {
 public:
  // The buffer a woken client's reply, a message or a MONITOR line is written to.
  virtual std::string& reply_buffer() = 0;
  // The client is no longer blocked and its reply is written: send it, and go on with the
  // requests it has pipelined (later, from the loop, not from inside another client's command).
  virtual void Unblocked() = 0;
  // Something was appended to reply_buffer() by another client's command (or a timer): send it
  // once the current batch is over, before the loop polls, so that a message fanned out to a
  // thousand clients costs a thousand appends inside the command and the writes come after.
  virtual void ScheduleFlush() = 0;
  // A DELAY fault: sends what is queued now, then holds every reply that follows (the faulted
  // command's first) for `delay_ms`, real time. Hosts that cannot hold replies ignore it.
  virtual bool HoldReplies(std::int64_t /*delay_ms*/) { return true; }
  // Bytes written to reply_buffer() that the peer has not yet taken (a replica's payload is
  // paced by it).
  virtual std::size_t pending_output_bytes() const { return 0; }
  // Whether a write is in flight (its completion is reported; nothing is until then).
  virtual bool write_in_flight() const { return false; }

 protected:
  ~BlockedClientHost() = default;
};

class BlockingRegistry {
 public:
  // `server` is where an ended wait is counted (errors, failed calls, the slow log).
  explicit BlockingRegistry(ServerState& server);
  ~BlockingRegistry();
  BlockingRegistry(const BlockingRegistry&) = delete;
  BlockingRegistry& operator=(const BlockingRegistry&) = delete;

  // Blocks `session` on `keys` of its database until `deadline_ms` (0: no deadline), keeping a
  // copy of `args` to run `spec` again. Called during a retry, it only keeps the client where it
  // is.
  void Block(Session& session, const CommandSpec& spec, std::span<const std::string_view> args,
             std::span<const std::string_view> keys, std::int64_t deadline_ms);
  // Whether a command is being re-run by ServeReady, and the key that received data.
  bool retrying() const { return retrying_; }
  std::string_view retry_key() const { return retry_key_; }

  bool empty() const { return waiters_.empty(); }
  std::size_t blocked_clients() const { return waiters_.size(); }
  std::size_t clients_with_deadline() const { return deadlines_.size(); }

  // A write changed `key` of database `db`: its waiters, if any, get a chance once the writing
  // command is over.
  void SignalKey(int db, std::string_view key);
  // Signals the keys of a write, by its table row's key positions: a command that fills a key
  // names it there (a popping command with movable keys creates nothing). Values are never
  // looked at, so a 1 MB SET costs nothing more while clients wait.
  void SignalKeys(int db, const CommandSpec& spec, std::span<const std::string_view> args);
  // Signals every key waited on in `db` (SWAPDB).
  void SignalDb(int db);
  bool has_ready() const { return !ready_.empty(); }
  // Re-runs the commands of the clients blocked on signalled keys, first come first served,
  // until no signalled key is left (a served BLMOVE can signal another).
  void ServeReady(ServerState& server);

  // Times out the clients whose deadline is at or before `now_ms` (Redis replies a null
  // array). Returns how many.
  std::size_t ExpireTimeouts(std::int64_t now_ms);
  // The earliest deadline of a blocked client, or 0.
  std::int64_t next_deadline() const { return deadlines_.empty() ? 0 : deadlines_.begin()->first; }
  // CLIENT UNBLOCK: ends the wait of client `id` with the timeout reply, or with an error
  // (`with_error`). False if that client is not blocked.
  static constexpr std::string_view kUnblockedByCommand =
      "UNBLOCKED client unblocked via CLIENT UNBLOCK";
  // Ends every blocked client with `error` and closes each after its reply (REPLICAOF: Redis's
  // disconnectAllBlockedClients).
  void DisconnectAll(std::string_view error);
  bool Unblock(std::uint64_t id, bool with_error, std::string_view error = kUnblockedByCommand);
  // Forgets a client that is going away (disconnect, DEBUG DROP-CLIENTS).
  void Remove(const Session& session);

 private:
  struct Waiter;
  using Queue = std::list<Waiter*>;
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using KeyMap = std::unordered_map<std::string, Queue, KeyHash, std::equal_to<>>;
  using ReadySet = std::unordered_set<std::string, KeyHash, std::equal_to<>>;

  struct Waiter {
    Session* session;
    BlockedClientHost* host;
    // The command run again (args[0] may be a name rename-command gave it).
    const CommandSpec* spec;
    int db;
    std::vector<std::string> args;
    std::vector<std::string_view> views;  // into args, for a CommandContext
    std::vector<std::string_view> keys;   // into args, without duplicates
    std::vector<Queue::iterator> places;  // in each key's queue, in the order of keys
    std::multimap<std::int64_t, Waiter*>::iterator deadline;
    bool has_deadline = false;
    // An XREADGROUP: it is answered (UNBLOCKED) when its stream goes, so it is retried on a
    // signalled key that no longer exists.
    bool stream_group = false;
  };

  // How a wait ends, which decides its reply and what is counted.
  enum class End {
    kServed,          // the command ran again and replied itself
    kTimedOut,        // its deadline passed: the timeout reply
    kUnblocked,       // CLIENT UNBLOCK [TIMEOUT]: the timeout reply; a failed call
    kUnblockedError,  // CLIENT UNBLOCK ERROR: error_text_; a failed call
    kForcedError,     // the server ended every wait (REPLICAOF): error_text_
  };

  KeyMap& keys_of(int db);
  // Replies, unregisters and hands the client back to its connection.
  void Finish(Waiter* waiter, End end);
  void Unregister(Waiter* waiter);
  void Retry(ServerState& server, Waiter& waiter, std::string_view key);

  ServerState& server_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Waiter>> waiters_;  // by client id
  std::vector<KeyMap> keys_;                                            // by database
  std::multimap<std::int64_t, Waiter*> deadlines_;
  std::vector<std::pair<int, std::string>> ready_;
  std::vector<ReadySet> ready_sets_;  // by database: what ready_ holds, to signal once
  std::string_view retry_key_;
  bool retrying_ = false;
  std::string_view error_text_ = kUnblockedByCommand;
  // Blocked XREADGROUPs, so a deleted key costs a walk of its waiters only when one may care
  // (Redis's blocked_clients_by_type[BLOCKED_STREAM]).
  std::size_t stream_group_waiters_ = 0;
  bool kept_ = false;  // the command re-run by Retry blocked again
};

}  // namespace warden::server
