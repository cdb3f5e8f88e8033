#include "server/blocking.h"

#include <algorithm>

#include "protocol/reply_writer.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/dispatcher.h"
#include "server/server_state.h"

namespace warden::server {

BlockingRegistry::BlockingRegistry(ServerState& server) : server_(server) {}
BlockingRegistry::~BlockingRegistry() = default;

BlockingRegistry::KeyMap& BlockingRegistry::keys_of(int db) {
  const auto index = static_cast<std::size_t>(db);
  if (index >= keys_.size()) {
    keys_.resize(index + 1);
    ready_sets_.resize(index + 1);
  }
  return keys_[index];
}

void BlockingRegistry::Block(Session& session, const CommandSpec& spec,
                             std::span<const std::string_view> args,
                             std::span<const std::string_view> keys, std::int64_t deadline_ms) {
  if (session.blocked) {
    kept_ = true;
    return;
  }
  auto owned = std::make_unique<Waiter>();
  Waiter* w = owned.get();
  w->session = &session;
  w->host = session.host;
  w->spec = &spec;
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
  w->stream_group = spec.handler == XreadgroupCommand;
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

namespace {

// A blocked command's reply under CLIENT REPLY OFF or SKIP goes where its immediate reply would
// have gone, and a SKIP ends with it.
void EndSilencedServe(Session& session, std::string& out, std::size_t mark) {
  if (session.reply_silence == 0) [[likely]]
    return;
  if (session.reply_silenced()) out.resize(mark);
  session.reply_silence &= static_cast<std::uint8_t>(~Session::kReplySkip);
}

}  // namespace

void BlockingRegistry::Retry(ServerState& server, Waiter& waiter, std::string_view key) {
  const CommandSpec* spec = waiter.spec;
  std::string& out = waiter.host->reply_buffer();
  const std::size_t mark = out.size();
  protocol::ReplyWriter writer(&out, waiter.session->resp);
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
  Session& client = *waiter.session;
  const bool tracked = client.tracking != 0;
  Tracking::Saved saved;
  if (tracked) [[unlikely]]
    saved = server.tracking.Enter(client);
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
  if (!kept_) EndSilencedServe(client, out, mark);
  if (tracked) [[unlikely]]
    server.tracking.Leave(client, std::move(saved));
  if (kept_) return;
  RecordServedBlockedCommand(server, *waiter.session, *spec, waiter.views,
                             server.clock.MonotonicUs() - start_us,
                             server.command_stats.total_error_replies() != errors_before);
  // Served: what it wrote (BLMOVE's destination) may wake others, in this same ServeReady.
  if ((spec->flags & (kWrite | kNoWake)) == kWrite) SignalKeys(waiter.db, *spec, waiter.views);
  Finish(&waiter, End::kServed);
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

void BlockingRegistry::Finish(Waiter* w, End end) {
  BlockedClientHost* host = w->host;
  if (end != End::kServed) {
    std::string& out = host->reply_buffer();
    const std::size_t mark = out.size();
    protocol::ReplyWriter writer(&out, w->session->resp);
    // As Redis's addReplyError to another client: the error counts in INFO errorstats and
    // total_error_replies, and as a failure of the command that wrote it (CLIENT UNBLOCK).
    writer.set_error_listener(&server_.command_stats);
    if (end == End::kUnblockedError || end == End::kForcedError) {
      writer.Error(error_text_);
    } else {
      writer.NullArray();
    }
    EndSilencedServe(*w->session, out, mark);
  }
  // Redis's CLIENT UNBLOCK counts the blocked command as failed whichever the reply
  // (updateStatsOnUnblock with had_errors set) and offers it to the slow log; a deadline that
  // passes counts nothing.
  if (end == End::kUnblocked || end == End::kUnblockedError) {
    RecordServedBlockedCommand(server_, *w->session, *w->spec, w->views, 0, /*failed=*/true);
  }
  Unregister(w);
  waiters_.erase(w->session->id);
  host->Unblocked();
}

std::size_t BlockingRegistry::ExpireTimeouts(std::int64_t now_ms) {
  std::size_t n = 0;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    Finish(deadlines_.begin()->second, End::kTimedOut);
    ++n;
  }
  return n;
}

bool BlockingRegistry::Unblock(std::uint64_t id, bool with_error, std::string_view error) {
  const auto it = waiters_.find(id);
  if (it == waiters_.end()) return false;
  error_text_ = error;
  Finish(it->second.get(), with_error ? End::kUnblockedError : End::kUnblocked);
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
  error_text_ = error;
  for (const std::uint64_t id : ids) Finish(waiters_.at(id).get(), End::kForcedError);
  error_text_ = kUnblockedByCommand;
}

void BlockingRegistry::Remove(const Session& session) {
  if (!session.blocked) return;
  const auto it = waiters_.find(session.id);
  if (it == waiters_.end()) return;
  Unregister(it->second.get());
  waiters_.erase(it);
}

}  // namespace warden::server
