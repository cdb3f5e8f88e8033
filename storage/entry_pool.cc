#include "storage/entry_pool.h"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdlib>
#include <new>

static_assert(sizeof(void*) == 8, "slab headers assume 64-bit pointers");

namespace warden::storage {

// Sits at the start of its slab; blocks follow from kFirstBlock on. Slabs are aligned to their
// size, so a block's slab is its address rounded down.
struct EntryPool::Slab {
  Slab* prev;      // in its class's partial list
  Slab* next;      // in its class's partial list, or in the empty list
  Slab* all_prev;  // in the list of every slab, for the destructor
  Slab* all_next;
  char* free_list;  // freed blocks, each holding the next one's address
  std::uint32_t live;
  std::uint32_t bump;  // blocks never handed out start at this index
  std::uint32_t capacity;
  std::uint32_t class_index;
};

namespace {

constexpr std::size_t kFirstBlock = 64;

}  // namespace

EntryPool::~EntryPool() {
  // Every slab is on the list of all of them, whatever state it is in.
  while (all_ != nullptr) Release(all_);
}

EntryPool::Slab* EntryPool::SlabOf(const void* block) {
  return reinterpret_cast<Slab*>(reinterpret_cast<std::uintptr_t>(block) & ~(kSlabBytes - 1));
}

EntryPool::Slab* EntryPool::NewSlab(std::size_t class_index) {
  Slab* s = empty_;
  if (s != nullptr) {
    empty_ = s->next;
    --empty_count_;
  } else {
    // Twice the size, then trimmed to an aligned slab.
    void* raw =
        mmap(nullptr, 2 * kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kSlabBytes - 1) & ~(kSlabBytes - 1);
    if (aligned > start) munmap(raw, aligned - start);
    const std::uintptr_t end = start + 2 * kSlabBytes;
    if (end > aligned + kSlabBytes) {
      munmap(reinterpret_cast<void*>(aligned + kSlabBytes), end - aligned - kSlabBytes);
    }
    s = reinterpret_cast<Slab*>(aligned);
    s->all_prev = nullptr;
    s->all_next = all_;
    if (all_ != nullptr) all_->all_prev = s;
    all_ = s;
    ++slab_count_;
  }
  s->prev = s->next = nullptr;
  s->free_list = nullptr;
  s->live = s->bump = 0;
  s->capacity = static_cast<std::uint32_t>((kSlabBytes - kFirstBlock) / ((class_index + 1) * 8));
  s->class_index = static_cast<std::uint32_t>(class_index);
  return s;
}

void EntryPool::Link(SizeClass& c, Slab* s) {
  s->prev = nullptr;
  s->next = c.partial;
  if (c.partial != nullptr) c.partial->prev = s;
  c.partial = s;
}

void EntryPool::Unlink(SizeClass& c, Slab* s) {
  if (s->prev != nullptr) {
    s->prev->next = s->next;
  } else {
    c.partial = s->next;
  }
  if (s->next != nullptr) s->next->prev = s->prev;
  s->prev = s->next = nullptr;
}

void EntryPool::Release(Slab* s) {
  if (s->all_prev != nullptr) {
    s->all_prev->all_next = s->all_next;
  } else {
    all_ = s->all_next;
  }
  if (s->all_next != nullptr) s->all_next->all_prev = s->all_prev;
  --slab_count_;
  munmap(s, kSlabBytes);
}

void* EntryPool::Allocate(std::size_t bytes) {
  if (bytes > kMaxPooled) {
    void* block = std::malloc(bytes);
    if (block == nullptr) throw std::bad_alloc();
    bytes_in_use_ += malloc_usable_size(block);
    return block;
  }
  const std::size_t ci = ClassOf(bytes);
  SizeClass& c = classes_[ci];
  if (c.partial == nullptr) Link(c, NewSlab(ci));
  Slab* s = c.partial;
  char* block;
  if (s->free_list != nullptr) {
    block = s->free_list;
    s->free_list = *reinterpret_cast<char**>(block);
  } else {
    block = reinterpret_cast<char*>(s) + kFirstBlock + std::size_t{s->bump} * (ci + 1) * 8;
    ++s->bump;
  }
  if (++s->live == s->capacity) Unlink(c, s);
  bytes_in_use_ += (ci + 1) * 8;
  return block;
}

void EntryPool::Free(void* block, std::size_t bytes) {
  if (bytes > kMaxPooled) {
    bytes_in_use_ -= malloc_usable_size(block);
    std::free(block);
    return;
  }
  Slab* s = SlabOf(block);
  SizeClass& c = classes_[s->class_index];
  bytes_in_use_ -= (std::size_t{s->class_index} + 1) * 8;
  *reinterpret_cast<char**>(block) = s->free_list;
  s->free_list = static_cast<char*>(block);
  if (s->live-- == s->capacity) Link(c, s);
  // An empty slab leaves its class unless it is the class's only one with room. It is not
  // unmapped here: at the end of a mass expiry thousands empty at once, and a munmap each would
  // stall the loop. Trim() gives them back a few at a time; until then any class may reuse one.
  if (s->live == 0 && (c.partial != s || s->next != nullptr)) {
    Unlink(c, s);
    s->next = empty_;
    empty_ = s;
    ++empty_count_;
  }
}

std::size_t EntryPool::Trim(std::size_t max_slabs) {
  std::size_t released = 0;
  while (empty_ != nullptr && released < max_slabs) {
    Slab* s = empty_;
    empty_ = s->next;
    --empty_count_;
    Release(s);
    ++released;
  }
  return released;
}

bool EntryPool::Fits(const void* block, std::size_t old_bytes, std::size_t new_bytes) {
  if (old_bytes > kMaxPooled) {
    return new_bytes > kMaxPooled && malloc_usable_size(const_cast<void*>(block)) >= new_bytes;
  }
  return ClassOf(new_bytes) <= ClassOf(old_bytes);
}

}  // namespace warden::storage
