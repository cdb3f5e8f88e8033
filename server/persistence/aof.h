// The append-only file, in Redis 7.0's multi-part layout: in `dir`/`appenddirname`, a manifest
// (`appendfilename`.manifest) naming one base file and the increment files after it. The base
// is an RDB snapshot (`.base.rdb`, aof-use-rdb-preamble yes, the default) or RESP commands
// (`.base.aof`); the increments are RESP commands. A start with appendonly yes loads them before
// the first client is accepted (aof_load.cc); a directory without them gets an empty base, an
// increment file and the manifest, as a first rewrite of an empty data set would write.
//
// Changes reach the buffer through Propagation (SELECT written whenever the database changes).
// Before the loop next polls, the buffer is written to the increment file; under appendfsync
// always it is also fsync'd there, once for all the loop turn's writes. Replies wait for it
// (Connection::Flush asks replies_wait()), so no client hears of a write that is not in the
// file, or under always not on disk.
// Under everysec a background thread fsyncs about once a second and the loop never waits on
// the disk; under no, the kernel decides.
//
// A failed write (a full disk) is Redis's: under always the process exits, since replies and
// changes cannot be taken back; otherwise the buffer is kept and written again each turn, and
// write commands are refused with MISCONF until a write (and any background fsync) succeeds.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/persistence/aof_jobs.h"
#include "server/persistence/file_io.h"

namespace warden::storage {
class Databases;
}

namespace warden::server {

class ServerState;

// Appends `argv` as a RESP array of bulk strings.
void AppendCommand(std::string& out, std::span<const std::string_view> argv);

enum class AppendFsync { kAlways, kEverysec, kNo };
// appendfsync's value (always, everysec, no).
AppendFsync ParseAppendFsync(std::string_view name);

// The manifest's record of one file (Redis's aofInfo).
struct AofFileInfo {
  std::string name;
  std::int64_t seq = 0;
  char type = 'i';  // 'b' base, 'h' history (to delete), 'i' increment
};

struct AofManifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> incrs;
  std::vector<AofFileInfo> history;
  std::int64_t current_base_seq = 0;
  std::int64_t current_incr_seq = 0;
};

// Redis's aofLoadManifestFromFile; the error text on a malformed manifest.
std::optional<std::string> ParseAofManifest(std::string_view text, AofManifest& out);
// Redis's getAofManifestAsString.
std::string FormatAofManifest(const AofManifest& manifest);

class Aof {
 public:
  explicit Aof(ServerState& server);
  ~Aof();
  Aof(const Aof&) = delete;
  Aof& operator=(const Aof&) = delete;

  // Start-up with appendonly yes: loads what the manifest names (or creates the files) and
  // opens the last increment file for appending. The error that must stop the start, if any.
  std::optional<std::string> Start();
  bool on() const { return fd_ >= 0; }

  void Feed(int db, std::span<const std::string_view> argv);
  // A command already encoded by AppendCommand.
  void FeedEncoded(int db, std::string_view command);

  // Writes the buffer to the file and, under always, fsyncs it. Called before each poll.
  void Flush();
  // Replies wait while changes are not yet in the file (and, under always, on disk), as Redis
  // writes the file before any reply of the loop turn: a killed process loses no write it
  // acknowledged, whatever appendfsync says. After a failed write they go out, as Redis's do,
  // and later writes are refused instead.
  bool replies_wait() const { return !buffer_.empty() && last_write_errno_ == 0; }
  // The errno that refuses write commands (MISCONF): the last write's or background fsync's
  // failure, while the file is on; 0 when writes are allowed.
  int write_error() const {
    if (fd_ < 0) return 0;
    return last_write_errno_ != 0 ? last_write_errno_ : jobs_.fsync_errno();
  }
  // Shutdown: everything written and fsync'd, the file closed (a rewrite under way is
  // abandoned: its child is killed, the files stay as they were).
  void Stop();

  // BGREWRITEAOF (and the automatic rewrite): the next increment file is opened and named in
  // the manifest, and a forked child writes the data set as it is now into a new base file;
  // the manifest then names that base and the new increment file alone, and the old files
  // go. Redis 7.0's design: at every moment the manifest names files that together hold the
  // whole data set. With the file off, as in Redis, the new base is written all the same and
  // the manifest names it alone: a later start with appendonly yes begins from it. The
  // refusal, if not started.
  std::optional<std::string> StartRewrite();
  // CONFIG SET appendonly yes (Redis's startAppendOnly): a new increment file takes the writes
  // from now on while a rewrite writes the data set into a new base; the manifest names them
  // once it is done. The error, if the file could not be turned on.
  std::optional<std::string> Enable();
  // From the cron: installs a finished rewrite; starts one when the file has grown by
  // auto-aof-rewrite-percentage since the last (and is past auto-aof-rewrite-min-size).
  void Cron();
  bool rewriting() const { return child_pid_ > 0; }
  // BGREWRITEAOF while a snapshot's child runs: the cron starts it once that is done.
  void ScheduleRewrite() { rewrite_scheduled_ = true; }
  bool rewrite_scheduled() const { return rewrite_scheduled_; }
  // DEBUG LOADAOF: the buffer written and synced, every database emptied, the files loaded
  // again. The error, if loading failed (the data set is then what loaded before it).
  std::optional<std::string> Reload();
  std::uint64_t rewrites() const { return rewrites_; }
  bool last_rewrite_ok() const { return last_rewrite_ok_; }
  std::int64_t last_rewrite_seconds() const { return last_rewrite_seconds_; }
  // When the rewrite under way started, in monotonic milliseconds.
  std::int64_t rewrite_started_ms() const { return rewrite_start_ms_; }
  void set_policy(AppendFsync policy) { policy_ = policy; }

  // INFO persistence.
  std::size_t buffer_bytes() const { return buffer_.size(); }
  std::uint64_t current_size() const { return current_size_; }
  std::uint64_t base_size() const { return base_size_; }
  bool last_write_ok() const { return write_error() == 0; }
  std::uint64_t delayed_fsyncs() const { return delayed_fsyncs_; }
  // The directory holding the files, and the manifest's path.
  std::string DirPath() const;
  std::string ManifestPath() const;

 private:
  void RequestBackgroundFsync();
  // Redis's bg_unlink: the name goes now, the blocks when the jobs thread closes the file.
  void DeleteFile(const std::string& path);
  // A failed write of `written` bytes of the buffer with `err` (flushAppendOnlyFile's).
  void WriteFailed(std::size_t written, int err);
  std::optional<std::string> CreateFresh();
  std::optional<std::string> UpgradeOldStyleFile();
  std::optional<std::string> OpenIncr(const std::string& name);
  // Opens the increment file after the last one and adds it to the manifest (not written).
  std::optional<std::string> OpenNextIncr();
  std::optional<std::string> WriteManifest();
  // Makes `fd` the file appended to; the old one is synced and closed by the jobs thread.
  void SwitchFile(int fd);
  void FinishRewrite(bool ok);
  std::optional<std::string> ForkRewrite();
  // Writes SELECT when the next command's database is not the file's current one.
  void Select(int db);
  void FailEnable();
  // The rewrite under way abandoned: its child killed, its temp file deleted.
  void KillRewrite();
  // manifest_ as the directory holds it, or empty: the file is off, and being turned on or
  // rewritten.
  void ReadManifestWhileOff();

  ServerState& server_;
  AppendFsync policy_ = AppendFsync::kEverysec;
  AofManifest manifest_;
  std::string buffer_;
  int fd_ = -1;
  int selected_db_ = -1;
  std::uint64_t current_size_ = 0;
  std::uint64_t base_size_ = 0;
  int last_write_errno_ = 0;
  std::uint64_t delayed_fsyncs_ = 0;
  std::int64_t last_fsync_ms_ = 0;       // monotonic: a frozen test clock must not stop the fsyncs
  std::uint64_t incr_size_ = 0;          // bytes of the increment file written to
  std::uint64_t rewrite_base_size_ = 0;  // current_size_ when the last rewrite ended

  pid_t child_pid_ = -1;
  bool enabling_ = false;  // the rewrite under way turns the file on
  bool rewrite_scheduled_ = false;
  bool rewrite_rdb_ = false;  // the rewrite under way writes an RDB base
  std::string rewrite_temp_;
  std::int64_t rewrite_start_ms_ = -1;  // monotonic
  std::uint64_t rewrites_ = 0;
  bool last_rewrite_ok_ = true;
  std::int64_t last_rewrite_seconds_ = -1;

  AofJobs jobs_;
};

// Writes every key of `dbs` as the commands that rebuild it (SELECT, SET, RPUSH, SADD, ZADD,
// HMSET in batches of 64, PEXPIREAT); false if a write failed.
bool WriteDataSet(const storage::Databases& dbs, std::span<const std::string_view> libraries,
                  int fd);

// One file's bytes run through the dispatcher as LoadAof runs them, on a client of its own.
struct AofFileLoad {
  std::uint64_t commands = 0;
  // Where the bytes stop being whole: their size, or the end of the last complete command
  // outside an unfinished MULTI (which is discarded).
  std::size_t valid_up_to = 0;
  bool truncated = false;
  // A malformed file or an unknown command, naming the file and the offset.
  std::optional<std::string> error;
};
AofFileLoad LoadAofData(ServerState& server, const std::string& name, std::string_view data);

// Loads the files `manifest` names, in order, through the dispatcher on a client of its own,
// with time held still so that no deadline passes while loading (Redis's loading state).
// A truncated last command of the last file is cut off when aof-load-truncated is yes, as
// Redis does; anything else malformed stops the start with the file and offset named.
std::optional<std::string> LoadAof(ServerState& server, const std::string& dir,
                                   const AofManifest& manifest, std::uint64_t* loaded_bytes);

}  // namespace warden::server
