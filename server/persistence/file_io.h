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

// Writes all of `data` to `fd`; the errno of a failure, or 0. `written` counts what went in
// before a failure.
int WriteAll(int fd, std::string_view data, std::size_t* written = nullptr);

// Makes a rename or a new file in `dir` durable.
void SyncDir(const std::string& dir);

}  // namespace warden::server
