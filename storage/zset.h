// Sorted set values. A small sorted set is packed inline in its entry, ordered by (score,
// member) as Redis's listpack keeps it: each element is its member, then its score (see
// PackedZsetReader for the bytes). It becomes a SortedSet (a member table plus an OrderTree)
// once it holds more than zset-max-listpack-entries members or one longer than
// zset-max-listpack-value bytes; conversions go one way, as in Redis.
//
// Redis 7.0 stores an integral listpack score as an integer, so a packed -0 reads back as 0
// while a skiplist keeps -0; warden does the same.
//
// Entry ownership as in hash.h: functions that change a set take its entry by reference and
// update it (it may move; nullptr once the last member went and the key with it). Ranks are
// 0-based in ascending order. Member views handed to callbacks live only for the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/encoding_limits.h"
#include "storage/keyspace.h"
#include "storage/order_tree.h"

namespace warden::storage {

// The large encoding: member -> score in a table of its own (entries that never move while in
// the set, their value the 8-byte score), and the order of (score, member) in an OrderTree.
class SortedSet final : public LargeValue {
 public:
  explicit SortedSet(Keyspace& owner);
  ~SortedSet() override;

  std::size_t size() const { return tree_.size(); }
  // The member's entry in the table, or nullptr.
  const Entry* Find(std::string_view member) const { return members_->Peek(member); }
  static double ScoreOf(const Entry& member);
  // Adds a member that is not in the set.
  void Insert(std::string_view member, double score);
  // Moves a member to a new score.
  void Update(const Entry* member, double score);
  void Erase(const Entry* member);
  std::size_t Rank(const Entry* member) const { return tree_.Rank({ScoreOf(*member), member}); }
  const OrderTree& tree() const { return tree_; }
  const Keyspace& members() const { return *members_; }
  Keyspace& members() { return *members_; }

  std::size_t element_count() const override { return size(); }
  bool ClearSome(std::size_t max_elements) override;
  // The table's entries and buckets, and the tree's nodes.
  std::size_t memory_bytes() const;
  bool Verify() const;

 private:
  std::unique_ptr<Keyspace> members_;
  OrderTree tree_;
};

struct ZsetItem {
  std::string member;
  double score;
};

// ZADD's options. GT/LT never stop a new member from being added.
struct ZaddFlags {
  bool nx = false;
  bool xx = false;
  bool gt = false;
  bool lt = false;
  bool incr = false;
};

struct ZaddResult {
  bool added = false;
  bool updated = false;  // the score changed
  bool skipped = false;  // NX, XX, GT or LT stopped it (Redis's ZADD_OUT_NOP)
  bool nan = false;      // INCR made NaN: nothing changed
  double score = 0;      // the member's score afterwards, when not skipped
};

// A bound of a lexicographic range: -, +, [member or (member.
struct LexBound {
  enum Kind : std::uint8_t { kMinusInf, kPlusInf, kInclusive, kExclusive } kind;
  std::string_view member;
};

std::size_t ZsetSize(const Entry& zset);
std::optional<double> ZsetScore(const Entry& zset, std::string_view member);
std::optional<std::size_t> ZsetRank(const Entry& zset, std::string_view member);

// Adds or updates `member` as ZADD does with `flags` (`score` is the increment under INCR).
// `zset` nullptr creates `key` (the caller handles XX on a missing key), packed unless the
// limits or the member's length say otherwise, as Redis decides.
ZaddResult ZsetAdd(Keyspace& keyspace, Entry*& zset, std::string_view key, std::string_view member,
                   double score, const ZaddFlags& flags, const EncodingLimits& limits);
// Removes `member`; returns whether it was there.
bool ZsetRemove(Keyspace& keyspace, Entry*& zset, std::string_view member);
// Removes the members of ranks [start, end); returns how many.
std::size_t ZsetRemoveRange(Keyspace& keyspace, Entry*& zset, std::size_t start, std::size_t end);
// Removes and returns the member with the lowest (or, with `max`, highest) rank.
ZsetItem ZsetPop(Keyspace& keyspace, Entry*& zset, bool max);

// How many members come before the first one whose score is >= `score` (> with `inclusive`).
std::size_t ZsetCountBelowScore(const Entry& zset, double score, bool inclusive);
// For the lower bound of a lexicographic range (`is_min`), how many members come before the
// first one in range; for the upper bound, how many come before the first one past it.
// Members compare as bytes: meaningful when they are in byte order, as when all scores are
// equal (Redis's contract for lex ranges).
std::size_t ZsetCountBelowLex(const Entry& zset, const LexBound& bound, bool is_min);

// Calls fn(member, score) from rank `start` on (downwards with `reverse`) until it returns
// false or the set ends.
template <typename Fn>
void ZsetVisit(const Entry& zset, std::size_t start, bool reverse, Fn&& fn);
// The members and scores in order, copied.
std::vector<ZsetItem> ZsetItems(const Entry& zset);

// Stores the members `items` (in order, distinct, at least one) under `key`, which must be
// absent: packed (as Redis converts a skiplist to a listpack: -0 becomes 0) or as a SortedSet.
void ZsetStore(Keyspace& keyspace, std::string_view key, std::span<const ZsetItem> items,
               bool packed);
// Whether Redis would keep a set of `items` as a listpack.
bool ZsetFitsPacked(std::span<const ZsetItem> items, const EncodingLimits& limits);
// A copy of the value for COPY: the bytes to store with the same encoding.
std::string ZsetCopyValue(const Entry& zset, Keyspace& to);

// Reads the packed bytes. Each element is a member, then a score:
//   member  varint h: h even, h/2 raw bytes follow; h == 1, a lower-case canonical UUID
//           (8-4-4-4-12 hex digits) follows as its 16 bytes.
//   score   varint v: v even, the integral score zigzag(v/2) (|score| <= 2^53); v == 1, the
//           8 bytes of a double follow.
// The member view lives until the next call to Next(). A UUID member is spelled out only when
// member() asks for it: counting and lookups compare its 16 bytes instead.
class PackedZsetReader {
 public:
  explicit PackedZsetReader(std::string_view bytes, std::size_t offset = 0)
      : base_(bytes.data()), p_(base_ + offset), end_(base_ + bytes.size()) {}
  bool done() const { return p_ == end_; }
  void Next();
  std::string_view member() const {
    if (uuid_ != nullptr && !spelled_) Spell();
    return member_;
  }
  // Whether the member just read is `member`, whose 16-byte form is `packed` (null when it
  // is not a canonical UUID, and so never stored as one).
  bool MemberIs(std::string_view member, const unsigned char* packed) const {
    if (uuid_ == nullptr) return member_ == member;
    return packed != nullptr && std::memcmp(uuid_, packed, 16) == 0;
  }
  double score() const { return score_; }
  // Where the element just read starts and ends, as offsets.
  std::size_t start() const { return start_; }
  std::size_t offset() const { return static_cast<std::size_t>(p_ - base_); }

 private:
  const char* base_;
  const char* p_;
  const char* end_;
  void Spell() const;

  std::size_t start_ = 0;
  const char* uuid_ = nullptr;  // the 16 bytes of a UUID member, or null
  mutable bool spelled_ = false;
  mutable std::string_view member_;
  mutable char spelling_[36];
  double score_ = 0;
};

// Appends one packed element.
void AppendPackedZsetItem(std::string& out, std::string_view member, double score);

template <typename Fn>
void ZsetVisit(const Entry& zset, std::size_t start, bool reverse, Fn&& fn) {
  if (zset.encoding() == Encoding::kZsetPacked) {
    const std::string_view bytes = zset.value();
    if (!reverse) {
      std::size_t rank = 0;
      for (PackedZsetReader r(bytes); !r.done();) {
        r.Next();
        if (rank++ < start) continue;
        if (!fn(r.member(), r.score())) return;
      }
      return;
    }
    // Elements have no back links: note where each starts, then walk back.
    std::vector<std::uint32_t> starts;
    for (PackedZsetReader r(bytes); !r.done();) {
      starts.push_back(static_cast<std::uint32_t>(r.offset()));
      r.Next();
    }
    for (std::size_t i = start + 1; i-- > 0;) {
      if (i >= starts.size()) continue;
      PackedZsetReader r(bytes, starts[i]);
      r.Next();
      if (!fn(r.member(), r.score())) return;
    }
    return;
  }
  const OrderTree& tree = static_cast<const SortedSet*>(zset.large())->tree();
  if (start >= tree.size()) return;
  for (OrderTree::Cursor c = tree.Select(start); !c.done();) {
    if (!fn(c.slot().member(), c.slot().score)) return;
    if (reverse) {
      c.Prev();
    } else {
      c.Next();
    }
  }
}

}  // namespace warden::storage
