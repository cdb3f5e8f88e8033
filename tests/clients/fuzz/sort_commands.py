"""The makers of SORT and SORT_RO, mixed into commands.Generator like the others: lists, sets and
sorted sets sorted numerically or ALPHA, ASC or DESC, BY weight keys (strings "w_<element>",
hash fields "hw_<element>->f"), BY a pattern without '*' (no sorting), with LIMIT, GET
patterns (# the element, strings, hash fields, missing keys) and STORE; now and then from a
script, and on keys of other types (WRONGTYPE). The weights are written by the same maker,
valid and not ("1.5", " 5", "0x10", "inf", "nan", "abc", "1e-310").

Where two Redis servers may differ:

- A set in the hashtable encoding iterates in an order of the process's hash seed, and so does
  the member table Redis loads a sorted set's elements from. SORT keeps that order where it does
  not sort (a set BY a pattern without '*'; Redis sorts anyway, ALPHA, under STORE and in
  scripts; a sorted set is then read in score order) and among ties of an ALPHA sort BY weights
  (equal or missing weights keep the order the elements were loaded in, as glibc's merge sort
  does). Such a SORT first reads OBJECT ENCODING of a set or TYPE of a sorted set (compared
  exactly) and, with a LIMIT, the same SORT without it; for a hashtable or a sorted set its
  reply is compared as a multiset of element groups (an element and its GET values), and under
  a LIMIT each server's groups must be among its own whole reply ("sortset"). Such a SORT gets
  no STORE: the destination's order would differ. An intset iterates in ascending order, a
  list in its own: exact.
- Redis 7.0 never clears errno before reading a score, so after any out-of-range float (a ZADD
  of 1e400, say) its numeric SORTs of non-integer scores fail until some successful float parse:
  every numeric SORT is preceded by a ZADD XX on a missing key ("sort:errno"), whose score parse
  clears errno on Redis and which does nothing (README, "Known differences").
- Redis 7.0 converts every sorted set it sorts to a skiplist (OBJECT ENCODING differs from
  warden's afterwards, a known difference): SORT only sorts the sorted sets of its own keys
  (zsort0, zsort1), which nothing asks the encoding of, and no key another maker may turn into
  a sorted set (the set keys s0-s2 among them: its sets are its own, ssort and isort)."""

from fuzz.command import Command
from fuzz.list_commands import ELEMENTS, OWN_LIST_KEYS
from fuzz.typed_commands import INT_MEMBERS, STR_MEMBERS

OWN_SORT_LISTS = ["lsort", "lsort2"]  # numbers only; numbers and words
OWN_SORT_SETS = ["ssort", "isort"]  # numbers and words (a hashtable); integers (an intset)
OWN_SORT_ZSETS = ["zsort0", "zsort1"]
LIST_KEYS = OWN_LIST_KEYS + OWN_SORT_LISTS
# A stream, a string and a hash of this maker's weights, a missing key: never sorted sets.
OTHER_TYPE_KEYS = ["x0", "w_1", "hw_a", "nokey"]
STORE_KEYS = ["sortdst", "sortdst", "l2", "lsort2"]
ERRNO_RESET = ["ZADD", "sort:errno", "XX", "0", "m"]
NUMBERS = ["1", "2", "3", "10", "-1", "0", "2.5", "-2.5", "1e2", "0x1A", " 4", "007", "-0",
           "100", "99", "3.14159", "inf", "-inf", "9223372036854775807", "1e-5"]
WORDS = ["a", "b", "B", "aa", "ab", "Z", "\xe9t\xe9", "x y", "", "10a", "-", "zz"]
INTEGERS = ["1", "2", "3", "5", "8", "10", "-1", "-7", "0", "100", "65536", "-100000"]
# The elements weights are written for: those of the sort keys, and of the other makers' keys.
WEIGHTED = NUMBERS + WORDS + ["a", "b", "c", "1", "2", "-1", "10", "x y", "m1", "m2", "d"] + \
    INT_MEMBERS[:6] + STR_MEMBERS[:4]
WEIGHTS = ["1", "2", "3", "-1", "0", "10", "1.5", "-2.5", "1e3", "0x10", " 5", "5 ", "",
           "abc", "inf", "-inf", "2", "2", "7", "100"]
RARE_WEIGHTS = ["nan", "1e-310", "1e400", "-0", "9223372036854775808"]
BY_PATTERNS = ["w_*", "w_*", "w_*", "hw_*->f", "hw_*->g", "nosort", "x", "w_*x", "*",
               "hw_*->", "w_*->f", "hw_*", "*->f", "w_*_*", "NOSORT"]
GET_PATTERNS = ["#", "#", "w_*", "hw_*->f", "hw_*->g", "nokey*", "w_*->f", "hw_*", "x", "*",
                "hw_*->", "##"]
LIMIT_STARTS = ["0", "0", "1", "2", "-1", "5", "100"]
LIMIT_COUNTS = ["0", "1", "2", "3", "-1", "10", "100"]


class SortMakers:
    def sort_key(self):
        r = self.rng.random()
        if r < 0.3:
            return self.rng.choice(OWN_SORT_LISTS + OWN_LIST_KEYS)
        if r < 0.55:
            return self.rng.choice(OWN_SORT_SETS)
        if r < 0.75:
            return self.rng.choice(OWN_SORT_ZSETS)
        if r < 0.92:
            return self.rng.choice(OWN_SORT_LISTS + OWN_SORT_SETS)
        return self.rng.choice(OTHER_TYPE_KEYS)

    def sort_options(self, read_only):
        """SORT's options in a random order. Returns (options, facts) where facts tells what
        decides the comparison: dontsort, alpha_by, limit, gets, store."""
        parts, facts = [], {"dontsort": False, "by": False, "alpha": False, "limit": False,
                            "gets": 0, "store": None}
        if self.rng.random() < 0.5:
            pattern = self.rng.choice(BY_PATTERNS)
            parts.append([self.opt("BY"), pattern])
            if "*" in pattern:
                facts["by"] = True
            else:
                facts["dontsort"] = True  # sticky in Redis, even if a later BY has a '*'
            if self.rng.random() < 0.04:
                parts.append([self.opt("BY"), self.rng.choice(BY_PATTERNS)])
                facts["by"] = True
                facts["dontsort"] = facts["dontsort"] or "*" not in parts[-1][1]
        if self.rng.random() < 0.35:
            parts.append([self.opt("LIMIT"),
                          self.rng.choice(LIMIT_STARTS) if not self.bad() else "abc",
                          self.rng.choice(LIMIT_COUNTS) if not self.bad() else "1.5"])
            facts["limit"] = True
        for _ in range(self.rng.choice([0, 0, 0, 1, 1, 2, 3])):
            parts.append([self.opt("GET"), self.rng.choice(GET_PATTERNS)])
            facts["gets"] += 1
        if self.rng.random() < 0.3:
            parts.append([self.opt(self.rng.choice(["ASC", "DESC"]))])
        if self.rng.random() < 0.4:
            parts.append([self.opt("ALPHA")])
            facts["alpha"] = True
        if self.rng.random() < (0.03 if read_only else 0.2):
            facts["store"] = self.rng.choice(STORE_KEYS)
            parts.append([self.opt("STORE"), facts["store"]])
        if self.bad(0.03):
            parts.append([self.rng.choice(["LIMIT", "BY", "GET", "STORE", "FOO", "ALPHAA"])])
        self.rng.shuffle(parts)
        return [word for part in parts for word in part], facts

    def sort_cmd(self):
        op = self.rng.choices(["SORT", "SORT_RO", "SCRIPT", "WEIGHT", "HWEIGHT", "FILL",
                               "MUTATE"],
                              weights=[16, 6, 2, 6, 3, 5, 2])[0]
        if op == "WEIGHT":
            pairs = []
            for _ in range(self.rng.choice([1, 1, 2, 4])):
                value = self.rng.choice(RARE_WEIGHTS) if self.bad(0.05) else \
                    self.rng.choice(WEIGHTS)
                pairs += ["w_" + self.rng.choice(WEIGHTED), value]
            return Command(["MSET"] + pairs)
        if op == "HWEIGHT":
            return Command(["HSET", "hw_" + self.rng.choice(WEIGHTED),
                            self.rng.choice(["f", "g"]), self.rng.choice(WEIGHTS),
                            "g", self.rng.choice(WEIGHTS)])
        if op == "FILL":
            return self.sort_fill()
        if op == "MUTATE":
            key = self.rng.choice(OWN_SORT_LISTS + OWN_SORT_SETS + OWN_SORT_ZSETS)
            if key in OWN_SORT_LISTS:
                return Command(["LPOP", key, self.rng.choice(["1", "3"])])
            if key in OWN_SORT_SETS:
                return Command(["SREM", key] + self.rng.sample(NUMBERS + WORDS, 3))
            return Command(["ZREM", key] + self.rng.sample(NUMBERS + WORDS, 3))
        key = self.sort_key()
        options, facts = self.sort_options(op == "SORT_RO")
        script = op == "SCRIPT"
        # Where the servers' load orders may show (see the module's docstring).
        ambiguous = key not in LIST_KEYS and facts["alpha"] and facts["by"] and \
            not facts["dontsort"]
        if ambiguous and facts["store"]:
            at = options.index(facts["store"])
            del options[at - 1:at + 1]
            facts["store"] = None
        if key not in LIST_KEYS + OWN_SORT_ZSETS and facts["dontsort"] and \
                not (facts["store"] or script):
            ambiguous = True
        if script:
            body = self.rng.choice([
                "return redis.call('sort', KEYS[1], unpack(ARGV))",
                "return redis.pcall('sort_ro', KEYS[1], unpack(ARGV))",
            ])
            args = ["EVAL", body, "1", key] + options
        else:
            args = [op, key] + options
        pre = [ERRNO_RESET] if not facts["alpha"] else []
        if not ambiguous:
            return Command(args, pre=pre)
        # (Never OBJECT ENCODING of a sorted set: Redis's SORT changed it, warden's did not.)
        pre = [ERRNO_RESET, ["TYPE", key] if key in OWN_SORT_ZSETS else
               ["OBJECT", "ENCODING", key]]
        if facts["limit"]:
            at = [i for i, a in enumerate(args) if a.upper() == "LIMIT"][-1]
            pre.append(args[:at] + args[at + 3:])
        return Command(args, mode="sortset", pre=pre)

    def sort_fill(self):
        key = self.rng.choice(OWN_SORT_LISTS + OWN_SORT_SETS + OWN_SORT_ZSETS)
        n = self.rng.choice([1, 2, 3, 5, 8]) if self.rng.random() < 0.95 else 140
        if key == "lsort":
            return Command([self.rng.choice(["RPUSH", "LPUSH"]), key] +
                           [self.rng.choice(NUMBERS) for _ in range(n)])
        if key == "lsort2":
            return Command(["RPUSH", key] + [self.rng.choice(NUMBERS + WORDS + ELEMENTS)
                                             for _ in range(n)])
        if key == "isort":
            return Command(["SADD", key] + [self.rng.choice(INTEGERS) for _ in range(n)])
        if key == "ssort":
            return Command(["SADD", key] + [self.rng.choice(NUMBERS + WORDS) if n < 100 else
                                            "m%d" % i for i in range(n)])
        args = ["ZADD", key]
        for i in range(n):
            args += [self.rng.choice(["0", "1", "2", "1.5", "-1", "10"]),
                     self.rng.choice(NUMBERS + WORDS) if n < 100 else str(i)]
        return Command(args)
