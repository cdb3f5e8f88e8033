#include "storage/stream.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "storage/packed.h"
#include "storage/set.h"
#include "storage/stream_group.h"

namespace warden::storage {
namespace {

constexpr unsigned char kDeleted = Stream::kEntryDeleted;
constexpr unsigned char kSameFields = Stream::kEntrySameFields;

void SkipPacked(const char*& p) {
  const std::uint64_t len = ReadVarint(p);
  p += len;
}

std::string_view ReadPacked(const char*& p) {
  const std::uint64_t len = ReadVarint(p);
  const std::string_view s(p, len);
  p += len;
  return s;
}

std::uint64_t ZigZag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t UnZigZag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// The bytes Redis's listpack spends on one element: its encoding plus the back-length.
std::size_t LpIntBytes(std::int64_t v) {
  std::size_t enc = 9;
  if (v >= 0 && v <= 127) {
    enc = 1;
  } else if (v >= -4096 && v <= 4095) {
    enc = 2;
  } else if (v >= -32768 && v <= 32767) {
    enc = 3;
  } else if (v >= -8388608 && v <= 8388607) {
    enc = 4;
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    enc = 5;
  }
  return enc + 1;
}

std::size_t LpBacklenBytes(std::size_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// listpack's lpStringToInt64: a canonical int64 of at most 20 characters.
bool LpStringToInt(std::string_view s, std::int64_t& v) {
  if (s.empty() || s.size() >= 21) return false;
  return ParseCanonicalInt64(s, v);
}

std::size_t LpStringBytes(std::string_view s) {
  std::int64_t v = 0;
  if (LpStringToInt(s, v)) return LpIntBytes(v);
  std::size_t enc = 5 + s.size();
  if (s.size() < 64) {
    enc = 1 + s.size();
  } else if (s.size() < 4096) {
    enc = 2 + s.size();
  }
  return enc + LpBacklenBytes(enc);
}

constexpr std::size_t kLpHeaderAndEnd = 6 + 1;

// A node's key in Redis's radix tree: the id as 128 bits, big-endian.
std::string_view RadixKey(StreamId id, char (&buf)[16]) {
  for (int i = 0; i < 8; ++i) {
    buf[i] = static_cast<char>(id.ms >> (56 - 8 * i));
    buf[8 + i] = static_cast<char>(id.seq >> (56 - 8 * i));
  }
  return {buf, sizeof(buf)};
}
// Redis's STREAM_LISTPACK_MAX_SIZE.
constexpr std::size_t kListpackMaxSize = std::size_t{1} << 30;

}  // namespace

bool StreamId::Increment() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) {
      ms = seq = 0;
      return false;
    }
    ++ms;
    seq = 0;
  } else {
    ++seq;
  }
  return true;
}

bool StreamId::Decrement() {
  if (seq == 0) {
    if (ms == 0) {
      ms = seq = UINT64_MAX;
      return false;
    }
    --ms;
    seq = UINT64_MAX;
  } else {
    --seq;
  }
  return true;
}

std::string_view StreamId::Format(char (&buf)[48]) const {
  char* p = std::to_chars(buf, buf + 21, ms).ptr;
  *p++ = '-';
  p = std::to_chars(p, buf + sizeof(buf), seq).ptr;
  return {buf, static_cast<std::size_t>(p - buf)};
}

bool ParseStreamUint(std::string_view text, std::uint64_t& out) {
  std::int64_t v = 0;
  if (ParseCanonicalInt64(text, v)) {
    if (v < 0) return false;
    out = static_cast<std::uint64_t>(v);
    return true;
  }
  // strtoull's view of the text, which stops at a NUL as Redis's C string does.
  char buf[128];
  const std::size_t n = std::min(text.size(), sizeof(buf) - 1);
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(buf, &end, 10);
  if (errno == EINVAL || errno == ERANGE || buf[0] == '\0' || *end != '\0') return false;
  out = value;
  return true;
}

Stream::Stream() = default;
Stream::~Stream() = default;

std::size_t Stream::element_count() const {
  return length_ + (groups_ != nullptr ? groups_->pending_count() : 0);
}

bool Stream::ClearSome(std::size_t max_elements) {
  std::size_t freed = 0;
  while (!nodes_.empty() && freed < max_elements) {
    const auto it = nodes_.begin();
    freed += it->second.live + it->second.deleted;
    length_ -= it->second.live;
    nodes_.erase(it);
  }
  if (!nodes_.empty() || freed >= max_elements) return false;
  if (groups_ != nullptr && !groups_->ClearSome(max_elements - freed)) return false;
  groups_.reset();
  return true;
}

std::size_t Stream::LpBytes(const Node& node) {
  return node.lp_fixed_bytes + LpIntBytes(node.live) + LpIntBytes(node.deleted);
}

void Stream::Append(StreamId id, std::span<const std::string_view> pairs,
                    const StreamNodeLimits& limits) {
  const std::size_t field_count = pairs.size() / 2;
  std::size_t element_bytes = 0;
  for (std::string_view s : pairs) element_bytes += s.size();

  Node* node = nullptr;
  StreamId master;
  if (!nodes_.empty()) {
    auto last = std::prev(nodes_.end());
    std::size_t max_bytes = limits.max_bytes;
    if (max_bytes == 0 || max_bytes > kListpackMaxSize) max_bytes = kListpackMaxSize;
    Node& tail = last->second;
    bool full = LpBytes(tail) + element_bytes >= max_bytes;
    if (!full && limits.max_entries != 0) {
      full = static_cast<std::int64_t>(tail.live + tail.deleted) >= limits.max_entries;
    }
    if (full) {
      tail.entries.shrink_to_fit();
    } else {
      node = &tail;
      master = last->first;
    }
  }

  bool same_fields = false;
  if (node == nullptr) {
    master = id;
    node = &nodes_[id];
    char key[16];
    shape_.Insert(RadixKey(id, key));
    for (std::size_t i = 0; i < field_count; ++i) AppendPacked(node->master, pairs[i * 2]);
    node->master_fields = static_cast<std::uint32_t>(field_count);
    // The master entry: count, deleted (counted apart), the field count, the fields, a 0.
    node->lp_fixed_bytes =
        kLpHeaderAndEnd + LpIntBytes(static_cast<std::int64_t>(field_count)) + LpIntBytes(0);
    for (std::size_t i = 0; i < field_count; ++i) {
      node->lp_fixed_bytes += LpStringBytes(pairs[i * 2]);
    }
    same_fields = true;
  } else if (field_count == node->master_fields) {
    same_fields = true;
    PackedReader r(node->master);
    for (std::size_t i = 0; i < field_count && same_fields; ++i) {
      same_fields = r.Next() == pairs[i * 2];
    }
  }

  const std::int64_t ms_delta = static_cast<std::int64_t>(id.ms - master.ms);
  const std::int64_t seq_delta = static_cast<std::int64_t>(id.seq - master.seq);
  std::string& out = node->entries;
  out.push_back(static_cast<char>(same_fields ? kSameFields : 0));
  AppendVarint(out, id.ms - master.ms);
  AppendVarint(out, ZigZag(seq_delta));
  std::size_t lp =
      LpIntBytes(same_fields ? kSameFields : 0) + LpIntBytes(ms_delta) + LpIntBytes(seq_delta);
  std::int64_t lp_count = static_cast<std::int64_t>(field_count) + 3;
  if (same_fields) {
    for (std::size_t i = 0; i < field_count; ++i) {
      AppendPacked(out, pairs[i * 2 + 1]);
      lp += LpStringBytes(pairs[i * 2 + 1]);
    }
  } else {
    AppendVarint(out, field_count);
    lp += LpIntBytes(static_cast<std::int64_t>(field_count));
    for (std::string_view s : pairs) {
      AppendPacked(out, s);
      lp += LpStringBytes(s);
    }
    lp_count += static_cast<std::int64_t>(field_count) + 1;
  }
  lp += LpIntBytes(lp_count);
  node->lp_fixed_bytes += lp;
  ++node->live;

  ++length_;
  ++entries_added_;
  last_id_ = id;
  if (length_ == 1) first_id_ = id;
}

void Stream::DecodeRawNode(StreamId master, const Node& node, RawNodeBuffer& buf) {
  buf.master_fields.clear();
  for (PackedReader r(node.master); !r.done();) buf.master_fields.push_back(r.Next());
  buf.entries.clear();
  buf.fields.clear();
  // Spans are made once `fields` stops growing (it may move until then): `starts` holds
  // where each entry's fields begin.
  std::vector<std::size_t> starts;
  const char* p = node.entries.data();
  const char* const stop = p + node.entries.size();
  while (p < stop) {
    RawEntry& e = buf.entries.emplace_back();
    e.flags = static_cast<std::uint8_t>(*p++);
    e.id.ms = master.ms + ReadVarint(p);
    e.id.seq = master.seq + static_cast<std::uint64_t>(UnZigZag(ReadVarint(p)));
    starts.push_back(buf.fields.size());
    if (e.flags & kSameFields) {
      for (const std::string_view field : buf.master_fields) {
        buf.fields.emplace_back(field, ReadPacked(p));
      }
    } else {
      const std::uint64_t n = ReadVarint(p);
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::string_view field = ReadPacked(p);
        buf.fields.emplace_back(field, ReadPacked(p));
      }
    }
  }
  for (std::size_t i = 0; i < buf.entries.size(); ++i) {
    const std::size_t end = i + 1 < starts.size() ? starts[i + 1] : buf.fields.size();
    buf.entries[i].fields = std::span<const Field>(buf.fields).subspan(starts[i], end - starts[i]);
  }
  buf.node.master = master;
  buf.node.live = node.live;
  buf.node.deleted = node.deleted;
  buf.node.master_fields = buf.master_fields;
}

void Stream::AppendRawNode(const RawNode& raw, std::span<const RawEntry> entries,
                           std::size_t lp_bytes) {
  Node& node = nodes_[raw.master];
  char key[16];
  shape_.Insert(RadixKey(raw.master, key));
  for (const std::string_view field : raw.master_fields) AppendPacked(node.master, field);
  node.master_fields = static_cast<std::uint32_t>(raw.master_fields.size());
  for (const RawEntry& e : entries) {
    node.entries.push_back(static_cast<char>(e.flags));
    AppendVarint(node.entries, e.id.ms - raw.master.ms);
    AppendVarint(node.entries, ZigZag(static_cast<std::int64_t>(e.id.seq - raw.master.seq)));
    if (e.flags & kSameFields) {
      for (const Field& f : e.fields) AppendPacked(node.entries, f.second);
    } else {
      AppendVarint(node.entries, e.fields.size());
      for (const Field& f : e.fields) {
        AppendPacked(node.entries, f.first);
        AppendPacked(node.entries, f.second);
      }
    }
  }
  node.live = raw.live;
  node.deleted = raw.deleted;
  // The counters' encodings are added back by LpBytes as they change.
  const std::size_t counters = LpIntBytes(raw.live) + LpIntBytes(raw.deleted);
  node.lp_fixed_bytes = lp_bytes > counters ? lp_bytes - counters : 0;
  length_ += raw.live;
}

Stream::Cursor::Cursor(const Stream& stream, StreamId start, StreamId end, bool reverse)
    : stream_(stream), start_(start), end_(end), reverse_(reverse) {}

bool Stream::Cursor::LoadNode() {
  offsets_->clear();
  const Node& node = node_->second;
  offsets_->reserve(node.live + node.deleted);
  const char* base = node.entries.data();
  const char* p = base;
  const char* const stop = base + node.entries.size();
  while (p < stop) {
    offsets_->push_back(static_cast<std::size_t>(p - base));
    const auto flags = static_cast<unsigned char>(*p++);
    ReadVarint(p);
    ReadVarint(p);
    std::uint64_t strings = node.master_fields;
    if ((flags & kSameFields) == 0) strings = ReadVarint(p) * 2;
    for (std::uint64_t i = 0; i < strings; ++i) SkipPacked(p);
  }
  index_ = reverse_ ? offsets_->size() : 0;
  return true;
}

bool Stream::Cursor::Next() {
  const Nodes& nodes = stream_.nodes_;
  if (!started_) {
    started_ = true;
    if (nodes.empty()) return false;
    auto it = nodes.upper_bound(reverse_ ? end_ : start_);
    if (it == nodes.begin()) {
      if (reverse_) return false;
    } else {
      --it;
    }
    node_ = it;
    LoadNode();
  }
  for (;;) {
    const bool exhausted = reverse_ ? index_ == 0 : index_ == offsets_->size();
    if (exhausted) {
      if (reverse_) {
        if (node_ == nodes.begin()) return false;
        --node_;
        if (node_->first > end_) continue;
      } else {
        ++node_;
        if (node_ == nodes.end() || node_->first > end_) return false;
      }
      LoadNode();
      continue;
    }
    const std::size_t i = reverse_ ? --index_ : index_++;
    const Node& node = node_->second;
    const char* p = node.entries.data() + (*offsets_)[i];
    const auto flags = static_cast<unsigned char>(*p++);
    StreamId id = node_->first;
    id.ms += ReadVarint(p);
    id.seq += static_cast<std::uint64_t>(UnZigZag(ReadVarint(p)));
    // A tombstone is skipped before the bound is checked, as Redis's iterator does: after an
    // XSETID lowered the last id, a node may hold a deleted entry above a later live one.
    if (flags & kDeleted) continue;
    if (reverse_) {
      if (id > end_) continue;
      if (id < start_) return false;
    } else {
      if (id < start_) continue;
      if (id > end_) return false;
    }
    fields_->clear();
    if (flags & kSameFields) {
      const char* f = node.master.data();
      for (std::uint32_t n = 0; n < node.master_fields; ++n) {
        const std::string_view field = ReadPacked(f);
        fields_->emplace_back(field, ReadPacked(p));
      }
    } else {
      const std::uint64_t n = ReadVarint(p);
      for (std::uint64_t k = 0; k < n; ++k) {
        const std::string_view field = ReadPacked(p);
        fields_->emplace_back(field, ReadPacked(p));
      }
    }
    id_ = id;
    offset_ = (*offsets_)[i];
    return true;
  }
}

bool Stream::Contains(StreamId id) const {
  Cursor cursor(*this, id, id, false);
  return cursor.Next();
}

bool Stream::Delete(StreamId id) {
  Cursor cursor(*this, id, id, false);
  if (!cursor.Next()) return false;
  auto it = nodes_.find(cursor.node()->first);
  Node& node = it->second;
  if (node.live == 1) {
    EraseNode(it);
  } else {
    node.entries[cursor.offset()] = static_cast<char>(node.entries[cursor.offset()] | kDeleted);
    --node.live;
    ++node.deleted;
  }
  --length_;
  return true;
}

Stream::Nodes::iterator Stream::EraseNode(Nodes::iterator it) {
  char key[16];
  shape_.Remove(RadixKey(it->first, key));
  return nodes_.erase(it);
}

StreamId Stream::LastIdOf(StreamId master, const Node& node) {
  const char* p = node.entries.data();
  const char* const stop = p + node.entries.size();
  StreamId last = master;
  while (p < stop) {
    const auto flags = static_cast<unsigned char>(*p++);
    last.ms = master.ms + ReadVarint(p);
    last.seq = master.seq + static_cast<std::uint64_t>(UnZigZag(ReadVarint(p)));
    std::uint64_t strings = node.master_fields;
    if ((flags & kSameFields) == 0) strings = ReadVarint(p) * 2;
    for (std::uint64_t i = 0; i < strings; ++i) SkipPacked(p);
  }
  return last;
}

bool Stream::EdgeId(bool first, StreamId& id) const {
  Cursor cursor(*this, StreamId{}, StreamId::Max(), !first);
  if (!cursor.Next()) return false;
  id = cursor.id();
  return true;
}

void Stream::RefreshFirstId() {
  if (length_ == 0) {
    first_id_ = StreamId{};
  } else if (!EdgeId(true, first_id_)) {
    first_id_ = StreamId::Max();
  }
}

std::int64_t Stream::Trim(const StreamTrim& trim) {
  if (trim.strategy == StreamTrim::Strategy::kNone) return 0;
  const bool by_length = trim.strategy == StreamTrim::Strategy::kMaxLength;
  std::int64_t removed = 0;
  auto it = nodes_.begin();
  while (it != nodes_.end()) {
    if (by_length && length_ <= trim.max_length) break;
    Node& node = it->second;
    const std::int64_t entries = node.live;
    if (trim.limit != 0 && removed + entries > trim.limit) break;
    const bool whole = by_length ? length_ - static_cast<std::size_t>(entries) >= trim.max_length
                                 : LastIdOf(it->first, node) < trim.min_id;
    if (whole) {
      length_ -= static_cast<std::size_t>(entries);
      removed += entries;
      it = EraseNode(it);
      continue;
    }
    if (trim.approx) break;
    // Mark entries deleted from the head of this node, then stop: it had enough.
    std::uint32_t marked = 0;
    const char* base = node.entries.data();
    const char* p = base;
    const char* const stop = base + node.entries.size();
    while (p < stop) {
      const std::size_t at = static_cast<std::size_t>(p - base);
      const auto flags = static_cast<unsigned char>(*p++);
      StreamId id = it->first;
      id.ms += ReadVarint(p);
      id.seq += static_cast<std::uint64_t>(UnZigZag(ReadVarint(p)));
      if (by_length ? length_ <= trim.max_length : id >= trim.min_id) break;
      std::uint64_t strings = node.master_fields;
      if ((flags & kSameFields) == 0) strings = ReadVarint(p) * 2;
      for (std::uint64_t i = 0; i < strings; ++i) SkipPacked(p);
      if ((flags & kDeleted) == 0) {
        node.entries[at] = static_cast<char>(flags | kDeleted);
        ++marked;
        --length_;
      }
    }
    node.live -= marked;
    node.deleted += marked;
    removed += marked;
    break;
  }
  if (length_ == 0) {
    first_id_ = StreamId{};
  } else if (removed != 0) {
    RefreshFirstId();
  }
  return removed;
}

StreamGroups& Stream::groups() {
  if (groups_ == nullptr) groups_ = std::make_unique<StreamGroups>();
  return *groups_;
}

std::unique_ptr<Stream> Stream::Clone() const {
  auto copy = std::make_unique<Stream>();
  copy->nodes_ = nodes_;
  // As Redis's streamDup, which inserts the keys afresh: the copy's tree may be smaller.
  char key[16];
  for (const auto& [id, node] : nodes_) copy->shape_.Insert(RadixKey(id, key));
  copy->length_ = length_;
  copy->last_id_ = last_id_;
  copy->first_id_ = first_id_;
  copy->max_deleted_id_ = max_deleted_id_;
  copy->entries_added_ = entries_added_;
  if (groups_ != nullptr) copy->groups_ = groups_->Clone();
  return copy;
}

std::size_t Stream::memory_bytes() const {
  // A map node: three links, a color, the key and the Node.
  constexpr std::size_t kMapNode = 4 * sizeof(void*) + sizeof(StreamId) + sizeof(Node);
  std::size_t bytes = sizeof(Stream) + shape_.memory_bytes();
  for (const auto& [id, node] : nodes_) {
    bytes += kMapNode + node.entries.capacity() + node.master.capacity();
  }
  if (groups_ != nullptr) bytes += groups_->memory_bytes();
  return bytes;
}

Entry* StreamCreate(Keyspace& keyspace, std::string_view key) {
  LargeValue* const value = new Stream();
  return keyspace.Store(key, LargePointerBytes(value), kNoDeadline, nullptr, Encoding::kStream);
}

std::string StreamCopyValue(const Entry& stream) {
  LargeValue* const copy = StreamOf(stream)->Clone().release();
  return std::string(LargePointerBytes(copy));
}

}  // namespace warden::storage
