// The order of a large sorted set: a counted B+tree of (score, member entry) slots, sorted by
// score, then by member bytes (Redis's skiplist order). Every inner node keeps, for each child,
// its element count and its smallest slot, so a rank, a selection by rank and a lookup are one
// descent each: O(log n). Leaves hold up to kLeafSlots slots of 16 bytes in a ~1 KB block and are
// linked both ways for range walks. A leaf split at either end of the order (timestamps added
// in order, as lock libraries do) leaves the full leaf full, so such a tree is nearly dense.
//
// The tree does not own the entries its slots point to (the sorted set's member table does):
// an entry must stay in place while a slot points to it, and leave the tree before it is freed.
// Cursors stay valid until the tree next changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "storage/keyspace.h"

namespace warden::storage {

struct ZsetSlot {
  double score;
  const Entry* entry;  // the member's entry: its key is the member
  std::string_view member() const { return entry->key(); }
};

// Redis's order: by score, then by member bytes. -0 and 0 are the same score.
inline bool SlotLess(const ZsetSlot& a, const ZsetSlot& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.entry->key() < b.entry->key();
}

class OrderTree {
 public:
  static constexpr std::uint32_t kLeafSlots = 62;
  static constexpr std::uint32_t kInnerChildren = 31;

  struct Node;
  struct Leaf;
  struct Inner;

  // A position in the order; done() past either end.
  class Cursor {
   public:
    Cursor() = default;
    bool done() const { return leaf_ == nullptr; }
    const ZsetSlot& slot() const;
    void Next();
    void Prev();

   private:
    friend class OrderTree;
    Cursor(const Leaf* leaf, std::uint32_t index) : leaf_(leaf), index_(index) {}
    const Leaf* leaf_ = nullptr;
    std::uint32_t index_ = 0;
  };

  OrderTree() = default;
  ~OrderTree();
  OrderTree(const OrderTree&) = delete;
  OrderTree& operator=(const OrderTree&) = delete;

  std::size_t size() const { return size_; }
  // Adds a slot whose member is not in the tree.
  void Insert(const ZsetSlot& slot);
  // Removes the slot of `slot.entry`, which must be in the tree with `slot.score`.
  void Erase(const ZsetSlot& slot);
  // The 0-based rank of a slot that is in the tree.
  std::size_t Rank(const ZsetSlot& slot) const;
  // The slot at `rank` (< size()).
  Cursor Select(std::size_t rank) const;
  Cursor First() const;
  Cursor Last() const;
  // How many slots come before the first slot for which `before` is false; `before` must hold
  // for a prefix of the order (score < x, member <= m, ...).
  std::size_t CountBefore(bool (*before)(const ZsetSlot&, const void*), const void* arg) const;

  // Frees up to about `max_slots` slots' worth of nodes; true once the tree is empty. The tree
  // must not be used otherwise once this has started.
  bool ClearSome(std::size_t max_slots);
  // Bytes of the nodes.
  std::size_t memory_bytes() const;
  // Checks counts, minimums, order, parent and leaf links. For tests; O(n).
  bool Verify() const;

 private:
  static std::uint32_t ChildFor(const Inner& in, const ZsetSlot& slot);
  static std::uint32_t IndexIn(const Inner& parent, const Node* child);
  static const ZsetSlot& MinOf(const Node* n);
  void FixMin(Node* n);
  void InsertChild(Inner* parent, std::uint32_t at, Node* child, std::size_t count);
  bool ShiftToSibling(Leaf* leaf, std::uint32_t pos, const ZsetSlot& slot);
  void SplitLeaf(Leaf* leaf, std::uint32_t pos, const ZsetSlot& slot);
  void RemoveChild(Inner* parent, std::uint32_t at);
  void Rebalance(Node* n);
  void FreeInner(Node* n);
  bool VerifyNode(const Node* n, std::size_t& count, const Leaf*& prev) const;

  Node* root_ = nullptr;
  Leaf* first_ = nullptr;
  Leaf* last_ = nullptr;
  std::size_t size_ = 0;
  std::size_t leaves_ = 0;
  std::size_t inners_ = 0;
  bool clearing_ = false;
};

}  // namespace warden::storage
