// DEBUG SNAPSHOT SAVE|LOAD|DROP|LIST: named in-memory copies of every database, so a test suite
// resets its data between tests in one command (storage/snapshot.h makes the copies).
//
// LOAD does to the rest of the server what FLUSHALL does, and a little more: clients watching a
// key that was there, or that the snapshot brings back, see their EXEC fail (as Redis's
// touchAllWatchedKeysInDb for SWAPDB); clients blocked on any key get a chance at the new data;
// large values of the replaced data are freed in slices. Like FLUSHALL and Redis's own RDB load,
// it publishes no keyspace events, not even `expired` for the keys it leaves out because their
// deadline has passed (Redis's rdbLoad skips those silently too).
#include <cinttypes>
#include <cstdio>
#include <string>

#include "server/commands/commands.h"
#include "server/debug/debug_controls.h"
#include "server/errors.h"

namespace warden::server {
namespace {

std::size_t SnapshotBytes(const ServerState& server, std::string_view except) {
  std::size_t n = 0;
  for (const auto& [name, snap] : server.debug->snapshots) {
    if (name != except) n += snap->bytes();
  }
  return n;
}

void SnapshotSave(CommandContext& ctx, std::string_view name) {
  ServerState& server = ctx.server;
  const Config& config = server.config;
  // Saving under a name in use replaces that snapshot: it counts against neither cap.
  const bool replacing = server.debug->snapshots.find(name) != server.debug->snapshots.end();
  if (!replacing && config.snapshot_max_count > 0 &&
      server.debug->snapshots.size() >= static_cast<std::size_t>(config.snapshot_max_count)) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "ERR snapshot limit reached: %" PRId64
                  " snapshots (snapshot-max-count); DROP one first",
                  config.snapshot_max_count);
    ctx.reply.Error(text);
    return;
  }
  const std::size_t others = SnapshotBytes(server, name);
  const auto cap = static_cast<std::size_t>(config.snapshot_max_bytes);
  if (cap > 0 && others >= cap) {
    char text[200];
    std::snprintf(text, sizeof(text),
                  "ERR snapshots already use %zu bytes of snapshot-max-bytes (%zu); DROP one first",
                  others, cap);
    ctx.reply.Error(text);
    return;
  }
  std::unique_ptr<storage::Snapshot> snap =
      storage::Snapshot::Take(server.dbs, ctx.now_ms, cap > 0 ? cap - others : 0);
  if (snap == nullptr) {
    char text[200];
    std::snprintf(text, sizeof(text),
                  "ERR snapshot needs more than the %zu bytes left of snapshot-max-bytes (%zu)",
                  cap - others, cap);
    ctx.reply.Error(text);
    return;
  }
  auto it = server.debug->snapshots.find(name);
  if (it != server.debug->snapshots.end()) {
    it->second = std::move(snap);
  } else {
    server.debug->snapshots.emplace(std::string(name), std::move(snap));
  }
  ctx.reply.Ok();
}

void NoSuchSnapshot(CommandContext& ctx, std::string_view name) {
  ctx.reply.Error({"ERR no such snapshot '", errors::CString(name), "'"});
}

void SnapshotLoad(CommandContext& ctx, std::string_view name) {
  ServerState& server = ctx.server;
  const auto it = server.debug->snapshots.find(name);
  if (it == server.debug->snapshots.end()) {
    NoSuchSnapshot(ctx, name);
    return;
  }
  // Watchers of keys the flush removes are told here; those of keys the snapshot brings back
  // hear it from the keyspace's observer as each is stored.
  for (int db = 0; db < server.dbs.count(); ++db) server.watched_keys.TouchDb(db, -1, ctx.now_ms);
  server.tracking.Flushed();
  it->second->RestoreInto(server.dbs, ctx.now_ms);
  server.active_expiry.ResetStats();
  for (int db = 0; db < server.dbs.count(); ++db) server.blocking.SignalDb(db);
  ctx.reply.Ok();
}

void SnapshotDrop(CommandContext& ctx, std::string_view name) {
  const auto it = ctx.server.debug->snapshots.find(name);
  if (it == ctx.server.debug->snapshots.end()) {
    ctx.reply.Integer(0);
    return;
  }
  ctx.server.debug->snapshots.erase(it);
  ctx.reply.Integer(1);
}

// One entry per snapshot, by name: name, keys, bytes and when it was taken (ms on the server's
// clock), as field/value pairs.
void SnapshotList(CommandContext& ctx) {
  ctx.reply.ArrayHeader(ctx.server.debug->snapshots.size());
  for (const auto& [name, snap] : ctx.server.debug->snapshots) {
    ctx.reply.ArrayHeader(8);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(name);
    ctx.reply.Bulk("keys");
    ctx.reply.Integer(static_cast<std::int64_t>(snap->keys()));
    ctx.reply.Bulk("bytes");
    ctx.reply.Integer(static_cast<std::int64_t>(snap->bytes()));
    ctx.reply.Bulk("time-ms");
    ctx.reply.Integer(snap->taken_ms());
  }
}

}  // namespace

void DebugSnapshot(CommandContext& ctx) {
  const std::string_view action = ctx.arg(2);
  if (ctx.argc() == 3 && ArgIs(action, "list")) {
    SnapshotList(ctx);
  } else if (ctx.argc() == 4 && ArgIs(action, "save")) {
    SnapshotSave(ctx, ctx.arg(3));
  } else if (ctx.argc() == 4 && ArgIs(action, "load")) {
    SnapshotLoad(ctx, ctx.arg(3));
  } else if (ctx.argc() == 4 && ArgIs(action, "drop")) {
    SnapshotDrop(ctx, ctx.arg(3));
  } else {
    ctx.reply.Error(errors::kSyntax);
  }
}

}  // namespace warden::server
