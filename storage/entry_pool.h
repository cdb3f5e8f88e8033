// Memory for keyspace entries. A lock is one block of ~70 bytes; glibc's malloc adds an 8-byte
// chunk header and rounds to 16, so such a block costs 80-96 bytes. The pool instead keeps a size
// class every 8 bytes up to kMaxPooled and carves blocks out of 64 KiB slabs mapped from the
// system, so the same lock costs 72. Larger blocks come from malloc.
//
// A slab whose blocks are all free again is kept for any class to reuse, and Trim() gives such
// slabs back to the system a few at a time, so the memory of a mass expiry is returned without
// a stall. Not thread-safe: one pool per keyspace.
#pragma once

#include <cstddef>
#include <cstdint>

namespace warden::storage {

class EntryPool {
 public:
  static constexpr std::size_t kMaxPooled = 256;

  EntryPool() = default;
  ~EntryPool();
  EntryPool(const EntryPool&) = delete;
  EntryPool& operator=(const EntryPool&) = delete;

  // A block of at least `bytes` bytes, 8-byte aligned. Throws std::bad_alloc.
  void* Allocate(std::size_t bytes);
  // `bytes` must be what the block was allocated with, or any size of the same class.
  void Free(void* block, std::size_t bytes);
  // Whether a block allocated with `old_bytes` can be reused in place for `new_bytes`: it is big
  // enough, and freeing it with the new size still finds the allocator that owns it.
  static bool Fits(const void* block, std::size_t old_bytes, std::size_t new_bytes);

  // Unmaps up to `max_slabs` empty slabs; returns how many.
  std::size_t Trim(std::size_t max_slabs);
  std::size_t empty_slabs() const { return empty_count_; }

  // Bytes handed out, as their classes (or malloc) size them.
  std::size_t bytes_in_use() const { return bytes_in_use_; }
  // Bytes of slabs held from the system.
  std::size_t slab_bytes() const { return slab_count_ * kSlabBytes; }

 private:
  static constexpr std::size_t kSlabBytes = 64 * 1024;
  static constexpr std::size_t kClasses = kMaxPooled / 8;
  struct Slab;
  struct SizeClass {
    Slab* partial = nullptr;  // slabs with at least one free block
  };

  static std::size_t ClassOf(std::size_t bytes) { return (bytes + 7) / 8 - 1; }
  static Slab* SlabOf(const void* block);
  Slab* NewSlab(std::size_t class_index);
  void Link(SizeClass& c, Slab* slab);
  void Unlink(SizeClass& c, Slab* slab);
  void Release(Slab* slab);

  SizeClass classes_[kClasses];
  Slab* all_ = nullptr;
  Slab* empty_ = nullptr;  // linked through `next`
  std::size_t empty_count_ = 0;
  std::size_t bytes_in_use_ = 0;
  std::size_t slab_count_ = 0;
};

}  // namespace warden::storage
