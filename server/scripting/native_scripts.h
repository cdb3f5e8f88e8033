// Native forms of the scripts lock libraries send. A script whose body is, byte for byte, one of
// the known ones below (found by its SHA-1 when it is loaded) runs as C++ instead of in the Lua
// interpreter: the same commands, with the same arguments spelled as the script spells them,
// through the same path a redis.call takes (statistics, notifications, MONITOR, the command log
// marked as from a script, script time frozen). The script is still compiled and cached, so
// SCRIPT EXISTS, SCRIPT FLUSH and NOSCRIPT are unchanged.
//
// A native form covers the common case only. Before it runs anything it checks what the Lua
// form could do differently (a missing KEYS or ARGV entry, a key of another type, an argument a
// command would refuse, a read-only call) and leaves those runs to the interpreter, so no
// reply, error or side effect differs. Option lua-native-scripts no turns it off.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warden::server {

enum class NativeProgram : std::uint8_t {
  // if GET(K1) == A1 then return DEL(K1) else return 0 end
  kCompareAndDelete,
  // if GET(K1) == A1 then return PEXPIRE(K1, A2) else return 0 end
  kCompareAndPexpire,
  // go-redsync: as kCompareAndDelete, but -1 when the key is missing
  kCompareAndDeleteOrMissing,
  // go-redsync: PEXPIRE when GET(K1) == A1, else SET K1 A1 PX A2 NX; 1 when either did
  kTouchOrSetNx,
  // redis-py Lock: release, reacquire and extend (token check, then DEL / PEXPIRE / PTTL+PEXPIRE)
  kTokenDelete,
  kTokenPexpire,
  kTokenExtend,
  // node-redlock (and @sesamecare-oss/redlock after its SELECT): every key of KEYS at once
  kRedlockAcquire,
  kRedlockExtend,
  kRedlockRelease,
  // Redisson RLock: acquire or re-enter (a hash of holder -> count), and unlock with its latch
  kRedissonTryLock,
  kRedissonUnlock,
  // Redisson's watchdog: PEXPIRE each lock the holder still holds (HEXISTS); the batch form
  // answers a 1 or 0 per key, the one-lock form (before 3.44) 1 or 0
  kRedissonRenew,
  kRedissonRenewBatch,
  // Spring's RedisLockRegistry: as kTouchOrSetNx but SET without NX, true or false (nil)
  kSpringObtain,
  // if GET(K1) == A1 then PEXPIRE(K1, A2) / UNLINK(K1); true, else false (nil)
  kSpringRenew,
  kSpringUnlink,
  // if GET(K1) == A1 and UNLINK(K1) == 1 then PUBLISH(A2, K1); true, else false (nil)
  kSpringUnlinkPublish,
  // redis-semaphore's Semaphore: ZREMRANGEBYSCORE of the expired holders, then ZADD and PEXPIRE
  // when ZCARD < limit (acquire) or ZSCORE finds the holder (refresh); 1, else 0
  kSemaphoreAcquire,
  kSemaphoreRefresh,
};

// One redis.call or redis.pcall of a known script, in the order they appear in its text.
struct NativeCallSite {
  std::string name;  // the command as the script spells it ("get", "GET"); empty: from ARGV
  int line = 0;      // where an error it raised is reported (@user_script:<line>)
};

struct NativeScript {
  NativeProgram program;
  // @sesamecare-oss/redlock: the script starts with redis.pcall("SELECT", tonumber(ARGV[1]))
  // and its own arguments start at ARGV[2].
  bool selects_db = false;
  std::string_view body;
  std::string sha;  // lower-case hex
  std::vector<NativeCallSite> calls;
};

// The known script with this SHA-1 (lower-case hex), or nullptr.
const NativeScript* FindNativeScript(std::string_view sha);
// Every known script, for tests.
std::span<const NativeScript> NativeScripts();

}  // namespace warden::server
