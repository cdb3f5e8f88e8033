// The lock libraries' own scripts (lock_library_scripts.h) through the dispatcher, with a manual
// clock: each library's acquire, extend and release paths for owner and non-owner tokens, on
// keys present, absent, without TTL and expired, with exact replies and exact TTLs. Scripts are
// sent the way the libraries send them: EVALSHA first, EVAL when the reply is NOSCRIPT.
#include "server/scripting/lock_library_scripts.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/scripting/script_fixture.h"

namespace warden::server {
namespace {

using namespace lock_scripts;

constexpr std::string_view kNoScript = "-NOSCRIPT No matching script. Please use EVAL.\r\n";

class LockScriptTest : public ScriptTest {
 protected:
  // EVALSHA, and EVAL if the script is not cached yet: what every one of these libraries does.
  std::string Call(std::string_view script, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args) {
    std::string reply = Evalsha(script, keys, args);
    if (reply == kNoScript) reply = Eval(script, keys, args);
    return reply;
  }
};

TEST_F(LockScriptTest, ScriptsHaveTheShaTheLibrariesCompute) {
  // go-redsync's scripts.go pins these three.
  EXPECT_EQ(Sha(kRedsyncDelete), "e950836ed1e694540c503ef9972b8de518044d3b");
  EXPECT_EQ(Sha(kRedsyncTouch), "d75bb8b5bd13532ddedd17762e772346e39b321e");
  EXPECT_EQ(Sha(kRedsyncTouchWithSetNx), "b6b55c439e02c6f52ffb8be7ec8c0d0ac816ea79");
  // The rest, as computed from the texts in the libraries' sources.
  EXPECT_EQ(Sha(kRedisPyRelease), "c3f8721cbb97f72bc19e972846bd7aaf91901658");
  EXPECT_EQ(Sha(kRedisPyExtend), "a4e8783852e6b949f9ef3a97212805108459a890");
  EXPECT_EQ(Sha(kRedisPyReacquire), "1cac51482acf5858da00f6d685d68f886cd6b6b2");
  EXPECT_EQ(Sha(kRedlock4Lock), "e5a322e2634ef59a516e8ea150cb085afafee684");
  EXPECT_EQ(Sha(kRedlock4Extend), "ce46f80993d5dac20dd066eb301a4e37994bdbed");
  EXPECT_EQ(Sha(kRedlock4Unlock), "0f0f23b9048b36752b5be114f357ba083449f908");
  EXPECT_EQ(Sha(kSesameAcquire), "96da70f7716f27d278a5218544df37fd8b0a5e4c");
  EXPECT_EQ(Sha(kSesameExtend), "aed6f382e410db8ba7926d4e5e9aab410bf2a78a");
  EXPECT_EQ(Sha(kSesameRelease), "e4612211c9f8f51c257e26e056b0a654b3187242");
  EXPECT_EQ(Sha(kSemaphoreRefresh), "594683e49a64ebaf975caf5f8079a1d097c438f1");
  EXPECT_EQ(Sha(kSemaphoreRelease), "7157921a7cc7cfba979acf6d63f073151df17d12");
  EXPECT_EQ(Sha(kRedsyncDeleteEarly), "00583931c4e4d483f6233879c133c71ed5393f9d");
}

TEST_F(LockScriptTest, FirstCallFallsBackToEvalThenEvalshaFindsTheScript) {
  Run({"SET", "lock", "tok-a", "NX", "PX", "30000"});

  EXPECT_EQ(Evalsha(kRedisPyRelease, {"lock"}, {"tok-b"}), kNoScript);
  EXPECT_EQ(Eval(kRedisPyRelease, {"lock"}, {"tok-b"}), ":0\r\n");
  EXPECT_EQ(Evalsha(kRedisPyRelease, {"lock"}, {"tok-a"}), ":1\r\n");
}

// redis-py: acquire is SET name token NX PX timeout.

class RedisPyLockTest : public LockScriptTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(Run({"SET", "lock", "tok-a", "NX", "PX", "30000"}), "+OK\r\n");
  }
};

TEST_F(RedisPyLockTest, SecondAcquireFails) {
  EXPECT_EQ(Run({"SET", "lock", "tok-b", "NX", "PX", "30000"}), "$-1\r\n");
}

TEST_F(RedisPyLockTest, OwnerReleases) {
  EXPECT_EQ(Call(kRedisPyRelease, {"lock"}, {"tok-a"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "lock"}), ":0\r\n");
}

TEST_F(RedisPyLockTest, NonOwnerCannotRelease) {
  clock_.AdvanceMs(1000);

  EXPECT_EQ(Call(kRedisPyRelease, {"lock"}, {"tok-b"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "lock"}), "$5\r\ntok-a\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":29000\r\n");
}

TEST_F(RedisPyLockTest, ReleaseOfAnExpiredLockFails) {
  clock_.AdvanceMs(30'001);

  EXPECT_EQ(Call(kRedisPyRelease, {"lock"}, {"tok-a"}), ":0\r\n");
  EXPECT_EQ(Run({"SET", "lock", "tok-b", "NX", "PX", "30000"}), "+OK\r\n");
}

TEST_F(RedisPyLockTest, ReleaseOfAnAbsentLockFails) {
  EXPECT_EQ(Call(kRedisPyRelease, {"other"}, {"tok-a"}), ":0\r\n");
}

TEST_F(RedisPyLockTest, ExtendAddsToTheRemainingTtl) {
  clock_.AdvanceMs(10'000);

  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "10000", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
}

TEST_F(RedisPyLockTest, ExtendWithReplaceSetsTheTtl) {
  clock_.AdvanceMs(10'000);

  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "5000", "1"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":5000\r\n");
}

TEST_F(RedisPyLockTest, ExtendAtTheLastMillisecondStartsFromZero) {
  clock_.AdvanceMs(30'000);  // PTTL 0: the lock still exists

  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "10000", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":10000\r\n");
}

TEST_F(RedisPyLockTest, NonOwnerCannotExtend) {
  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-b", "10000", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
}

TEST_F(RedisPyLockTest, ExpiredLockCannotBeExtended) {
  clock_.AdvanceMs(30'001);

  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "10000", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "lock"}), ":0\r\n");
}

TEST_F(RedisPyLockTest, LockWithoutTtlCannotBeExtended) {
  Run({"SET", "lock", "tok-a"});

  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "10000", "0"}), ":0\r\n");
  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "10000", "1"}), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":-1\r\n");
}

TEST_F(RedisPyLockTest, ExtendWithANonNumberFailsInsideTheScript) {
  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "abc", "1"}),
            ErrorReply("ERR value is not an integer or out of range" + Where(kRedisPyExtend, 18)));
  EXPECT_EQ(Call(kRedisPyExtend, {"lock"}, {"tok-a", "abc", "0"}),
            ErrorReply("ERR user_script:16: attempt to perform arithmetic on field '?' (a string "
                       "value)" +
                       Where(kRedisPyExtend, 16)));
}

TEST_F(RedisPyLockTest, ReacquireResetsTheTtl) {
  clock_.AdvanceMs(25'000);

  EXPECT_EQ(Call(kRedisPyReacquire, {"lock"}, {"tok-a", "30000"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":30000\r\n");
}

TEST_F(RedisPyLockTest, NonOwnerCannotReacquire) {
  clock_.AdvanceMs(25'000);

  EXPECT_EQ(Call(kRedisPyReacquire, {"lock"}, {"tok-b", "30000"}), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "lock"}), ":5000\r\n");
}

// node-redlock v4 and @sesamecare-oss/redlock: multi-resource scripts, same contract.

struct RedlockScripts {
  const char* name;
  std::string_view acquire;
  std::string_view extend;
  std::string_view release;
};

void PrintTo(const RedlockScripts& s, std::ostream* os) { *os << s.name; }

class RedlockScriptTest : public LockScriptTest,
                          public ::testing::WithParamInterface<RedlockScripts> {
 protected:
  std::string Acquire(const std::vector<std::string>& keys, const std::string& value,
                      const std::string& ttl_ms) {
    return Call(GetParam().acquire, keys, {value, ttl_ms});
  }
  std::string Extend(const std::vector<std::string>& keys, const std::string& value,
                     const std::string& ttl_ms) {
    return Call(GetParam().extend, keys, {value, ttl_ms});
  }
  std::string Release(const std::vector<std::string>& keys, const std::string& value) {
    return Call(GetParam().release, keys, {value});
  }
};

TEST_P(RedlockScriptTest, AcquireSetsEveryResourceWithTheTtl) {
  EXPECT_EQ(Acquire({"r:1", "r:2"}, "val-a", "30000"), ":2\r\n");

  EXPECT_EQ(Run({"GET", "r:1"}), "$5\r\nval-a\r\n");
  EXPECT_EQ(Run({"PTTL", "r:1"}), ":30000\r\n");
  EXPECT_EQ(Run({"PTTL", "r:2"}), ":30000\r\n");
}

TEST_P(RedlockScriptTest, AcquireIsAllOrNothing) {
  Acquire({"r:1", "r:2"}, "val-a", "30000");

  EXPECT_EQ(Acquire({"r:2", "r:3"}, "val-b", "30000"), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "r:3"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "r:2"}), "$5\r\nval-a\r\n");
}

TEST_P(RedlockScriptTest, AcquireAfterExpirySucceeds) {
  Acquire({"r:1"}, "val-a", "30000");
  clock_.AdvanceMs(30'001);

  EXPECT_EQ(Acquire({"r:1"}, "val-b", "30000"), ":1\r\n");
  EXPECT_EQ(Run({"GET", "r:1"}), "$5\r\nval-b\r\n");
}

TEST_P(RedlockScriptTest, ExtendResetsTheTtlOfEveryResource) {
  Acquire({"r:1", "r:2"}, "val-a", "30000");
  clock_.AdvanceMs(20'000);

  EXPECT_EQ(Extend({"r:1", "r:2"}, "val-a", "30000"), ":2\r\n");
  EXPECT_EQ(Run({"PTTL", "r:1"}), ":30000\r\n");
  EXPECT_EQ(Run({"PTTL", "r:2"}), ":30000\r\n");
}

TEST_P(RedlockScriptTest, ExtendFailsWhenAnyResourceHasAnotherValue) {
  Acquire({"r:1", "r:2"}, "val-a", "30000");
  Run({"SET", "r:2", "val-b", "PX", "30000"});
  clock_.AdvanceMs(1000);

  EXPECT_EQ(Extend({"r:1", "r:2"}, "val-a", "60000"), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "r:1"}), ":29000\r\n");
}

TEST_P(RedlockScriptTest, ExtendOfAnExpiredLockFails) {
  Acquire({"r:1"}, "val-a", "30000");
  clock_.AdvanceMs(30'001);

  EXPECT_EQ(Extend({"r:1"}, "val-a", "30000"), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "r:1"}), ":0\r\n");
}

TEST_P(RedlockScriptTest, ReleaseRemovesOnlyThisValue) {
  Acquire({"r:1", "r:2"}, "val-a", "30000");
  Run({"SET", "r:2", "val-b", "PX", "30000"});

  EXPECT_EQ(Release({"r:1", "r:2"}, "val-a"), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "r:1", "r:2"}), ":1\r\n");
  EXPECT_EQ(Run({"GET", "r:2"}), "$5\r\nval-b\r\n");
}

TEST_P(RedlockScriptTest, ReleaseOfAnExpiredLockRemovesNothing) {
  Acquire({"r:1"}, "val-a", "30000");
  clock_.AdvanceMs(30'001);

  EXPECT_EQ(Release({"r:1"}, "val-a"), ":0\r\n");
}

TEST_P(RedlockScriptTest, BadTtlFailsWithSetsOwnError) {
  const std::string reply = Acquire({"r:1"}, "val-a", "0");

  EXPECT_EQ(reply,
            ErrorReply("ERR invalid expire time in 'set' command" + Where(GetParam().acquire, 11)));
  EXPECT_EQ(Run({"EXISTS", "r:1"}), ":0\r\n");
}

INSTANTIATE_TEST_SUITE_P(Libraries, RedlockScriptTest,
                         ::testing::Values(RedlockScripts{"node_redlock_v4", kRedlock4Lock,
                                                          kRedlock4Extend, kRedlock4Unlock},
                                           RedlockScripts{"sesamecare_redlock", kSesameAcquire,
                                                          kSesameExtend, kSesameRelease}),
                         [](const ::testing::TestParamInfo<RedlockScripts>& info) {
                           return info.param.name;
                         });

// redis-semaphore Mutex: acquire is SET key id PX ms NX.

class RedisSemaphoreTest : public LockScriptTest {
 protected:
  void SetUp() override { ASSERT_EQ(Run({"SET", "m", "id-a", "PX", "10000", "NX"}), "+OK\r\n"); }
};

TEST_F(RedisSemaphoreTest, OwnerRefreshSetsTheTtl) {
  clock_.AdvanceMs(9000);

  EXPECT_EQ(Call(kSemaphoreRefresh, {"m"}, {"id-a", "10000"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":10000\r\n");
}

TEST_F(RedisSemaphoreTest, NonOwnerCannotRefresh) {
  clock_.AdvanceMs(9000);

  EXPECT_EQ(Call(kSemaphoreRefresh, {"m"}, {"id-b", "10000"}), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":1000\r\n");
}

TEST_F(RedisSemaphoreTest, ExpiredMutexCannotBeRefreshed) {
  clock_.AdvanceMs(10'001);

  EXPECT_EQ(Call(kSemaphoreRefresh, {"m"}, {"id-a", "10000"}), ":0\r\n");
  EXPECT_EQ(Run({"EXISTS", "m"}), ":0\r\n");
}

TEST_F(RedisSemaphoreTest, RefreshWithANegativeTtlDeletes) {
  EXPECT_EQ(Call(kSemaphoreRefresh, {"m"}, {"id-a", "-5"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "m"}), ":0\r\n");
}

TEST_F(RedisSemaphoreTest, OwnerReleases) {
  EXPECT_EQ(Call(kSemaphoreRelease, {"m"}, {"id-a"}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "m"}), ":0\r\n");
}

TEST_F(RedisSemaphoreTest, NonOwnerCannotRelease) {
  EXPECT_EQ(Call(kSemaphoreRelease, {"m"}, {"id-b"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "m"}), "$4\r\nid-a\r\n");
}

TEST_F(RedisSemaphoreTest, ReleaseOfAnExpiredMutexFails) {
  clock_.AdvanceMs(10'001);

  EXPECT_EQ(Call(kSemaphoreRelease, {"m"}, {"id-a"}), ":0\r\n");
}

// go-redsync: acquire is SET name value NX PX expiry.

class RedsyncTest : public LockScriptTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(Run({"SET", "m", "dmFsdWUtYQ==", "NX", "PX", "8000"}), "+OK\r\n");
  }
};

TEST_F(RedsyncTest, OwnerTouchSetsTheTtl) {
  clock_.AdvanceMs(5000);

  EXPECT_EQ(Call(kRedsyncTouch, {"m"}, {"dmFsdWUtYQ==", "8000"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":8000\r\n");
}

TEST_F(RedsyncTest, NonOwnerCannotTouch) {
  clock_.AdvanceMs(5000);

  EXPECT_EQ(Call(kRedsyncTouch, {"m"}, {"dmFsdWUtYg==", "8000"}), ":0\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":3000\r\n");
}

TEST_F(RedsyncTest, OwnerDeletes) {
  EXPECT_EQ(Call(kRedsyncDelete, {"m"}, {"dmFsdWUtYQ=="}), ":1\r\n");
  EXPECT_EQ(Run({"EXISTS", "m"}), ":0\r\n");
}

TEST_F(RedsyncTest, NonOwnerCannotDelete) {
  EXPECT_EQ(Call(kRedsyncDelete, {"m"}, {"dmFsdWUtYg=="}), ":0\r\n");
  EXPECT_EQ(Call(kRedsyncDeleteEarly, {"m"}, {"dmFsdWUtYg=="}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "m"}), "$12\r\ndmFsdWUtYQ==\r\n");
}

TEST_F(RedsyncTest, DeleteOfAnExpiredLockReportsItWithMinusOne) {
  clock_.AdvanceMs(8001);

  EXPECT_EQ(Call(kRedsyncDelete, {"m"}, {"dmFsdWUtYQ=="}), ":-1\r\n");
  EXPECT_EQ(Call(kRedsyncDeleteEarly, {"m"}, {"dmFsdWUtYQ=="}), ":0\r\n");
}

TEST_F(RedsyncTest, TouchWithSetNxRecreatesALostLock) {
  clock_.AdvanceMs(8001);

  EXPECT_EQ(Call(kRedsyncTouch, {"m"}, {"dmFsdWUtYQ==", "8000"}), ":0\r\n");
  EXPECT_EQ(Call(kRedsyncTouchWithSetNx, {"m"}, {"dmFsdWUtYQ==", "8000"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":8000\r\n");
}

TEST_F(RedsyncTest, TouchWithSetNxLeavesAnotherOwnersLock) {
  EXPECT_EQ(Call(kRedsyncTouchWithSetNx, {"m"}, {"dmFsdWUtYg==", "12000"}), ":0\r\n");
  EXPECT_EQ(Run({"GET", "m"}), "$12\r\ndmFsdWUtYQ==\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":8000\r\n");
}

TEST_F(RedsyncTest, TouchWithSetNxExtendsTheOwnersLock) {
  clock_.AdvanceMs(5000);

  EXPECT_EQ(Call(kRedsyncTouchWithSetNx, {"m"}, {"dmFsdWUtYQ==", "12000"}), ":1\r\n");
  EXPECT_EQ(Run({"PTTL", "m"}), ":12000\r\n");
}

}  // namespace
}  // namespace warden::server
