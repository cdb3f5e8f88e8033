#include "server/persistence/aof.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "server/log.h"
#include "server/persistence/rdb_file.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

void AppendLength(std::string& out, char kind, std::size_t n) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), n);
  out.push_back(kind);
  out.append(digits, end);
  out.append("\r\n");
}

std::string Errno(int err) { return std::strerror(err); }

}  // namespace

AppendFsync ParseAppendFsync(std::string_view name) {
  if (name == "always") return AppendFsync::kAlways;
  if (name == "no") return AppendFsync::kNo;
  return AppendFsync::kEverysec;
}

void AppendCommand(std::string& out, std::span<const std::string_view> argv) {
  AppendLength(out, '*', argv.size());
  for (const std::string_view arg : argv) {
    AppendLength(out, '$', arg.size());
    out.append(arg);
    out.append("\r\n");
  }
}

Aof::Aof(ServerState& server) : server_(server) {}

Aof::~Aof() { Stop(); }

std::string Aof::DirPath() const {
  const std::string& dir = server_.config.dir;
  return (dir.empty() ? std::string(".") : dir) + "/" + server_.config.appenddirname;
}

std::string Aof::ManifestPath() const {
  return DirPath() + "/" + server_.config.appendfilename + ".manifest";
}

std::optional<std::string> Aof::Start() {
  const std::string dir = DirPath();
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return "Can't open or create append-only dir " + dir + ": " + Errno(errno);
  }
  std::string text;
  std::optional<int> read_error = ReadFileBytes(ManifestPath(), text);
  if (read_error && *read_error == ENOENT) {
    if (auto err = UpgradeOldStyleFile()) return err;
    read_error = ReadFileBytes(ManifestPath(), text);
  }
  if (!read_error) {
    if (auto err = ParseAofManifest(text, manifest_)) return *err;
    std::uint64_t loaded = 0;
    if (auto err = LoadAof(server_, dir, manifest_, &loaded)) return *err;
    current_size_ = loaded;
    rewrite_base_size_ = loaded;
    if (manifest_.base) {
      struct stat st {};
      if (stat((dir + "/" + manifest_.base->name).c_str(), &st) == 0) {
        base_size_ = static_cast<std::uint64_t>(st.st_size);
      }
    }
    // Files a rewrite left for deletion.
    for (const AofFileInfo& info : manifest_.history) DeleteFile(dir + "/" + info.name);
    if (!manifest_.history.empty()) {
      manifest_.history.clear();
      if (auto err = WriteManifest()) return err;
    }
    if (manifest_.incrs.empty()) {
      if (auto err = OpenNextIncr()) return err;
      if (auto err = WriteManifest()) return err;
    } else if (auto err = OpenIncr(manifest_.incrs.back().name)) {
      return err;
    }
  } else if (*read_error == ENOENT) {
    if (auto err = CreateFresh()) return err;
  } else {
    return "Can't open the append-only manifest " + ManifestPath() + ": " + Errno(*read_error);
  }
  last_fsync_ms_ = server_.clock.MonotonicUs() / 1000;
  return std::nullopt;
}

std::optional<std::string> Aof::UpgradeOldStyleFile() {
  // Redis's aofUpgradePrepare: a Redis 6 single file, `appendfilename` in `dir`, becomes the
  // base of a manifest in the directory (an RDB preamble and its RESP tail load as one file).
  const std::string& name = server_.config.appendfilename;
  const std::string& root = server_.config.dir;
  const std::string old_path = (root.empty() ? std::string(".") : root) + "/" + name;
  struct stat st {};
  if (stat(old_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  manifest_ = AofManifest{};
  manifest_.base = AofFileInfo{name, 1, 'b'};
  manifest_.current_base_seq = 1;
  if (auto err = WriteManifest()) return err;
  const std::string new_path = DirPath() + "/" + name;
  if (rename(old_path.c_str(), new_path.c_str()) != 0) {
    return "Error moving the old AOF file " + old_path + " into " + DirPath() + ": " + Errno(errno);
  }
  SyncDir(DirPath());
  if (server_.log != nullptr) {
    server_.log->Log(
        LogLevel::kNotice,
        "Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
        name.c_str(), server_.config.appenddirname.c_str());
  }
  return std::nullopt;
}

std::optional<std::string> Aof::CreateFresh() {
  const std::string dir = DirPath();
  const std::string& name = server_.config.appendfilename;
  manifest_ = AofManifest{};
  manifest_.current_base_seq = 1;
  manifest_.current_incr_seq = 1;
  const bool rdb = server_.config.aof_use_rdb_preamble;
  manifest_.base = AofFileInfo{name + (rdb ? ".1.base.rdb" : ".1.base.aof"), 1, 'b'};
  manifest_.incrs.push_back({name + ".1.incr.aof", 1, 'i'});
  // The rewrite of an empty data set: an empty base file, or an RDB of nothing.
  const std::string base = dir + "/" + manifest_.base->name;
  const int fd = open(base.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "Can't create the append-only base file " + base + ": " + Errno(errno);
  int err = 0;
  if (rdb) {
    RdbWriteOptions options;
    options.aof_base = true;
    err = WriteRdbToFd(server_, fd, options);
  }
  if (err == 0 && fsync(fd) != 0) err = errno;
  close(fd);
  if (err != 0) return "Can't write the append-only base file " + base + ": " + Errno(err);
  if (auto err = OpenIncr(manifest_.incrs.back().name)) return err;
  return WriteManifest();
}

std::optional<std::string> Aof::OpenIncr(const std::string& name) {
  const std::string path = DirPath() + "/" + name;
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return "Can't open the append-only file " + path + ": " + Errno(errno);
  struct stat st {};
  incr_size_ = fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  SwitchFile(fd);
  // A new file starts in no database: its first command is preceded by a SELECT.
  selected_db_ = -1;
  // Its name is made durable by the manifest write that names it (WriteManifest syncs the dir).
  return std::nullopt;
}

std::optional<std::string> Aof::OpenNextIncr() {
  const std::int64_t seq = manifest_.current_incr_seq + 1;
  const std::string name = server_.config.appendfilename + "." + std::to_string(seq) + ".incr.aof";
  if (auto err = OpenIncr(name)) return err;
  manifest_.incrs.push_back({name, seq, 'i'});
  manifest_.current_incr_seq = seq;
  return std::nullopt;
}

void Aof::SwitchFile(int fd) {
  // Redis's aof_background_fsync_and_close: a busy disk can take tens of milliseconds.
  if (fd_ >= 0) jobs_.FsyncAndClose(fd_);
  fd_ = fd;
}

void Aof::DeleteFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  unlink(path.c_str());
  if (fd >= 0) jobs_.Close(fd);
}

std::optional<std::string> Aof::WriteManifest() {
  const std::string dir = DirPath();
  const std::string temp = dir + "/temp-" + server_.config.appendfilename + ".manifest";
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "Can't write the append-only manifest " + temp + ": " + Errno(errno);
  const int err = WriteAll(fd, FormatAofManifest(manifest_));
  const bool synced = err == 0 && fsync(fd) == 0;
  close(fd);
  if (err != 0 || !synced) return "Can't write the append-only manifest " + temp;
  if (rename(temp.c_str(), ManifestPath().c_str()) != 0) {
    return "Can't rename the append-only manifest: " + Errno(errno);
  }
  SyncDir(dir);
  return std::nullopt;
}

void Aof::Feed(int db, std::span<const std::string_view> argv) {
  if (fd_ < 0) return;
  Select(db);
  AppendCommand(buffer_, argv);
}

void Aof::FeedEncoded(int db, std::string_view command) {
  if (fd_ < 0) return;
  Select(db);
  buffer_.append(command);
}

void Aof::Select(int db) {
  if (db == selected_db_) return;
  char digits[16];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), db);
  const std::string_view select[] = {"SELECT", std::string_view(digits, end - digits)};
  AppendCommand(buffer_, select);
  selected_db_ = db;
}

void Aof::Flush() {
  if (fd_ < 0) return;
  if (!buffer_.empty()) {
    std::size_t written = 0;
    if (const int err = WriteAll(fd_, buffer_, &written); err != 0) {
      WriteFailed(written, err);
      return;
    }
    if (last_write_errno_ != 0) {
      last_write_errno_ = 0;
      if (server_.log != nullptr) {
        server_.log->Log(LogLevel::kWarning,
                         "AOF write error looks solved, warden can write again.");
      }
    }
    current_size_ += buffer_.size();
    incr_size_ += buffer_.size();
    buffer_.clear();
    if (buffer_.capacity() > (1u << 20)) buffer_.shrink_to_fit();
    if (policy_ == AppendFsync::kAlways) {
      if (fdatasync(fd_) != 0) {
        if (server_.log != nullptr) {
          server_.log->Log(LogLevel::kWarning,
                           "Can't persist AOF for fsync error when the AOF fsync policy is "
                           "'always': %s. Exiting...",
                           std::strerror(errno));
        }
        _exit(1);
      }
      last_fsync_ms_ = server_.clock.MonotonicUs() / 1000;
      return;
    }
  }
  if (policy_ == AppendFsync::kEverysec &&
      server_.clock.MonotonicUs() / 1000 - last_fsync_ms_ >= 1000) {
    RequestBackgroundFsync();
  }
}

void Aof::WriteFailed(std::size_t written, int err) {
  Logger* log = server_.log;
  const bool first = last_write_errno_ == 0;
  if (written > 0) {
    // A half-written command would make the file unloadable: cut it off, and only if that
    // fails keep the part that went in (Redis's order and texts).
    if (first && log != nullptr) {
      log->Log(LogLevel::kWarning,
               "Short write while writing to the AOF file: (nwritten=%zu, expected=%zu)", written,
               buffer_.size());
    }
    if (ftruncate(fd_, static_cast<off_t>(incr_size_)) == 0) {
      written = 0;
    } else if (first && log != nullptr) {
      log->Log(LogLevel::kWarning,
               "Could not remove short write from the append-only file.  warden may refuse to "
               "load the AOF the next time it starts.  ftruncate: %s",
               std::strerror(errno));
    }
    err = ENOSPC;
  } else if (first && log != nullptr) {
    log->Log(LogLevel::kWarning, "Error writing to the AOF file: %s", std::strerror(err));
  }
  if (policy_ == AppendFsync::kAlways) {
    // Replies to reads may already have shown the changes, which cannot be taken back; the
    // promise that whatever was seen is on disk then holds only by stopping here.
    if (log != nullptr) {
      log->Log(LogLevel::kWarning,
               "Can't recover from AOF write error when the AOF fsync policy is 'always'. "
               "Exiting...");
    }
    _exit(1);
  }
  // Kept for the next turn: a full disk may have room again.
  last_write_errno_ = err;
  if (written > 0) {
    current_size_ += written;
    incr_size_ += written;
    buffer_.erase(0, written);
  }
}

void Aof::RequestBackgroundFsync() {
  // An fsync still running after a second means the disk is slow: Redis counts it too.
  if (jobs_.fsync_pending()) {
    ++delayed_fsyncs_;
    return;
  }
  last_fsync_ms_ = server_.clock.MonotonicUs() / 1000;
  jobs_.Fsync(fd_);
}

std::optional<std::string> Aof::Reload() {
  if (fd_ >= 0) {
    Flush();
    fdatasync(fd_);
  } else {
    // With the file off Redis loads what the directory's manifest names (a BGREWRITEAOF's
    // files, say); with nothing there it exits, so this refuses before emptying anything.
    ReadManifestWhileOff();
    if (!manifest_.base && manifest_.incrs.empty()) {
      return "ERR DEBUG LOADAOF found no append-only file to load";
    }
  }
  server_.dbs.FlushAll();
  server_.scripts->FlushFunctions();
  std::uint64_t loaded = 0;
  if (auto err = LoadAof(server_, DirPath(), manifest_, &loaded)) return "ERR " + *err;
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kWarning, "Append Only File loaded by DEBUG LOADAOF");
  }
  return std::nullopt;
}

std::optional<std::string> Aof::Enable() {
  if (fd_ >= 0) return std::nullopt;
  const std::string dir = DirPath();
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return "Can't open or create append-only dir " + dir + ": " + Errno(errno);
  }
  // Redis's startAppendOnly: a rewrite begun with the file off writes no increment file, so it
  // cannot be what turns the file on.
  KillRewrite();
  ReadManifestWhileOff();
  if (auto err = OpenNextIncr()) return err;
  current_size_ = 0;
  base_size_ = 0;
  last_fsync_ms_ = server_.clock.MonotonicUs() / 1000;
  // The manifest on disk is left as it was until the new base is written: a crash before then
  // restarts from what the directory held, never from a base that lacks this data set.
  enabling_ = true;
  if (server_.snapshots.saving()) {
    // One child at a time: the rewrite that turns the file on starts once the save is done.
    rewrite_scheduled_ = true;
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kWarning,
                       "AOF was enabled but there is already another background operation. An AOF "
                       "background was scheduled to start when possible.");
    }
    return std::nullopt;
  }
  if (auto err = ForkRewrite()) {
    Stop();
    return err->substr(4);
  }
  return std::nullopt;
}

void Aof::ReadManifestWhileOff() {
  // Files left from an earlier time with the file on keep their sequence numbers going, so no
  // name is reused; their contents are not this data set, and go once the rewrite is done.
  manifest_ = AofManifest{};
  std::string text;
  if (!ReadFileBytes(ManifestPath(), text) && ParseAofManifest(text, manifest_)) {
    manifest_ = AofManifest{};
  }
}

std::optional<std::string> Aof::StartRewrite() {
  if (child_pid_ > 0) return "ERR Background append only file rewriting already in progress";
  if (fd_ < 0) {
    const std::string dir = DirPath();
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return "ERR Can't open or create append-only dir " + dir + ": " + Errno(errno);
    }
    ReadManifestWhileOff();
    return ForkRewrite();
  }
  // What was written before the fork belongs to the files the new base replaces.
  Flush();
  if (!buffer_.empty()) return "ERR Can't rewrite the append-only file while writes to it fail";
  if (auto err = OpenNextIncr()) return "ERR " + *err;
  if (auto err = WriteManifest()) return "ERR " + *err;
  return ForkRewrite();
}

std::optional<std::string> Aof::ForkRewrite() {
  rewrite_temp_ = DirPath() + "/temp-rewriteaof-bg-" + std::to_string(getpid()) + ".aof";
  rewrite_rdb_ = server_.config.aof_use_rdb_preamble;
  const std::int64_t fork_start_us = server_.clock.MonotonicUs();
  const pid_t pid = fork();
  if (pid < 0) {
    return std::string("ERR Can't rewrite append only file in background: fork: ") +
           std::strerror(errno);
  }
  if (pid == 0) {
    // The child: its own copy of the data set as it is at this instant, written and synced.
    // It needs none of the parent's descriptors, and holding the listening socket would keep a
    // restarted server from binding the port while the child runs on.
    close_range(3, ~0U, 0);
    server_.EnterForkedChild();
    const int fd = open(rewrite_temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = fd >= 0;
    if (ok && rewrite_rdb_) {
      // aof-use-rdb-preamble: the base is an RDB snapshot with aof-base set.
      RdbWriteOptions options;
      options.aof_base = true;
      ok = WriteRdbToFd(server_, fd, options) == 0;
    } else if (ok) {
      std::vector<std::string_view> libraries;
      for (const auto& [name, library] : server_.scripts->libraries()) {
        libraries.push_back(library.code);
      }
      ok = WriteDataSet(server_.dbs, libraries, fd);
    }
    ok = ok && fsync(fd) == 0;
    _exit(ok ? 0 : 1);
  }
  server_.stats.latest_fork_usec = server_.clock.MonotonicUs() - fork_start_us;
  ++server_.stats.total_forks;
  child_pid_ = pid;
  rewrite_start_ms_ = server_.clock.MonotonicUs() / 1000;
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kNotice, "Background append only file rewriting started by pid %d",
                     static_cast<int>(pid));
  }
  return std::nullopt;
}

void Aof::Cron() {
  if (child_pid_ > 0) {
    int status = 0;
    const pid_t done = waitpid(child_pid_, &status, WNOHANG);
    if (done == child_pid_) FinishRewrite(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return;
  }
  // One child at a time, as Redis's hasActiveChildProcess.
  if (server_.snapshots.saving()) return;
  if (rewrite_scheduled_) {
    rewrite_scheduled_ = false;
    // The file being turned on already has its increment file: only the base is missing.
    if (enabling_) {
      if (ForkRewrite()) FailEnable();
    } else {
      StartRewrite();
    }
    return;
  }
  if (fd_ < 0) return;
  const Config& c = server_.config;
  if (c.auto_aof_rewrite_percentage > 0 &&
      current_size_ > static_cast<std::uint64_t>(c.auto_aof_rewrite_min_size)) {
    const std::uint64_t base = rewrite_base_size_ != 0 ? rewrite_base_size_ : 1;
    const std::uint64_t growth = current_size_ * 100 / base - 100;
    if (growth >= static_cast<std::uint64_t>(c.auto_aof_rewrite_percentage)) {
      if (server_.log != nullptr) {
        server_.log->Log(LogLevel::kNotice, "Starting automatic rewriting of AOF on %llu%% growth",
                         static_cast<unsigned long long>(growth));
      }
      StartRewrite();
    }
  }
}

void Aof::FinishRewrite(bool ok) {
  child_pid_ = -1;
  const bool enabling = enabling_;
  enabling_ = false;
  last_rewrite_seconds_ = (server_.clock.MonotonicUs() / 1000 - rewrite_start_ms_) / 1000;
  rewrite_start_ms_ = -1;
  last_rewrite_ok_ = ok;
  const std::string dir = DirPath();
  if (!ok) {
    unlink(rewrite_temp_.c_str());
    if (server_.log != nullptr) {
      server_.log->Log(LogLevel::kWarning, "Background AOF rewrite terminated with error");
    }
    // The file was being turned on: without a base there is nothing to append to.
    if (enabling) FailEnable();
    return;
  }
  // The new base holds everything before the increment file opened at the start; the files
  // before it become history, deleted once the manifest no longer names them.
  const std::int64_t seq = manifest_.current_base_seq + 1;
  const AofFileInfo base{server_.config.appendfilename + "." + std::to_string(seq) +
                             (rewrite_rdb_ ? ".base.rdb" : ".base.aof"),
                         seq, 'b'};
  if (rename(rewrite_temp_.c_str(), (dir + "/" + base.name).c_str()) != 0) {
    last_rewrite_ok_ = false;
    unlink(rewrite_temp_.c_str());
    if (enabling) FailEnable();
    return;
  }
  const AofManifest before = manifest_;
  if (manifest_.base) manifest_.history.push_back({manifest_.base->name, manifest_.base->seq, 'h'});
  // The increment file appended to stays; with the file off, the base alone is the data set.
  const std::size_t kept = fd_ >= 0 && !manifest_.incrs.empty() ? 1 : 0;
  for (std::size_t i = 0; i + kept < manifest_.incrs.size(); ++i) {
    manifest_.history.push_back({manifest_.incrs[i].name, manifest_.incrs[i].seq, 'h'});
  }
  manifest_.incrs.erase(manifest_.incrs.begin(), manifest_.incrs.end() - kept);
  manifest_.base = base;
  manifest_.current_base_seq = seq;
  if (WriteManifest()) {
    manifest_ = before;
    last_rewrite_ok_ = false;
    if (enabling) FailEnable();
    return;
  }
  for (const AofFileInfo& old : manifest_.history) DeleteFile(dir + "/" + old.name);
  manifest_.history.clear();
  WriteManifest();
  if (fd_ >= 0) {
    struct stat st {};
    base_size_ = stat((dir + "/" + base.name).c_str(), &st) == 0
                     ? static_cast<std::uint64_t>(st.st_size)
                     : 0;
    current_size_ = base_size_ + incr_size_;
    rewrite_base_size_ = current_size_;
  }
  ++rewrites_;
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kNotice, "Background AOF rewrite finished successfully");
  }
}

void Aof::FailEnable() {
  if (server_.log != nullptr) {
    server_.log->Log(LogLevel::kWarning,
                     "Turning the append-only file on failed: appendonly is no again");
  }
  server_.propagation.set_aof(false);
  server_.config.appendonly = false;
  Stop();
}

void Aof::KillRewrite() {
  if (child_pid_ <= 0) return;
  kill(child_pid_, SIGKILL);
  waitpid(child_pid_, nullptr, 0);
  unlink(rewrite_temp_.c_str());
  child_pid_ = -1;
  rewrite_start_ms_ = -1;
}

void Aof::Stop() {
  KillRewrite();
  if (fd_ < 0) return;
  Flush();
  jobs_.Drain();
  fsync(fd_);
  close(fd_);
  fd_ = -1;
  enabling_ = false;
  // Whatever a failing disk kept back belongs to this file, never to one turned on later.
  buffer_.clear();
  last_write_errno_ = 0;
}

}  // namespace warden::server
