// The server log, in Redis's line format ("pid:M 01 Dec 2026 03:43:19.123 * message") so that
// tools which read Redis logs read warden's; and, with syslog-enabled, syslog(3) as Redis's
// serverLogRaw sends it (the message alone, at most 1024 bytes, at its level's priority).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>

namespace warden::server {

enum class LogLevel { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

// Parses Redis's level names (debug, verbose, notice, warning, nothing); notice if unknown.
LogLevel ParseLogLevel(std::string_view name);

// syslog(3)'s priority for a level, as Redis's syslogLevelMap: LOG_DEBUG, LOG_INFO (verbose),
// LOG_NOTICE, LOG_WARNING.
int SyslogPriority(LogLevel level);
// syslog-facility's names, as Redis lists them; SyslogFacility gives syslog(3)'s facility for
// one (LOG_LOCAL0, Redis's default, for any other name).
inline constexpr std::string_view kSyslogFacilities[] = {
    "user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"};
int SyslogFacility(std::string_view name);

class Logger {
 public:
  // Logs to `path`, or to stdout when it is empty. Falls back to stdout if it cannot be opened.
  Logger(LogLevel level, const std::string& path);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool enabled(LogLevel level) const { return level >= level_ && level_ != LogLevel::kNothing; }
  void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 3, 4)));
  // Writes `text` as it is, without a line's prefix (Redis's LL_RAW, for the logo).
  void LogRaw(LogLevel level, std::string_view text);
  // From now on every line also goes to syslog(3) under `ident` (openlog keeps it, so the
  // logger owns it) and `facility` (SyslogFacility's).
  void OpenSyslog(std::string ident, int facility);
  // In a forked child that has closed the descriptors it does not need: its lines are marked
  // 'C', and syslog, whose socket may have been among them, connects again.
  void EnterChild();
  // CONFIG SET loglevel.
  void set_level(LogLevel level) { level_ = level; }
  // The role letter after the pid, as Redis's: M master, S replica, C a forked child.
  void set_role(char role) { role_ = role; }

 private:
  LogLevel level_;
  char role_ = 'M';
  std::FILE* out_;
  bool owned_;
  bool syslog_ = false;
  std::string syslog_ident_;
  int syslog_facility_ = 0;
};

}  // namespace warden::server
