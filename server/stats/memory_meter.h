// What INFO's used_memory reports and maxmemory is checked against: the bytes warden holds,
// counted as they are allocated rather than asked of the allocator (mallinfo walks every bin,
// too slow to ask before each command, and does not see the keyspace's mmap'd slabs).
#pragma once

#include <cstddef>
#include <cstdint>

namespace warden::server {

class ServerState;

// Bytes held through operator new (every container, string, connection buffer and collection
// node), by malloc_usable_size, as Redis's zmalloc counts them.
std::size_t HeapBytes();
// How many times operator new has allocated (tests/server/allocation_test.cc pins the lock path
// at none).
std::uint64_t HeapAllocations();

// HeapBytes plus what the keyspace's pool and the Lua state hold: Redis's used_memory.
std::size_t UsedMemory(const ServerState& server);

}  // namespace warden::server
