// The entry allocator: size classes every 8 bytes carved from slabs, malloc above them, and empty
// slabs given back.
#include "storage/entry_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

namespace warden::storage {
namespace {

constexpr std::size_t kSlab = 64 * 1024;

TEST(EntryPoolTest, BlocksAreAlignedDistinctAndRoundedToEightBytes) {
  EntryPool pool;
  std::set<std::uintptr_t> seen;
  std::vector<std::pair<void*, std::size_t>> blocks;
  for (std::size_t bytes = 1; bytes <= EntryPool::kMaxPooled; ++bytes) {
    void* block = pool.Allocate(bytes);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(block) % 8, 0u) << bytes;
    ASSERT_TRUE(seen.insert(reinterpret_cast<std::uintptr_t>(block)).second) << bytes;
    std::memset(block, 0xAB, bytes);
    blocks.emplace_back(block, bytes);
  }
  std::size_t expected = 0;
  for (std::size_t bytes = 1; bytes <= EntryPool::kMaxPooled; ++bytes) {
    expected += (bytes + 7) / 8 * 8;
  }
  EXPECT_EQ(pool.bytes_in_use(), expected);
  for (auto [block, bytes] : blocks) pool.Free(block, bytes);
  EXPECT_EQ(pool.bytes_in_use(), 0u);
}

TEST(EntryPoolTest, ALockSizedBlockCostsSeventyTwoBytes) {
  EntryPool pool;
  // A 24-byte header, "lock:123456" and a 36-byte token.
  void* block = pool.Allocate(24 + 11 + 36);

  EXPECT_EQ(pool.bytes_in_use(), 72u);
  pool.Free(block, 71);
}

TEST(EntryPoolTest, LargeBlocksComeFromMalloc) {
  EntryPool pool;
  void* block = pool.Allocate(10000);
  std::memset(block, 1, 10000);

  EXPECT_GE(pool.bytes_in_use(), 10000u);
  EXPECT_EQ(pool.slab_bytes(), 0u);
  pool.Free(block, 10000);
  EXPECT_EQ(pool.bytes_in_use(), 0u);
}

TEST(EntryPoolTest, EmptySlabsWaitForTrimKeepingOneSparePerClass) {
  EntryPool pool;
  std::vector<void*> blocks;
  for (int i = 0; i < 20000; ++i) blocks.push_back(pool.Allocate(72));
  const std::size_t full = pool.slab_bytes();
  ASSERT_GE(full, 20000u * 72u);

  for (void* block : blocks) pool.Free(block, 72);

  EXPECT_EQ(pool.slab_bytes(), full);
  EXPECT_EQ(pool.empty_slabs(), full / kSlab - 1);
  EXPECT_EQ(pool.Trim(5), 5u);
  EXPECT_EQ(pool.slab_bytes(), full - 5 * kSlab);
  pool.Trim(1000000);
  EXPECT_EQ(pool.slab_bytes(), kSlab);
  EXPECT_EQ(pool.empty_slabs(), 0u);
}

TEST(EntryPoolTest, AnEmptySlabIsReusedByAnotherClass) {
  EntryPool pool;
  std::vector<void*> blocks;
  for (int i = 0; i < 5000; ++i) blocks.push_back(pool.Allocate(72));
  for (void* block : blocks) pool.Free(block, 72);
  const std::size_t held = pool.slab_bytes();
  ASSERT_GT(pool.empty_slabs(), 0u);

  void* other = pool.Allocate(200);

  EXPECT_EQ(pool.slab_bytes(), held);
  std::memset(other, 7, 200);
  pool.Free(other, 200);
}

TEST(EntryPoolTest, FreedBlocksAreReused) {
  EntryPool pool;
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) blocks.push_back(pool.Allocate(40));
  const std::size_t slabs = pool.slab_bytes();
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 1000; i += 2) pool.Free(blocks[i], 40);
    for (int i = 0; i < 1000; i += 2) blocks[i] = pool.Allocate(40);
  }

  EXPECT_EQ(pool.slab_bytes(), slabs);
  for (void* block : blocks) pool.Free(block, 40);
}

TEST(EntryPoolTest, FitsWithinTheClassAndNeverAcrossAllocators) {
  EntryPool pool;
  void* small = pool.Allocate(70);  // class 72
  void* big = pool.Allocate(1000);

  EXPECT_TRUE(EntryPool::Fits(small, 70, 72));
  EXPECT_TRUE(EntryPool::Fits(small, 70, 10));
  EXPECT_FALSE(EntryPool::Fits(small, 70, 73));
  EXPECT_FALSE(EntryPool::Fits(small, 70, 1000));
  EXPECT_TRUE(EntryPool::Fits(big, 1000, 1000));
  EXPECT_TRUE(EntryPool::Fits(big, 1000, 300));
  // Freed later with the small size, the malloc'd block would be taken for a pooled one.
  EXPECT_FALSE(EntryPool::Fits(big, 1000, 100));
  pool.Free(small, 10);  // the size it holds now: still class 72's slab
  pool.Free(big, 1000);
  EXPECT_EQ(pool.bytes_in_use(), 0u);
}

TEST(EntryPoolTest, DestructorReturnsBlocksStillHandedOut) {
  // The keyspace frees every entry first; if an owner does not, the slabs still go back (the
  // sanitizer build would report a leak otherwise only for malloc'd blocks, so this checks the
  // slab list survives a destructor with live blocks).
  EntryPool pool;
  for (int i = 0; i < 5000; ++i) pool.Allocate(48);
  EXPECT_GT(pool.slab_bytes(), 0u);
}

}  // namespace
}  // namespace warden::storage
