#include "storage/stream_group.h"

namespace warden::storage {

StreamConsumer* StreamGroup::FindConsumer(std::string_view name) const {
  const auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::GetConsumer(std::string_view name, std::int64_t now_ms,
                                         bool* created) {
  auto it = consumers.find(name);
  if (created != nullptr) *created = it == consumers.end();
  if (it != consumers.end()) return it->second.get();
  auto consumer = std::make_unique<StreamConsumer>();
  consumer->name = std::string(name);
  consumer->seen_time = now_ms;
  StreamConsumer* raw = consumer.get();
  consumers.emplace(consumer->name, std::move(consumer));
  return raw;
}

std::size_t StreamGroup::DeleteConsumer(std::string_view name) {
  const auto it = consumers.find(name);
  if (it == consumers.end()) return 0;
  const std::size_t pending = it->second->pel.size();
  for (const auto& [id, entry] : it->second->pel) pel.erase(id);
  consumers.erase(it);
  return pending;
}

StreamPending& StreamGroup::Deliver(StreamId id, StreamConsumer* consumer, std::int64_t now_ms) {
  auto [it, inserted] = pel.try_emplace(id);
  StreamPending& entry = it->second;
  if (!inserted) entry.consumer->pel.erase(id);
  entry.consumer = consumer;
  entry.delivery_time = now_ms;
  entry.delivery_count = 1;
  consumer->pel[id] = &entry;
  return entry;
}

void StreamGroup::Reassign(StreamPel::iterator it, StreamConsumer* consumer) {
  if (it->second.consumer == consumer) return;
  it->second.consumer->pel.erase(it->first);
  it->second.consumer = consumer;
  consumer->pel[it->first] = &it->second;
}

bool StreamGroup::Ack(StreamId id) {
  const auto it = pel.find(id);
  if (it == pel.end()) return false;
  it->second.consumer->pel.erase(id);
  pel.erase(it);
  return true;
}

void StreamGroup::Advance(const Stream& stream, StreamId id) {
  if (id <= last_id) return;
  // XGROUP SETID ENTRIESREAD (or a payload) may have set the count to INT64_MAX, where Redis's
  // increment overflows: it is derived from the stream instead, as past a tombstone.
  if (entries_read != kInvalidEntriesRead && entries_read != INT64_MAX &&
      !StreamRangeHasTombstones(stream, id, nullptr)) {
    ++entries_read;
  } else if (stream.entries_added() != 0) {
    entries_read = StreamEntriesReadAt(stream, id);
  }
  last_id = id;
}

StreamGroup* StreamGroups::Find(std::string_view name) const {
  const auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : it->second.get();
}

StreamGroup* StreamGroups::Create(std::string_view name, StreamId last_id,
                                  std::int64_t entries_read) {
  if (groups_.find(name) != groups_.end()) return nullptr;
  auto group = std::make_unique<StreamGroup>();
  group->last_id = last_id;
  group->entries_read = entries_read;
  StreamGroup* raw = group.get();
  groups_.emplace(std::string(name), std::move(group));
  return raw;
}

bool StreamGroups::Destroy(std::string_view name) {
  const auto it = groups_.find(name);
  if (it == groups_.end()) return false;
  groups_.erase(it);
  return true;
}

std::unique_ptr<StreamGroups> StreamGroups::Clone() const {
  auto copy = std::make_unique<StreamGroups>();
  for (const auto& [name, group] : groups_) {
    auto g = std::make_unique<StreamGroup>();
    g->last_id = group->last_id;
    g->entries_read = group->entries_read;
    for (const auto& [cname, consumer] : group->consumers) {
      StreamConsumer* c = g->GetConsumer(cname, consumer->seen_time, nullptr);
      for (const auto& [id, entry] : consumer->pel) {
        StreamPending& p = g->pel[id];
        p = *entry;
        p.consumer = c;
        c->pel[id] = &p;
      }
    }
    copy->groups_.emplace(name, std::move(g));
  }
  return copy;
}

std::size_t StreamGroups::pending_count() const {
  std::size_t n = 0;
  for (const auto& [name, group] : groups_) n += group->pel.size();
  return n;
}

bool StreamGroups::ClearSome(std::size_t max_elements) {
  std::size_t freed = 0;
  while (!groups_.empty() && freed < max_elements) {
    StreamGroup& g = *groups_.begin()->second;
    // The consumers' views first, so no consumer points at a freed entry.
    for (auto& [name, consumer] : g.consumers) {
      while (!consumer->pel.empty() && freed < max_elements) {
        consumer->pel.erase(consumer->pel.begin());
        ++freed;
      }
    }
    if (freed >= max_elements) break;
    while (!g.pel.empty() && freed < max_elements) {
      g.pel.erase(g.pel.begin());
      ++freed;
    }
    if (g.pel.empty()) groups_.erase(groups_.begin());
  }
  return groups_.empty();
}

std::size_t StreamGroups::memory_bytes() const {
  constexpr std::size_t kMapNode = 4 * sizeof(void*);
  std::size_t bytes = sizeof(StreamGroups);
  for (const auto& [name, group] : groups_) {
    bytes += kMapNode + name.capacity() + sizeof(StreamGroup);
    bytes += group->pel.size() * (kMapNode + sizeof(StreamId) + sizeof(StreamPending));
    for (const auto& [cname, consumer] : group->consumers) {
      bytes += kMapNode + cname.capacity() * 2 + sizeof(StreamConsumer);
      bytes += consumer->pel.size() * (kMapNode + sizeof(StreamId) + sizeof(void*));
    }
  }
  return bytes;
}

bool StreamRangeHasTombstones(const Stream& stream, StreamId start, const StreamId* end) {
  const StreamId deleted = stream.max_deleted_id();
  if (stream.length() == 0 || deleted.is_zero()) return false;
  if (stream.first_id() > deleted) return false;
  const StreamId stop = end != nullptr ? *end : StreamId::Max();
  return start <= deleted && deleted <= stop;
}

std::int64_t StreamEntriesReadAt(const Stream& stream, StreamId id) {
  const auto added = static_cast<std::int64_t>(stream.entries_added());
  if (added == 0) return 0;
  if (stream.length() == 0 && id <= stream.last_id()) return added;
  if (id == stream.last_id()) return added;
  if (id > stream.last_id()) return kInvalidEntriesRead;
  const StreamId deleted = stream.max_deleted_id();
  if (deleted.is_zero() || deleted < stream.first_id()) {
    const auto length = static_cast<std::int64_t>(stream.length());
    if (id < stream.first_id()) return added - length;
    if (id == stream.first_id()) return added - length + 1;
  }
  return kInvalidEntriesRead;
}

bool StreamGroupLag(const Stream& stream, const StreamGroup& group, std::int64_t& lag) {
  const auto added = static_cast<std::int64_t>(stream.entries_added());
  if (added == 0) {
    lag = 0;
    return true;
  }
  if (group.entries_read != kInvalidEntriesRead &&
      !StreamRangeHasTombstones(stream, group.last_id, nullptr)) {
    lag = added - group.entries_read;
    return true;
  }
  const std::int64_t read = StreamEntriesReadAt(stream, group.last_id);
  if (read == kInvalidEntriesRead) return false;
  lag = added - read;
  return true;
}

}  // namespace warden::storage
