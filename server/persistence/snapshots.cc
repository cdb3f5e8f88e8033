#include "server/persistence/snapshots.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/log.h"
#include "server/persistence/file_io.h"
#include "server/persistence/rdb_file.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

// Redis's CONFIG_BGSAVE_RETRY_DELAY: after a failed background save, the save points wait this
// long before the next try.
constexpr std::int64_t kRetryDelaySeconds = 5;

}  // namespace

Snapshots::Snapshots(ServerState& server) : server_(server) {
  last_save_s_ = server_.clock.NowMs() / 1000;
  last_save_mono_s_ = MonotonicSeconds();
}

std::int64_t Snapshots::MonotonicSeconds() const { return server_.clock.MonotonicUs() / 1'000'000; }

Snapshots::~Snapshots() { KillChild(); }

RdbWriteOptions Snapshots::SaveOptions() const {
  // Redis's rdbPopulateSaveInfo: a master with a history, or a replica, records where its
  // stream stands, so that after a restart it continues partially.
  RdbWriteOptions options;
  const Replication& repl = server_.replication;
  if (repl.HasSaveInfo()) {
    options.with_replication = true;
    options.repl_id = repl.replid();
    options.repl_offset = repl.master_repl_offset();
    options.repl_stream_db = repl.stream_db();
  }
  return options;
}

std::string Snapshots::Path() const {
  const std::string& dir = server_.config.dir;
  return (dir.empty() ? std::string(".") : dir) + "/" + server_.config.dbfilename;
}

void Snapshots::MarkClean() {
  changes_at_save_ = server_.dbs.changes();
  last_save_s_ = server_.clock.NowMs() / 1000;
  last_save_mono_s_ = MonotonicSeconds();
}

std::uint64_t Snapshots::changes_since_save() const {
  return server_.dbs.changes() - changes_at_save_;
}

bool Snapshots::has_save_points() const { return !server_.config.save_points.empty(); }

bool Snapshots::refuses_writes() const {
  return !last_bgsave_ok_ && server_.config.stop_writes_on_bgsave_error && has_save_points();
}

std::int64_t Snapshots::current_bgsave_seconds() const {
  if (child_pid_ <= 0) return -1;
  return (server_.clock.MonotonicUs() / 1000 - child_start_ms_) / 1000;
}

std::optional<std::string> Snapshots::LoadAtStart() {
  const std::string path = Path();
  MappedFile file;
  if (const std::optional<int> err = file.Open(path)) {
    if (*err == ENOENT) return std::nullopt;
    return "Fatal error loading the DB: " + std::string(std::strerror(*err)) + ". Exiting.";
  }
  const std::string_view data = file.bytes();
  const std::int64_t start_us = server_.clock.MonotonicUs();
  const bool was_loading = server_.loading;
  server_.loading = true;
  const RdbLoadResult result = LoadRdb(server_, data, RdbLoadOptions{});
  server_.loading = was_loading;
  if (result.error) {
    // Redis's lines for each kind of failure, then the start stops.
    if (server_.log != nullptr) {
      if (result.short_read()) {
        server_.log->Log(LogLevel::kWarning,
                         "Short read or OOM loading DB. Unrecoverable error, aborting now.");
      }
      server_.log->Log(LogLevel::kWarning, "%s", result.error->c_str());
    }
    if (result.bad_header) return "Fatal error loading the DB: Invalid argument. Exiting.";
    return "Terminating server after rdb file reading failure.";
  }
  if (server_.log != nullptr) {
    if (result.ctime > 0) {
      server_.log->Log(LogLevel::kNotice, "RDB age %lld seconds",
                       static_cast<long long>(server_.clock.NowMs() / 1000 - result.ctime));
    }
    server_.log->Log(LogLevel::kNotice, "Done loading RDB, keys loaded: %llu, keys expired: %llu.",
                     static_cast<unsigned long long>(result.keys_loaded),
                     static_cast<unsigned long long>(result.keys_expired));
    server_.log->Log(LogLevel::kNotice, "DB loaded from disk: %.3f seconds",
                     static_cast<double>(server_.clock.MonotonicUs() - start_us) / 1e6);
  }
  set_last_load(result.keys_loaded, result.keys_expired);
  if (result.has_repl_id) server_.replication.RestoreFromRdb(result.repl_id, result.repl_offset);
  MarkClean();
  return std::nullopt;
}

std::optional<std::string> Snapshots::Save() {
  if (child_pid_ > 0) return "Background save already in progress";
  ++saves_;
  if (auto err = SaveRdbFile(server_, Path(), SaveOptions())) {
    if (server_.log != nullptr) server_.log->Log(LogLevel::kWarning, "%s", err->c_str());
    return std::string();
  }
  if (server_.log != nullptr) server_.log->Log(LogLevel::kNotice, "DB saved on disk");
  MarkClean();
  last_bgsave_ok_ = true;
  return std::nullopt;
}

std::optional<std::string> Snapshots::Reload(bool save, bool flush, bool merge) {
  if (save && Save()) return std::string("ERR");
  if (flush) {
    server_.dbs.FlushAll();
    server_.scripts->FlushFunctions();
  }
  MappedFile file;
  RdbLoadResult result;
  if (file.Open(Path())) {
    result.error = "can't read " + Path();
  } else {
    const std::string_view data = file.bytes();
    RdbLoadOptions options;
    options.allow_duplicates = merge;
    const bool was_loading = server_.loading;
    server_.loading = true;
    result = LoadRdb(server_, data, options);
    server_.loading = was_loading;
  }
  if (result.error) {
    if (server_.log != nullptr) server_.log->Log(LogLevel::kWarning, "%s", result.error->c_str());
    return std::string("ERR Error trying to load the RDB dump");
  }
  if (server_.log != nullptr) server_.log->Log(LogLevel::kWarning, "DB reloaded by DEBUG RELOAD");
  return std::nullopt;
}

std::optional<std::string> Snapshots::StartBackgroundSave() {
  if (child_pid_ > 0 || server_.aof.rewriting()) return std::string();
  ++saves_;
  const std::uint64_t changes_before = server_.dbs.changes();
  last_bgsave_try_mono_s_ = MonotonicSeconds();
  const std::string path = Path();
  const std::int64_t fork_start_us = server_.clock.MonotonicUs();
  const pid_t pid = fork();
  if (pid < 0) {
    last_bgsave_ok_ = false;
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kWarning, "Can't save in background: fork: %s",
                       std::strerror(errno));
    }
    return std::string();
  }
  if (pid == 0) {
    // The child: the data set as it is at this instant. It needs none of the parent's
    // descriptors, and a listening socket held by it would keep a restarted server off its port.
    close_range(3, ~0U, 0);
    server_.EnterForkedChild();
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    const auto err = SaveRdbFile(server_, path, SaveOptions());
    if (server_.log != nullptr) {
      if (err) {
        server_.log->Log(LogLevel::kWarning, "%s", err->c_str());
      } else {
        server_.log->Log(LogLevel::kNotice, "DB saved on disk");
      }
    }
    _exit(err ? 1 : 0);
  }
  server_.stats.latest_fork_usec = server_.clock.MonotonicUs() - fork_start_us;
  ++server_.stats.total_forks;
  child_pid_ = pid;
  changes_at_save_pending_ = changes_before;
  child_start_ms_ = server_.clock.MonotonicUs() / 1000;
  scheduled_ = false;
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kNotice, "Background saving started by pid %d",
                     static_cast<int>(pid));
  }
  return std::nullopt;
}

void Snapshots::FinishBackgroundSave(bool ok, bool by_signal, int signal_number) {
  const std::string temp =
      Path().substr(0, Path().rfind('/') + 1) + "temp-" + std::to_string(child_pid_) + ".rdb";
  child_pid_ = -1;
  last_bgsave_seconds_ = (server_.clock.MonotonicUs() / 1000 - child_start_ms_) / 1000;
  child_start_ms_ = -1;
  Logger* log = server_.log;
  if (ok) {
    if (log != nullptr) log->Log(LogLevel::kNotice, "Background saving terminated with success");
    changes_at_save_ = changes_at_save_pending_;
    last_save_s_ = server_.clock.NowMs() / 1000;
    last_save_mono_s_ = MonotonicSeconds();
    last_bgsave_ok_ = true;
    return;
  }
  if (by_signal) {
    if (log != nullptr) {
      log->Log(LogLevel::kWarning, "Background saving terminated by signal %d", signal_number);
    }
    unlink(temp.c_str());
    // SIGUSR1 is how Redis kills a save on purpose: not a failure.
    if (signal_number != SIGUSR1) last_bgsave_ok_ = false;
    return;
  }
  if (log != nullptr) log->Log(LogLevel::kWarning, "Background saving error");
  last_bgsave_ok_ = false;
}

bool Snapshots::SaveBeforeExit(bool save, bool nosave, bool force) {
  Logger* log = server_.log;
  if (child_pid_ > 0) {
    if (log != nullptr)
      log->Log(LogLevel::kWarning, "There is a child saving an .rdb. Killing it!");
    KillChild();
  }
  if (nosave || (!save && !has_save_points())) return true;
  if (log != nullptr) log->Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
  if (!Save()) return true;
  if (force) {
    if (log != nullptr) log->Log(LogLevel::kWarning, "Error trying to save the DB. Exit anyway.");
    return true;
  }
  if (log != nullptr) log->Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
  return false;
}

void Snapshots::KillChild() {
  if (child_pid_ <= 0) return;
  const pid_t pid = child_pid_;
  kill(pid, SIGUSR1);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  FinishBackgroundSave(false, true, SIGUSR1);
}

void Snapshots::Cron() {
  if (child_pid_ > 0) {
    int status = 0;
    const pid_t done = waitpid(child_pid_, &status, WNOHANG);
    if (done != child_pid_) return;
    const bool by_signal = WIFSIGNALED(status);
    FinishBackgroundSave(!by_signal && WIFEXITED(status) && WEXITSTATUS(status) == 0, by_signal,
                         by_signal ? WTERMSIG(status) : 0);
    return;
  }
  if (server_.aof.rewriting()) return;
  const std::int64_t now_s = MonotonicSeconds();
  const bool may_retry = last_bgsave_ok_ || now_s - last_bgsave_try_mono_s_ > kRetryDelaySeconds;
  if (scheduled_ && may_retry) {
    StartBackgroundSave();
    return;
  }
  const std::uint64_t changes = changes_since_save();
  for (const auto& [seconds, needed] : server_.config.save_points) {
    if (changes >= static_cast<std::uint64_t>(needed) && now_s - last_save_mono_s_ > seconds &&
        may_retry) {
      if (server_.log != nullptr) {
        server_.log->Log(LogLevel::kNotice, "%lld changes in %lld seconds. Saving...",
                         static_cast<long long>(needed), static_cast<long long>(seconds));
      }
      StartBackgroundSave();
      return;
    }
  }
}

}  // namespace warden::server
