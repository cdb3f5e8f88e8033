#include "server/pubsub.h"

#include <algorithm>
#include <charconv>

#include "server/blocking.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

void AppendBulk(std::string& out, std::string_view data) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), data.size());
  out.push_back('$');
  out.append(digits, end);
  out.append("\r\n");
  out.append(data);
  out.append("\r\n");
}

}  // namespace

PubSub::PubSub() = default;
PubSub::~PubSub() = default;

PubSub::Registry& PubSub::registry(Kind kind) {
  return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_channels_;
}

const PubSub::Registry& PubSub::registry(Kind kind) const {
  return kind == Kind::kChannel ? channels_ : kind == Kind::kPattern ? patterns_ : shard_channels_;
}

std::uint32_t& PubSub::CountOf(Session& session, Kind kind) {
  return kind == Kind::kChannel   ? session.sub_channels
         : kind == Kind::kPattern ? session.sub_patterns
                                  : session.sub_shard_channels;
}

bool PubSub::Subscribe(Session& session, Kind kind, std::string_view name) {
  NameSet& names = clients_[&session].kinds[static_cast<int>(kind)];
  if (names.index.find(name) != names.index.end()) return false;
  names.order.emplace_back(name);
  names.index.emplace(names.order.back(), std::prev(names.order.end()));
  Registry& reg = registry(kind);
  auto it = reg.find(name);
  if (it == reg.end()) it = reg.emplace(std::string(name), std::vector<Session*>()).first;
  it->second.push_back(&session);
  ++CountOf(session, kind);
  session.modes |= Session::kPubSubMode;
  return true;
}

bool PubSub::Unsubscribe(Session& session, Kind kind, std::string_view name) {
  const auto client = clients_.find(&session);
  if (client == clients_.end()) return false;
  NameSet& names = client->second.kinds[static_cast<int>(kind)];
  const auto entry = names.index.find(name);
  if (entry == names.index.end()) return false;
  Registry& reg = registry(kind);
  const auto it = reg.find(name);
  if (it != reg.end()) {
    std::vector<Session*>& subs = it->second;
    subs.erase(std::find(subs.begin(), subs.end(), &session));
    // A channel nobody listens to is forgotten, so that subscribing to millions of names and
    // leaving them costs nothing afterwards.
    if (subs.empty()) reg.erase(it);
  }
  const auto node = entry->second;
  names.index.erase(entry);
  names.order.erase(node);
  --CountOf(session, kind);
  if (session.sub_channels + session.sub_patterns + session.sub_shard_channels == 0) {
    session.modes &= static_cast<std::uint8_t>(~Session::kPubSubMode);
    clients_.erase(client);
  }
  return true;
}

std::vector<std::string> PubSub::SubscriptionsOf(const Session& session, Kind kind) const {
  const auto client = clients_.find(&session);
  if (client == clients_.end()) return {};
  const std::list<std::string>& order = client->second.kinds[static_cast<int>(kind)].order;
  return {order.begin(), order.end()};
}

void PubSub::RemoveClient(Session& session) {
  const auto client = clients_.find(&session);
  if (client != clients_.end()) {
    for (Kind kind : {Kind::kChannel, Kind::kPattern, Kind::kShard}) {
      Registry& reg = registry(kind);
      for (const std::string& name : client->second.kinds[static_cast<int>(kind)].order) {
        const auto it = reg.find(name);
        if (it == reg.end()) continue;
        std::vector<Session*>& subs = it->second;
        subs.erase(std::find(subs.begin(), subs.end(), &session));
        if (subs.empty()) reg.erase(it);
      }
    }
    clients_.erase(client);
  }
  session.sub_channels = session.sub_patterns = session.sub_shard_channels = 0;
  session.modes &= static_cast<std::uint8_t>(~Session::kPubSubMode);
}

std::size_t PubSub::Subscribers(Kind kind, std::string_view name) const {
  const Registry& reg = registry(kind);
  const auto it = reg.find(name);
  return it == reg.end() ? 0 : it->second.size();
}

void PubSub::ForEachChannel(Kind kind, const std::function<void(std::string_view)>& fn) const {
  for (const auto& [name, subs] : registry(kind)) fn(name);
}

void PubSub::Deliver(const std::vector<Session*>& subscribers) {
  const std::string_view body = std::string_view(frame_).substr(1);
  for (Session* s : subscribers) {
    // Counted but not written to a client closing after its reply (QUIT), as Redis.
    if (s->host == nullptr || s->close_after_reply) continue;
    std::string& out = s->host->reply_buffer();
    out.push_back(s->resp == 2 ? '*' : '>');
    out.append(body);
    s->host->ScheduleFlush();
  }
}

std::size_t PubSub::PublishTo(Registry& channels, std::string_view kind_bulk,
                              std::string_view channel, std::string_view message) {
  std::size_t receivers = 0;
  const auto it = channels.find(channel);
  if (it != channels.end()) {
    frame_.assign("*3\r\n");
    frame_.append(kind_bulk);
    AppendBulk(frame_, channel);
    AppendBulk(frame_, message);
    Deliver(it->second);
    receivers += it->second.size();
  }
  return receivers;
}

std::size_t PubSub::Publish(std::string_view channel, std::string_view message) {
  std::size_t receivers = PublishTo(channels_, "$7\r\nmessage\r\n", channel, message);
  for (const auto& [pattern, subs] : patterns_) {
    if (!storage::GlobMatch(pattern, channel)) continue;
    frame_.assign("*4\r\n$8\r\npmessage\r\n");
    AppendBulk(frame_, pattern);
    AppendBulk(frame_, channel);
    AppendBulk(frame_, message);
    Deliver(subs);
    receivers += subs.size();
  }
  return receivers;
}

std::size_t PubSub::PublishShard(std::string_view channel, std::string_view message) {
  return PublishTo(shard_channels_, "$8\r\nsmessage\r\n", channel, message);
}

}  // namespace warden::server
