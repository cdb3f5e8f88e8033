#include "server/blocking.h"

#include <algorithm>

#include "protocol/reply_writer.h"
#include "server/command_table.h"
#include "server/dispatcher.h"
#include "server/server_state.h"

namespace warden::server {

BlockingRegistry::BlockingRegistry() = default;
BlockingRegistry::~BlockingRegistry() = default;

BlockingRegistry::KeyMap& BlockingRegistry::keys_of(int db) {
  const auto index = static_cast<std::size_t>(db);
  if (index >= keys_.size()) {
    keys_.resize(index + 1);
    ready_sets_.resize(index + 1);
  }
  return keys_[index];
}

void BlockingRegistry::Block(Session& session, std::span<const std::string_view> args,
                             std::span<const std::string_view> keys, std::int64_t deadline_ms) {
  if (session.blocked) {
    kept_ = true;
    return;
  }
  auto owned = std::make_unique<Waiter>();
  Waiter* w = owned.get();
  w->session = &session;
  w->host = session.host;
  w->db = session.db;
  w->args.assign(args.begin(), args.end());
  w->views.assign(w->args.begin(), w->args.end());
  KeyMap& map = keys_of(w->db);
  for (std::string_view key : keys) {
    // Keys are among the arguments: point into the copy.
    const auto at = std::find(args.begin(), args.end(), key);
    const std::string_view own = w->views[static_cast<std::size_t>(at - args.begin())];
    if (std::find(w->keys.begin(), w->keys.end(), own) != w->keys.end()) continue;
    w->keys.push_back(own);
    auto it = map.find(own);
    if (it == map.end()) it = map.emplace(std::string(own), Queue()).first;
    w->places.push_back(it->second.insert(it->second.end(), w));
  }
  if (deadline_ms != 0) {
    w->deadline = deadlines_.emplace(deadline_ms, w);
    w->has_deadline = true;
  }
  const std::string_view name = w->views[0];
  w->stream_group = name.size() == 10 && (name[0] == 'x' || name[0] == 'X') &&
                    FindTopLevelCommand(name) == FindTopLevelCommand("xreadgroup");
  if (w->stream_group) ++stream_group_waiters_;
  session.blocked = true;
  waiters_.emplace(session.id, std::move(owned));
}

void BlockingRegistry::SignalKey(int db, std::string_view key) {
  if (waiters_.empty()) return;
  KeyMap& map = keys_of(db);
  if (map.find(key) == map.end()) return;
  ReadySet& set = ready_sets_[static_cast<std::size_t>(db)];
  if (set.find(key) != set.end()) return;
  set.emplace(key);
  ready_.emplace_back(db, std::string(key));
}

void BlockingRegistry::SignalKeys(int db, const CommandSpec& spec,
                                  std::span<const std::string_view> args) {
  if (waiters_.empty() || spec.first_key <= 0) return;
  const int argc = static_cast<int>(args.size());
  const int last = spec.last_key < 0 ? argc + spec.last_key : std::min(spec.last_key, argc - 1);
  for (int i = spec.first_key; i <= last; i += std::max(spec.key_step, 1)) {
    SignalKey(db, args[static_cast<std::size_t>(i)]);
  }
}

void BlockingRegistry::SignalDb(int db) {
  if (waiters_.empty()) return;
  // Copied first: SignalKey may grow keys_.
  std::vector<std::string> keys;
  for (const auto& [key, queue] : keys_of(db)) keys.push_back(key);
  for (const std::string& key : keys) SignalKey(db, key);
}

void BlockingRegistry::ServeReady(ServerState& server) {
  std::vector<std::pair<int, std::string>> batch;
  while (!ready_.empty()) {
    batch.swap(ready_);
    ready_.clear();
    for (ReadySet& set : ready_sets_) set.clear();
    for (const auto& [db, key] : batch) {
      KeyMap& map = keys_of(db);
      const auto it = map.find(key);
      if (it == map.end()) continue;
      // Oldest first, and only while the key has something: one push among ten thousand
      // waiters costs one retry. A retry unregisters at most its own waiter, so the next
      // position stays valid; after the last one the queue itself may be gone.
      Queue& queue = it->second;
      for (auto pos = queue.begin(); pos != queue.end();) {
        const bool present =
            server.dbs.db(db).Find(key, server.NowMs(), storage::Touch::kNo) != nullptr;
        if (!present && stream_group_waiters_ == 0) break;
        Waiter* w = *pos++;
        const bool last = pos == queue.end();
        if (present || w->stream_group) Retry(server, *w, key);
        if (last) break;
      }
    }
    batch.clear();
  }
}

void BlockingRegistry::Retry(ServerState& server, Waiter& waiter, std::string_view key) {
  const CommandSpec* spec = FindTopLevelCommand(waiter.views[0]);
  if (spec == nullptr || spec->handler == nullptr) return;
  protocol::ReplyWriter writer(&waiter.host->reply_buffer(), waiter.session->resp);
  writer.set_error_listener(&server.command_stats);
  CommandContext ctx{server, *waiter.session, writer, waiter.views, *spec, server.NowMs()};
  SetAccessClock(server, *waiter.session, *spec, ctx.now_ms);
  retry_key_ = key;
  retrying_ = true;
  kept_ = false;
  const std::uint64_t errors_before = server.command_stats.total_error_replies();
  const std::int64_t start_us = server.clock.MonotonicUs();
  const std::uint64_t changes = server.dbs.changes();
  server.propagation.ClearReplacement();
  spec->handler(ctx);
  // Served, the command is written as what it did (Redis writes LPOP for BLPOP and so on).
  if (server.propagation.active()) [[unlikely]] {
    if (server.dbs.changes() != changes) {
      server.propagation.AddCommand(waiter.db, waiter.views, server.call.depth + 1);
    }
    if (server.call.depth == 0) server.propagation.EndCommand();
  }
  retrying_ = false;
  retry_key_ = {};
  if (kept_) return;
  RecordServedBlockedCommand(server, *waiter.session, *spec, waiter.views,
                             server.clock.MonotonicUs() - start_us,
                             server.command_stats.total_error_replies() != errors_before);
  // Served: what it wrote (BLMOVE's destination) may wake others, in this same ServeReady.
  if ((spec->flags & (kWrite | kNoWake)) == kWrite) SignalKeys(waiter.db, *spec, waiter.views);
  Finish(&waiter, false, false);
}

void BlockingRegistry::Unregister(Waiter* w) {
  KeyMap& map = keys_of(w->db);
  for (std::size_t i = 0; i < w->keys.size(); ++i) {
    const auto it = map.find(w->keys[i]);
    it->second.erase(w->places[i]);
    if (it->second.empty()) map.erase(it);
  }
  if (w->has_deadline) deadlines_.erase(w->deadline);
  if (w->stream_group) --stream_group_waiters_;
  w->session->blocked = false;
}

void BlockingRegistry::Finish(Waiter* w, bool timed_out_reply, bool error_reply) {
  BlockedClientHost* host = w->host;
  if (timed_out_reply || error_reply) {
    protocol::ReplyWriter writer(&host->reply_buffer(), w->session->resp);
    if (error_reply) {
      writer.Error(error_text_);
    } else {
      writer.NullArray();
    }
  }
  Unregister(w);
  waiters_.erase(w->session->id);
  host->Unblocked();
}

std::size_t BlockingRegistry::ExpireTimeouts(std::int64_t now_ms) {
  std::size_t n = 0;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    Finish(deadlines_.begin()->second, true, false);
    ++n;
  }
  return n;
}

bool BlockingRegistry::Unblock(std::uint64_t id, bool with_error, std::string_view error) {
  const auto it = waiters_.find(id);
  if (it == waiters_.end()) return false;
  error_text_ = error;
  Finish(it->second.get(), !with_error, with_error);
  error_text_ = kUnblockedByCommand;
  return true;
}

void BlockingRegistry::DisconnectAll(std::string_view error) {
  std::vector<std::uint64_t> ids;
  ids.reserve(waiters_.size());
  for (const auto& [id, waiter] : waiters_) {
    waiter->session->close_after_reply = true;
    ids.push_back(id);
  }
  for (const std::uint64_t id : ids) Unblock(id, true, error);
}

void BlockingRegistry::Remove(const Session& session) {
  if (!session.blocked) return;
  const auto it = waiters_.find(session.id);
  if (it == waiters_.end()) return;
  Unregister(it->second.get());
  waiters_.erase(it);
}

}  // namespace warden::server
