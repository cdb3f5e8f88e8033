#include "server/persistence/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace warden::server {

MappedFile::~MappedFile() {
  if (map_ != nullptr) munmap(map_, size_);
}

std::optional<int> MappedFile::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return err;
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ == 0) {
    close(fd);
    data_ = "";
    return std::nullopt;
  }
  void* map = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  close(fd);
  if (map == MAP_FAILED) {
    size_ = 0;
    return err;
  }
  // Read front to back once: the kernel reads ahead and drops pages behind.
  madvise(map, size_, MADV_SEQUENTIAL);
  map_ = map;
  data_ = static_cast<const char*>(map);
  return std::nullopt;
}

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
