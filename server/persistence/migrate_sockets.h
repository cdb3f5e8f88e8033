// MIGRATE's connections to its targets, kept between calls as Redis's migrateCachedSocket
// (cluster.c): one per host:port, reused for 10 seconds after its last use, at most 64, with the
// database it last SELECTed so that a MIGRATE to the same database sends no SELECT. The
// exchange on a socket is synchronous and bounded by MIGRATE's timeout at each wait, as
// Redis's syncWrite and syncReadLine are.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "storage/random.h"

namespace warden::server {

class MigrateSocket {
 public:
  explicit MigrateSocket(int fd) : fd_(fd) {}
  ~MigrateSocket();
  MigrateSocket(const MigrateSocket&) = delete;
  MigrateSocket& operator=(const MigrateSocket&) = delete;

  // All of `data`, each wait at most `timeout_ms`.
  bool Write(std::string_view data, int timeout_ms);
  // One reply line without its CRLF. A wait that ran out sets timed_out().
  bool ReadLine(std::string& line, int timeout_ms);
  bool timed_out() const { return timed_out_; }

  // The database the last successful MIGRATE selected; -1 when unknown (SELECT is sent).
  std::int64_t last_dbid = -1;
  std::int64_t last_use_ms = 0;

 private:
  friend class MigrateSockets;
  bool Wait(short events, int timeout_ms);

  int fd_;
  std::string buffer_;
  bool timed_out_ = false;
};

class MigrateSockets {
 public:
  // Redis's MIGRATE_SOCKET_CACHE_ITEMS and MIGRATE_SOCKET_CACHE_TTL.
  static constexpr std::size_t kMaxSockets = 64;
  static constexpr std::int64_t kIdleMs = 10'000;

  explicit MigrateSockets(storage::Random& random) : random_(random) {}

  // The cached socket to host:port, or a new one connected within `timeout_ms` (a full cache
  // first closes one at random, as Redis does); nullptr if the connection failed.
  MigrateSocket* Get(std::string_view host, std::string_view port, int timeout_ms,
                     std::int64_t now_ms);
  // Forgets host:port's socket, closing it; the next Get connects anew and SELECTs.
  void Close(std::string_view host, std::string_view port);
  // The cron: closes the sockets unused for kIdleMs.
  void CloseIdle(std::int64_t now_ms);
  std::size_t size() const { return sockets_.size(); }

 private:
  static std::string Key(std::string_view host, std::string_view port);

  storage::Random& random_;
  std::unordered_map<std::string, MigrateSocket> sockets_;
};

}  // namespace warden::server
