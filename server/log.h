// The server log, in Redis's line format ("pid:M 01 Dec 2026 03:43:19.123 * message") so that
// tools which read Redis logs read warden's.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>
#include <string_view>

namespace warden::server {

enum class LogLevel { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3, kNothing = 4 };

// Parses Redis's level names (debug, verbose, notice, warning, nothing); notice if unknown.
LogLevel ParseLogLevel(std::string_view name);

class Logger {
 public:
  // Logs to `path`, or to stdout when it is empty. Falls back to stdout if it cannot be opened.
  Logger(LogLevel level, const std::string& path);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool enabled(LogLevel level) const { return level >= level_ && level_ != LogLevel::kNothing; }
  void Log(LogLevel level, const char* format, ...) __attribute__((format(printf, 3, 4)));
  // CONFIG SET loglevel.
  void set_level(LogLevel level) { level_ = level; }
  // The role letter after the pid, as Redis's: M master, S replica, C a forked child.
  void set_role(char role) { role_ = role; }

 private:
  LogLevel level_;
  char role_ = 'M';
  std::FILE* out_;
  bool owned_;
};

}  // namespace warden::server
