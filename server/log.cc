#include "server/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <ctime>

namespace warden::server {

LogLevel ParseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "verbose") return LogLevel::kVerbose;
  if (name == "warning") return LogLevel::kWarning;
  if (name == "nothing") return LogLevel::kNothing;
  return LogLevel::kNotice;
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
  std::vfprintf(out_, format, args);
  va_end(args);
  std::fputc('\n', out_);
  std::fflush(out_);
}

}  // namespace warden::server
