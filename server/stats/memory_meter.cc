#include "server/stats/memory_meter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "server/scripting/script_engine.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

// Relaxed: only a total is wanted, and the rare thread that allocates (a test's, a helper's)
// must not race it into nonsense.
std::atomic<std::size_t> g_heap_bytes{0};
std::atomic<std::uint64_t> g_heap_allocations{0};

void Count(void* p) noexcept {
  g_heap_bytes.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
  g_heap_allocations.fetch_add(1, std::memory_order_relaxed);
}

void* AllocateNoThrow(std::size_t size) noexcept {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p != nullptr) Count(p);
  return p;
}

void* Allocate(std::size_t size) {
  void* p = AllocateNoThrow(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* AllocateAlignedNoThrow(std::size_t size, std::align_val_t align) noexcept {
  const auto a = static_cast<std::size_t>(align);
  void* p = std::aligned_alloc(a, (size + a - 1) / a * a);
  if (p != nullptr) Count(p);
  return p;
}

void* AllocateAligned(std::size_t size, std::align_val_t align) {
  void* p = AllocateAlignedNoThrow(size, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Out of line so that GCC, after inlining a delete into its caller, does not see free() applied
// to a pointer from operator new and warn (-Wmismatched-new-delete).
[[gnu::noinline]] void Release(void* p) noexcept {
  if (p == nullptr) return;
  g_heap_bytes.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

std::size_t HeapBytes() { return g_heap_bytes.load(std::memory_order_relaxed); }
std::uint64_t HeapAllocations() { return g_heap_allocations.load(std::memory_order_relaxed); }

std::size_t UsedMemory(const ServerState& server) {
  return HeapBytes() + server.dbs.memory_bytes() + server.scripts->memory_bytes();
}

}  // namespace warden::server

// The replaceable global allocation functions.
void* operator new(std::size_t size) { return warden::server::Allocate(size); }
void* operator new[](std::size_t size) { return warden::server::Allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return warden::server::AllocateNoThrow(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return warden::server::AllocateNoThrow(size);
}
void operator delete(void* p) noexcept { warden::server::Release(p); }
void operator delete[](void* p) noexcept { warden::server::Release(p); }
void operator delete(void* p, std::size_t) noexcept { warden::server::Release(p); }
void operator delete[](void* p, std::size_t) noexcept { warden::server::Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { warden::server::Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { warden::server::Release(p); }
void* operator new(std::size_t size, std::align_val_t align) {
  return warden::server::AllocateAligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return warden::server::AllocateAligned(size, align);
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return warden::server::AllocateAlignedNoThrow(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  return warden::server::AllocateAlignedNoThrow(size, align);
}
void operator delete(void* p, std::align_val_t) noexcept { warden::server::Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { warden::server::Release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  warden::server::Release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  warden::server::Release(p);
}
