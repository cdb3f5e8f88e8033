// A whole data set in Redis 7.0's RDB file format (rdb.c's rdbSaveRio and rdbLoadRioWithLoading
// Ctx): "REDIS0010", the aux fields, the function libraries, each non-empty database's keys,
// EOF and the CRC64. The same bytes are a snapshot file (dump.rdb), an append-only directory's
// base file (aof-use-rdb-preamble), and, for the replication issue, a full sync's payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "storage/rdb/rdb_io.h"

namespace warden::server {

class ServerState;

struct RdbWriteOptions {
  bool aof_base = false;  // the aux field aof-base
  // The replication fields, written when a replication link gives them.
  bool with_replication = false;
  int repl_stream_db = 0;
  std::string repl_id;
  std::int64_t repl_offset = 0;
  // A filtered sync (REPLCONF rdb-filter-only): no keys, or no functions either.
  bool exclude_data = false;
  bool exclude_functions = false;
};

// Writes the whole data set as it is now. The caller checks w.ok().
void WriteRdb(storage::rdb::RdbWriter& w, const ServerState& server,
              const RdbWriteOptions& options);

// Writes the whole data set to `fd` (not synced); the errno of a failed write, or 0.
int WriteRdbToFd(const ServerState& server, int fd, const RdbWriteOptions& options);

// Writes the data set to `path` as Redis's rdbSave does: into temp-<pid>.rdb beside it,
// fsync'd, then renamed over it, so a crash at any point leaves the previous file whole. The
// error (Redis's log text) when it failed.
std::optional<std::string> SaveRdbFile(const ServerState& server, const std::string& path,
                                       const RdbWriteOptions& options);

struct RdbLoadOptions {
  // A master's load drops keys whose deadline has passed; an append-only base or a replica's
  // sync keeps them (they expire as usual afterwards).
  bool drop_expired = true;
  // DEBUG RELOAD MERGE (Redis's RDBFLAGS_ALLOW_DUP): a key or library already there is replaced
  // by the file's instead of failing the load.
  bool allow_duplicates = false;
};

struct RdbLoadResult {
  std::optional<std::string> error;
  // The error is about the header (signature, version): Redis's "Invalid argument" start failure.
  bool bad_header = false;
  // The data ended early (Redis's "Short read").
  bool short_read() const {
    return error.has_value() && error->find("Unexpected EOF") != std::string::npos;
  }
  std::size_t end = 0;  // the offset after the CRC: an old-style preamble's RESP tail starts here
  std::uint64_t keys_loaded = 0;
  std::uint64_t keys_expired = 0;
  std::int64_t ctime = 0;  // the aux field, 0 when absent
  bool has_repl_id = false;
  std::string repl_id;
  std::int64_t repl_offset = 0;
};

// Whether `data` starts as an RDB file does.
inline bool LooksLikeRdb(std::string_view data) { return data.substr(0, 5) == "REDIS"; }

// Loads `data` into the server's databases and function libraries, which should be empty: a
// key already there is an error (Redis's "Duplicated key"). On error what was loaded stays:
// the caller stops the start or empties the data set.
RdbLoadResult LoadRdb(ServerState& server, std::string_view data, const RdbLoadOptions& options);

}  // namespace warden::server
