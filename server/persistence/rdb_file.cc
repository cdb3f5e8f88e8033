#include "server/persistence/rdb_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "server/log.h"
#include "server/persistence/file_io.h"
#include "server/scripting/script_engine.h"
#include "server/server_state.h"
#include "server/stats/memory_meter.h"
#include "server/version.h"
#include "storage/rdb/crc64.h"
#include "storage/rdb/value_codec.h"

namespace warden::server {

namespace rdb = storage::rdb;

namespace {

void AuxField(rdb::RdbWriter& w, std::string_view key, std::string_view value) {
  w.Byte(rdb::kOpAux);
  w.String(key);
  w.String(value);
}

void AuxInt(rdb::RdbWriter& w, std::string_view key, std::int64_t value) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  AuxField(w, key, std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

std::string_view Dir(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string_view(".")
                                    : std::string_view(path).substr(0, slash);
}

}  // namespace

void WriteRdb(rdb::RdbWriter& w, const ServerState& server, const RdbWriteOptions& options) {
  char magic[16];
  std::snprintf(magic, sizeof magic, "REDIS%04d", rdb::kRdbVersion);
  w.Raw(magic);
  // rdbSaveInfoAuxFields, in its order.
  AuxField(w, "redis-ver", kRedisVersion);
  AuxInt(w, "redis-bits", 64);
  AuxInt(w, "ctime", server.clock.NowMs() / 1000);
  AuxInt(w, "used-mem", static_cast<std::int64_t>(UsedMemory(server)));
  if (options.with_replication) {
    AuxInt(w, "repl-stream-db", options.repl_stream_db);
    AuxField(w, "repl-id", options.repl_id);
    AuxInt(w, "repl-offset", options.repl_offset);
  }
  AuxInt(w, "aof-base", options.aof_base ? 1 : 0);
  for (const auto& [name, library] : server.scripts->libraries()) {
    if (options.exclude_functions) break;
    w.Byte(rdb::kOpFunction2);
    w.String(library.code);
  }
  const storage::AccessClock& clock = server.dbs.access_clock();
  const std::string& policy = server.config.maxmemory_policy;
  const bool save_lru = policy.find("lru") != std::string::npos;
  const bool save_lfu = policy.find("lfu") != std::string::npos;
  for (int db = 0; db < server.dbs.count() && !options.exclude_data; ++db) {
    const storage::Keyspace& keyspace = server.dbs.db(db);
    if (keyspace.size() == 0) continue;
    w.Byte(rdb::kOpSelectDb);
    w.Length(static_cast<std::uint64_t>(db));
    w.Byte(rdb::kOpResizeDb);
    w.Length(keyspace.size());
    w.Length(keyspace.volatile_size());
    const std::int64_t delay_us = server.config.rdb_key_save_delay;
    keyspace.ForEach([&](const storage::Entry& e) {
      if (delay_us > 0) usleep(static_cast<useconds_t>(delay_us));
      if (e.has_deadline()) {
        w.Byte(rdb::kOpExpireTimeMs);
        w.Millis(e.deadline_ms());
      }
      // rdbSaveKeyValuePair: the idle seconds under an LRU policy, the decayed counter under
      // an LFU one, so eviction picks up where it left off.
      if (save_lru) {
        w.Byte(rdb::kOpIdle);
        w.Length(static_cast<std::uint64_t>(
            storage::AccessClock::IdleSeconds(e.access_stamp(), clock.now)));
      } else if (save_lfu) {
        w.Byte(rdb::kOpFreq);
        w.Byte(static_cast<std::uint8_t>(clock.LfuCounter(e.access_stamp())));
      }
      const rdb::RdbType type = rdb::TypeFor(e);
      w.Byte(type);
      w.String(e.key());
      rdb::WriteValueBody(w, e, type);
    });
  }
  w.Byte(rdb::kOpEof);
  const std::uint64_t crc = server.config.rdbchecksum ? w.crc() : 0;
  w.U64LE(crc);
}

int WriteRdbToFd(const ServerState& server, int fd, const RdbWriteOptions& options) {
  rdb::RdbWriter w(server.config.rdbcompression);
  int write_errno = 0;
  w.set_sink([&](std::string_view bytes) {
    write_errno = WriteAll(fd, bytes);
    return write_errno == 0;
  });
  WriteRdb(w, server, options);
  w.Flush();
  return w.ok() ? 0 : (write_errno != 0 ? write_errno : EIO);
}

std::optional<std::string> SaveRdbFile(const ServerState& server, const std::string& path,
                                       const RdbWriteOptions& options) {
  const std::string dir(Dir(path));
  const std::string temp_name = "temp-" + std::to_string(getpid()) + ".rdb";
  const std::string temp = dir + "/" + temp_name;
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return "Failed opening the temp RDB file " + temp_name + " (in server root dir " + dir +
           ") for saving: " + std::strerror(errno);
  }
  std::optional<std::string> error;
  if (const int err = WriteRdbToFd(server, fd, options); err != 0) {
    error = std::string("Write error saving DB on disk(write): ") + std::strerror(err);
  } else if (fsync(fd) != 0) {
    error = std::string("Write error saving DB on disk(fsync): ") + std::strerror(errno);
  }
  close(fd);
  if (!error && rename(temp.c_str(), path.c_str()) != 0) {
    error = "Error moving temp DB file " + temp_name + " on the final destination " +
            path.substr(path.rfind('/') + 1) + " (in server root dir " + dir +
            "): " + std::strerror(errno);
  }
  if (error) {
    unlink(temp.c_str());
    return error;
  }
  SyncDir(dir);
  return std::nullopt;
}

namespace {

// Redis's rdbReportCorruptRDB text, without the source line it names.
std::string Corrupt(const rdb::RdbReader& r, std::string_view what) {
  return "Internal error in RDB reading offset " + std::to_string(r.offset()) + " -> " +
         std::string(what);
}

std::int64_t ParseAuxInt(std::string_view v) {
  std::int64_t n = 0;
  std::from_chars(v.data(), v.data() + v.size(), n);
  return n;
}

}  // namespace

RdbLoadResult LoadRdb(ServerState& server, std::string_view data, const RdbLoadOptions& options) {
  RdbLoadResult result;
  rdb::RdbReader r(data);
  std::string_view header;
  if (!r.Raw(9, header)) {
    result.error = Corrupt(r, "Unexpected EOF reading RDB file");
    return result;
  }
  if (header.substr(0, 5) != "REDIS") {
    result.error = "Wrong signature trying to load DB from file";
    result.bad_header = true;
    return result;
  }
  int version = 0;
  const auto [vend, vec] = std::from_chars(header.data() + 5, header.data() + 9, version);
  if (vec != std::errc() || vend != header.data() + 9 || version < 1 ||
      version > rdb::kRdbVersion) {
    result.error = "Can't handle RDB format version " + std::to_string(version);
    result.bad_header = true;
    return result;
  }
  const std::int64_t now_ms = server.clock.NowMs();
  // Keys stored now are stamped now: before the first command nothing has set the clock.
  server.dbs.access_clock().Set(now_ms, true);
  storage::Keyspace* keyspace = &server.dbs.db(0);
  int db_index = 0;
  std::int64_t deadline = storage::kNoDeadline;
  bool has_deadline = false;
  std::uint64_t reserve_budget = data.size() / 3;
  // The next key's IDLE or FREQ, applied as Redis's objectSetLRUOrLFU does: under the policy
  // that uses it.
  std::int64_t lru_idle = -1;
  std::int64_t lfu_freq = -1;
  // From the policy and the time, not the access clock: at start-up it is not set yet.
  const bool lfu = server.config.maxmemory_policy.find("lfu") != std::string::npos;
  const auto minutes =
      static_cast<std::uint32_t>(static_cast<std::uint64_t>(now_ms) / 60000) & 0xFFFF;
  std::string key_scratch;
  std::string scratch;
  std::string value_scratch;
  int empty_keys_logged = 0;
  // The CRC is taken as the records are read, a chunk at a time while its bytes are still in
  // cache, rather than in a second pass over the whole file at the end.
  std::uint64_t crc = 0;
  std::size_t crc_done = 0;
  constexpr std::size_t kCrcChunk = 1 << 16;
  for (;;) {
    if (r.offset() - crc_done >= kCrcChunk) {
      crc = rdb::Crc64(crc, data.substr(crc_done, r.offset() - crc_done));
      crc_done = r.offset();
    }
    std::uint8_t type = 0;
    if (!r.Byte(type)) {
      result.error = Corrupt(r, "Unexpected EOF reading RDB file");
      return result;
    }
    std::string_view a;
    std::string_view b;
    std::uint64_t n = 0;
    std::uint64_t m = 0;
    switch (type) {
      case rdb::kOpExpireTime: {
        // rdbLoadTime: a signed 32-bit count of seconds.
        std::uint32_t seconds = 0;
        if (!r.U32LE(seconds)) break;
        deadline = static_cast<std::int64_t>(static_cast<std::int32_t>(seconds)) * 1000;
        has_deadline = deadline != -1;
        continue;
      }
      case rdb::kOpExpireTimeMs:
        if (!r.Millis(deadline)) break;
        // -1 is Redis's own "no deadline"; anything else, 0 included, is a deadline.
        has_deadline = deadline != -1;
        continue;
      case rdb::kOpFreq: {
        std::uint8_t freq = 0;
        if (!r.Byte(freq)) break;
        lfu_freq = freq;
        continue;
      }
      case rdb::kOpIdle:
        if (!r.Length(n)) break;
        lru_idle = static_cast<std::int64_t>(std::min<std::uint64_t>(n, INT32_MAX));
        continue;
      case rdb::kOpEof: {
        if (version >= 5) {
          const std::uint64_t computed =
              rdb::Crc64(crc, data.substr(crc_done, r.offset() - crc_done));
          std::uint64_t stored = 0;
          if (!r.U64LE(stored)) {
            result.error = Corrupt(r, "Unexpected EOF reading RDB file");
            return result;
          }
          if (stored == 0) {
            if (server.log != nullptr) {
              server.log->Log(LogLevel::kWarning,
                              "RDB file was saved with checksum disabled: no check performed.");
            }
          } else if (server.config.rdbchecksum && stored != computed) {
            if (server.log != nullptr) {
              server.log->Log(LogLevel::kWarning,
                              "Wrong RDB checksum expected: (%llx) but got (%llx). Aborting now.",
                              static_cast<unsigned long long>(computed),
                              static_cast<unsigned long long>(stored));
            }
            result.error = Corrupt(r, "RDB CRC error");
            return result;
          }
        }
        result.end = r.offset();
        return result;
      }
      case rdb::kOpSelectDb:
        if (!r.Length(n)) break;
        if (n >= static_cast<std::uint64_t>(server.dbs.count())) {
          result.error =
              "FATAL: Data file was created with a Redis server configured to handle "
              "more than " +
              std::to_string(server.dbs.count()) + " databases. Exiting";
          return result;
        }
        db_index = static_cast<int>(n);
        keyspace = &server.dbs.db(db_index);
        continue;
      case rdb::kOpResizeDb:
        if (!r.Length(n) || !r.Length(m)) break;
        // Sized for the keys announced, within what the rest of the file could hold (each key
        // takes at least three bytes), and within one budget for every database: a hostile
        // file repeating RESIZEDB cannot size sixteen tables each as large as itself.
        n = std::min<std::uint64_t>({n, r.left() / 3, reserve_budget});
        keyspace->Reserve(n);
        reserve_budget -= n;
        continue;
      case rdb::kOpAux:
        if (!r.String(a, key_scratch) || !r.String(b, scratch)) break;
        if (a == "ctime") {
          result.ctime = ParseAuxInt(b);
        } else if (a == "repl-id") {
          result.has_repl_id = true;
          result.repl_id.assign(b);
        } else if (a == "repl-offset") {
          result.repl_offset = ParseAuxInt(b);
        } else if (a == "redis-ver" && server.log != nullptr) {
          server.log->Log(LogLevel::kNotice, "Loading RDB produced by version %.*s",
                          static_cast<int>(b.size()), b.data());
        } else if (a == "ctime" && server.log != nullptr) {
          // Logged by the caller with the load time.
        }
        continue;
      case rdb::kOpModuleAux:
        result.error = Corrupt(r, "The RDB file contains AUX module data I can't load");
        return result;
      case rdb::kOpFunction2: {
        if (!r.String(a, scratch)) break;
        std::string error;
        if (!server.scripts->LoadLibrary(a, options.allow_duplicates, false, error)) {
          result.error = "Failed loading library, " + error;
          return result;
        }
        continue;
      }
      case rdb::kOpFunction: {
        // 7.0's release candidates: name, engine, optional description, code without its #!.
        std::string_view name;
        std::string_view engine;
        std::string name_scratch;
        std::string engine_scratch;
        if (!r.String(name, name_scratch) || !r.String(engine, engine_scratch) || !r.Length(n))
          break;
        if (n != 0 && !r.String(a, key_scratch)) break;
        if (!r.String(b, scratch)) break;
        const std::string code =
            "#!" + std::string(engine) + " name=" + std::string(name) + "\n" + std::string(b);
        std::string error;
        if (!server.scripts->LoadLibrary(code, false, false, error)) {
          result.error = "Failed loading library, " + error;
          return result;
        }
        continue;
      }
      default: {
        if (!rdb::KnownType(type)) {
          result.error = Corrupt(r, "Unknown RDB encoding type " + std::to_string(type));
          return result;
        }
        std::string_view key;
        if (!r.String(key, key_scratch)) break;
        if (key.size() > storage::Keyspace::kMaxKeyLength) {
          result.error = Corrupt(r, "Key too long");
          return result;
        }
        // `key` points into the data or into key_scratch, which nothing else uses until the
        // next key.
        const std::string_view stable_key = key;
        if (options.allow_duplicates) {
          if (storage::Entry* old = keyspace->Find(stable_key, now_ms)) keyspace->Erase(old);
        }
        if (keyspace->Peek(stable_key) != nullptr) {
          if (server.log != nullptr) {
            server.log->Log(LogLevel::kWarning, "RDB has duplicated key '%.*s' in DB %d",
                            static_cast<int>(stable_key.size()), stable_key.data(), db_index);
          }
          result.error = "Duplicated key found in RDB file";
          return result;
        }
        storage::Entry* stored = nullptr;
        // A key already expired is read into a keyspace of its own and dropped there: erasing
        // it from the database could shrink the table the load sized.
        const bool expired = options.drop_expired && has_deadline && deadline < now_ms;
        // warden's entries spell "no deadline" as 0: a kept deadline at or before the epoch is
        // 1 ms after it, as much in the past.
        if (has_deadline && deadline <= 0) deadline = 1;
        if (!has_deadline) deadline = storage::kNoDeadline;
        std::optional<storage::Keyspace> discard;
        if (expired)
          discard.emplace(server.dbs.random(), &server.dbs.pool(), &server.dbs.reclaimer());
        storage::Keyspace& target = expired ? *discard : *keyspace;
        const rdb::LoadStatus status =
            rdb::ReadValue(r, type, target, stable_key, expired ? storage::kNoDeadline : deadline,
                           server.config.encoding, &stored);
        deadline = storage::kNoDeadline;
        has_deadline = false;
        if (status == rdb::LoadStatus::kStored) {
          if (lfu && lfu_freq >= 0) {
            storage::Keyspace::SetAccessStamp(
                stored, (minutes << 8) | static_cast<std::uint32_t>(lfu_freq));
          } else if (!lfu && lru_idle >= 0) {
            storage::Keyspace::SetAccessStamp(
                stored, storage::AccessClock::StampAt(now_ms - lru_idle * 1000));
          }
        }
        lru_idle = -1;
        lfu_freq = -1;
        if (status == rdb::LoadStatus::kBad) {
          result.error =
              Corrupt(r, r.hit_end() ? "Unexpected EOF reading RDB file" : "Bad data format");
          return result;
        }
        if (status == rdb::LoadStatus::kEmpty) {
          if (server.log != nullptr && empty_keys_logged++ < 10) {
            server.log->Log(LogLevel::kWarning, "rdbLoadObject skipping empty key: %.*s",
                            static_cast<int>(stable_key.size()), stable_key.data());
          }
          continue;
        }
        if (expired) {
          discard->Erase(stored);
          ++result.keys_expired;
          continue;
        }
        ++result.keys_loaded;
        continue;
      }
    }
    result.error = Corrupt(r, r.hit_end() ? "Unexpected EOF reading RDB file" : "Bad data format");
    return result;
  }
}

}  // namespace warden::server
