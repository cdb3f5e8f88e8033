#include "server/scripting/native_scripts.h"

#include <cstdlib>
#include <unordered_map>

#include "server/command_context.h"
#include "server/scripting/lock_library_scripts.h"
#include "server/scripting/sha1.h"

namespace warden::server {
namespace {

struct KnownBody {
  NativeProgram program;
  bool selects_db;
  std::string_view body;
};

// Every known text, with the program it is. The texts and where each comes from are in
// lock_library_scripts.h.
constexpr KnownBody kKnownBodies[] = {
    {NativeProgram::kTokenDelete, false, lock_scripts::kRedisPyRelease},
    {NativeProgram::kTokenExtend, false, lock_scripts::kRedisPyExtend},
    {NativeProgram::kTokenPexpire, false, lock_scripts::kRedisPyReacquire},
    {NativeProgram::kRedlockAcquire, false, lock_scripts::kRedlock4Lock},
    {NativeProgram::kRedlockExtend, false, lock_scripts::kRedlock4Extend},
    {NativeProgram::kRedlockRelease, false, lock_scripts::kRedlock4Unlock},
    {NativeProgram::kRedlockAcquire, false, lock_scripts::kSesameAcquire},
    {NativeProgram::kRedlockExtend, false, lock_scripts::kSesameExtend},
    {NativeProgram::kRedlockRelease, false, lock_scripts::kSesameRelease},
    {NativeProgram::kRedlockAcquire, true, lock_scripts::kSesame14Acquire},
    {NativeProgram::kRedlockExtend, true, lock_scripts::kSesame14Extend},
    {NativeProgram::kRedlockRelease, true, lock_scripts::kSesame14Release},
    {NativeProgram::kTokenPexpire, false, lock_scripts::kSemaphoreRefresh},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kSemaphoreRelease},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kRedsyncDeleteEarly},
    {NativeProgram::kCompareAndPexpire, false, lock_scripts::kRedsyncTouch},
    {NativeProgram::kCompareAndDeleteOrMissing, false, lock_scripts::kRedsyncDelete},
    {NativeProgram::kTouchOrSetNx, false, lock_scripts::kRedsyncTouchWithSetNx},
    {NativeProgram::kRedissonTryLock, false, lock_scripts::kRedissonTryLock},
    {NativeProgram::kRedissonUnlock, false, lock_scripts::kRedissonUnlock},
    {NativeProgram::kRedissonRenewBatch, false, lock_scripts::kRedissonRenewBatch},
    {NativeProgram::kRedissonRenew, false, lock_scripts::kRedissonRenew},
    {NativeProgram::kSpringObtain, false, lock_scripts::kSpringObtain},
    {NativeProgram::kSpringRenew, false, lock_scripts::kSpringRenew},
    {NativeProgram::kSpringUnlink, false, lock_scripts::kSpringSpinUnlock},
    {NativeProgram::kSpringUnlinkPublish, false, lock_scripts::kSpringPubSubUnlock},
    {NativeProgram::kSpringObtain, false, lock_scripts::kSpring5Obtain},
    {NativeProgram::kSemaphoreAcquire, false, lock_scripts::kSemaphoreAcquire},
    {NativeProgram::kSemaphoreRefresh, false, lock_scripts::kSemaphoreRefreshHolder},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kLessonRedisCli},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kLessonNode},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kRedisDocsUnlock},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kElixirRedlockUnlock},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kOneLineUnlockDouble},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kOneLineUnlockSingle},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kOneLineUnlockSpaced},
    {NativeProgram::kCompareAndDelete, false, lock_scripts::kRedlock3Unlock},
    {NativeProgram::kCompareAndPexpire, false, lock_scripts::kOneLineExtendDouble},
    {NativeProgram::kCompareAndPexpire, false, lock_scripts::kOneLineExtendSingle},
    {NativeProgram::kCompareAndPexpire, false, lock_scripts::kOneLineExtendSpaced},
    {NativeProgram::kCompareAndPexpire, false, lock_scripts::kRedlock3Extend},
};

// The commands each program calls, in the order their calls appear in the script's text.
std::vector<std::string_view> ExpectedCalls(NativeProgram program, bool selects_db) {
  std::vector<std::string_view> calls;
  if (selects_db) calls.push_back("select");
  switch (program) {
    case NativeProgram::kCompareAndDelete:
    case NativeProgram::kCompareAndDeleteOrMissing:
    case NativeProgram::kTokenDelete:
      calls.insert(calls.end(), {"get", "del"});
      break;
    case NativeProgram::kCompareAndPexpire:
    case NativeProgram::kTokenPexpire:
      calls.insert(calls.end(), {"get", "pexpire"});
      break;
    case NativeProgram::kTokenExtend:
      calls.insert(calls.end(), {"get", "pttl", "pexpire"});
      break;
    case NativeProgram::kTouchOrSetNx:
      calls.insert(calls.end(), {"get", "pexpire", "set"});
      break;
    case NativeProgram::kRedlockAcquire:
      calls.insert(calls.end(), {"exists", "set"});
      break;
    case NativeProgram::kRedlockExtend:
      calls.insert(calls.end(), {"get", "set"});
      break;
    case NativeProgram::kRedlockRelease:
      calls.insert(calls.end(), {"get", "del"});
      break;
    case NativeProgram::kRedissonTryLock:
      calls.insert(calls.end(), {"exists", "hexists", "hincrby", "pexpire", "pttl"});
      break;
    case NativeProgram::kRedissonUnlock:
      calls.insert(calls.end(), {"get", "hexists", "hincrby", "pexpire", "set", "del", "", "set"});
      break;
    case NativeProgram::kRedissonRenew:
    case NativeProgram::kRedissonRenewBatch:
      calls.insert(calls.end(), {"hexists", "pexpire"});
      break;
    case NativeProgram::kSpringObtain:
      calls.insert(calls.end(), {"get", "pexpire", "set"});
      break;
    case NativeProgram::kSpringRenew:
      calls.insert(calls.end(), {"get", "pexpire"});
      break;
    case NativeProgram::kSpringUnlink:
      calls.insert(calls.end(), {"get", "unlink"});
      break;
    case NativeProgram::kSpringUnlinkPublish:
      calls.insert(calls.end(), {"get", "unlink", "publish"});
      break;
    case NativeProgram::kSemaphoreAcquire:
      calls.insert(calls.end(), {"zremrangebyscore", "zcard", "zadd", "pexpire"});
      break;
    case NativeProgram::kSemaphoreRefresh:
      calls.insert(calls.end(), {"zremrangebyscore", "zscore", "zadd", "pexpire"});
      break;
  }
  return calls;
}

// Every redis.call("name" / redis.pcall('name' in the text, with the line it is on.
std::vector<NativeCallSite> CallSites(std::string_view body) {
  std::vector<NativeCallSite> sites;
  std::size_t pos = 0;
  while ((pos = body.find("redis.", pos)) != std::string_view::npos) {
    std::size_t p = pos + 6;
    if (body.compare(p, 5, "call(") == 0) {
      p += 5;
    } else if (body.compare(p, 6, "pcall(") == 0) {
      p += 6;
    } else {
      pos = p;
      continue;
    }
    while (p < body.size() && body[p] == ' ') ++p;
    const char quote = p < body.size() ? body[p] : '\0';
    NativeCallSite site;
    std::size_t end = p;
    if (quote == '\'' || quote == '"') {
      end = body.find(quote, p + 1);
      site.name = std::string(body.substr(p + 1, end - p - 1));
    }
    site.line = 1;
    for (std::size_t i = 0; i < pos; ++i) site.line += body[i] == '\n' ? 1 : 0;
    sites.push_back(std::move(site));
    pos = end;
  }
  return sites;
}

std::vector<NativeScript> BuildScripts() {
  std::vector<NativeScript> scripts;
  for (const KnownBody& known : kKnownBodies) {
    NativeScript script;
    script.program = known.program;
    script.selects_db = known.selects_db;
    script.body = known.body;
    char sha[41];
    Sha1Hex(known.body, sha);
    script.sha.assign(sha, 40);
    script.calls = CallSites(known.body);
    // The table and the programs must agree on which command each call site runs.
    const std::vector<std::string_view> expected = ExpectedCalls(known.program, known.selects_db);
    if (script.calls.size() != expected.size()) std::abort();
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!ArgIs(script.calls[i].name, expected[i])) std::abort();
    }
    scripts.push_back(std::move(script));
  }
  return scripts;
}

const std::vector<NativeScript>& Scripts() {
  static const std::vector<NativeScript> scripts = BuildScripts();
  return scripts;
}

}  // namespace

const NativeScript* FindNativeScript(std::string_view sha) {
  static const std::unordered_map<std::string_view, const NativeScript*> by_sha = [] {
    std::unordered_map<std::string_view, const NativeScript*> map;
    for (const NativeScript& script : Scripts()) map.emplace(script.sha, &script);
    return map;
  }();
  const auto it = by_sha.find(sha);
  return it == by_sha.end() ? nullptr : it->second;
}

std::span<const NativeScript> NativeScripts() { return Scripts(); }

}  // namespace warden::server
