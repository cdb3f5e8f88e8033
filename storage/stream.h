// Stream values (Redis 7.0's streams): entries with increasing ids, each a list of field-value
// pairs, and the consumer groups that read them (stream_group.h).
//
// Entries are kept in nodes of up to stream-node-max-entries entries, ordered by the id of
// their first entry, as Redis keeps listpacks in a radix tree. A node holds its entries packed
// one after another: a flags byte, the id as deltas from the node's first id (varints), and
// either the values alone, when the fields are the node's first entry's fields (most streams
// write the same fields every time), or a field count and the pairs. XDEL marks an entry
// deleted in place and a node goes when its last live entry does, as in Redis. A node is closed
// for appends when it reaches stream-node-max-entries (live and deleted), or when the listpack
// Redis would have built for it reaches stream-node-max-bytes: the node's Redis size is counted
// as entries are added, so approximate trimming (which drops whole nodes) keeps exactly the
// entries Redis keeps.
//
// Views handed to visitors point into the stream and live until it next changes.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/keyspace.h"
#include "storage/large_value.h"
#include "storage/radix_shape.h"
#include "storage/scratch_vector.h"

namespace warden::storage {

struct StreamId {
  std::uint64_t ms = 0;
  std::uint64_t seq = 0;

  friend auto operator<=>(const StreamId&, const StreamId&) = default;
  static constexpr StreamId Max() { return {UINT64_MAX, UINT64_MAX}; }
  bool is_zero() const { return ms == 0 && seq == 0; }
  // The next id (Redis's streamIncrID); false, leaving 0-0, past the last possible one.
  bool Increment();
  // The previous id (streamDecrID); false, leaving the max, before 0-0.
  bool Decrement();
  // "ms-seq".
  std::string_view Format(char (&buf)[48]) const;
};

// Where nodes are closed: stream-node-max-bytes and stream-node-max-entries (0: no limit).
struct StreamNodeLimits {
  std::size_t max_bytes = 4096;
  std::int64_t max_entries = 100;
};

// XADD's and XTRIM's trimming: keep at most `max_length` entries, or none below `min_id`.
// Approximate trimming drops only whole nodes; `limit` caps the entries dropped (0: no cap).
struct StreamTrim {
  enum class Strategy { kNone, kMaxLength, kMinId };
  Strategy strategy = Strategy::kNone;
  std::uint64_t max_length = 0;
  StreamId min_id;
  bool approx = false;
  std::int64_t limit = 0;
};

class StreamGroups;

class Stream final : public LargeValue {
 public:
  using Field = std::pair<std::string_view, std::string_view>;

  Stream();
  ~Stream() override;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  std::size_t length() const { return length_; }
  // Entries and pending entries: what freeing the stream costs.
  std::size_t element_count() const override;
  bool ClearSome(std::size_t max_elements) override;

  // The last id added (or set by XSETID): new ids must be greater.
  StreamId last_id() const { return last_id_; }
  // The first entry's id as recorded (XINFO's recorded-first-entry-id; 0-0 when empty).
  StreamId first_id() const { return first_id_; }
  StreamId max_deleted_id() const { return max_deleted_id_; }
  std::uint64_t entries_added() const { return entries_added_; }
  void SetLastId(StreamId id) { last_id_ = id; }
  void SetEntriesAdded(std::uint64_t n) { entries_added_ = n; }
  void SetMaxDeletedId(StreamId id) { max_deleted_id_ = id; }
  // XDEL records the new first entry (or 0-0) itself, as Redis's does.
  void SetFirstId(StreamId id) { first_id_ = id; }
  // Nodes held (XINFO's radix-tree-keys), and the nodes of the radix tree Redis would index
  // them with (radix-tree-nodes).
  std::size_t node_count() const { return nodes_.size(); }
  std::size_t radix_nodes() const { return shape_.nodes(); }

  // Appends an entry with id `id` (greater than last_id()); `pairs` alternates fields and
  // values.
  void Append(StreamId id, std::span<const std::string_view> pairs, const StreamNodeLimits& limits);
  // Deletes the entry `id`; false when there is none.
  bool Delete(StreamId id);
  // Trims as `trim` says; returns the number of entries removed.
  std::int64_t Trim(const StreamTrim& trim);
  // The first (or last) live entry's id; false when empty.
  bool EdgeId(bool first, StreamId& id) const;
  // The first entry's id, deleted or not (Redis's streamGetEdgeID without skipping
  // tombstones): the first node's first id, or the max when there is no node.
  StreamId FirstIdWithTombstones() const {
    return nodes_.empty() ? StreamId::Max() : nodes_.begin()->first;
  }

  // Calls fn(id, fields) for the live entries with start <= id <= end, from the start (or,
  // `reverse`, from the end) until it returns false. `fields` is a span valid during the call.
  template <typename Fn>
  void Range(StreamId start, StreamId end, bool reverse, Fn&& fn) const {
    if (start > end || length_ == 0) return;
    Cursor cursor(*this, start, end, reverse);
    while (cursor.Next()) {
      if (!fn(cursor.id(), std::span<const Field>(cursor.fields()))) return;
    }
  }
  // Whether entry `id` is live, and calls fn(fields) if it is.
  template <typename Fn>
  bool Get(StreamId id, Fn&& fn) const {
    Cursor cursor(*this, id, id, false);
    if (!cursor.Next()) return false;
    fn(std::span<const Field>(cursor.fields()));
    return true;
  }
  bool Contains(StreamId id) const;

  // The consumer groups; created on first use.
  StreamGroups& groups();
  const StreamGroups* groups_if_any() const { return groups_.get(); }

  std::unique_ptr<Stream> Clone() const;
  // Bytes held by nodes and groups, for MEMORY USAGE.
  std::size_t memory_bytes() const;

  // Nodes as Redis's listpacks hold them, deleted entries included: the RDB format saves them
  // that way (storage/rdb/stream_codec.cc), so a stream keeps its node boundaries through
  // DUMP and RESTORE as Redis's does.
  static constexpr std::uint8_t kEntryDeleted = 1;     // STREAM_ITEM_FLAG_DELETED
  static constexpr std::uint8_t kEntrySameFields = 2;  // STREAM_ITEM_FLAG_SAMEFIELDS
  struct RawNode {
    StreamId master;  // the node's key
    std::uint32_t live = 0;
    std::uint32_t deleted = 0;
    std::span<const std::string_view> master_fields;
  };
  struct RawEntry {
    StreamId id;
    std::uint8_t flags = 0;
    // With kEntrySameFields, the names are the master's: Redis stores the values alone.
    std::span<const Field> fields;
  };
  // Calls fn(const RawNode&, std::span<const RawEntry>) for each node, in id order. The views
  // live during the call.
  template <typename Fn>
  void VisitRawNodes(Fn&& fn) const {
    RawNodeBuffer buf;
    for (const auto& [master, node] : nodes_) {
      DecodeRawNode(master, node, buf);
      fn(static_cast<const RawNode&>(buf.node), std::span<const RawEntry>(buf.entries));
    }
  }
  // Adds a node after the last one, for a loader that rebuilds Redis's nodes. The caller has
  // checked what lookups rely on: `node.master` above every node's key and every live entry
  // so far, each entry at or above it, live entries in increasing order; and that `entries`
  // are live + deleted in number (at least one), flagged with those two flags only, with the
  // master's field count where kEntrySameFields is set. `lp_bytes` is the size of Redis's
  // listpack for the node, which decides when it closes for appends. Adds the live entries to
  // length(); the other counters and ids are the caller's to set.
  void AppendRawNode(const RawNode& node, std::span<const RawEntry> entries, std::size_t lp_bytes);

 private:
  struct RawNodeBuffer {
    RawNode node;
    std::vector<std::string_view> master_fields;
    std::vector<RawEntry> entries;
    std::vector<Field> fields;
  };
  struct Node {
    std::string master;   // the first entry's fields, packed
    std::string entries;  // the entries, packed
    std::uint32_t master_fields = 0;
    std::uint32_t live = 0;
    std::uint32_t deleted = 0;
    // Redis's listpack bytes for this node, less the live and deleted counters' encodings
    // (they change in place).
    std::size_t lp_fixed_bytes = 0;
  };
  using Nodes = std::map<StreamId, Node>;

  // A walk over the live entries in [start, end], decoding each into fields_.
  class Cursor {
   public:
    Cursor(const Stream& stream, StreamId start, StreamId end, bool reverse);
    bool Next();
    StreamId id() const { return id_; }
    const std::vector<Field>& fields() const { return *fields_; }
    // Where the current entry's flags byte is, for Delete.
    Nodes::const_iterator node() const { return node_; }
    std::size_t offset() const { return offset_; }

   private:
    bool LoadNode();
    const Stream& stream_;
    StreamId start_;
    StreamId end_;
    bool reverse_;
    bool started_ = false;
    Nodes::const_iterator node_;
    ScratchVector<std::size_t> offsets_;  // of the current node's entries
    std::size_t index_ = 0;
    std::size_t offset_ = 0;
    StreamId id_;
    ScratchVector<Field> fields_;
  };

  static std::size_t LpBytes(const Node& node);
  static void DecodeRawNode(StreamId master, const Node& node, RawNodeBuffer& buf);
  // Removes node `it` (all of its entries dead or trimmed).
  Nodes::iterator EraseNode(Nodes::iterator it);
  // The last entry id of a node, deleted or not (Redis's lpGetEdgeStreamID).
  static StreamId LastIdOf(StreamId master, const Node& node);
  void RefreshFirstId();

  Nodes nodes_;
  RadixShape shape_;
  std::size_t length_ = 0;
  StreamId last_id_;
  StreamId first_id_;
  StreamId max_deleted_id_;
  std::uint64_t entries_added_ = 0;
  std::unique_ptr<StreamGroups> groups_;
};

inline Stream* StreamOf(const Entry& e) { return static_cast<Stream*>(e.large()); }

// Creates an empty stream at `key` (absent); returns its entry.
Entry* StreamCreate(Keyspace& keyspace, std::string_view key);
// A copy for another key (COPY, snapshots): the new stream's pointer bytes.
std::string StreamCopyValue(const Entry& stream);

// Redis's string2ull, as stream ids are read with it: a canonical int64 that is not negative,
// or what strtoull accepts whole (leading blanks, a sign, zeros).
bool ParseStreamUint(std::string_view text, std::uint64_t& out);

}  // namespace warden::storage
