"""The workloads of bench/run_all.py's throughput, types and zsets_lists sections (what
redis-benchmark sends, what is preloaded, how many keys each leaves), and the constants the
sections share: the lock token, the release script, Redisson's hash field, redis-semaphore's
acquire script and holders."""
import dataclasses
from typing import Callable, Optional

TOKEN = "0123456789abcdef0123456789abcdef0123"
RELEASE_SCRIPT = ('if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1])'
                  ' else return 0 end')
# The same compare-and-delete as a function (FUNCTION LOAD), for the FCALL rows.
RELEASE_LIBRARY = ("#!lua name=benchlocks\nredis.register_function('release', function(keys, args)"
                   " if redis.call('get', keys[1]) == args[1] then return redis.call('del', keys[1])"
                   " else return 0 end end)")
# A Redisson lock is a hash: field "<client uuid>:<thread id>" -> hold count.
REDISSON_FIELD = "3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b:1"
MGET_KEYS = 10
KEY_RANGE = 1_000_000
# Reads run against every second key of the range, so half of GETs and EVALSHAs find a lock.
PRELOAD_STEP = 2
PRELOAD_TTL_MS = 600_000


@dataclasses.dataclass
class Workload:
    name: str
    label: str
    pipeline: int
    args: list  # redis-benchmark's command; "<sha>" stands for the loaded script's SHA1
    # The command that loads one key (or field) per id of every PRELOAD_STEP-th id of the range,
    # written like `args` (with __rand_int__); None: the run starts from an empty keyspace.
    preload: Optional[list]
    expected_keys: Callable[[int], float]  # requests -> expected `count` after the run
    target: Optional[float]  # upper bound on the CPU-per-request ratio, from the issue
    count: tuple = ("DBSIZE",)  # what the keys check compares
    script: str = RELEASE_SCRIPT  # what "<sha>" is the SHA1 of
    library: Optional[str] = None  # a function library loaded (FUNCTION LOAD REPLACE) first
    # The ids the preload runs over (start, stop, step), and its reply to each command (None:
    # any reply but an error; by default +OK for SET, :1 for the others).
    preload_ids: tuple = (0, KEY_RANGE, PRELOAD_STEP)
    preload_reply: Optional[bytes] = b""
    # The PING workload at the same pipeline depth in the same section, whose CPU per request is
    # subtracted from this one's ("excess"); None for the PING rows themselves.
    floor: Optional[str] = None


def ping_workload(name, pipeline, what):
    """PING at `pipeline` (redis-benchmark sends it as a multi-bulk `*1 $4 PING`): the floor of
    the section's other rows, what a request costs the server before its command does anything."""
    return Workload(name, f"`PING`, P{pipeline} (the floor of {what})", pipeline, ["PING"], None,
                    lambda n: 0, None)


def distinct_keys(requests, key_range):
    return key_range * (1 - (1 - 1 / key_range) ** requests)


def preloaded_keys():
    return KEY_RANGE // PRELOAD_STEP


def left_after_release(requests):
    # Each preloaded key is deleted the first time a request draws it.
    return preloaded_keys() * (1 - 1 / KEY_RANGE) ** requests


def drawn_keys(requests):
    return distinct_keys(requests, KEY_RANGE)


def workloads():
    set_args = ["SET", "lock:__rand_int__", TOKEN, "NX", "PX", "30000"]
    get_args = ["GET", "lock:__rand_int__"]
    release_args = ["EVALSHA", "<sha>", "1", "lock:__rand_int__", TOKEN]
    lock_preload = ["SET", "lock:__rand_int__", TOKEN, "PX", str(PRELOAD_TTL_MS)]
    out = []
    for pipeline, target in ((16, 0.5), (1, None)):
        floor = f"ping_p{pipeline}"
        what = "the rows at P16" if pipeline == 16 else "the rows at P1 and of lockcycle"
        out += [
            ping_workload(floor, pipeline, what),
            Workload(f"set_p{pipeline}", f"`SET lock:__rand_int__ <36-byte token> NX PX 30000`, "
                     f"P{pipeline}", pipeline, set_args, None, drawn_keys, target, floor=floor),
            Workload(f"get_p{pipeline}", f"`GET lock:__rand_int__`, P{pipeline}", pipeline,
                     get_args, lock_preload, lambda n: preloaded_keys(), target, floor=floor),
            Workload(f"evalsha_p{pipeline}", f"`EVALSHA` compare-and-delete, P{pipeline}",
                     pipeline, release_args, lock_preload, left_after_release, target,
                     floor=floor),
            Workload(f"fcall_p{pipeline}", f"`FCALL` compare-and-delete (a function), "
                     f"P{pipeline}", pipeline, ["FCALL", "release", "1", "lock:__rand_int__",
                                                TOKEN],
                     lock_preload, left_after_release, None, floor=floor,
                     library=RELEASE_LIBRARY),
        ]
    return out


def type_workloads():
    """The typed-value commands at pipeline 16. Reads run against half the range loaded, as the
    GET runs do; the last two use one large hash (a field per id) instead of a hash per id."""
    def preloaded(n):
        return preloaded_keys()

    user = ["user:__rand_int__", "name"]
    sessions = ["sessions:__rand_int__", TOKEN]
    mget = ["MGET"] + ["k:__rand_int__"] * MGET_KEYS
    users = ["users", "__rand_int__"]
    return with_floor(ping_workload("types_ping_p16", 16, "the types rows"), [
        Workload("hset_p16", "`HSET user:__rand_int__ name <36 bytes>` (a hash per key), P16", 16,
                 ["HSET", *user, TOKEN], None, drawn_keys, 0.6),
        Workload("hget_p16", "`HGET user:__rand_int__ name`, P16", 16, ["HGET", *user],
                 ["HSET", *user, TOKEN], preloaded, 0.6),
        Workload("hincrby_p16", "`HINCRBY redisson_lock:__rand_int__ <uuid>:1 1` (Redisson's "
                 "lock), P16", 16, ["HINCRBY", "redisson_lock:__rand_int__", REDISSON_FIELD, "1"],
                 None, drawn_keys, 0.6),
        Workload("sadd_p16", "`SADD sessions:__rand_int__ <36 bytes>`, P16", 16,
                 ["SADD", *sessions], None, drawn_keys, 0.6),
        Workload("sismember_p16", "`SISMEMBER sessions:__rand_int__ <36 bytes>`, P16", 16,
                 ["SISMEMBER", *sessions], ["SADD", *sessions], preloaded, 0.6),
        Workload("mget_p16", f"`MGET` of {MGET_KEYS} `k:__rand_int__` (36-byte values), P16", 16,
                 mget, ["SET", "k:__rand_int__", TOKEN], preloaded, 0.6),
        Workload("hset_big_p16", "`HSET users __rand_int__ <36 bytes>` (one hash, a field per "
                 "id), P16", 16, ["HSET", *users, TOKEN], None, drawn_keys, None,
                 count=("HLEN", "users")),
        Workload("hget_big_p16", f"`HGET users __rand_int__` (one hash of "
                 f"{KEY_RANGE // PRELOAD_STEP:,} fields), P16", 16, ["HGET", *users],
                 ["HSET", *users, TOKEN], preloaded, None, count=("HLEN", "users")),
    ])


def with_floor(ping, rows):
    """The PING row first, then the rows, each with it as its floor."""
    return [ping] + [dataclasses.replace(w, floor=ping.name) for w in rows]


# redis-semaphore (npm redis-semaphore 5.8.0, lib/semaphore/acquire/lua.js), verbatim: what
# Semaphore.acquire() sends by EVALSHA with KEYS[1] = "semaphore:<name>" and ARGV = limit,
# identifier (a random UUID), lockTimeout (10000 ms by default) and Date.now().
SEMAPHORE_ACQUIRE_SCRIPT = """
  local key = KEYS[1]
  local limit = tonumber(ARGV[1])
  local identifier = ARGV[2]
  local lockTimeout = tonumber(ARGV[3])
  local now = tonumber(ARGV[4])
  local expiredTimestamp = now - lockTimeout

  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)

  if redis.call('zcard', key) < limit then
    redis.call('zadd', key, now, identifier)
    redis.call('pexpire', key, lockTimeout)
    return 1
  else
    return 0
  end"""
SEMAPHORE_NOW_MS = 1764590400000  # the acquirer's Date.now()
SEMAPHORE_TIMEOUT_MS = 10000  # redis-semaphore's default lockTimeout
SEMAPHORE_LIMIT = 5
# A preloaded semaphore has five holders: two acquired longer than lockTimeout ago (expired,
# removed by the next acquire's ZREMRANGEBYSCORE) and three live ones.
SEMAPHORE_HOLDERS = [(SEMAPHORE_NOW_MS - age_ms, f"{i:08x}-9a4d-4e7f-8b6a-1c2d3e4f5a6b")
                     for i, age_ms in enumerate((30000, 20000, 5000, 3000, 1000))]
SEMAPHORE_ACQUIRER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def zset_list_workloads():
    """Sorted sets and lists at pipeline 16. Per-key rows use semaphores as redis-semaphore
    keeps them, half the range preloaded with five holders each; the other rows use one large
    sorted set (a schedule of jobs) and one queue list."""
    semaphore = "semaphore:__rand_int__"
    holders = [str(x) for h in SEMAPHORE_HOLDERS for x in h]
    semaphore_preload = ["ZADD", semaphore, *holders]
    expired_before = str(SEMAPHORE_NOW_MS - SEMAPHORE_TIMEOUT_MS)
    live_holder = SEMAPHORE_HOLDERS[-1][1]

    def preloaded(n):
        return preloaded_keys()

    def preloaded_plus_drawn(n):
        # Every preloaded key stays; about half the keys drawn are new.
        return preloaded_keys() + drawn_keys(n) / 2

    schedule_preload = ["ZADD", "schedule", "__rand_int__", "job:__rand_int__"]
    return with_floor(ping_workload("zsets_ping_p16", 16, "the zsets_lists rows"), [
        Workload("zadd_semaphore_p16", "`ZADD semaphore:__rand_int__ <now ms> <uuid>` (a sixth "
                 "holder, or a new semaphore), P16", 16,
                 ["ZADD", semaphore, str(SEMAPHORE_NOW_MS), SEMAPHORE_ACQUIRER], semaphore_preload,
                 preloaded_plus_drawn, 0.6, preload_reply=b":5\r\n"),
        Workload("zscore_semaphore_p16", "`ZSCORE semaphore:__rand_int__ <uuid>` (five holders), "
                 "P16", 16, ["ZSCORE", semaphore, live_holder], semaphore_preload, preloaded,
                 0.6, preload_reply=b":5\r\n"),
        Workload("zrangebyscore_semaphore_p16", "`ZRANGEBYSCORE semaphore:__rand_int__ -inf +inf "
                 "LIMIT 0 10` (five holders), P16", 16,
                 ["ZRANGEBYSCORE", semaphore, "-inf", "+inf", "LIMIT", "0", "10"],
                 semaphore_preload, preloaded, 0.6, preload_reply=b":5\r\n"),
        Workload("zremrangebyscore_semaphore_p16", "`ZREMRANGEBYSCORE semaphore:__rand_int__ "
                 "-inf <now - 10 s>` (two of five holders expired), P16", 16,
                 ["ZREMRANGEBYSCORE", semaphore, "-inf", expired_before], semaphore_preload,
                 preloaded, 0.6, preload_reply=b":5\r\n"),
        Workload("evalsha_semaphore_p16", "redis-semaphore's acquire script by `EVALSHA` "
                 "(`ZREMRANGEBYSCORE`, `ZCARD`, `ZADD`, `PEXPIRE`; limit 5), P16", 16,
                 ["EVALSHA", "<sha>", "1", semaphore, str(SEMAPHORE_LIMIT), SEMAPHORE_ACQUIRER,
                  str(SEMAPHORE_TIMEOUT_MS), str(SEMAPHORE_NOW_MS)], semaphore_preload,
                 preloaded_plus_drawn, 0.6, script=SEMAPHORE_ACQUIRE_SCRIPT,
                 preload_reply=b":5\r\n"),
        Workload("zadd_big_p16", "`ZADD schedule __rand_int__ job:__rand_int__` (one sorted set), "
                 "P16", 16, schedule_preload, None, drawn_keys, 0.6, count=("ZCARD", "schedule")),
        Workload("zscore_big_p16", f"`ZSCORE schedule job:__rand_int__` (one sorted set of "
                 f"{KEY_RANGE // PRELOAD_STEP:,} members), P16", 16,
                 ["ZSCORE", "schedule", "job:__rand_int__"], schedule_preload, preloaded, 0.6,
                 count=("ZCARD", "schedule")),
        Workload("zrangebyscore_big_p16", f"`ZRANGEBYSCORE schedule -inf +inf LIMIT 0 10` (one "
                 f"sorted set of {KEY_RANGE // PRELOAD_STEP:,} members), P16", 16,
                 ["ZRANGEBYSCORE", "schedule", "-inf", "+inf", "LIMIT", "0", "10"],
                 schedule_preload, preloaded, 0.6, count=("ZCARD", "schedule")),
        Workload("lpush_queue_p16", "`LPUSH queue <36 bytes>` (one list), P16", 16,
                 ["LPUSH", "queue", TOKEN], None, lambda n: n, 0.6, count=("LLEN", "queue")),
        Workload("rpop_queue_p16", f"`RPOP queue` (one list of {KEY_RANGE:,} elements), P16",
                 16, ["RPOP", "queue"], ["LPUSH", "queue", TOKEN], lambda n: KEY_RANGE - n, 0.6,
                 count=("LLEN", "queue"), preload_ids=(0, KEY_RANGE, 1), preload_reply=None),
        Workload("lpush_signal_p16", "`LPUSH lock-signal:__rand_int__ 1` (python-redis-lock's "
                 "signal key), P16", 16, ["LPUSH", "lock-signal:__rand_int__", "1"], None,
                 drawn_keys, 0.6),
    ])
