// Pub/sub: channels, patterns and shard channels, their subscribers, and delivery of published
// messages. Keyspace notifications and scripts publish through the same Publish.
//
// A published message is encoded once (once more per matching pattern, whose frame names it) and
// the bytes are appended to each subscriber's output; RESP2 and RESP3 frames differ only in their
// first byte ('*' or '>'). The subscriber's connection is asked to flush after the current batch
// (BlockedClientHost::ScheduleFlush), so no socket is written inside the publishing command.
//
// Redis 7.0 keeps a client's channels in a dict (random order) and its patterns in a list
// (subscription order); here all three kinds keep subscription order, which is one of the orders
// Redis can produce for UNSUBSCRIBE without arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/session.h"

namespace warden::server {

class PubSub {
 public:
  enum class Kind { kChannel, kPattern, kShard };

  PubSub();
  ~PubSub();
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  // Delivers `message` on `channel` to its subscribers and to every client whose pattern
  // matches it; returns how many clients received it (PUBLISH's reply).
  std::size_t Publish(std::string_view channel, std::string_view message);
  // SPUBLISH: shard channels only, no patterns.
  std::size_t PublishShard(std::string_view channel, std::string_view message);

  // Adds `name` to the client's subscriptions of `kind`; false if it was there already. Keeps
  // the session's counts and mode flag up to date.
  bool Subscribe(Session& session, Kind kind, std::string_view name);
  // False if the client was not subscribed to `name`.
  bool Unsubscribe(Session& session, Kind kind, std::string_view name);
  // The client's subscriptions of `kind`, oldest first (a copy: unsubscribing changes them).
  std::vector<std::string> SubscriptionsOf(const Session& session, Kind kind) const;
  // Drops every subscription of a client, silently (connection closed, RESET).
  void RemoveClient(Session& session);

  // PUBSUB introspection.
  std::size_t Subscribers(Kind kind, std::string_view name) const;
  std::size_t pattern_count() const { return patterns_.size(); }
  // Calls `fn` with each channel (or shard channel) that has subscribers.
  void ForEachChannel(Kind kind, const std::function<void(std::string_view)>& fn) const;

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Name -> subscribers in subscription order.
  using Registry =
      std::unordered_map<std::string, std::vector<Session*>, NameHash, std::equal_to<>>;
  // One client's names of one kind: subscription order plus O(1) lookup.
  struct NameSet {
    std::list<std::string> order;
    std::unordered_map<std::string_view, std::list<std::string>::iterator> index;
  };
  struct ClientSubscriptions {
    NameSet kinds[3];
  };

  Registry& registry(Kind kind);
  const Registry& registry(Kind kind) const;
  static std::uint32_t& CountOf(Session& session, Kind kind);
  // Appends the frame in `frame_` (encoded with '*') to every client in `subscribers`.
  void Deliver(const std::vector<Session*>& subscribers);
  std::size_t PublishTo(Registry& channels, std::string_view kind_bulk, std::string_view channel,
                        std::string_view message);

  Registry channels_;
  Registry patterns_;
  Registry shard_channels_;
  std::unordered_map<const Session*, ClientSubscriptions> clients_;
  std::string frame_;  // the frame being delivered; its capacity is kept between publishes
};

}  // namespace warden::server
