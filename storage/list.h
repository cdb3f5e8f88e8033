// List values. A small list is packed inline in its entry (packed.h: varint length + bytes,
// head first). Past the inline bound (list-max-listpack-size's node size, at most
// kMaxListNodeEntries elements) it becomes a List: a deque of packed chunks with per-chunk
// counts, as Redis's quicklist is a list of listpacks. Pushes and pops at either end touch one
// chunk; an index walks whole chunks first, from the nearer end. Conversion goes one way, as in
// Redis 7.0 (whose OBJECT ENCODING answers "quicklist" for either form).
//
// Entry ownership and lifetimes as in hash.h: functions that change a list take the entry by
// reference and update it (it may move), and set it to nullptr when the last element goes and the
// key with it. Views returned point into the list and live until it next changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/encoding_limits.h"
#include "storage/keyspace.h"
#include "storage/large_value.h"
#include "storage/packed.h"

namespace warden::storage {

enum class ListEnd { kHead, kTail };

// The most elements a packed node (inline or chunk) holds, however list-max-listpack-size is set:
// keeps a rewrite of the inline form, or a walk of one chunk, short.
inline constexpr std::size_t kMaxListNodeEntries = 128;

// A node's bounds for list-max-listpack-size `fill`: -1..-5 are 4..64 KB of bytes (Redis's
// optimization_level; lower values count as -5), a positive fill is an element count with
// Redis's 8 KB safety limit.
struct ListNodeBounds {
  std::size_t max_bytes;
  std::size_t max_entries;
};
ListNodeBounds NodeBoundsFor(std::int64_t fill);

// A list too large to live inline: packed chunks, none empty.
class List final : public LargeValue {
 public:
  explicit List(ListNodeBounds bounds) : bounds_(bounds) {}

  std::size_t size() const { return size_; }
  std::size_t element_count() const override { return size_; }
  bool ClearSome(std::size_t max_elements) override;

  void Push(ListEnd end, std::string_view element);
  // Removes the element at `end` into `out`; the list must not be empty.
  void Pop(ListEnd end, std::string& out);
  std::string_view At(std::size_t index) const;
  void Set(std::size_t index, std::string_view element);
  // Inserts before the element at `index` (index == size() appends).
  void Insert(std::size_t index, std::string_view element);
  // Removes up to `limit` elements equal to `element`, from the head or from the tail; returns
  // how many went.
  std::size_t Remove(std::string_view element, std::size_t limit, ListEnd from);
  // Keeps the elements [start, stop]; requires start <= stop < size().
  void Trim(std::size_t start, std::size_t stop);
  std::unique_ptr<List> Clone() const { return std::make_unique<List>(*this); }
  // Bytes held by chunks (capacity) and the deque's slots, for MEMORY USAGE.
  std::size_t memory_bytes() const;

  // Calls fn(element) from index `start` on until it returns false.
  template <typename Fn>
  void ForEachFrom(std::size_t start, Fn&& fn) const {
    std::size_t c = 0;
    while (c < chunks_.size() && start >= chunks_[c].count) start -= chunks_[c++].count;
    for (; c < chunks_.size(); ++c) {
      PackedReader r(chunks_[c].bytes);
      for (std::size_t i = 0; i < start; ++i) r.Next();
      start = 0;
      while (!r.done()) {
        if (!fn(r.Next())) return;
      }
    }
  }
  // Calls fn(element) from the tail towards the head until it returns false.
  template <typename Fn>
  void ForEachReverse(Fn&& fn) const {
    std::vector<std::string_view> views;
    for (std::size_t c = chunks_.size(); c-- > 0;) {
      views.clear();
      for (PackedReader r(chunks_[c].bytes); !r.done();) views.push_back(r.Next());
      for (std::size_t i = views.size(); i-- > 0;) {
        if (!fn(views[i])) return;
      }
    }
  }

 private:
  struct Chunk {
    std::string bytes;
    std::size_t count = 0;
  };
  bool Fits(const Chunk& chunk, std::string_view element) const;
  // The chunk holding `index`, and the index within it.
  std::size_t Locate(std::size_t index, std::size_t& within) const;
  // Splits chunk `c` in two halves if it outgrew the bounds.
  void MaybeSplit(std::size_t c);

  ListNodeBounds bounds_;
  std::deque<Chunk> chunks_;
  std::size_t size_ = 0;
  std::string scratch_;
  // Where each element of the back chunk starts, while tail pops are all that changed it since
  // they were read: a chunk has no back-links, so RPOP walks it once rather than once per
  // element. Every other change of the list drops them (InvalidateTail).
  std::vector<std::uint32_t> tail_offsets_;
  bool tail_offsets_valid_ = false;
  void InvalidateTail() { tail_offsets_valid_ = false; }
};

std::size_t ListLength(const Entry& list);
// Pushes `element` at `end`; `list` nullptr creates `key`. Returns the new length.
std::size_t ListPush(Keyspace& keyspace, Entry*& list, std::string_view key,
                     std::string_view element, ListEnd end, const EncodingLimits& limits);
// Pops the element at `end` into `out`; the list must exist.
void ListPop(Keyspace& keyspace, Entry*& list, ListEnd end, std::string& out);
// Pops up to `count` elements from `end`, appended to `out` in the order they leave.
void ListPopMany(Keyspace& keyspace, Entry*& list, ListEnd end, std::size_t count,
                 std::vector<std::string>& out);
// The element at `index` (negative counts from the tail), or nullopt when out of range.
std::optional<std::string_view> ListIndex(const Entry& list, std::int64_t index);
// Replaces the element at `index` (negative counts from the tail); false when out of range.
bool ListSet(Keyspace& keyspace, Entry*& list, std::int64_t index, std::string_view element,
             const EncodingLimits& limits);
// Inserts `element` before (or after) the first `pivot`; returns the new length, or -1 if
// `pivot` is absent.
std::int64_t ListInsert(Keyspace& keyspace, Entry*& list, std::string_view pivot,
                        std::string_view element, bool after, const EncodingLimits& limits);
// LREM: removes up to |count| elements equal to `element` (all when 0), from the tail when
// count < 0. Returns how many went.
std::size_t ListRemove(Keyspace& keyspace, Entry*& list, std::string_view element,
                       std::int64_t count);
// LTRIM with Redis's index arithmetic; an empty range deletes the key.
void ListTrim(Keyspace& keyspace, Entry*& list, std::int64_t start, std::int64_t stop);
// A copy of the value for another key in `to` (COPY): the same bytes, or a new List.
std::string ListCopyValue(const Entry& list);
// The List of a chunked list.
inline List* ListOf(const Entry& list) { return static_cast<List*>(list.large()); }

// Calls fn(element) from index `start` on until it returns false.
template <typename Fn>
void ListForEachFrom(const Entry& list, std::size_t start, Fn&& fn) {
  if (list.encoding() == Encoding::kListChunked) {
    ListOf(list)->ForEachFrom(start, fn);
    return;
  }
  PackedReader r(list.value());
  for (std::size_t i = 0; i < start && !r.done(); ++i) r.Next();
  while (!r.done()) {
    if (!fn(r.Next())) return;
  }
}

// Calls fn(element) from the tail towards the head until it returns false.
template <typename Fn>
void ListForEachReverse(const Entry& list, Fn&& fn) {
  if (list.encoding() == Encoding::kListChunked) {
    ListOf(list)->ForEachReverse(fn);
    return;
  }
  std::string_view views[kMaxListNodeEntries];
  std::size_t n = 0;
  for (PackedReader r(list.value()); !r.done();) views[n++] = r.Next();
  while (n-- > 0) {
    if (!fn(views[n])) return;
  }
}

}  // namespace warden::storage
