#include "storage/list.h"

#include <algorithm>
#include <limits>

namespace warden::storage {
namespace {

std::size_t PackedSize(std::string_view element) {
  std::size_t header = 1;
  for (std::size_t len = element.size(); len >= 0x80; len >>= 7) ++header;
  return header + element.size();
}

// Where element `index` starts (bytes.size() when index is the count).
std::size_t OffsetOf(std::string_view bytes, std::size_t index) {
  PackedReader r(bytes);
  for (std::size_t i = 0; i < index; ++i) r.Next();
  return r.offset(bytes.data());
}

std::size_t LastOffset(std::string_view bytes) {
  PackedReader r(bytes);
  std::size_t last = 0;
  while (!r.done()) {
    last = r.offset(bytes.data());
    r.Next();
  }
  return last;
}

void PrependPacked(std::string& bytes, std::string_view element) {
  std::size_t len = element.size();
  char buf[10];
  std::size_t n = 0;
  while (len >= 0x80) {
    buf[n++] = static_cast<char>((len & 0x7F) | 0x80);
    len >>= 7;
  }
  buf[n++] = static_cast<char>(len);
  bytes.insert(0, element);
  bytes.insert(0, buf, n);
}

// `bytes` with `element` inserted before element `index`, into `out`.
void WithInserted(std::string& out, std::string_view bytes, std::size_t index,
                  std::string_view element) {
  const std::size_t at = OffsetOf(bytes, index);
  out.assign(bytes.substr(0, at));
  AppendPacked(out, element);
  out.append(bytes.substr(at));
}

// `bytes` with element `index` replaced by `element`, into `out`.
void WithReplaced(std::string& out, std::string_view bytes, std::size_t index,
                  std::string_view element) {
  PackedReader r(bytes);
  for (std::size_t i = 0; i < index; ++i) r.Next();
  const std::size_t at = r.offset(bytes.data());
  r.Next();
  out.assign(bytes.substr(0, at));
  AppendPacked(out, element);
  out.append(bytes.substr(r.offset(bytes.data())));
}

// `bytes` without up to `limit` elements equal to `element` (the first ones, or the last ones
// when `from` is the tail), into `out`. Returns how many went.
std::size_t WithRemoved(std::string& out, std::string_view bytes, std::string_view element,
                        std::size_t limit, ListEnd from) {
  std::size_t keep_first = 0;  // matches left in place before removing starts
  if (from == ListEnd::kTail) {
    std::size_t matches = 0;
    for (PackedReader r(bytes); !r.done();) matches += r.Next() == element;
    keep_first = matches > limit ? matches - limit : 0;
  }
  out.clear();
  std::size_t seen = 0;
  std::size_t removed = 0;
  for (PackedReader r(bytes); !r.done();) {
    const std::string_view e = r.Next();
    if (e == element && seen++ >= keep_first && removed < limit) {
      ++removed;
    } else {
      AppendPacked(out, e);
    }
  }
  return removed;
}

bool FitsInline(std::size_t count, std::size_t bytes, const EncodingLimits& limits) {
  const ListNodeBounds b = NodeBoundsFor(limits.list_max_listpack_size);
  return count <= b.max_entries && bytes <= b.max_bytes;
}

// Stores the keyspace's scratch (a packed list of `count` elements) as the value of `list`,
// or of a new `key` when `list` is nullptr: inline if it fits, else as a List. Deletes the
// key when count is 0.
Entry* StoreScratch(Keyspace& keyspace, Entry* list, std::string_view key, std::size_t count,
                    const EncodingLimits& limits) {
  const std::string& bytes = keyspace.scratch();
  if (count == 0) {
    keyspace.Erase(list);
    return nullptr;
  }
  if (FitsInline(count, bytes.size(), limits)) {
    if (list == nullptr)
      return keyspace.Store(key, bytes, kNoDeadline, nullptr, Encoding::kListPacked);
    return keyspace.SetValue(list, bytes, Encoding::kListPacked);
  }
  auto* chunked = new List(NodeBoundsFor(limits.list_max_listpack_size));
  for (PackedReader r(bytes); !r.done();) chunked->Push(ListEnd::kTail, r.Next());
  LargeValue* const value = chunked;
  if (list == nullptr) {
    return keyspace.Store(key, LargePointerBytes(value), kNoDeadline, nullptr,
                          Encoding::kListChunked);
  }
  return keyspace.SetValue(list, LargePointerBytes(value), Encoding::kListChunked);
}

// Deletes the key of a chunked list that emptied.
void EraseIfEmpty(Keyspace& keyspace, Entry*& list) {
  if (ListOf(*list)->size() == 0) {
    keyspace.Erase(list);
    list = nullptr;
  } else {
    keyspace.NoteModified(list->key());
  }
}

// Redis's index arithmetic: negative counts from the tail; false when out of range.
bool NormalizeIndex(std::int64_t index, std::size_t len, std::size_t& out) {
  const auto n = static_cast<std::int64_t>(len);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return false;
  out = static_cast<std::size_t>(index);
  return true;
}

}  // namespace

ListNodeBounds NodeBoundsFor(std::int64_t fill) {
  if (fill >= 0) {
    return {8192, std::clamp<std::size_t>(static_cast<std::size_t>(fill), 1, kMaxListNodeEntries)};
  }
  const int level = fill < -5 ? 5 : static_cast<int>(-fill);
  return {std::size_t{4096} << (level - 1), kMaxListNodeEntries};
}

// List

bool List::Fits(const Chunk& chunk, std::string_view element) const {
  return chunk.count < bounds_.max_entries &&
         chunk.bytes.size() + PackedSize(element) <= bounds_.max_bytes;
}

void List::Push(ListEnd end, std::string_view element) {
  InvalidateTail();
  if (end == ListEnd::kHead) {
    if (!chunks_.empty() && Fits(chunks_.front(), element)) {
      PrependPacked(chunks_.front().bytes, element);
      ++chunks_.front().count;
    } else {
      chunks_.emplace_front();
      AppendPacked(chunks_.front().bytes, element);
      chunks_.front().count = 1;
    }
  } else {
    if (chunks_.empty() || !Fits(chunks_.back(), element)) chunks_.emplace_back();
    AppendPacked(chunks_.back().bytes, element);
    ++chunks_.back().count;
  }
  ++size_;
}

void List::Pop(ListEnd end, std::string& out) {
  if (end == ListEnd::kHead) {
    InvalidateTail();
    Chunk& c = chunks_.front();
    PackedReader r(c.bytes);
    out.assign(r.Next());
    if (--c.count == 0) {
      chunks_.pop_front();
    } else {
      c.bytes.erase(0, r.offset(c.bytes.data()));
    }
  } else {
    Chunk& c = chunks_.back();
    if (!tail_offsets_valid_) {
      tail_offsets_.clear();
      for (PackedReader r(c.bytes); !r.done(); r.Next()) {
        tail_offsets_.push_back(static_cast<std::uint32_t>(r.offset(c.bytes.data())));
      }
      tail_offsets_valid_ = true;
    }
    const std::size_t at = tail_offsets_.back();
    tail_offsets_.pop_back();
    PackedReader r(std::string_view(c.bytes).substr(at));
    out.assign(r.Next());
    if (--c.count == 0) {
      chunks_.pop_back();
      InvalidateTail();
    } else {
      c.bytes.resize(at);
    }
  }
  --size_;
}

std::size_t List::Locate(std::size_t index, std::size_t& within) const {
  if (index < size_ / 2) {
    std::size_t c = 0;
    while (index >= chunks_[c].count) index -= chunks_[c++].count;
    within = index;
    return c;
  }
  std::size_t from_end = size_ - 1 - index;
  std::size_t c = chunks_.size() - 1;
  while (from_end >= chunks_[c].count) from_end -= chunks_[c--].count;
  within = chunks_[c].count - 1 - from_end;
  return c;
}

std::string_view List::At(std::size_t index) const {
  std::size_t within = 0;
  const std::string_view bytes = chunks_[Locate(index, within)].bytes;
  PackedReader r(bytes);
  for (std::size_t i = 0; i < within; ++i) r.Next();
  return r.Next();
}

void List::Set(std::size_t index, std::string_view element) {
  InvalidateTail();
  std::size_t within = 0;
  const std::size_t c = Locate(index, within);
  WithReplaced(scratch_, chunks_[c].bytes, within, element);
  chunks_[c].bytes.swap(scratch_);
  MaybeSplit(c);
}

void List::Insert(std::size_t index, std::string_view element) {
  InvalidateTail();
  if (index == 0 || index == size_) {
    Push(index == 0 ? ListEnd::kHead : ListEnd::kTail, element);
    return;
  }
  std::size_t within = 0;
  const std::size_t c = Locate(index, within);
  WithInserted(scratch_, chunks_[c].bytes, within, element);
  chunks_[c].bytes.swap(scratch_);
  ++chunks_[c].count;
  ++size_;
  MaybeSplit(c);
}

void List::MaybeSplit(std::size_t c) {
  Chunk& chunk = chunks_[c];
  if (chunk.count < 2 ||
      (chunk.count <= bounds_.max_entries && chunk.bytes.size() <= bounds_.max_bytes)) {
    return;
  }
  const std::size_t half = chunk.count / 2;
  const std::size_t at = OffsetOf(chunk.bytes, half);
  Chunk second{chunk.bytes.substr(at), chunk.count - half};
  chunk.bytes.resize(at);
  chunk.count = half;
  chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c + 1), std::move(second));
}

std::size_t List::Remove(std::string_view element, std::size_t limit, ListEnd from) {
  InvalidateTail();
  std::size_t removed = 0;
  const auto remove_in = [&](std::size_t c) {
    const std::size_t n = WithRemoved(scratch_, chunks_[c].bytes, element, limit - removed, from);
    if (n == 0) return;
    removed += n;
    chunks_[c].count -= n;
    if (chunks_[c].count == 0) {
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(c));
    } else {
      chunks_[c].bytes.swap(scratch_);
    }
  };
  if (from == ListEnd::kHead) {
    for (std::size_t c = 0; c < chunks_.size() && removed < limit;) {
      const std::size_t before = chunks_.size();
      remove_in(c);
      if (chunks_.size() == before) ++c;
    }
  } else {
    for (std::size_t c = chunks_.size(); c-- > 0 && removed < limit;) remove_in(c);
  }
  size_ -= removed;
  return removed;
}

void List::Trim(std::size_t start, std::size_t stop) {
  InvalidateTail();
  const std::size_t keep = stop - start + 1;
  std::size_t drop = start;
  while (drop > 0 && drop >= chunks_.front().count) {
    drop -= chunks_.front().count;
    chunks_.pop_front();
  }
  if (drop > 0) {
    Chunk& c = chunks_.front();
    c.bytes.erase(0, OffsetOf(c.bytes, drop));
    c.count -= drop;
  }
  drop = size_ - start - keep;
  while (drop > 0 && drop >= chunks_.back().count) {
    drop -= chunks_.back().count;
    chunks_.pop_back();
  }
  if (drop > 0) {
    Chunk& c = chunks_.back();
    c.bytes.resize(OffsetOf(c.bytes, c.count - drop));
    c.count -= drop;
  }
  size_ = keep;
}

bool List::ClearSome(std::size_t max_elements) {
  InvalidateTail();
  std::size_t freed = 0;
  while (!chunks_.empty() && freed < max_elements) {
    freed += chunks_.back().count;
    size_ -= chunks_.back().count;
    chunks_.pop_back();
  }
  return chunks_.empty();
}

std::size_t List::memory_bytes() const {
  std::size_t bytes = sizeof(List) + scratch_.capacity();
  for (const Chunk& c : chunks_) bytes += sizeof(Chunk) + c.bytes.capacity();
  return bytes;
}

// Free functions over either form

std::size_t ListLength(const Entry& list) {
  if (list.encoding() == Encoding::kListChunked) return ListOf(list)->size();
  return PackedCount(list.value());
}

std::size_t ListPush(Keyspace& keyspace, Entry*& list, std::string_view key,
                     std::string_view element, ListEnd end, const EncodingLimits& limits) {
  if (list != nullptr && list->encoding() == Encoding::kListChunked) {
    List* l = ListOf(*list);
    l->Push(end, element);
    keyspace.NoteModified(list->key());
    return l->size();
  }
  std::string& out = keyspace.scratch();
  out.clear();
  std::size_t count = 1;
  if (end == ListEnd::kTail && list != nullptr) out.assign(list->value());
  AppendPacked(out, element);
  if (list != nullptr) {
    count += PackedCount(list->value());
    if (end == ListEnd::kHead) out.append(list->value());
  }
  list = StoreScratch(keyspace, list, key, count, limits);
  return count;
}

void ListPop(Keyspace& keyspace, Entry*& list, ListEnd end, std::string& out) {
  if (list->encoding() == Encoding::kListChunked) {
    ListOf(*list)->Pop(end, out);
    EraseIfEmpty(keyspace, list);
    return;
  }
  const std::string_view bytes = list->value();
  std::string& rest = keyspace.scratch();
  if (end == ListEnd::kHead) {
    PackedReader r(bytes);
    out.assign(r.Next());
    rest.assign(bytes.substr(r.offset(bytes.data())));
  } else {
    const std::size_t at = LastOffset(bytes);
    PackedReader r(bytes.substr(at));
    out.assign(r.Next());
    rest.assign(bytes.substr(0, at));
  }
  if (rest.empty()) {
    keyspace.Erase(list);
    list = nullptr;
  } else {
    list = keyspace.SetValue(list, rest, Encoding::kListPacked);
  }
}

void ListPopMany(Keyspace& keyspace, Entry*& list, ListEnd end, std::size_t count,
                 std::vector<std::string>& out) {
  for (; count > 0 && list != nullptr; --count) ListPop(keyspace, list, end, out.emplace_back());
}

std::optional<std::string_view> ListIndex(const Entry& list, std::int64_t index) {
  std::size_t i = 0;
  if (!NormalizeIndex(index, ListLength(list), i)) return std::nullopt;
  if (list.encoding() == Encoding::kListChunked) return ListOf(list)->At(i);
  PackedReader r(list.value());
  for (std::size_t k = 0; k < i; ++k) r.Next();
  return r.Next();
}

bool ListSet(Keyspace& keyspace, Entry*& list, std::int64_t index, std::string_view element,
             const EncodingLimits& limits) {
  const std::size_t len = ListLength(*list);
  std::size_t i = 0;
  if (!NormalizeIndex(index, len, i)) return false;
  if (list->encoding() == Encoding::kListChunked) {
    ListOf(*list)->Set(i, element);
    keyspace.NoteModified(list->key());
    return true;
  }
  WithReplaced(keyspace.scratch(), list->value(), i, element);
  list = StoreScratch(keyspace, list, {}, len, limits);
  return true;
}

std::int64_t ListInsert(Keyspace& keyspace, Entry*& list, std::string_view pivot,
                        std::string_view element, bool after, const EncodingLimits& limits) {
  std::size_t index = 0;
  bool found = false;
  ListForEachFrom(*list, 0, [&](std::string_view e) {
    if (e == pivot) {
      found = true;
      return false;
    }
    ++index;
    return true;
  });
  if (!found) return -1;
  if (after) ++index;
  if (list->encoding() == Encoding::kListChunked) {
    List* l = ListOf(*list);
    l->Insert(index, element);
    keyspace.NoteModified(list->key());
    return static_cast<std::int64_t>(l->size());
  }
  const std::size_t len = PackedCount(list->value()) + 1;
  WithInserted(keyspace.scratch(), list->value(), index, element);
  list = StoreScratch(keyspace, list, {}, len, limits);
  return static_cast<std::int64_t>(len);
}

std::size_t ListRemove(Keyspace& keyspace, Entry*& list, std::string_view element,
                       std::int64_t count) {
  // Redis negates a negative count; -INT64_MIN wraps to itself, which no count reaches: all.
  const std::size_t limit = count == 0  ? std::numeric_limits<std::size_t>::max()
                            : count > 0 ? static_cast<std::size_t>(count)
                                        : std::size_t{0} - static_cast<std::size_t>(count);
  const ListEnd from = count < 0 ? ListEnd::kTail : ListEnd::kHead;
  if (list->encoding() == Encoding::kListChunked) {
    const std::size_t removed = ListOf(*list)->Remove(element, limit, from);
    if (removed == 0) return 0;
    EraseIfEmpty(keyspace, list);
    return removed;
  }
  const std::size_t len = PackedCount(list->value());
  const std::size_t removed = WithRemoved(keyspace.scratch(), list->value(), element, limit, from);
  if (removed == len) {
    keyspace.Erase(list);
    list = nullptr;
  } else if (removed > 0) {
    list = keyspace.SetValue(list, keyspace.scratch(), Encoding::kListPacked);
  }
  return removed;
}

void ListTrim(Keyspace& keyspace, Entry*& list, std::int64_t start, std::int64_t stop) {
  const std::size_t len = ListLength(*list);
  const auto n = static_cast<std::int64_t>(len);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) {
    keyspace.Erase(list);
    list = nullptr;
    return;
  }
  if (stop >= n) stop = n - 1;
  const auto first = static_cast<std::size_t>(start);
  const auto last = static_cast<std::size_t>(stop);
  if (list->encoding() == Encoding::kListChunked) {
    ListOf(*list)->Trim(first, last);
    keyspace.NoteModified(list->key());  // even when nothing was cut, as Redis's LTRIM
    return;
  }
  const std::string_view bytes = list->value();
  const std::size_t from = OffsetOf(bytes, first);
  const std::size_t to = OffsetOf(bytes, last + 1);
  keyspace.scratch().assign(bytes.substr(from, to - from));
  list = keyspace.SetValue(list, keyspace.scratch(), Encoding::kListPacked);
}

std::string ListCopyValue(const Entry& list) {
  if (list.encoding() != Encoding::kListChunked) return std::string(list.value());
  LargeValue* const copy = ListOf(list)->Clone().release();
  return std::string(LargePointerBytes(copy));
}

}  // namespace warden::storage
