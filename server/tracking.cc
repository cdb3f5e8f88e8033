#include "server/tracking.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "server/blocking.h"
#include "server/command_table.h"
#include "server/commands/commands.h"
#include "server/key_observers.h"
#include "server/key_specs.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

void AppendBulk(std::string& out, std::string_view s) {
  char digits[24];
  char* end = std::to_chars(digits, digits + sizeof(digits), s.size()).ptr;
  out.push_back('$');
  out.append(digits, static_cast<std::size_t>(end - digits));
  out.append("\r\n");
  out.append(s);
  out.append("\r\n");
}

void AppendHeader(std::string& out, char type, std::size_t n) {
  char digits[24];
  char* end = std::to_chars(digits, digits + sizeof(digits), n).ptr;
  out.push_back(type);
  out.append(digits, static_cast<std::size_t>(end - digits));
  out.append("\r\n");
}

// Redis's stringCheckPrefix: one is a prefix of the other.
bool Overlap(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  return std::memcmp(a.data(), b.data(), n) == 0;
}

std::string_view NullFrame(int resp) { return resp > 2 ? "_\r\n" : "$-1\r\n"; }

}  // namespace

void Tracking::UpdateObserving() {
  // Redis keeps invalidating keys of the table after its clients left, so the table counts too.
  const bool on = !clients_.empty() || !table_.empty();
  if (on == observing_) return;
  observing_ = on;
  if (on) {
    hub_.Add(this);
  } else {
    hub_.Remove(this);
  }
}

std::string Tracking::PrefixCollision(const Session& session,
                                      std::span<const std::string_view> prefixes) const {
  // The client's own prefixes in byte order, as Redis walks its radix tree of them.
  std::vector<std::string_view> own(session.tracking_prefixes.begin(),
                                    session.tracking_prefixes.end());
  std::sort(own.begin(), own.end());
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    for (std::string_view mine : own) {
      if (Overlap(mine, prefixes[i])) {
        return "ERR Prefix '" + std::string(prefixes[i]) + "' overlaps with an existing prefix '" +
               std::string(mine) + "'. Prefixes for a single client must not overlap.";
      }
    }
    for (std::size_t j = i + 1; j < prefixes.size(); ++j) {
      if (Overlap(prefixes[i], prefixes[j])) {
        return "ERR Prefix '" + std::string(prefixes[i]) +
               "' overlaps with another provided prefix '" + std::string(prefixes[j]) +
               "'. Prefixes for a single client must not overlap.";
      }
    }
  }
  return {};
}

void Tracking::Enable(Session& session, std::uint64_t redirect, std::uint8_t options,
                      std::span<const std::string_view> prefixes) {
  clients_[session.id] = &session;
  session.tracking = static_cast<std::uint8_t>((session.tracking & Session::kTrackingCaching) |
                                               Session::kTrackingOn);
  session.tracking_redirect = redirect;
  if ((options & Session::kTrackingBcast) != 0) {
    session.tracking |= Session::kTrackingBcast;
    const std::string_view all[] = {""};
    for (std::string_view prefix :
         prefixes.empty() ? std::span<const std::string_view>(all) : prefixes) {
      auto it = prefixes_.find(prefix);
      if (it == prefixes_.end()) it = prefixes_.emplace(std::string(prefix), Bcast()).first;
      std::vector<Session*>& subs = it->second.clients;
      if (std::find(subs.begin(), subs.end(), &session) != subs.end()) continue;
      subs.push_back(&session);
      session.tracking_prefixes.emplace_back(prefix);
    }
  }
  session.tracking |=
      options & (Session::kTrackingOptin | Session::kTrackingOptout | Session::kTrackingNoloop);
  UpdateObserving();
}

void Tracking::Disable(Session& session) {
  for (const std::string& prefix : session.tracking_prefixes) {
    const auto it = prefixes_.find(prefix);
    if (it == prefixes_.end()) continue;
    std::vector<Session*>& subs = it->second.clients;
    subs.erase(std::remove(subs.begin(), subs.end(), &session), subs.end());
    if (subs.empty()) prefixes_.erase(it);
  }
  session.tracking_prefixes.clear();
  session.tracking = 0;
  session.tracking_redirect = 0;
  clients_.erase(session.id);
  if (current_ == &session) {
    current_ = nullptr;
    pending_.clear();
  }
  UpdateObserving();
}

void Tracking::RememberKeys(Session& client, const CommandSpec& spec,
                            std::span<const std::string_view> args) {
  const std::uint8_t t = client.tracking;
  const bool caching = (t & Session::kTrackingCaching) != 0;
  if (((t & Session::kTrackingOptin) != 0 && !caching) ||
      ((t & Session::kTrackingOptout) != 0 && caching)) {
    return;
  }
  // Shard channels are keys to COMMAND, not to a cache.
  if ((spec.flags & kPubSub) != 0) return;
  static thread_local std::vector<KeyRef> keys;
  FindCommandKeys(CommandId(spec), args, keys);
  for (const KeyRef& k : keys) {
    const std::string_view key = args[static_cast<std::size_t>(k.pos)];
    auto it = table_.find(key);
    if (it == table_.end())
      it = table_.emplace(std::string(key), std::vector<std::uint64_t>()).first;
    std::vector<std::uint64_t>& ids = it->second;
    if (std::find(ids.begin(), ids.end(), client.id) != ids.end()) continue;
    ids.push_back(client.id);
    ++total_items_;
  }
  UpdateObserving();
}

void Tracking::AfterRead(Session& session, const CommandSpec& spec,
                         std::span<const std::string_view> args) {
  // The read-only script runners remember nothing themselves: their scripts' reads do.
  const Handler h = spec.handler;
  if (h == EvalRoCommand || h == EvalshaRoCommand || h == FcallRoCommand) return;
  if (session.is_script) {
    if (current_ == nullptr || top_spec_ == nullptr) return;
    Session& caller = *current_;
    if ((caller.tracking & (Session::kTrackingOn | Session::kTrackingBcast)) !=
        Session::kTrackingOn) {
      return;
    }
    RememberKeys(caller, *top_spec_, top_args_);
    return;
  }
  if ((session.tracking & (Session::kTrackingOn | Session::kTrackingBcast)) !=
      Session::kTrackingOn) {
    return;
  }
  RememberKeys(session, spec, args);
}

Session* Tracking::Find(std::uint64_t id) const {
  const auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

void Tracking::Send(Session& client, std::string_view keys, bool raw) {
  Session* target = &client;
  bool redirected = false;
  if (client.tracking_redirect != 0) {
    Session* to = server_.connections != nullptr
                      ? server_.connections->FindSession(client.tracking_redirect)
                      : nullptr;
    if (to == nullptr) {
      client.tracking |= Session::kTrackingBrokenRedirect;
      // The client learns that its invalidations have nowhere to go (RESP3 only).
      if (client.resp > 2 && client.host != nullptr) {
        std::string& out = client.host->reply_buffer();
        out.append(">2\r\n$21\r\ntracking-redir-broken\r\n:");
        out.append(std::to_string(client.tracking_redirect));
        out.append("\r\n");
        client.host->ScheduleFlush();
      }
      return;
    }
    target = to;
    redirected = true;
  }
  if (target->host == nullptr) return;
  std::string& out = target->host->reply_buffer();
  if (target->resp > 2) {
    out.append(">2\r\n$10\r\ninvalidate\r\n");
  } else if (redirected && target->subscribed()) {
    out.append("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n");
  } else {
    return;  // RESP2 has no pushes on a client's own connection
  }
  if (raw) {
    out.append(keys);
  } else {
    out.append("*1\r\n");
    AppendBulk(out, keys);
  }
  target->host->ScheduleFlush();
}

void Tracking::KeyModified(const storage::Keyspace& keyspace, std::string_view key, bool) {
  Invalidate(key, true, keyspace.unattributed_change() ? nullptr : current_);
}

void Tracking::Invalidate(std::string_view key, bool bcast, const Session* changer) {
  if (bcast && !prefixes_.empty()) {
    for (auto& [prefix, state] : prefixes_) {
      if (!key.starts_with(prefix)) continue;
      auto it = state.keys.find(key);
      if (it == state.keys.end()) {
        state.keys.emplace(std::string(key), changer);
      } else {
        it->second = changer;
      }
    }
  }
  const auto it = table_.find(key);
  if (it == table_.end()) return;
  // Out of the table before sending: a message cannot reach back here, but keep it simple.
  const std::vector<std::uint64_t> ids = std::move(it->second);
  const std::string name = it->first;
  table_.erase(it);
  total_items_ -= ids.size();
  for (const std::uint64_t id : ids) {
    Session* target = Find(id);
    // A client that switched to BCAST since gets no message of its default-mode keys.
    if (target == nullptr || (target->tracking & Session::kTrackingBcast) != 0) continue;
    if (target == current_) {
      if ((target->tracking & Session::kTrackingNoloop) != 0) continue;
      // After its reply: the message must not land inside the reply being written. Before
      // the command runs (the table's limit) there is no reply yet, so it goes at once.
      if (!before_command_) {
        pending_.emplace_back(name);
        continue;
      }
    }
    Send(*target, name, false);
  }
  UpdateObserving();
}

void Tracking::FlushPending(Session& session) {
  std::vector<std::optional<std::string>> batch;
  batch.swap(pending_);
  if (current_ != &session) return;
  for (const std::optional<std::string>& key : batch) {
    if (key.has_value()) {
      Send(session, *key, false);
    } else {
      Send(session, NullFrame(session.resp), true);
    }
  }
}

Tracking::Saved Tracking::Enter(Session& session) {
  Saved saved{current_, top_spec_, top_args_, std::move(pending_)};
  pending_.clear();
  current_ = &session;
  top_spec_ = nullptr;
  top_args_ = {};
  return saved;
}

void Tracking::Leave(Session& session, Saved saved) {
  if (!pending_.empty()) FlushPending(session);
  current_ = saved.current;
  top_spec_ = saved.top_spec;
  top_args_ = saved.top_args;
  pending_ = std::move(saved.pending);
}

void Tracking::Flushed() {
  for (const auto& [id, client] : clients_) {
    if (client == current_) {
      pending_.emplace_back(std::nullopt);
    } else {
      Send(*client, NullFrame(client->resp), true);
    }
  }
  total_items_ = 0;
  table_.clear();
  UpdateObserving();
}

void Tracking::BroadcastPending() {
  if (prefixes_.empty()) return;
  for (auto& [prefix, state] : prefixes_) {
    if (state.keys.empty()) continue;
    // One frame for every client but those in NOLOOP, which get their own without their keys.
    frame_.clear();
    AppendHeader(frame_, '*', state.keys.size());
    for (const auto& [key, by] : state.keys) AppendBulk(frame_, key);
    // A message may close nothing here, but a client list is copied all the same.
    const std::vector<Session*> clients = state.clients;
    for (Session* c : clients) {
      if ((c->tracking & Session::kTrackingNoloop) == 0) {
        Send(*c, frame_, true);
        continue;
      }
      std::size_t n = 0;
      for (const auto& [key, by] : state.keys) n += by != c;
      if (n == 0) continue;
      std::string own;
      AppendHeader(own, '*', n);
      for (const auto& [key, by] : state.keys) {
        if (by != c) AppendBulk(own, key);
      }
      Send(*c, own, true);
    }
    state.keys.clear();
  }
}

void Tracking::LimitBeforeCommand() {
  before_command_ = true;
  LimitTable();
  before_command_ = false;
}

void Tracking::LimitTable() {
  const std::size_t max = static_cast<std::size_t>(server_.config.tracking_table_max_keys);
  if (max == 0 || table_.size() <= max) {
    limit_rounds_ = 0;
    return;
  }
  // Redis's trackingLimitUsedSlots: an effort that grows each cron the table stays too big.
  unsigned effort = 100 * (limit_rounds_ + 1);
  while (effort-- > 0 && !table_.empty()) {
    // A random bucket's first key, as near to Redis's random walk as the hash table allows.
    const std::size_t buckets = table_.bucket_count();
    std::size_t b = server_.random.Next() % buckets;
    std::size_t tries = 0;
    while (table_.bucket_size(b) == 0 && tries++ < buckets) b = (b + 1) % buckets;
    const std::string key = table_.begin(b)->first;
    Invalidate(key, false, current_);
    if (table_.size() <= max) {
      limit_rounds_ = 0;
      return;
    }
  }
  ++limit_rounds_;
}

}  // namespace warden::server
