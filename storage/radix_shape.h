// The shape of Redis's radix tree (rax.c) over a set of keys, kept only to count its nodes:
// XINFO STREAM reports the node count of the tree that indexes a stream's listpacks
// ("radix-tree-nodes"), which depends on how rax splits and merges nodes as keys come and go.
// This replays those rules on a tree that holds no data: a node is either compressed (a run of
// bytes with one child) or a branch (one child per byte, in byte order), and may end a key.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace warden::storage {

class RadixShape {
 public:
  RadixShape();
  ~RadixShape();
  RadixShape(const RadixShape&) = delete;
  RadixShape& operator=(const RadixShape&) = delete;

  // Adds `key` (as raxInsert); nothing changes if it is there.
  void Insert(std::string_view key);
  // Removes `key` (as raxRemove); nothing changes if it is absent.
  void Remove(std::string_view key);
  // Redis's rax->numnodes.
  std::size_t nodes() const { return nodes_; }
  // Bytes held, for MEMORY USAGE.
  std::size_t memory_bytes() const { return nodes_ * kNodeBytes; }

 private:
  struct Node {
    std::string bytes;  // a compressed node's run, or a branch's child bytes
    std::vector<std::unique_ptr<Node>> children;
    bool compressed = false;
    bool key = false;
    std::size_t size() const { return bytes.size(); }
  };
  static constexpr std::size_t kNodeBytes = sizeof(Node) + 16;

  struct Walk {
    std::size_t matched = 0;  // bytes of the key consumed
    Node* stop = nullptr;
    std::unique_ptr<Node>* link = nullptr;        // what points at `stop`
    std::size_t split = 0;                        // where in a compressed `stop` the walk ended
    std::vector<std::unique_ptr<Node>*> parents;  // links of the nodes above `stop`
  };
  Walk LowWalk(std::string_view key);
  // Merges the chain of single-child, keyless nodes around the one at `link` (rax's
  // "trycompress" after a removal); `parents` are the links above it.
  void TryCompress(std::unique_ptr<Node>* link, std::vector<std::unique_ptr<Node>*>& parents);

  std::unique_ptr<Node> head_;
  std::size_t nodes_ = 1;
};

}  // namespace warden::storage
