// What the append-only file is told of each change, as Redis's propagation (server.c's
// alsoPropagate and propagatePendingCommands): a command that changed keys is written as it was
// sent, or as the effect a handler names instead (a relative deadline as an absolute PEXPIREAT,
// say), in the database it ran in. A script's or a transaction's calls are written one by one,
// never the EVAL or EXEC itself (Redis 7's effects replication), and the effects of one
// top-level command go in together: more than one is wrapped in MULTI/EXEC so a reader applies
// all or none. A key removed by expiry or eviction is written as a DEL of its own.
//
// The same effects go to replicas (replication.h), which track their own SELECT.
//
// Off (nothing recorded, one test per command) unless the append-only file is on or replicas
// are fed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::server {

class Aof;
class Replication;

class Propagation {
 public:
  Propagation(Aof& aof, Replication& replication) : aof_(aof), replication_(replication) {}

  // Whether changes are recorded (the append-only file is on or replicas are fed, and nothing
  // is loading).
  bool active() const { return active_; }
  void set_aof(bool on) {
    aof_on_ = on;
    Update();
  }
  void set_replication(bool on) {
    repl_on_ = on;
    Update();
  }
  // While the append-only file loads: what it runs is already recorded.
  void set_suspended(bool on) {
    suspended_ = on;
    Update();
  }
  bool suspended() const { return suspended_; }

  // A handler's effect, replacing the command's own words (once per command; only while
  // active, so a handler may build it unconditionally after testing active()).
  void Replace(std::initializer_list<std::string_view> argv);
  void Replace(std::span<const std::string_view> argv);
  // `command key ms`: the absolute form of a relative deadline (PEXPIREAT), or with `value`
  // between key and a PXAT (SET key value PXAT ms), as Redis writes them.
  void ReplaceDeadline(std::string_view command, std::string_view key, std::int64_t ms);
  void ReplaceSet(std::string_view key, std::string_view value, std::int64_t ms);
  // The running command is not written itself, only what it Add()s (Redis's
  // preventCommandPropagation: XREADGROUP and XCLAIM write XCLAIMs of their effects).
  void Suppress() {
    replacement_.clear();
    replaced_ = true;
  }
  // Whether the running command named its effect; cleared as each command starts.
  bool replaced() const { return replaced_; }
  void ClearReplacement() { replaced_ = false; }

  // Records `argv` in database `db`: with the running top-level command's effects when one
  // runs (`depth` > 0), else at once (an expiry, lazy or by the cron, and an eviction).
  void Add(int db, std::span<const std::string_view> argv, int depth);
  void Add(int db, std::initializer_list<std::string_view> argv, int depth) {
    Add(db, std::span<const std::string_view>(argv.begin(), argv.size()), depth);
  }
  // A command at `depth` (1: top level) changed keys in `db`: its replacement if it named
  // one, else `argv`.
  void AddCommand(int db, std::span<const std::string_view> argv, int depth);
  // The top-level command is over: its effects go to the file, wrapped when more than one.
  void EndCommand();

 private:
  // Each as encoded for the file, so recording a command copies bytes into buffers that keep
  // their capacity: nothing is allocated per command once they have grown.
  struct Op {
    int db;
    std::size_t offset;  // into pending_
    std::size_t length;
  };

  void Update() { active_ = (aof_on_ || repl_on_) && !suspended_; }
  // One encoded command to each target.
  void Emit(int db, std::string_view encoded);

  Aof& aof_;
  Replication& replication_;
  bool aof_on_ = false;
  bool repl_on_ = false;
  bool suspended_ = false;
  bool active_ = false;
  std::string scratch_;
  bool replaced_ = false;
  std::string replacement_;
  // The pending effects of the running top-level command.
  std::vector<Op> ops_;
  std::string pending_;
};

}  // namespace warden::server
