// RDB snapshots (Redis 7.0's rdb.c and the save points of serverCron): SAVE writes `dir`/
// `dbfilename` from the loop; BGSAVE, the save points and SHUTDOWN's final save write it from a
// forked child while the loop serves, as the append-only rewrite does. A start without the
// append-only file loads the snapshot before anything listens. A background save that failed
// refuses writes with MISCONF (stop-writes-on-bgsave-error) until one succeeds.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "server/persistence/rdb_file.h"

namespace warden::server {

class ServerState;

class Snapshots {
 public:
  explicit Snapshots(ServerState& server);
  ~Snapshots();
  Snapshots(const Snapshots&) = delete;
  Snapshots& operator=(const Snapshots&) = delete;

  // Start-up without the append-only file: loads the snapshot if there is one. The error that
  // must stop the start, if any.
  std::optional<std::string> LoadAtStart();
  // SAVE: the error text to reply with (without "ERR "), if it failed.
  std::optional<std::string> Save();
  // BGSAVE: the error reply if no child was started.
  std::optional<std::string> StartBackgroundSave();
  // DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves, empties the data set and the libraries,
  // and loads the file back. The error reply, if any.
  std::optional<std::string> Reload(bool save, bool flush, bool merge);
  // BGSAVE SCHEDULE with another child running: started by the cron once none is.
  void Schedule() { scheduled_ = true; }
  bool scheduled() const { return scheduled_; }
  // From the cron: reaps a finished child, starts a scheduled save or one a save point asks for.
  void Cron();
  // SHUTDOWN and SIGTERM (Redis's prepareForShutdown): kills a background save, then saves
  // when save points are set or `save` asks, unless `nosave`. False when that save failed and
  // `force` is not given: the server must keep running.
  bool SaveBeforeExit(bool save, bool nosave, bool force);
  // Kills a background save under way (SHUTDOWN, FLUSHALL), deleting its temp file.
  void KillChild();
  bool saving() const { return child_pid_ > 0; }
  pid_t child_pid() const { return child_pid_; }

  // Whether writes are refused (Redis's DISK_ERROR_TYPE_RDB).
  bool refuses_writes() const;
  // SHUTDOWN and SIGTERM: whether save points are set (a final save is due unless NOSAVE).
  bool has_save_points() const;
  // The file's path.
  std::string Path() const;
  // What a save writes besides the data: the replication id and offset when there are some.
  RdbWriteOptions SaveOptions() const;
  // After a successful save or load: changes counted from here.
  void MarkClean();

  // INFO persistence.
  std::uint64_t changes_since_save() const;
  std::int64_t last_save_time() const { return last_save_s_; }
  bool last_bgsave_ok() const { return last_bgsave_ok_; }
  std::int64_t last_bgsave_seconds() const { return last_bgsave_seconds_; }
  std::int64_t current_bgsave_seconds() const;
  std::uint64_t saves() const { return saves_; }
  std::uint64_t last_load_keys_loaded() const { return last_load_loaded_; }
  std::uint64_t last_load_keys_expired() const { return last_load_expired_; }
  void set_last_load(std::uint64_t loaded, std::uint64_t expired) {
    last_load_loaded_ = loaded;
    last_load_expired_ = expired;
  }

 private:
  void FinishBackgroundSave(bool ok, bool by_signal, int signal);
  std::int64_t MonotonicSeconds() const;

  ServerState& server_;
  pid_t child_pid_ = -1;
  std::int64_t child_start_ms_ = -1;  // monotonic
  bool scheduled_ = false;
  std::uint64_t changes_at_save_ = 0;
  // dbs.changes() when the running child forked: the count it saved up to.
  std::uint64_t changes_at_save_pending_ = 0;
  std::int64_t last_save_s_ = 0;  // unix time, for LASTSAVE
  // Save points and retries count real seconds (monotonic): a test that moves the clock with
  // DEBUG CLOCK must not set a save going.
  std::int64_t last_save_mono_s_ = 0;
  std::int64_t last_bgsave_try_mono_s_ = 0;
  bool last_bgsave_ok_ = true;
  std::int64_t last_bgsave_seconds_ = -1;
  std::uint64_t saves_ = 0;
  std::uint64_t last_load_loaded_ = 0;
  std::uint64_t last_load_expired_ = 0;
};

}  // namespace warden::server
