"""The command generator: one seed, one reproducible sequence of commands.

Each Command carries how its two replies are compared. Timing is made deterministic by
construction: short TTLs lapse only inside a DEBUG SLEEP that the generator forces right after
them, long TTLs never lapse during a run, and GT/LT only meet absolute deadlines far from any
relative one.

Strings, hashes and sets share one small key pool (so WRONGTYPE paths are hit), spread over a
few of the sixteen databases. Replies that two Redis servers may legitimately give differently
are compared by what is certain about them:

- a hash or set in the hashtable encoding iterates in an order that depends on the process's
  hash seed: HKEYS/HVALS/HGETALL/SMEMBERS first ask OBJECT ENCODING (compared exactly) and
  compare the reply exactly for listpack/intset (insertion order, sorted integers) and as a
  multiset (HGETALL: as field-value pairs) for hashtable;
- SINTER and SDIFF as multisets; SUNION exactly when every member is an integer and there are
  at most 512 (its result set is then an intset: sorted), else as a multiset;
- random picks (SRANDMEMBER, HRANDFIELD, SPOP) first read the whole value (SMEMBERS or HGETALL,
  compared as a set or dict), then check each server's pick against its own value: type, count,
  distinctness for positive counts, membership, field-value pairs. After SPOP the members either
  server popped are removed from both (SREM), or the key is deleted when SPOP rebuilt the set,
  so both keyspaces stay identical;
- HSCAN/SSCAN run a full iteration from the given cursor and compare the elements as a set; for
  a listpack/intset value (a single reply) the reply is compared exactly;
- MEMORY USAGE by reply type only; OBJECT IDLETIME within 2 s, or by type only for a shared
  integer (OBJECT REFCOUNT 2147483647, whose LRU clock every key holding it shares);
- streams (stream_commands.py) get explicit entry ids, never ones from the clock where an id
  is compared; the idle, seen and delivery times in XPENDING and XINFO replies are compared
  within 1 s ("clock"), the rest of those replies exactly;
- bitmaps (bit_commands.py) and HyperLogLogs (hll_commands.py, HLL bytes included) exactly;
  an HLL is now and then SET back corrupted from the bytes a GET just read;
- geo (geo_commands.py) exactly, but COUNT n ANY by count and membership in the whole search
  when the replies differ ("geoany");
- SORT (sort_commands.py) exactly, but where a hash table's order shows (a hashtable set not
  sorted, ALPHA BY weights with ties on a set or sorted set) as a multiset ("sortset");
- client-side caching (tracking.py): a second and third connection track keys, and after every
  command the invalidation frames waiting on them are compared exactly.
"""

import hashlib
import random
import re
import time
from dataclasses import dataclass, field

from fuzz.bit_commands import BitMakers
from fuzz.command import Command, quote  # noqa: F401 (fuzz_diff imports Command here)
from fuzz.function_commands import FunctionMakers
from fuzz.geo_commands import GeoMakers
from fuzz.hll_commands import HllMakers
from fuzz.list_commands import ListMakers
from fuzz.sort_commands import SortMakers
from fuzz.typed_commands import (BAD_DBS, BAD_INTS, DBS, FIELDS, FLOAT_INCRS, HASH_KEYS,  # noqa: F401
                                 INCR_AMOUNTS, INT_MEMBERS, LONG_VALUES, OWN_HASH_KEYS,
                                 OWN_SET_KEYS, RANGE_INDEXES, RARE_FIELDS, SCAN_PATTERNS,
                                 SET_KEYS, STR_MEMBERS, TEXTS, TypedMakers)
from fuzz.stream_commands import StreamMakers
from fuzz.tracking import TrackingMakers
from fuzz.zset_commands import ZsetMakers

KEYS = ["k0", "k1", "k2", "lock:a", "lock:b", "lock:c"]
RARE_KEYS = ["", "k\x00z", "lock:\xe9", "K0"]
VALUES = ["t1", "t2", "tok-abc", "0", "1", "-1", "10", "abc", "", "9223372036854775806",
          "9223372036854775807", "-9223372036854775808", " 5", "5 ", "1e3", "00", "-0", "3.5"]
# Relative TTLs are either short (they lapse during the next DEBUG SLEEP, which the generator
# forces within two commands) or long enough never to lapse during a run.
SHORT_PX = ["15", "20", "25"]
LONG_PX = ["60000", "100000", "3600000"]
LONG_EX = ["60", "100", "3600"]
# Absolute deadlines: offsets from the sequence's base time, far from every relative deadline
# (so GT/LT never compare two nearly equal times) or in the past.
FUTURE_OFFSETS_MS = [200_000, 7_200_000, 1_000_000_000]
PAST_ABSOLUTE_MS = ["1", "0", "1000"]
BAD_NUMBERS = ["0", "-5", "abc", "1.5", "", "+100", "0100", "9223372036854775807",
               "9223372036854775", "-9223372036854775808", "1e3", " 60"]
PATTERNS = ["*", "k*", "lock:*", "k[0-2]", "?", "*a*", "k\\*", "[", "k[^1]", "\\", "lock:?",
            "*[ab]", "k[2-0]", "[a-"]
# Not "SET\x00": Redis finds a command by a hash over the whole name but compares with strcasecmp,
# so a name with a NUL after "SET" is SET or unknown depending on the process's hash seed.
GARBAGE_NAMES = ["FOO", "lockk", "sett", "gett", "", "SET\x01", "GETDELL",
                 "MULTIX", "ping1", " "]


def redis_int(data):
    """True when Redis stores the member in an intset (string2ll accepts it)."""
    if not re.fullmatch(rb"0|-?[1-9][0-9]*", data):
        return False
    return -(1 << 63) <= int(data) < (1 << 63)

# The lock scripts that clients send (redis-py's Lock, Redlock, the compare-and-delete idiom).
LOCK_SCRIPTS = [
    ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
     "else return 0 end", 1, "exact"),
    ("if redis.call('get', KEYS[1]) == ARGV[1] then "
     "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end", 1, "exact"),
    # redis-py 4.3 LUA_RELEASE_SCRIPT
    ("local token = redis.call('get', KEYS[1])\n"
     "if not token or token ~= ARGV[1] then\n    return 0\nend\n"
     "redis.call('del', KEYS[1])\nreturn 1\n", 1, "exact"),
    # redis-py 4.3 LUA_EXTEND_SCRIPT
    ("local token = redis.call('get', KEYS[1])\n"
     "if not token or token ~= ARGV[1] then\n    return 0\nend\n"
     "local expiration = redis.call('pttl', KEYS[1])\n"
     "if not expiration then\n    expiration = 0\nend\n"
     "if expiration < 0 then\n    return 0\nend\n\n"
     "local newttl = ARGV[2]\nif ARGV[3] == \"0\" then\n"
     "    newttl = ARGV[2] + expiration\nend\n"
     "redis.call('pexpire', KEYS[1], newttl)\nreturn 1\n", 1, "exact"),
    # redis-py 4.3 LUA_REACQUIRE_SCRIPT
    ("local token = redis.call('get', KEYS[1])\n"
     "if not token or token ~= ARGV[1] then\n    return 0\nend\n"
     "redis.call('pexpire', KEYS[1], ARGV[2])\nreturn 1\n", 1, "exact"),
    # Redlock v4 acquire over several keys
    ("for i, key in ipairs(KEYS) do if redis.call('exists', key) == 1 then return 0 end end "
     "for i, key in ipairs(KEYS) do redis.call('set', key, ARGV[1], 'PX', ARGV[2]) end "
     "return #KEYS", 2, "exact"),
    ("return redis.call('pttl', KEYS[1])", 1, "ttl"),
]

# Pieces of random small scripts: a few statements, then one return.
SCRIPT_STATEMENTS = [
    "redis.call('set', KEYS[1], ARGV[1])",
    "redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])",
    "redis.call('incr', KEYS[1])",
    "redis.pcall('incr', KEYS[1])",
    "redis.call('del', KEYS[1])",
    "redis.call('pexpire', KEYS[1], ARGV[2])",
    "redis.call('persist', KEYS[1])",
    "local v = redis.call('get', KEYS[1])",
    "redis.setresp(3)",
    "redis.setresp(2)",
    "x = 1",
    "local t = {} t[1] = ARGV[1]",
]
SCRIPT_RETURNS = [
    ("return redis.call('get', KEYS[1])", "exact"),
    ("return redis.call('exists', KEYS[1])", "exact"),
    ("return redis.call('incr', KEYS[1])", "exact"),
    ("return redis.pcall('incr', KEYS[1])", "exact"),
    ("return redis.call('set', KEYS[1], ARGV[1], 'GET')", "exact"),
    ("return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])", "exact"),
    ("return redis.call('set', KEYS[1])", "exact"),
    ("return redis.call('del', KEYS[1], KEYS[2])", "exact"),
    ("return redis.call('exists', unpack(KEYS))", "exact"),
    ("return redis.call('type', KEYS[1])", "exact"),
    ("return type(redis.call('get', KEYS[1]))", "exact"),
    ("return redis.call('ttl', KEYS[1])", "ttl"),
    ("return redis.call('pttl', KEYS[1])", "ttl"),
    ("return #redis.call('keys', '*')", "exact"),
    ("return redis.call('nosuchcommand')", "exact"),
    ("return redis.call('eval', 'return 1', 0)", "exact"),
    ("return redis.call('echo', ARGV[1])", "exact"),
    ("return redis.call('ping')", "exact"),
    ("return tonumber(ARGV[1])", "exact"),
    ("return {1, 2.9, 'x', false, {ARGV[1]}, nil, 5}", "exact"),
    ("return {err='CUSTOM failed'}", "exact"),
    ("return {ok='FINE'}", "exact"),
    ("return redis.error_reply('oops')", "exact"),
    ("return redis.status_reply('DONE')", "exact"),
    ("return true", "exact"),
    ("return false", "exact"),
    ("return nil", "exact"),
    ("return 3.99", "exact"),
    ("return -0.5", "exact"),
    ("return {double=1.5}", "exact"),
    ("return cjson.encode({ARGV[1]})", "exact"),
    ("return cjson.decode('[1,2,\"a\"]')", "exact"),
    ("return redis.sha1hex(ARGV[1])", "exact"),
    ("return bit.bxor(5, 3)", "exact"),
    ("return bit.tohex(255)", "exact"),
    ("return string.format('%d-%s', 5, tostring(ARGV[1]))", "exact"),
    ("return math.random(1000)", "exact"),
    ("math.randomseed(tonumber(ARGV[1]) or 7) return math.random()", "exact"),
    ("return #KEYS + #ARGV", "exact"),
    ("return {redis.call('ttl', KEYS[1]), redis.call('type', KEYS[1])}", "ttl"),
    ("return redis.pcall('set', KEYS[1], ARGV[1], 'PX', ARGV[2])", "exact"),
    ("return tostring(redis.call('get', KEYS[1]))", "exact"),
    ("return {1, {2, {3, {4, 'deep'}}}}", "exact"),
    ("local ok, e = pcall(redis.call, 'incr', KEYS[1]) return {tostring(ok), type(e)}", "exact"),
    ("return redis.call('expiretime', KEYS[1])", "ttl"),
    ("return redis.call('set', KEYS[1], ARGV[1], 'XX', 'KEEPTTL', 'GET')", "exact"),
    ("return redis.call('incrby', KEYS[1], ARGV[1])", "exact"),
    ("error('boom')", "exact"),
    ("return (", "exact"),
    ("return v", "exact"),
    ("return t", "exact"),
    ("", "exact"),
    ("return redis.call('hset', KEYS[1], 'f1', 'v')", "exact"),
    ("return redis.call('hget', KEYS[1], 'f1')", "exact"),
    ("return redis.call('hlen', KEYS[1])", "exact"),
    ("return redis.pcall('hincrby', KEYS[1], 'f1', 2)", "exact"),
    ("return redis.call('sadd', KEYS[1], '1', 'x')", "exact"),
    ("return redis.call('scard', KEYS[1])", "exact"),
    ("return redis.call('sismember', KEYS[1], '1')", "exact"),
    ("return redis.pcall('smismember', KEYS[1], '1', 'x')", "exact"),
    ("return redis.call('object', 'encoding', KEYS[1])", "exact"),
    ("return redis.call('mget', KEYS[1], 'k1')", "exact"),
    ("return redis.call('incrbyfloat', KEYS[1], '1.5')", "exact"),
]


@dataclass
class Generator(TypedMakers, ListMakers, ZsetMakers, StreamMakers, FunctionMakers, BitMakers,
                HllMakers, GeoMakers, SortMakers, TrackingMakers):
    """Builds one command sequence from a seeded random.Random."""
    rng: random.Random
    base_ms: int
    active_expiry: bool
    pending_sleep: int = -1  # commands left before a forced DEBUG SLEEP, -1 for none
    loaded: dict = field(default_factory=dict)  # sha1 hex -> comparison kind, SCRIPT LOADed
    functions: dict = field(default_factory=dict)  # function name -> comparison kind, loaded
    # Each seed leans towards one family (see FOCUS), so that values grow beyond a few members.
    focus: str = "mixed"
    # Keys that HSET/SADD wrote to lately: reads prefer them (a hint only, not a model).
    recent: dict = field(default_factory=lambda: {"hash": [], "set": []})
    # StreamMakers' state: a model of each stream key, a lowered node size to put back.
    streams: dict = field(default_factory=dict)
    # TrackingMakers' state: what the tracking connections were set up as, whether tracking is on.
    tracking: dict = field(default_factory=dict)

    def key(self):
        r = self.rng.random()
        if r < 0.03:
            return self.rng.choice(RARE_KEYS)
        if r < 0.12:
            return self.rng.choice(OWN_HASH_KEYS + OWN_SET_KEYS)
        return self.rng.choice(KEYS)

    def value(self):
        r = self.rng.random()
        if r < 0.04:
            return self.rng.choice(LONG_VALUES)
        if r < 0.12:
            return self.rng.choice(TEXTS)
        return self.rng.choice(VALUES)

    def bad(self, p=0.05):
        """True at the rate of bad arguments (non-integers, bad floats, missing words)."""
        return self.rng.random() < p

    def wrote(self, kind, key):
        keys = self.recent[kind]
        if key in keys:
            keys.remove(key)
        keys.append(key)
        del keys[:-3]

    def read_key(self, kind):
        if self.recent[kind] and self.rng.random() < 0.5:
            return self.rng.choice(self.recent[kind])
        return self.hkey() if kind == "hash" else self.skey()

    def hkey(self):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(OWN_HASH_KEYS)
        return self.rng.choice(HASH_KEYS) if r < 0.75 else self.key()

    def skey(self):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(OWN_SET_KEYS)
        return self.rng.choice(SET_KEYS) if r < 0.78 else self.key()

    def field(self):
        return self.rng.choice(RARE_FIELDS) if self.rng.random() < 0.04 else \
            self.rng.choice(FIELDS)

    def hvalue(self):
        if self.rng.random() < 0.3:
            return self.rng.choice(["5", "-3", "0", "1.5", "9223372036854775807", "1e2", "x"])
        return self.value()

    def member(self):
        return self.rng.choice(STR_MEMBERS if self.rng.random() < 0.25 else INT_MEMBERS)

    def db(self):
        return self.rng.choice(BAD_DBS) if self.bad(0.08) else self.rng.choice(DBS)

    def opt(self, word):
        """An option word, now and then in lower case (options are case-insensitive)."""
        return word.lower() if self.rng.random() < 0.15 else word

    def short_ttl(self):
        if self.pending_sleep < 0:
            self.pending_sleep = self.rng.randint(0, 2)
        return self.rng.choice(SHORT_PX)

    def px(self):
        r = self.rng.random()
        if r < 0.35:
            return self.short_ttl()
        if r < 0.85:
            return self.rng.choice(LONG_PX)
        return self.rng.choice(BAD_NUMBERS)

    def ex(self):
        return self.rng.choice(LONG_EX) if self.rng.random() < 0.8 else self.rng.choice(BAD_NUMBERS)

    def abs_ms(self):
        r = self.rng.random()
        if r < 0.7:
            return str(self.base_ms + self.rng.choice(FUTURE_OFFSETS_MS))
        if r < 0.85:
            return self.rng.choice(PAST_ABSOLUTE_MS)
        return self.rng.choice(BAD_NUMBERS)

    def abs_s(self):
        r = self.rng.random()
        if r < 0.7:
            return str((self.base_ms + self.rng.choice(FUTURE_OFFSETS_MS)) // 1000)
        if r < 0.85:
            return self.rng.choice(PAST_ABSOLUTE_MS)
        return self.rng.choice(BAD_NUMBERS)

    def next(self):
        if self.pending_sleep == 0:
            self.pending_sleep = -1
            return Command(["DEBUG", "SLEEP", "0.05"])
        if self.pending_sleep > 0:
            self.pending_sleep -= 1
        boost = FOCUS[self.focus]
        make = self.rng.choices(
            self.MAKERS, weights=[w * boost.get(m.__name__, 1) for m, w in self.MAKERS])[0][0]
        cmd = make(self)
        self.observe(cmd)  # StreamMakers' models follow SELECT, SWAPDB and the flushes
        return cmd

    # Each maker returns one Command.

    def set_cmd(self):
        args = ["SET", self.key(), self.value()]
        options = []
        for _ in range(self.rng.choice([0, 1, 1, 2, 2, 3])):
            r = self.rng.random()
            if r < 0.15:
                options.append(self.rng.choice(["NX", "XX"]))
            elif r < 0.25:
                options.append("GET")
            elif r < 0.45:
                options += ["PX", self.px()]
            elif r < 0.55:
                options += ["EX", self.ex()]
            elif r < 0.62:
                options += ["PXAT", self.abs_ms()]
            elif r < 0.68:
                options += ["EXAT", self.abs_s()]
            elif r < 0.75:
                options.append("KEEPTTL")
            elif r < 0.8:
                options.append(self.rng.choice(["PX", "EX", "nx", "px"]))  # missing argument
            elif r < 0.85:
                options.append(self.rng.choice(["FOO", "NXX", "", "PXX", "EXAT1"]))
            else:
                options += ["NX", "PX", self.px()]
        return Command(args + options)

    def lock_set(self):
        # The acquire every client library sends.
        return Command(["SET", self.rng.choice(KEYS[3:]), self.rng.choice(["t1", "t2"]), "NX",
                        "PX", self.px()])

    def get_family(self):
        op = self.rng.choice(["GET", "TYPE", "PERSIST", "INCR", "DECR", "SETNX", "EXISTS", "DEL",
                              "UNLINK"])
        if op == "SETNX":
            return Command([op, self.key(), self.value()])
        if op in ("EXISTS", "DEL", "UNLINK"):
            return Command([op] + [self.key() for _ in range(self.rng.randint(1, 4))])
        return Command([op, self.key()])

    def ttl_family(self):
        op = self.rng.choice(["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"])
        tol = 1 if op in ("TTL", "EXPIRETIME") else 250
        return Command([op, self.key()], mode="tol", tol=tol)

    def expire_family(self):
        op = self.rng.choice(["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
        when = {"EXPIRE": self.ex, "PEXPIRE": self.px, "EXPIREAT": self.abs_s,
                "PEXPIREAT": self.abs_ms}[op]()
        args = [op, self.key(), when]
        # GT and LT compare deadlines, so they only go with absolute times: a relative time
        # repeated a millisecond later would make the answer depend on the clock.
        flags = ["NX", "XX", "nx", "FOO"] + (["GT", "LT", "gt"] if op.endswith("AT") else [])
        for _ in range(self.rng.choice([0, 0, 1, 1, 2])):
            args.append(self.rng.choice(flags))
        return Command(args)

    def setex_family(self):
        op = self.rng.choice(["SETEX", "PSETEX"])
        ttl = self.ex() if op == "SETEX" else self.px()
        return Command([op, self.key(), ttl, self.value()])

    def incrby(self):
        return Command([self.rng.choice(["INCRBY", "DECRBY"]), self.key(),
                        self.rng.choice(INCR_AMOUNTS)])

    def keys_cmd(self):
        return Command(["KEYS", self.rng.choice(PATTERNS)], mode="sorted")

    def scan_cmd(self):
        args = ["SCAN", "0"]
        if self.rng.random() < 0.08:
            # Redis reads the cursor with strtoul: "" is 0, the others are "invalid cursor".
            # (A negative cursor wraps to a huge one, where Redis scans a bucket chosen by its
            # table size: no two servers agree on that, so it is not sent.)
            args[1] = self.rng.choice(["abc", "", " 0", "0x", "18446744073709551616"])
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            r = self.rng.random()
            if r < 0.4:
                args += ["MATCH", self.rng.choice(PATTERNS)]
            elif r < 0.7:
                args += ["COUNT", self.rng.choice(["1", "2", "10", "1000", "0", "-1", "abc"])]
            elif r < 0.85:
                # TYPE none matches a lapsed key that nothing removed yet (Redis's lookup
                # deletes it and then sees no type): with active expiry on, whether its timer
                # removed the key first depends on when it fired.
                args += ["TYPE", self.rng.choice(["string", "list", "STRING", "foo", "hash",
                                                  "set", "SET", "zset", "stream"] +
                                                 ([] if self.active_expiry else ["none"]))]
            else:
                args.append(self.rng.choice(["MATCH", "COUNT", "FOO"]))
        return Command(args, mode="scan")

    def dbsize_or_randomkey(self):
        if self.active_expiry:
            # Active expiry removes lapsed keys whenever its timer fires: DBSIZE would count a
            # different number on each server. RANDOMKEY deletes the lapsed keys it draws, so it
            # only runs where DBSIZE does not.
            return Command(["RANDOMKEY"], mode="nil_or_not")
        return Command(["DBSIZE"])

    def lock_script(self):
        body, numkeys, kind = self.rng.choice(LOCK_SCRIPTS)
        keys = [self.rng.choice(KEYS[3:]) for _ in range(numkeys)]
        argv = [self.rng.choice(["t1", "t2"]), self.px(), self.rng.choice(["0", "1"])]
        return self.script_command(body, keys, argv, kind)

    def random_script(self):
        statements = [self.rng.choice(SCRIPT_STATEMENTS) for _ in range(self.rng.randint(0, 2))]
        ret, kind = self.rng.choice(SCRIPT_RETURNS)
        body = " ".join(statements + [ret])
        keys = [self.key() for _ in range(self.rng.choice([0, 1, 1, 1, 2]))]
        argv = [self.value(), self.px()][: self.rng.randint(0, 2)]
        return self.script_command(body, keys, argv, kind)

    def script_command(self, body, keys, argv, kind):
        r = self.rng.random()
        numkeys = str(len(keys))
        if r < 0.05:
            numkeys = self.rng.choice(["-1", "9", "abc", ""])
        if r < 0.55:
            op = "EVAL" if self.rng.random() < 0.9 else "EVAL_RO"
            args = [op, body, numkeys] + keys + argv
        elif r < 0.75 or not self.loaded:
            self.loaded[sha1_hex(body)] = kind
            args = ["SCRIPT", "LOAD", body]
            kind = "exact"
        else:
            sha = self.rng.choice(sorted(self.loaded))
            kind = self.loaded[sha]
            if self.rng.random() < 0.1:
                sha, kind = "0" * 40, "exact"
            op = "EVALSHA" if self.rng.random() < 0.9 else "EVALSHA_RO"
            args = [op, sha, numkeys] + keys + argv
        if kind == "ttl":
            return Command(args, mode="tol", tol=250)
        return Command(args)

    def function_family(self):
        return self.function_cmd(SCRIPT_STATEMENTS, SCRIPT_RETURNS)

    def script_admin(self):
        r = self.rng.random()
        if r < 0.6 and self.loaded:
            return Command(["SCRIPT", "EXISTS", self.rng.choice(sorted(self.loaded)), "0" * 40])
        if r < 0.8:
            self.loaded.clear()
            return Command(["SCRIPT", "FLUSH"])
        return Command(["SCRIPT", self.rng.choice(["FOO", "LOAD", "EXISTS"])])

    def garbage(self):
        r = self.rng.random()
        if r < 0.4:
            return Command([self.rng.choice(GARBAGE_NAMES)] +
                           [self.value() for _ in range(self.rng.randint(0, 3))])
        # Wrong arity for a real command.
        op, counts = self.rng.choice([
            ("GET", [0, 2]), ("SET", [0, 1]), ("TTL", [0, 2]), ("PTTL", [2]), ("DEL", [0]),
            ("EXPIRE", [0, 1]), ("PEXPIRE", [1]), ("INCR", [0, 2]), ("SETNX", [1, 3]),
            ("SETEX", [2, 4]), ("PSETEX", [1]), ("EVAL", [0]), ("EVALSHA", [0]),
            ("PERSIST", [0, 2]), ("TYPE", [0, 2]), ("KEYS", [0, 2]), ("SCAN", [0]),
            ("EXISTS", [0]), ("DBSIZE", [1]), ("INCRBY", [1, 3]), ("ECHO", [0, 2]),
            ("HSET", [0, 1, 2, 4]), ("HSETNX", [2, 4]), ("HGET", [0, 1, 3]), ("HMSET", [2, 4]),
            ("HMGET", [0, 1]), ("HDEL", [0, 1]), ("HLEN", [0, 2]), ("HSTRLEN", [1, 3]),
            ("HINCRBY", [2, 4]), ("HINCRBYFLOAT", [2, 4]), ("HKEYS", [0, 2]), ("HVALS", [2]),
            ("HGETALL", [0, 2]), ("HEXISTS", [1, 3]), ("HSCAN", [0, 1]), ("HRANDFIELD", [0]),
            ("SADD", [0, 1]), ("SREM", [1]), ("SMEMBERS", [0, 2]), ("SISMEMBER", [1, 3]),
            ("SMISMEMBER", [1]), ("SCARD", [0, 2]), ("SPOP", [0]), ("SRANDMEMBER", [0]),
            ("SMOVE", [2, 4]), ("SINTER", [0]), ("SINTERSTORE", [1]), ("SINTERCARD", [0, 1]),
            ("SUNION", [0]), ("SUNIONSTORE", [0, 1]), ("SDIFF", [0]), ("SDIFFSTORE", [1]),
            ("SSCAN", [0, 1]), ("MSET", [0, 1, 3]), ("MSETNX", [1, 3]), ("MGET", [0]),
            ("GETDEL", [0, 2]), ("GETEX", [0]), ("GETSET", [1, 3]), ("APPEND", [1, 3]),
            ("STRLEN", [0, 2]), ("GETRANGE", [1, 2]), ("SETRANGE", [2]), ("SUBSTR", [2, 4]),
            ("INCRBYFLOAT", [1, 3]), ("LCS", [0, 1]), ("RENAME", [1, 3]), ("RENAMENX", [1]),
            ("COPY", [0, 1]), ("MOVE", [1, 3]), ("SWAPDB", [1, 3]), ("TOUCH", [0]),
            ("OBJECT", [0]), ("MEMORY", [0]), ("SELECT", [0, 2]), ("FLUSHDB", [2]),
        ])
        return Command([op] + [self.key() for _ in range(self.rng.choice(counts))])

    def misc(self):
        r = self.rng.random()
        if r < 0.2:
            return Command(["PING"] + ([self.value()] if self.rng.random() < 0.5 else []))
        if r < 0.35:
            return Command(["ECHO", self.value()])
        if r < 0.5:
            return Command(["SELECT", self.rng.choice(["0", "1", "abc"])])
        if r < 0.65:
            return Command(["HELLO", self.rng.choice(["2", "3"])], mode="hello")
        if r < 0.75:
            return Command(["HELLO", self.rng.choice(["4", "1", "abc"])])
        if r < 0.8:
            return Command(["FLUSHDB"])
        if r < 0.9:
            return Command(["DEBUG", "SLEEP", "0"])
        return Command(["DEBUG", "SLEEP", "0.05"])


    MAKERS = [
        (set_cmd, 14), (lock_set, 8), (get_family, 14), (ttl_family, 8), (expire_family, 9),
        (setex_family, 4), (incrby, 3), (keys_cmd, 3), (scan_cmd, 3), (dbsize_or_randomkey, 3),
        (lock_script, 7), (random_script, 10), (script_admin, 2), (function_family, 5),
        (garbage, 6), (misc, 4),
        (TypedMakers.hash_cmd, 16), (TypedMakers.set_type_cmd, 16), (TypedMakers.string_ext, 12), (TypedMakers.keyspace_cmd, 8), (TypedMakers.db_cmd, 3),
        (TypedMakers.big_value, 0.6),
        (ListMakers.list_cmd, 12), (ZsetMakers.zset_cmd, 16), (StreamMakers.stream_cmd, 14),
        (BitMakers.bit_cmd, 8), (GeoMakers.geo_cmd, 8), (SortMakers.sort_cmd, 8),
        (HllMakers.hll_cmd, 6), (TrackingMakers.tracking_cmd, 1),
    ]


# Weight multipliers of the makers, by the family a seed leans towards.
FOCUS = {
    "mixed": {},
    "strings": {"string_ext": 3, "keyspace_cmd": 2},
    "hashes": {"hash_cmd": 4, "big_value": 2},
    "sets": {"set_type_cmd": 4, "big_value": 2},
    "zsets": {"zset_cmd": 4},
    "keyspace": {"keyspace_cmd": 3, "db_cmd": 2, "hash_cmd": 2, "set_type_cmd": 2},
    "lists": {"list_cmd": 4},
    "streams": {"stream_cmd": 8},
    "bits": {"bit_cmd": 6, "string_ext": 2},
    "hll": {"hll_cmd": 8},
    "geo": {"geo_cmd": 6, "zset_cmd": 2},
    "sort": {"sort_cmd": 6, "list_cmd": 2},
    # Tracking needs active expiry off (fuzz/tracking.py): generate() sees to it.
    "tracking": {"tracking_cmd": 60, "bit_cmd": 0.5, "geo_cmd": 0.5, "stream_cmd": 0.5},
}


def sha1_hex(body):
    return hashlib.sha1(body.encode()).hexdigest()


def generate(seed, length, focus=None):
    """The seed's sequence: (active expiry on, commands). `focus` overrides the family the seed
    would lean towards."""
    rng = random.Random(seed)
    gen = Generator(rng=rng, base_ms=int(time.time() * 1000), active_expiry=rng.random() < 0.5)
    gen.focus = rng.choice(sorted(FOCUS))
    if focus is not None:
        gen.focus = focus
    if gen.focus == "tracking":
        gen.active_expiry = False
    return gen.active_expiry, [gen.next() for _ in range(length)]
