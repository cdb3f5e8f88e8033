#include "storage/radix_shape.h"

#include <utility>

namespace warden::storage {

RadixShape::RadixShape() : head_(std::make_unique<Node>()) {}
RadixShape::~RadixShape() = default;

RadixShape::Walk RadixShape::LowWalk(std::string_view key) {
  Walk w;
  std::unique_ptr<Node>* link = &head_;
  Node* h = head_.get();
  std::size_t i = 0;
  std::size_t j = 0;
  while (h->size() != 0 && i < key.size()) {
    if (h->compressed) {
      for (j = 0; j < h->size() && i < key.size(); ++j, ++i) {
        if (h->bytes[j] != key[i]) break;
      }
      if (j != h->size()) break;
    } else {
      for (j = 0; j < h->size(); ++j) {
        if (h->bytes[j] == key[i]) break;
      }
      if (j == h->size()) break;
      ++i;
    }
    w.parents.push_back(link);
    link = &h->children[h->compressed ? 0 : j];
    h = link->get();
    j = 0;
  }
  w.matched = i;
  w.stop = h;
  w.link = link;
  w.split = h->compressed ? j : 0;
  return w;
}

void RadixShape::Insert(std::string_view key) {
  Walk w = LowWalk(key);
  std::size_t i = w.matched;
  Node* h = w.stop;
  std::unique_ptr<Node>* link = w.link;
  const std::size_t j = w.split;
  if (i == key.size() && (!h->compressed || j == 0)) {
    h->key = true;
    return;
  }
  if (h->compressed && i != key.size()) {
    // The key leaves the run at byte j: the run splits around a branch of two bytes.
    std::unique_ptr<Node> next = std::move(h->children[0]);
    const std::size_t postfix_len = h->size() - j - 1;
    auto split = std::make_unique<Node>();
    split->bytes.assign(1, h->bytes[j]);
    split->key = j == 0 && h->key;
    std::unique_ptr<Node> postfix;
    if (postfix_len != 0) {
      postfix = std::make_unique<Node>();
      postfix->bytes = h->bytes.substr(j + 1);
      postfix->compressed = postfix_len > 1;
      postfix->children.push_back(std::move(next));
      ++nodes_;
    } else {
      postfix = std::move(next);
    }
    split->children.push_back(std::move(postfix));
    Node* const branch = split.get();
    if (j == 0) {
      *link = std::move(split);
    } else {
      auto trimmed = std::make_unique<Node>();
      trimmed->bytes = h->bytes.substr(0, j);
      trimmed->compressed = j > 1;
      trimmed->key = h->key;
      trimmed->children.push_back(std::move(split));
      *link = std::move(trimmed);
      ++nodes_;
    }
    h = branch;
  } else if (h->compressed) {
    // The key ends inside the run: it splits in two, the second half starting at the key.
    std::unique_ptr<Node> next = std::move(h->children[0]);
    auto postfix = std::make_unique<Node>();
    postfix->bytes = h->bytes.substr(j);
    postfix->compressed = postfix->size() > 1;
    postfix->key = true;
    postfix->children.push_back(std::move(next));
    ++nodes_;
    auto trimmed = std::make_unique<Node>();
    trimmed->bytes = h->bytes.substr(0, j);
    trimmed->compressed = j > 1;
    trimmed->key = h->key;
    trimmed->children.push_back(std::move(postfix));
    *link = std::move(trimmed);
    return;
  }
  while (i < key.size()) {
    if (h->size() == 0 && key.size() - i > 1) {
      h->compressed = true;
      h->bytes = std::string(key.substr(i));
      h->children.push_back(std::make_unique<Node>());
      h = h->children.back().get();
      i = key.size();
    } else {
      const auto c = static_cast<unsigned char>(key[i]);
      std::size_t pos = 0;
      while (pos < h->size() && static_cast<unsigned char>(h->bytes[pos]) <= c) ++pos;
      h->bytes.insert(pos, 1, key[i]);
      h->children.insert(h->children.begin() + static_cast<std::ptrdiff_t>(pos),
                         std::make_unique<Node>());
      h = h->children[pos].get();
      ++i;
    }
    ++nodes_;
  }
  h->key = true;
}

void RadixShape::Remove(std::string_view key) {
  Walk w = LowWalk(key);
  Node* h = w.stop;
  if (w.matched != key.size() || (h->compressed && w.split != 0) || !h->key) return;
  h->key = false;
  std::unique_ptr<Node>* link = w.link;
  bool try_compress = false;
  if (h->size() == 0) {
    // Frees the chain of nodes that only led to this key, up to a key or a real branch.
    Node* child = nullptr;
    while (h != head_.get()) {
      child = h;
      --nodes_;
      link = w.parents.back();
      w.parents.pop_back();
      h = link->get();
      if (h->key || (!h->compressed && h->size() != 1)) break;
    }
    if (child != nullptr) {
      if (h->compressed) {
        h->compressed = false;
        h->bytes.clear();
        h->children.clear();
      } else {
        std::size_t k = 0;
        while (h->children[k].get() != child) ++k;
        h->bytes.erase(k, 1);
        h->children.erase(h->children.begin() + static_cast<std::ptrdiff_t>(k));
      }
      try_compress = h->size() == 1 && !h->key;
    }
  } else if (h->size() == 1) {
    try_compress = true;
  }
  if (try_compress) TryCompress(link, w.parents);
}

void RadixShape::TryCompress(std::unique_ptr<Node>* link,
                             std::vector<std::unique_ptr<Node>*>& parents) {
  std::unique_ptr<Node>* start_link = link;
  while (!parents.empty()) {
    std::unique_ptr<Node>* parent = parents.back();
    parents.pop_back();
    const Node* p = parent->get();
    if (p->key || (!p->compressed && p->size() != 1)) break;
    start_link = parent;
  }
  int chain = 1;
  for (const Node* h = start_link->get(); h->size() != 0;) {
    h = h->children.back().get();
    if (h->key || (!h->compressed && h->size() != 1)) break;
    ++chain;
  }
  if (chain == 1) return;
  auto merged = std::make_unique<Node>();
  merged->compressed = true;
  ++nodes_;
  std::unique_ptr<Node> cur = std::move(*start_link);
  while (cur->size() != 0) {
    merged->bytes += cur->bytes;
    std::unique_ptr<Node> next = std::move(cur->children.back());
    cur = std::move(next);
    --nodes_;
    if (cur->key || (!cur->compressed && cur->size() != 1)) break;
  }
  merged->children.push_back(std::move(cur));
  *start_link = std::move(merged);
}

}  // namespace warden::storage
