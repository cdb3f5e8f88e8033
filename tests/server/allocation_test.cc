// Pins the allocation cost of the lock path: a warmed-up loop of SET NX PX / GET / DEL / PTTL
// through the dispatcher makes no operator-new allocation at all, nor does a Redisson lock (a
// one-field hash: HSET, HGET, HINCRBY, HDEL), adding and checking set members, or the lessons'
// lock scripts by EVALSHA (their native forms). Keys and values live in malloc'd entries, which
// are not counted; what this catches is a std::string, std::vector or other temporary creeping
// into parsing, dispatch, a handler or the reply writer.
//
// It counts with warden's own operator new (server/stats/memory_meter.h), which every binary has.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "server/debug/debug_controls.h"
#include "server/scripting/lock_library_scripts.h"
#include "server/stats/memory_meter.h"
#include "tests/server/command_fixture.h"

namespace warden::server {
namespace {

constexpr int kWarmUpIterations = 100;
constexpr int kCountedIterations = 10'000;

class AllocationTest : public CommandTest {
 protected:
  // One round of the lock path; returns how many replies differed from the expected ones
  // (compared as views, so checking allocates nothing).
  int LockRound() {
    int wrong = 0;
    wrong += RunView({"SET", "lock", "owner", "NX", "PX", "30000"}) != "+OK\r\n";
    wrong += RunView({"GET", "lock"}) != "$5\r\nowner\r\n";
    wrong += RunView({"DEL", "lock"}) != ":1\r\n";
    wrong += RunView({"PTTL", "lock"}) != ":-2\r\n";
    return wrong;
  }

  // A held lock seen by a competitor: its SET NX fails, it reads the TTL, and a release with the
  // wrong token deletes nothing.
  int ContendedRound() {
    int wrong = 0;
    wrong += RunView({"SET", "held", "other", "NX", "PX", "30000"}) != "$-1\r\n";
    wrong += RunView({"PTTL", "held"}) != ":30000\r\n";
    wrong += RunView({"DELEX", "held", "IFEQ", "other"}) != ":0\r\n";
    return wrong;
  }

  // A Redisson lock, a one-field hash: taken, checked, re-entered, released, and the key gone
  // with its last field.
  int RedissonRound() {
    int wrong = 0;
    wrong += RunView({"HSET", "rlock", "uuid:1", "1"}) != ":1\r\n";
    wrong += RunView({"PEXPIRE", "rlock", "30000"}) != ":1\r\n";
    wrong += RunView({"HGET", "rlock", "uuid:1"}) != "$1\r\n1\r\n";
    wrong += RunView({"HINCRBY", "rlock", "uuid:1", "1"}) != ":2\r\n";
    wrong += RunView({"HINCRBY", "rlock", "uuid:1", "-2"}) != ":0\r\n";
    wrong += RunView({"HDEL", "rlock", "uuid:1"}) != ":1\r\n";
    return wrong;
  }

  // Members added, checked and removed: an intset that comes and goes with its member, and a
  // table-encoded set that stays (it holds "keep").
  int SetRound() {
    int wrong = 0;
    wrong += RunView({"SADD", "ids", "42"}) != ":1\r\n";
    wrong += RunView({"SADD", "ids", "42"}) != ":0\r\n";
    wrong += RunView({"SISMEMBER", "ids", "42"}) != ":1\r\n";
    wrong += RunView({"SREM", "ids", "42"}) != ":1\r\n";
    wrong += RunView({"SADD", "tags", "lock"}) != ":1\r\n";
    wrong += RunView({"SISMEMBER", "tags", "lock"}) != ":1\r\n";
    wrong += RunView({"SREM", "tags", "lock"}) != ":1\r\n";
    return wrong;
  }

  // The lock cycle of the lessons by EVALSHA (the scripts' native forms): acquire, a release
  // with the wrong token, an extend, the release.
  int ScriptedRound() {
    int wrong = 0;
    wrong += RunView({"SET", "lock", "owner", "NX", "PX", "30000"}) != "+OK\r\n";
    wrong += RunView({"EVALSHA", kReleaseSha, "1", "lock", "other"}) != ":0\r\n";
    wrong += RunView({"EVALSHA", kExtendSha, "1", "lock", "owner", "60000"}) != ":1\r\n";
    wrong += RunView({"EVALSHA", kReleaseSha, "1", "lock", "owner"}) != ":1\r\n";
    return wrong;
  }
  // SHA-1s of lock_scripts::kOneLineUnlockDouble and kOneLineExtendDouble.
  static constexpr std::string_view kReleaseSha = "b70c2384248f88e6b75b9f89241a180f856ad852";
  static constexpr std::string_view kExtendSha = "36e94d1c6e02fcefaa7ee5d79eee614dbac55f10";

  // Runs `round` with operator new counted; returns the allocations per iteration in total.
  template <typename Round>
  std::size_t CountAllocations(Round round, int& wrong) {
    for (int i = 0; i < kWarmUpIterations; ++i) wrong += round();
    const std::uint64_t before = HeapAllocations();
    for (int i = 0; i < kCountedIterations; ++i) wrong += round();
    return static_cast<std::size_t>(HeapAllocations() - before);
  }
};

TEST_F(AllocationTest, LockLoopMakesNoOperatorNewAllocation) {
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return LockRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
}

// A full command log reuses its slots: each holds the same command every round.
TEST_F(AllocationTest, LockLoopWithFullCommandLogMakesNoOperatorNewAllocation) {
  state_.debug->command_log.Start(64);
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return LockRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
  EXPECT_EQ(state_.debug->command_log.size(), 64u);
}

TEST_F(AllocationTest, ContendedLockLoopMakesNoOperatorNewAllocation) {
  Run({"SET", "held", "me", "PX", "30000"});
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return ContendedRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
}

TEST_F(AllocationTest, RedissonLockLoopMakesNoOperatorNewAllocation) {
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return RedissonRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
}

// A set created with a text member is a table from the start, and `new Keyspace` is one
// allocation: this loop keeps "tags" alive so it measures membership changes only.
TEST_F(AllocationTest, SetMembershipLoopMakesNoOperatorNewAllocation) {
  Run({"SADD", "tags", "keep"});
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return SetRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
}

TEST_F(AllocationTest, NativeLockScriptLoopMakesNoOperatorNewAllocation) {
  ASSERT_EQ(Run({"SCRIPT", "LOAD", lock_scripts::kOneLineUnlockDouble}), BulkReply(kReleaseSha));
  ASSERT_EQ(Run({"SCRIPT", "LOAD", lock_scripts::kOneLineExtendDouble}), BulkReply(kExtendSha));
  int wrong = 0;

  const std::size_t counted = CountAllocations([this] { return ScriptedRound(); }, wrong);

  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(counted, 0u) << "operator new calls in " << kCountedIterations << " iterations";
}

// The counter itself works: a string too long for the small-string buffer is one allocation.
TEST_F(AllocationTest, CounterSeesOperatorNew) {
  const std::uint64_t before = HeapAllocations();
  const std::size_t bytes_before = HeapBytes();
  const std::string s(100, 'x');
  const std::uint64_t allocations = HeapAllocations() - before;

  EXPECT_EQ(s.size(), 100u);
  EXPECT_EQ(allocations, 1u);
  EXPECT_GE(HeapBytes() - bytes_before, 101u);
}

}  // namespace
}  // namespace warden::server
