#include "storage/order_tree.h"

#include <cstdlib>
#include <cstring>

namespace warden::storage {

struct OrderTree::Node {
  Inner* parent = nullptr;
  std::uint32_t n = 0;  // slots of a leaf, children of an inner node
  bool leaf = false;
};

struct OrderTree::Leaf : Node {
  Leaf* prev = nullptr;
  Leaf* next = nullptr;
  ZsetSlot slots[kLeafSlots];
};

struct OrderTree::Inner : Node {
  std::size_t counts[kInnerChildren];  // slots under each child
  Node* children[kInnerChildren];
  ZsetSlot mins[kInnerChildren];  // each child's smallest slot
};

namespace {

// The first slot of `leaf` not ordered before `slot`.
std::uint32_t LowerBound(const ZsetSlot* slots, std::uint32_t n, const ZsetSlot& slot) {
  std::uint32_t lo = 0;
  std::uint32_t hi = n;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (SlotLess(slots[mid], slot)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

const ZsetSlot& OrderTree::Cursor::slot() const { return leaf_->slots[index_]; }

void OrderTree::Cursor::Next() {
  if (++index_ >= leaf_->n) {
    leaf_ = leaf_->next;
    index_ = 0;
  }
}

void OrderTree::Cursor::Prev() {
  if (index_ > 0) {
    --index_;
    return;
  }
  leaf_ = leaf_->prev;
  index_ = leaf_ != nullptr ? leaf_->n - 1 : 0;
}

OrderTree::~OrderTree() { ClearSome(SIZE_MAX); }

std::uint32_t OrderTree::ChildFor(const Inner& in, const ZsetSlot& slot) {
  // The last child whose smallest slot is not after `slot`.
  std::uint32_t lo = 0;
  std::uint32_t hi = in.n;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (SlotLess(slot, in.mins[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo == 0 ? 0 : lo - 1;
}

std::uint32_t OrderTree::IndexIn(const Inner& parent, const Node* child) {
  for (std::uint32_t i = 0; i < parent.n; ++i) {
    if (parent.children[i] == child) return i;
  }
  std::abort();
}

const ZsetSlot& OrderTree::MinOf(const Node* n) {
  return n->leaf ? static_cast<const Leaf*>(n)->slots[0] : static_cast<const Inner*>(n)->mins[0];
}

namespace {

std::size_t TotalOf(const OrderTree::Node* n);

}  // namespace

void OrderTree::FixMin(Node* n) {
  while (n->parent != nullptr) {
    Inner* p = n->parent;
    const std::uint32_t i = IndexIn(*p, n);
    p->mins[i] = MinOf(n);
    if (i != 0) return;
    n = p;
  }
}

void OrderTree::Insert(const ZsetSlot& slot) {
  ++size_;
  if (root_ == nullptr) {
    Leaf* leaf = new Leaf();
    leaf->leaf = true;
    leaf->slots[0] = slot;
    leaf->n = 1;
    ++leaves_;
    root_ = first_ = last_ = leaf;
    return;
  }
  Node* n = root_;
  while (!n->leaf) {
    Inner* in = static_cast<Inner*>(n);
    const std::uint32_t i = ChildFor(*in, slot);
    ++in->counts[i];
    n = in->children[i];
  }
  Leaf* leaf = static_cast<Leaf*>(n);
  const std::uint32_t pos = LowerBound(leaf->slots, leaf->n, slot);
  if (leaf->n == kLeafSlots) {
    if (!ShiftToSibling(leaf, pos, slot)) SplitLeaf(leaf, pos, slot);
    return;
  }
  std::memmove(&leaf->slots[pos + 1], &leaf->slots[pos], (leaf->n - pos) * sizeof(ZsetSlot));
  leaf->slots[pos] = slot;
  ++leaf->n;
  if (pos == 0) FixMin(leaf);
}

bool OrderTree::ShiftToSibling(Leaf* leaf, std::uint32_t pos, const ZsetSlot& slot) {
  // A full leaf first passes slots to a sibling with room (as a B*-tree does), so leaves of
  // scattered inserts stay about 85% full instead of 70%.
  Inner* p = leaf->parent;
  if (p == nullptr) return false;
  const std::uint32_t i = IndexIn(*p, leaf);
  Leaf* right = i + 1 < p->n ? static_cast<Leaf*>(p->children[i + 1]) : nullptr;
  Leaf* left = i > 0 ? static_cast<Leaf*>(p->children[i - 1]) : nullptr;
  const bool to_right = right != nullptr && right->n + 1 < kLeafSlots;
  if (!to_right && (left == nullptr || left->n + 1 >= kLeafSlots)) return false;
  // The leaf's slots with the new one in place: kLeafSlots + 1 of them.
  ZsetSlot all[kLeafSlots + 1];
  std::memcpy(all, leaf->slots, pos * sizeof(ZsetSlot));
  all[pos] = slot;
  std::memcpy(all + pos + 1, leaf->slots + pos, (kLeafSlots - pos) * sizeof(ZsetSlot));
  if (to_right) {
    const std::uint32_t m = (kLeafSlots - right->n) / 2;
    std::memmove(right->slots + m, right->slots, right->n * sizeof(ZsetSlot));
    std::memcpy(right->slots, all + kLeafSlots + 1 - m, m * sizeof(ZsetSlot));
    right->n += m;
    leaf->n = kLeafSlots + 1 - m;
    std::memcpy(leaf->slots, all, leaf->n * sizeof(ZsetSlot));
    p->counts[i] -= m;
    p->counts[i + 1] += m;
    p->mins[i + 1] = right->slots[0];
    if (pos == 0) FixMin(leaf);
    return true;
  }
  const std::uint32_t m = (kLeafSlots - left->n) / 2;
  std::memcpy(left->slots + left->n, all, m * sizeof(ZsetSlot));
  left->n += m;
  leaf->n = kLeafSlots + 1 - m;
  std::memcpy(leaf->slots, all + m, leaf->n * sizeof(ZsetSlot));
  p->counts[i] -= m;
  p->counts[i - 1] += m;
  FixMin(leaf);
  return true;
}

void OrderTree::SplitLeaf(Leaf* leaf, std::uint32_t pos, const ZsetSlot& slot) {
  Leaf* right = new Leaf();
  right->leaf = true;
  ++leaves_;
  // Slots added in order (at either end of the whole order) leave the full leaf full.
  std::uint32_t k = kLeafSlots / 2;
  if (pos == kLeafSlots && leaf->next == nullptr) k = kLeafSlots;
  if (pos == 0 && leaf->prev == nullptr) k = 0;
  std::memcpy(right->slots, leaf->slots + k, (kLeafSlots - k) * sizeof(ZsetSlot));
  right->n = kLeafSlots - k;
  leaf->n = k;
  right->prev = leaf;
  right->next = leaf->next;
  if (leaf->next != nullptr) {
    leaf->next->prev = right;
  } else {
    last_ = right;
  }
  leaf->next = right;

  Leaf* target = (k == 0 || pos < k) ? leaf : right;
  const std::uint32_t at = target == leaf ? pos : pos - k;
  std::memmove(&target->slots[at + 1], &target->slots[at], (target->n - at) * sizeof(ZsetSlot));
  target->slots[at] = slot;
  ++target->n;

  if (leaf->parent == nullptr) {
    Inner* root = new Inner();
    ++inners_;
    root->n = 2;
    root->children[0] = leaf;
    root->children[1] = right;
    root->counts[0] = leaf->n;
    root->counts[1] = right->n;
    root->mins[0] = leaf->slots[0];
    root->mins[1] = right->slots[0];
    leaf->parent = right->parent = root;
    root_ = root;
    return;
  }
  Inner* p = leaf->parent;
  const std::uint32_t i = IndexIn(*p, leaf);
  p->counts[i] = leaf->n;
  InsertChild(p, i + 1, right, right->n);
  if (target == leaf && at == 0) FixMin(leaf);
}

void OrderTree::InsertChild(Inner* parent, std::uint32_t at, Node* child, std::size_t count) {
  auto put = [](Inner* in, std::uint32_t i, Node* c, std::size_t cnt) {
    const std::uint32_t tail = in->n - i;
    std::memmove(&in->children[i + 1], &in->children[i], tail * sizeof(Node*));
    std::memmove(&in->counts[i + 1], &in->counts[i], tail * sizeof(std::size_t));
    std::memmove(&in->mins[i + 1], &in->mins[i], tail * sizeof(ZsetSlot));
    in->children[i] = c;
    in->counts[i] = cnt;
    in->mins[i] = MinOf(c);
    c->parent = in;
    ++in->n;
  };
  if (parent->n < kInnerChildren) {
    put(parent, at, child, count);
    if (at == 0) FixMin(parent);
    return;
  }
  Inner* right = new Inner();
  ++inners_;
  const std::uint32_t k = at == parent->n ? parent->n : parent->n / 2;
  const std::uint32_t moved = parent->n - k;
  std::memcpy(right->children, parent->children + k, moved * sizeof(Node*));
  std::memcpy(right->counts, parent->counts + k, moved * sizeof(std::size_t));
  std::memcpy(right->mins, parent->mins + k, moved * sizeof(ZsetSlot));
  right->n = moved;
  parent->n = k;
  for (std::uint32_t i = 0; i < moved; ++i) right->children[i]->parent = right;
  Inner* target = at < k ? parent : right;
  const std::uint32_t target_at = target == parent ? at : at - k;
  put(target, target_at, child, count);

  if (parent->parent == nullptr) {
    Inner* root = new Inner();
    ++inners_;
    root->n = 2;
    root->children[0] = parent;
    root->children[1] = right;
    root->counts[0] = TotalOf(parent);
    root->counts[1] = TotalOf(right);
    root->mins[0] = parent->mins[0];
    root->mins[1] = right->mins[0];
    parent->parent = right->parent = root;
    root_ = root;
  } else {
    Inner* g = parent->parent;
    const std::uint32_t i = IndexIn(*g, parent);
    g->counts[i] = TotalOf(parent);
    InsertChild(g, i + 1, right, TotalOf(right));
  }
  if (target == parent && target_at == 0) FixMin(parent);
}

namespace {

std::size_t TotalOf(const OrderTree::Node* n) {
  if (n->leaf) return n->n;
  const auto* in = static_cast<const OrderTree::Inner*>(n);
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < in->n; ++i) total += in->counts[i];
  return total;
}

}  // namespace

void OrderTree::Erase(const ZsetSlot& slot) {
  --size_;
  Node* n = root_;
  while (!n->leaf) {
    Inner* in = static_cast<Inner*>(n);
    const std::uint32_t i = ChildFor(*in, slot);
    --in->counts[i];
    n = in->children[i];
  }
  Leaf* leaf = static_cast<Leaf*>(n);
  const std::uint32_t pos = LowerBound(leaf->slots, leaf->n, slot);
  if (pos >= leaf->n || leaf->slots[pos].entry != slot.entry) std::abort();
  std::memmove(&leaf->slots[pos], &leaf->slots[pos + 1], (leaf->n - pos - 1) * sizeof(ZsetSlot));
  --leaf->n;
  if (leaf->n > 0) {
    if (pos == 0) FixMin(leaf);
    Rebalance(leaf);
    return;
  }
  (leaf->prev != nullptr ? leaf->prev->next : first_) = leaf->next;
  (leaf->next != nullptr ? leaf->next->prev : last_) = leaf->prev;
  Inner* p = leaf->parent;
  const std::uint32_t at = p != nullptr ? IndexIn(*p, leaf) : 0;
  delete leaf;
  --leaves_;
  if (p == nullptr) {
    root_ = nullptr;
    return;
  }
  RemoveChild(p, at);
}

void OrderTree::RemoveChild(Inner* parent, std::uint32_t at) {
  const std::uint32_t tail = parent->n - at - 1;
  std::memmove(&parent->children[at], &parent->children[at + 1], tail * sizeof(Node*));
  std::memmove(&parent->counts[at], &parent->counts[at + 1], tail * sizeof(std::size_t));
  std::memmove(&parent->mins[at], &parent->mins[at + 1], tail * sizeof(ZsetSlot));
  --parent->n;
  if (parent->n > 0) {
    if (at == 0) FixMin(parent);
    Rebalance(parent);
    return;
  }
  Inner* g = parent->parent;
  const std::uint32_t in_g = g != nullptr ? IndexIn(*g, parent) : 0;
  delete parent;
  --inners_;
  if (g == nullptr) {
    root_ = nullptr;
    return;
  }
  RemoveChild(g, in_g);
}

void OrderTree::Rebalance(Node* n) {
  if (n == root_) {
    // A root with one child gives way to it.
    while (!root_->leaf && root_->n == 1) {
      Inner* old = static_cast<Inner*>(root_);
      root_ = old->children[0];
      root_->parent = nullptr;
      delete old;
      --inners_;
    }
    return;
  }
  const std::uint32_t cap = n->leaf ? kLeafSlots : kInnerChildren;
  if (n->n >= cap / 4) return;
  Inner* p = n->parent;
  const std::uint32_t i = IndexIn(*p, n);
  std::uint32_t left_at;
  if (i + 1 < p->n && n->n + p->children[i + 1]->n <= cap) {
    left_at = i;
  } else if (i > 0 && p->children[i - 1]->n + n->n <= cap) {
    left_at = i - 1;
  } else {
    return;
  }
  Node* left = p->children[left_at];
  Node* right = p->children[left_at + 1];
  if (left->leaf) {
    auto* l = static_cast<Leaf*>(left);
    auto* r = static_cast<Leaf*>(right);
    std::memcpy(l->slots + l->n, r->slots, r->n * sizeof(ZsetSlot));
    l->n += r->n;
    l->next = r->next;
    (r->next != nullptr ? r->next->prev : last_) = l;
    delete r;
    --leaves_;
  } else {
    auto* l = static_cast<Inner*>(left);
    auto* r = static_cast<Inner*>(right);
    std::memcpy(l->children + l->n, r->children, r->n * sizeof(Node*));
    std::memcpy(l->counts + l->n, r->counts, r->n * sizeof(std::size_t));
    std::memcpy(l->mins + l->n, r->mins, r->n * sizeof(ZsetSlot));
    for (std::uint32_t j = 0; j < r->n; ++j) r->children[j]->parent = l;
    l->n += r->n;
    delete r;
    --inners_;
  }
  p->counts[left_at] += p->counts[left_at + 1];
  RemoveChild(p, left_at + 1);
}

std::size_t OrderTree::Rank(const ZsetSlot& slot) const {
  std::size_t rank = 0;
  const Node* n = root_;
  while (!n->leaf) {
    const auto* in = static_cast<const Inner*>(n);
    const std::uint32_t i = ChildFor(*in, slot);
    for (std::uint32_t j = 0; j < i; ++j) rank += in->counts[j];
    n = in->children[i];
  }
  const auto* leaf = static_cast<const Leaf*>(n);
  return rank + LowerBound(leaf->slots, leaf->n, slot);
}

OrderTree::Cursor OrderTree::Select(std::size_t rank) const {
  const Node* n = root_;
  while (!n->leaf) {
    const auto* in = static_cast<const Inner*>(n);
    std::uint32_t i = 0;
    while (rank >= in->counts[i]) rank -= in->counts[i++];
    n = in->children[i];
  }
  return Cursor(static_cast<const Leaf*>(n), static_cast<std::uint32_t>(rank));
}

OrderTree::Cursor OrderTree::First() const { return Cursor(first_, 0); }

OrderTree::Cursor OrderTree::Last() const {
  return last_ == nullptr ? Cursor() : Cursor(last_, last_->n - 1);
}

std::size_t OrderTree::CountBefore(bool (*before)(const ZsetSlot&, const void*),
                                   const void* arg) const {
  std::size_t count = 0;
  const Node* n = root_;
  if (n == nullptr) return 0;
  while (!n->leaf) {
    const auto* in = static_cast<const Inner*>(n);
    // The last child whose smallest slot still comes before: the boundary is inside it.
    std::uint32_t lo = 0;
    std::uint32_t hi = in->n;
    while (lo < hi) {
      const std::uint32_t mid = (lo + hi) / 2;
      if (before(in->mins[mid], arg)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) return count;
    for (std::uint32_t j = 0; j + 1 < lo; ++j) count += in->counts[j];
    n = in->children[lo - 1];
  }
  const auto* leaf = static_cast<const Leaf*>(n);
  std::uint32_t lo = 0;
  std::uint32_t hi = leaf->n;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (before(leaf->slots[mid], arg)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return count + lo;
}

void OrderTree::FreeInner(Node* n) {
  if (n->leaf) return;
  auto* in = static_cast<Inner*>(n);
  for (std::uint32_t i = 0; i < in->n; ++i) FreeInner(in->children[i]);
  delete in;
  --inners_;
}

bool OrderTree::ClearSome(std::size_t max_slots) {
  if (!clearing_) {
    // Inner nodes are few (one per ~1,500 slots): they go at once, leaves in slices.
    clearing_ = true;
    if (root_ != nullptr) FreeInner(root_);
    root_ = nullptr;
  }
  while (first_ != nullptr && max_slots > 0) {
    Leaf* next = first_->next;
    const std::size_t cost = first_->n + 1;
    max_slots = cost >= max_slots ? 0 : max_slots - cost;
    delete first_;
    --leaves_;
    first_ = next;
  }
  if (first_ != nullptr) return false;
  last_ = nullptr;
  size_ = 0;
  return true;
}

std::size_t OrderTree::memory_bytes() const {
  return leaves_ * sizeof(Leaf) + inners_ * sizeof(Inner);
}

bool OrderTree::VerifyNode(const Node* n, std::size_t& count, const Leaf*& prev) const {
  if (n->n == 0) return false;
  if (n->leaf) {
    const auto* leaf = static_cast<const Leaf*>(n);
    if (leaf->prev != prev) return false;
    if (prev != nullptr && !SlotLess(prev->slots[prev->n - 1], leaf->slots[0])) return false;
    for (std::uint32_t i = 1; i < leaf->n; ++i) {
      if (!SlotLess(leaf->slots[i - 1], leaf->slots[i])) return false;
    }
    prev = leaf;
    count += leaf->n;
    return true;
  }
  const auto* in = static_cast<const Inner*>(n);
  for (std::uint32_t i = 0; i < in->n; ++i) {
    const Node* c = in->children[i];
    if (c->parent != in) return false;
    const ZsetSlot& min = MinOf(c);
    if (min.entry != in->mins[i].entry || min.score != in->mins[i].score) return false;
    std::size_t sub = 0;
    if (!VerifyNode(c, sub, prev)) return false;
    if (sub != in->counts[i]) return false;
    count += sub;
  }
  return true;
}

bool OrderTree::Verify() const {
  if (root_ == nullptr) return size_ == 0 && first_ == nullptr && last_ == nullptr;
  if (root_->parent != nullptr) return false;
  std::size_t count = 0;
  const Leaf* prev = nullptr;
  if (!VerifyNode(root_, count, prev)) return false;
  return count == size_ && prev == last_ && prev->next == nullptr && first_->prev == nullptr;
}

}  // namespace warden::storage
