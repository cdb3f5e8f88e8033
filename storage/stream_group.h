// A stream's consumer groups (XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM), as Redis 7.0 keeps
// them: each group has the last id it delivered, its count of entries read (for XINFO's lag),
// its pending entries list (PEL: id -> owner, delivery time and count) and its consumers, each
// with its own view of the PEL. Groups and consumers are ordered by name, as Redis's radix trees
// order them, so XINFO lists them in Redis's order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "storage/stream.h"

namespace warden::storage {

struct StreamConsumer;

struct StreamPending {
  std::int64_t delivery_time = 0;
  std::uint64_t delivery_count = 1;
  StreamConsumer* consumer = nullptr;
};

using StreamPel = std::map<StreamId, StreamPending>;

struct StreamConsumer {
  std::string name;
  std::int64_t seen_time = 0;
  // The group's PEL entries this consumer owns.
  std::map<StreamId, StreamPending*> pel;
};

// Redis's SCG_INVALID_ENTRIES_READ: the group's read count is unknown.
inline constexpr std::int64_t kInvalidEntriesRead = -1;

struct StreamGroup {
  StreamId last_id;
  std::int64_t entries_read = kInvalidEntriesRead;
  StreamPel pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  StreamConsumer* FindConsumer(std::string_view name) const;
  // The consumer `name`, created with seen time `now_ms` if new (`created` says which).
  StreamConsumer* GetConsumer(std::string_view name, std::int64_t now_ms, bool* created);
  // Removes a consumer and its pending entries; returns how many it had.
  std::size_t DeleteConsumer(std::string_view name);
  // Adds `id` to the PEL for `consumer`, delivered now: a new entry, or one another consumer
  // owned, which moves with its count set back to 1 (Redis's XREADGROUP on a SETID'd group).
  StreamPending& Deliver(StreamId id, StreamConsumer* consumer, std::int64_t now_ms);
  // Moves a pending entry to `consumer` (XCLAIM).
  void Reassign(StreamPel::iterator it, StreamConsumer* consumer);
  // Acknowledges `id`; false when it was not pending.
  bool Ack(StreamId id);
  // Updates entries_read and last_id for an entry just delivered (streamReplyWithRange).
  void Advance(const Stream& stream, StreamId id);
};

class StreamGroups {
 public:
  using Map = std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>;

  StreamGroup* Find(std::string_view name) const;
  // Creates a group; nullptr when the name is taken.
  StreamGroup* Create(std::string_view name, StreamId last_id, std::int64_t entries_read);
  bool Destroy(std::string_view name);
  const Map& all() const { return groups_; }
  std::size_t size() const { return groups_.size(); }
  std::unique_ptr<StreamGroups> Clone() const;
  // Pending entries over every group.
  std::size_t pending_count() const;
  // Frees up to about `max_elements` pending entries (for the Reclaimer); true once empty.
  bool ClearSome(std::size_t max_elements);
  std::size_t memory_bytes() const;

 private:
  Map groups_;
};

// Whether an entry in [start, end] (end: the max when absent) may have been deleted
// (Redis's streamRangeHasTombstones, which looks only at max_deleted_id).
bool StreamRangeHasTombstones(const Stream& stream, StreamId start, const StreamId* end);
// The number of entries added before and up to `id`, when it can be known; else
// kInvalidEntriesRead (Redis's streamEstimateDistanceFromFirstEverEntry).
std::int64_t StreamEntriesReadAt(const Stream& stream, StreamId id);
// A group's lag (XINFO GROUPS): the entries added it has not read, or false when unknown.
bool StreamGroupLag(const Stream& stream, const StreamGroup& group, std::int64_t& lag);

}  // namespace warden::storage
