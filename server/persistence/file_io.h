// Whole-file reads and writes with errno results: the append-only file's manifest and the ACL
// file use them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warden::server {

// Appends the whole file at `path` to `out`; the errno of a failure.
std::optional<int> ReadFileBytes(const std::string& path, std::string& out);

// A whole file mapped read-only: a snapshot is read in place rather than copied onto the heap
// beside the data set it becomes.
class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  // The errno of a failure to open or map `path`.
  std::optional<int> Open(const std::string& path);
  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  void* map_ = nullptr;
};

// Writes all of `data` to `fd`; the errno of a failure, or 0. `written` counts what went in
// before a failure.
int WriteAll(int fd, std::string_view data, std::size_t* written = nullptr);

// Makes a rename or a new file in `dir` durable.
void SyncDir(const std::string& dir);

}  // namespace warden::server
