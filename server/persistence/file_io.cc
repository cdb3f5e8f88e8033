#include "server/persistence/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace warden::server {

std::optional<int> ReadFileBytes(const std::string& path, std::string& out) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st {};
  if (fstat(fd, &st) == 0) out.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return err;
    }
    if (n == 0) break;
    out.append(chunk, static_cast<std::size_t>(n));
  }
  close(fd);
  return std::nullopt;
}

int WriteAll(int fd, std::string_view data, std::size_t* written) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
    if (written != nullptr) *written += static_cast<std::size_t>(n);
  }
  return 0;
}

void SyncDir(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace warden::server
