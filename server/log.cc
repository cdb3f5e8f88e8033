#include "server/log.h"

#include <sys/time.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <utility>

namespace warden::server {
namespace {

// Redis's LOG_MAX_LEN: serverLog formats a message into a buffer this long.
constexpr std::size_t kSyslogMaxLen = 1024;

// kSyslogFacilities' codes, in its order.
constexpr int kFacilityCodes[] = {LOG_USER,   LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3,
                                  LOG_LOCAL4, LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7};
static_assert(std::size(kFacilityCodes) == std::size(kSyslogFacilities));

}  // namespace

LogLevel ParseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "verbose") return LogLevel::kVerbose;
  if (name == "warning") return LogLevel::kWarning;
  if (name == "nothing") return LogLevel::kNothing;
  return LogLevel::kNotice;
}

int SyslogPriority(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return LOG_DEBUG;
    case LogLevel::kVerbose:
      return LOG_INFO;
    case LogLevel::kNotice:
      return LOG_NOTICE;
    case LogLevel::kWarning:
    case LogLevel::kNothing:
      break;
  }
  return LOG_WARNING;
}

int SyslogFacility(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kSyslogFacilities); ++i) {
    if (name == kSyslogFacilities[i]) return kFacilityCodes[i];
  }
  return LOG_LOCAL0;
}

Logger::Logger(LogLevel level, const std::string& path)
    : level_(level), out_(stdout), owned_(false) {
  if (!path.empty()) {
    if (std::FILE* f = std::fopen(path.c_str(), "a")) {
      out_ = f;
      owned_ = true;
    }
  }
}

Logger::~Logger() {
  if (owned_) std::fclose(out_);
  if (syslog_) closelog();
}

void Logger::OpenSyslog(std::string ident, int facility) {
  syslog_ident_ = std::move(ident);
  syslog_facility_ = facility;
  syslog_ = true;
  // Redis's initServer: the pid in each message, the socket opened now.
  openlog(syslog_ident_.c_str(), LOG_PID | LOG_NDELAY | LOG_NOWAIT, facility);
}

void Logger::EnterChild() {
  role_ = 'C';
  if (!syslog_) return;
  // closelog forgets the descriptor number, which a file the child opens could reuse.
  closelog();
  openlog(syslog_ident_.c_str(), LOG_PID | LOG_NDELAY | LOG_NOWAIT, syslog_facility_);
}

void Logger::Log(LogLevel level, const char* format, ...) {
  if (!enabled(level)) return;
  static constexpr char kMarks[] = {'.', '-', '*', '#'};
  timeval tv{};
  gettimeofday(&tv, nullptr);
  tm local{};
  localtime_r(&tv.tv_sec, &local);
  char stamp[64];
  const std::size_t n = std::strftime(stamp, sizeof(stamp), "%d %b %Y %H:%M:%S", &local);
  std::fprintf(out_, "%d:%c %.*s.%03d %c ", static_cast<int>(getpid()), role_, static_cast<int>(n),
               stamp, static_cast<int>(tv.tv_usec / 1000), kMarks[static_cast<int>(level)]);
  va_list args;
  va_start(args, format);
  if (syslog_) {
    va_list copy;
    va_copy(copy, args);
    char message[kSyslogMaxLen];
    std::vsnprintf(message, sizeof(message), format, copy);
    va_end(copy);
    syslog(SyslogPriority(level), "%s", message);
  }
  std::vfprintf(out_, format, args);
  va_end(args);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void Logger::LogRaw(LogLevel level, std::string_view text) {
  if (!enabled(level)) return;
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
  if (syslog_) {
    syslog(SyslogPriority(level), "%.*s", static_cast<int>(std::min(text.size(), kSyslogMaxLen)),
           text.data());
  }
}

}  // namespace warden::server
