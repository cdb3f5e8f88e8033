#include "storage/rdb/stream_codec.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/rdb/listpack.h"
#include "storage/stream_group.h"

namespace warden::storage::rdb {
namespace {

constexpr std::size_t kIdBytes = 16;

// Redis keys nodes and PEL entries by the id as one 128-bit big-endian number.
std::string_view EncodeId(StreamId id, char (&buf)[kIdBytes]) {
  for (int i = 0; i < 8; ++i) {
    buf[i] = static_cast<char>(id.ms >> (56 - 8 * i));
    buf[8 + i] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return {buf, kIdBytes};
}

StreamId DecodeId(std::string_view raw) {
  StreamId id;
  for (std::size_t i = 0; i < 8; ++i) {
    id.ms = (id.ms << 8) | static_cast<unsigned char>(raw[i]);
    id.seq = (id.seq << 8) | static_cast<unsigned char>(raw[8 + i]);
  }
  return id;
}

void WriteId(RdbWriter& w, StreamId id) {
  w.Length(id.ms);
  w.Length(id.seq);
}

bool ReadId(RdbReader& r, StreamId& id) { return r.Length(id.ms) && r.Length(id.seq); }

// A node's listpack as streamAppendItem builds it: the master entry (live count, deleted
// count, the master's fields, a 0), then per entry its flags, id deltas, fields and values
// (values alone with SAMEFIELDS) and its element count, which lets Redis walk it backwards.
std::string NodeListpack(const Stream::RawNode& node, std::span<const Stream::RawEntry> entries) {
  ListpackWriter lp;
  lp.AppendInteger(node.live);
  lp.AppendInteger(node.deleted);
  lp.AppendInteger(static_cast<std::int64_t>(node.master_fields.size()));
  for (const std::string_view field : node.master_fields) lp.AppendString(field);
  lp.AppendInteger(0);
  for (const Stream::RawEntry& e : entries) {
    const auto fields = static_cast<std::int64_t>(e.fields.size());
    lp.AppendInteger(e.flags);
    // Deltas wrap as Redis's unsigned subtraction passed to lpAppendInteger does.
    lp.AppendInteger(static_cast<std::int64_t>(e.id.ms - node.master.ms));
    lp.AppendInteger(static_cast<std::int64_t>(e.id.seq - node.master.seq));
    if (e.flags & Stream::kEntrySameFields) {
      for (const auto& [field, value] : e.fields) lp.AppendString(value);
      lp.AppendInteger(fields + 3);
    } else {
      lp.AppendInteger(fields);
      for (const auto& [field, value] : e.fields) {
        lp.AppendString(field);
        lp.AppendString(value);
      }
      lp.AppendInteger(fields * 2 + 4);
    }
  }
  return lp.Finish();
}

// rdbSaveStreamPEL for a group (with delivery times and counts) or a consumer (ids only).
void WriteGroupPel(RdbWriter& w, const StreamPel& pel) {
  w.Length(pel.size());
  char raw[kIdBytes];
  for (const auto& [id, entry] : pel) {
    w.Raw(EncodeId(id, raw));
    w.Millis(entry.delivery_time);
    w.Length(entry.delivery_count);
  }
}

void WriteConsumers(RdbWriter& w, const StreamGroup& group) {
  w.Length(group.consumers.size());
  char raw[kIdBytes];
  for (const auto& [name, consumer] : group.consumers) {
    w.String(name);
    w.Millis(consumer->seen_time);
    w.Length(consumer->pel.size());
    for (const auto& [id, entry] : consumer->pel) w.Raw(EncodeId(id, raw));
  }
}

// Reads one node's listpack into the entries Stream::AppendRawNode takes, checking what
// streamValidateListpackIntegrity checks in its deep mode, and also what Redis trusts but
// warden's nodes rely on: flags Redis knows, counters that agree with the flags, entries at
// or after the node's key, and live entries in increasing order over the whole stream.
class NodeParser {
 public:
  // `last_live`: the greatest live id so far (updated), `have_live` whether there is one.
  bool Parse(std::string_view lp, StreamId master, StreamId& last_live, bool& have_live) {
    if (!ListpackValidate(lp)) return false;
    reader_.emplace(lp);
    spellings_.clear();
    master_fields_.clear();
    entries_.clear();
    fields_.clear();

    std::int64_t live = 0;
    std::int64_t deleted = 0;
    std::int64_t master_count = 0;
    std::int64_t zero = 0;
    if (!NextInt(live) || !NextInt(deleted) || !NextInt(master_count)) return false;
    if (live < 0 || deleted < 0 || master_count < 0) return false;
    if (live > UINT32_MAX || deleted > UINT32_MAX || master_count > UINT32_MAX) return false;
    for (std::int64_t i = 0; i < master_count; ++i) {
      if (!NextString(master_fields_.emplace_back())) return false;
    }
    if (!NextInt(zero) || zero != 0) return false;
    // A node with no entries: rdb.c's "Empty listpack inside stream", as Redis never keeps one.
    if (live + deleted == 0) return false;

    std::vector<std::size_t> starts;
    std::int64_t flagged = 0;
    for (std::int64_t n = 0; n < live + deleted; ++n) {
      std::int64_t flags = 0;
      std::int64_t ms_delta = 0;
      std::int64_t seq_delta = 0;
      if (!NextInt(flags) || !NextInt(ms_delta) || !NextInt(seq_delta)) return false;
      if (flags < 0 || flags > (Stream::kEntryDeleted | Stream::kEntrySameFields)) return false;
      Stream::RawEntry& e = entries_.emplace_back();
      e.flags = static_cast<std::uint8_t>(flags);
      e.id = {master.ms + static_cast<std::uint64_t>(ms_delta),
              master.seq + static_cast<std::uint64_t>(seq_delta)};
      if (e.id < master) return false;
      starts.push_back(fields_.size());
      std::int64_t expected_count = 0;
      if (flags & Stream::kEntrySameFields) {
        for (const std::string_view field : master_fields_) {
          std::string_view value;
          if (!NextString(value)) return false;
          fields_.emplace_back(field, value);
        }
        expected_count = master_count + 3;
      } else {
        std::int64_t count = 0;
        if (!NextInt(count) || count < 0 || count > UINT32_MAX) return false;
        for (std::int64_t i = 0; i < count; ++i) {
          std::string_view field;
          std::string_view value;
          if (!NextString(field) || !NextString(value)) return false;
          fields_.emplace_back(field, value);
        }
        expected_count = count * 2 + 4;
      }
      std::int64_t lp_count = 0;
      if (!NextInt(lp_count) || lp_count != expected_count) return false;

      if (flags & Stream::kEntryDeleted) {
        ++flagged;
        continue;
      }
      if (have_live && e.id <= last_live) return false;
      last_live = e.id;
      have_live = true;
    }
    PackedItem extra;
    if (reader_->Next(extra)) return false;
    if (flagged != deleted) return false;

    for (std::size_t i = 0; i < entries_.size(); ++i) {
      const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : fields_.size();
      entries_[i].fields =
          std::span<const Stream::Field>(fields_).subspan(starts[i], end - starts[i]);
    }
    node_.master = master;
    node_.live = static_cast<std::uint32_t>(live);
    node_.deleted = static_cast<std::uint32_t>(deleted);
    node_.master_fields = master_fields_;
    return true;
  }

  const Stream::RawNode& node() const { return node_; }
  std::span<const Stream::RawEntry> entries() const { return entries_; }

 private:
  // lpGetIntegerIfValid: an integer element, or a string that spells one.
  bool NextInt(std::int64_t& v) {
    PackedItem item;
    if (!reader_->Next(item)) return false;
    if (item.is_int) {
      v = item.integer;
      return true;
    }
    return ListpackStringToInt64(item.str, v);
  }
  // An integer element's spelling lives in the reader only until the item after next, so it
  // is kept here; a deque never moves what it holds.
  bool NextString(std::string_view& s) {
    PackedItem item;
    if (!reader_->Next(item)) return false;
    s = item.is_int ? std::string_view(spellings_.emplace_back(item.str)) : item.str;
    return true;
  }

  std::optional<ListpackReader> reader_;
  std::deque<std::string> spellings_;
  std::vector<std::string_view> master_fields_;
  std::vector<Stream::RawEntry> entries_;
  std::vector<Stream::Field> fields_;
  Stream::RawNode node_;
};

// The nodes and the stream's counters.
bool ReadEntries(RdbReader& r, std::uint8_t type, Stream& s) {
  std::uint64_t nodes = 0;
  if (!r.Count(nodes)) return false;
  NodeParser parser;
  std::string key_scratch;
  std::string lp_scratch;
  StreamId last_live;
  bool have_live = false;
  bool have_master = false;
  StreamId last_master;
  for (std::uint64_t i = 0; i < nodes; ++i) {
    std::string_view key;
    std::string_view lp;
    if (!r.String(key, key_scratch) || key.size() != kIdBytes) return false;
    const StreamId master = DecodeId(key);
    // Redis saves nodes in key order; a node's key is above every live entry before it.
    if (have_master && master <= last_master) return false;
    if (have_live && master <= last_live) return false;
    if (!r.String(lp, lp_scratch)) return false;
    if (!parser.Parse(lp, master, last_live, have_live)) return false;
    s.AppendRawNode(parser.node(), parser.entries(), lp.size());
    last_master = master;
    have_master = true;
  }

  std::uint64_t length = 0;
  StreamId last_id;
  if (!r.Length(length) || !ReadId(r, last_id)) return false;
  if (length != s.length()) return false;
  if (have_live && last_id < last_live) return false;
  s.SetLastId(last_id);
  if (type == kTypeStreamListpacks2) {
    StreamId first_id;
    StreamId max_deleted;
    std::uint64_t entries_added = 0;
    if (!ReadId(r, first_id) || !ReadId(r, max_deleted) || !r.Length(entries_added)) {
      return false;
    }
    // XSETID refuses an entries-added count below the length; nothing else makes one. Redis
    // counts it in a long long, and the lag (StreamGroupLag) subtracts from it as one.
    if (entries_added < length || entries_added > INT64_MAX) return false;
    s.SetFirstId(first_id);
    s.SetMaxDeletedId(max_deleted);
    s.SetEntriesAdded(entries_added);
  } else {
    // rdb.c's migration from 6.2: every entry counts as added, none as deleted, and the first
    // id is the first live entry's (the max when there is none, as streamGetEdgeID gives).
    StreamId first_id = StreamId::Max();
    s.EdgeId(true, first_id);
    s.SetFirstId(first_id);
    s.SetMaxDeletedId(StreamId{});
    s.SetEntriesAdded(length);
  }
  return true;
}

bool ReadGroup(RdbReader& r, std::uint8_t type, Stream& s) {
  std::string scratch;
  std::string_view name;
  StreamId last_id;
  if (!r.String(name, scratch) || !ReadId(r, last_id)) return false;
  std::int64_t entries_read = 0;
  if (type == kTypeStreamListpacks2) {
    std::uint64_t raw = 0;
    if (!r.Length(raw)) return false;
    // Saved as an unsigned length, so the unknown count (-1) comes back as the max.
    entries_read = static_cast<std::int64_t>(raw);
    if (entries_read < 0 && entries_read != kInvalidEntriesRead) return false;
  } else {
    entries_read = StreamEntriesReadAt(s, last_id);
  }
  StreamGroup* group = s.groups().Create(name, last_id, entries_read);
  if (group == nullptr) return false;  // "Duplicated consumer group name"

  std::uint64_t pending = 0;
  if (!r.Count(pending)) return false;
  for (std::uint64_t i = 0; i < pending; ++i) {
    std::string_view raw;
    StreamPending entry;
    if (!r.Raw(kIdBytes, raw) || !r.Millis(entry.delivery_time) ||
        !r.Length(entry.delivery_count)) {
      return false;
    }
    // Redis stamps a delivery with its clock, and XCLAIM clamps TIME and IDLE to [0, now]: a
    // time before 1970 is not Redis's, and the idle times XPENDING, XCLAIM and XAUTOCLAIM
    // compute (now - delivery time) overflow on one far enough below.
    if (entry.delivery_time < 0) return false;
    if (!group->pel.emplace(DecodeId(raw), entry).second) return false;
  }

  std::uint64_t consumers = 0;
  if (!r.Count(consumers)) return false;
  for (std::uint64_t i = 0; i < consumers; ++i) {
    std::string_view cname;
    if (!r.String(cname, scratch)) return false;
    if (group->FindConsumer(cname) != nullptr) return false;  // "Duplicate stream consumer"
    StreamConsumer* consumer = group->GetConsumer(cname, 0, nullptr);
    std::uint64_t owned = 0;
    if (!r.Millis(consumer->seen_time) || !r.Count(owned)) return false;
    if (consumer->seen_time < 0) return false;  // as a delivery time: XINFO's idle subtracts it
    for (std::uint64_t k = 0; k < owned; ++k) {
      std::string_view raw;
      if (!r.Raw(kIdBytes, raw)) return false;
      const StreamId id = DecodeId(raw);
      const auto it = group->pel.find(id);
      if (it == group->pel.end()) return false;  // "Consumer entry not found in group PEL"
      // Owned twice (by this consumer or another): Redis catches only the first.
      if (it->second.consumer != nullptr) return false;
      it->second.consumer = consumer;
      consumer->pel.emplace(id, &it->second);
    }
  }
  // "Stream CG PEL entry without consumer", which Redis checks only when sanitizing.
  for (const auto& [id, entry] : group->pel) {
    if (entry.consumer == nullptr) return false;
  }
  return true;
}

}  // namespace

void WriteStream(RdbWriter& w, const Stream& s) {
  w.Length(s.node_count());
  s.VisitRawNodes([&w](const Stream::RawNode& node, std::span<const Stream::RawEntry> entries) {
    char key[kIdBytes];
    w.String(EncodeId(node.master, key));
    w.String(NodeListpack(node, entries));
  });
  w.Length(s.length());
  WriteId(w, s.last_id());
  WriteId(w, s.first_id());
  WriteId(w, s.max_deleted_id());
  w.Length(s.entries_added());

  const StreamGroups* groups = s.groups_if_any();
  w.Length(groups != nullptr ? groups->size() : 0);
  if (groups == nullptr) return;
  for (const auto& [name, group] : groups->all()) {
    w.String(name);
    WriteId(w, group->last_id);
    // rdbSaveLen of a long long: the unknown count (-1) goes out as the max.
    w.Length(static_cast<std::uint64_t>(group->entries_read));
    WriteGroupPel(w, group->pel);
    WriteConsumers(w, *group);
  }
}

bool ReadStream(RdbReader& r, std::uint8_t type, Stream& s, const StreamNodeLimits& /*limits*/) {
  if (type != kTypeStreamListpacks && type != kTypeStreamListpacks2) return false;
  if (!ReadEntries(r, type, s)) return false;
  std::uint64_t groups = 0;
  if (!r.Count(groups)) return false;
  for (std::uint64_t i = 0; i < groups; ++i) {
    if (!ReadGroup(r, type, s)) return false;
  }
  return true;
}

}  // namespace warden::storage::rdb
