"""The makers of hash, set, typed-string and keyspace commands (issue 11's families), mixed into
commands.Generator, with the argument pools they draw from. A maker returns one Command; the
helpers it calls (hkey, field, member, db, opt, bad, ...) live on the Generator."""

from fuzz.command import Command

INCR_AMOUNTS = ["1", "-1", "5", "0", "9223372036854775807", "-9223372036854775808", "abc",
                "1.5", "", "-0"]

# Hashes and sets use the same keys as strings (WRONGTYPE), with a preference per type so that
# most commands meet a value of their own type: keys of their own, which the string commands
# meet now and then, and keys shared with them.
OWN_HASH_KEYS = ["h0", "h1"]
OWN_SET_KEYS = ["s0", "s1", "s2"]  # and "sdst", a destination of SINTERSTORE and the like
HASH_KEYS = ["k0", "k1", "lock:a"]
SET_KEYS = ["k2", "lock:b", "lock:c"]
# Values longer than 44 bytes are "raw" strings; longer than 64 they turn a hash into a hashtable.
LONG_VALUES = ["L" * 45, "M" * 65, "lcs-" + "ab" * 40]
# Strings with common subsequences, for LCS (and APPEND, GETRANGE, SETRANGE).
TEXTS = ["ohmytext", "mynewtext", "abcbdab", "bdcaba", "hello world", "xyz"]
FIELDS = ["f1", "f2", "f3", "a", "b", "1", "10", "-1"]
RARE_FIELDS = ["", "f\x00", "F1", "g" * 65, "\xe9t\xe9"]
# Set members: mostly integers (intsets), some not (the set becomes a hashtable). "-0", "007",
# " 1", "+1" and "1.5" look like integers to a lenient parser but are strings to Redis.
INT_MEMBERS = ["1", "2", "3", "10", "-5", "0", "100", "9223372036854775807",
               "-9223372036854775808", "65536", "4294967296"]
STR_MEMBERS = ["a", "b", "c", "x y", "-0", "007", " 1", "+1", "1.5", "", "m" * 70,
               "9223372036854775808"]
FLOAT_INCRS = ["1", "0.1", "-1.5", "2.5e3", "3.0e-2", "10", "-0", "5.0", "1e-5", "0x10",
               "abc", "", " 1", "1 ", "inf", "-inf", "nan", "1.5e308", "1e400",
               "1.7976931348623157e308"]
# Bad integers for counts, offsets and indexes.
BAD_INTS = ["abc", "", "1.5", " 1", "1e3", "9223372036854775808", "-9223372036854775809", "0x1"]
RANGE_INDEXES = ["0", "1", "2", "3", "-1", "-2", "-3", "-100", "100", "5",
                 "9223372036854775807", "-9223372036854775808"]
# Databases: mostly the first few (so MOVE, COPY and SWAPDB meet keys), then the edges.
DBS = ["0", "0", "1", "1", "2", "3", "15"]
BAD_DBS = ["16", "-1", "abc", "", "1.0", "9223372036854775808"]
SCAN_PATTERNS = ["*", "f*", "1*", "*1", "?", "a", "[ab]", "*\\*", "-*"]


class TypedMakers:
    # Hashes.

    def hash_cmd(self):
        op = self.rng.choices(
            ["HSET", "HSETNX", "HGET", "HMSET", "HMGET", "HDEL", "HLEN", "HSTRLEN", "HINCRBY",
             "HINCRBYFLOAT", "HKEYS", "HVALS", "HGETALL", "HEXISTS", "HSCAN", "HRANDFIELD"],
            weights=[12, 3, 8, 3, 4, 5, 3, 2, 4, 3, 3, 2, 5, 2, 3, 4])[0]
        key = self.hkey() if op in ("HSET", "HMSET", "HSETNX") else self.read_key("hash")
        if op in ("HSET", "HMSET"):
            self.wrote("hash", key)
            args = [op, key]
            for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
                args += [self.field(), self.hvalue()]
            if self.bad():
                args.pop()  # an odd number of field/value words
            return Command(args)
        if op == "HSETNX":
            return Command([op, key, self.field(), self.hvalue()])
        if op in ("HGET", "HSTRLEN", "HEXISTS"):
            return Command([op, key, self.field()])
        if op in ("HMGET", "HDEL"):
            return Command([op, key] + [self.field() for _ in range(self.rng.randint(1, 3))])
        if op == "HLEN":
            return Command([op, key])
        if op == "HINCRBY":
            return Command([op, key, self.field(), self.rng.choice(INCR_AMOUNTS)])
        if op == "HINCRBYFLOAT":
            return Command([op, key, self.field(), self.rng.choice(FLOAT_INCRS)])
        if op in ("HKEYS", "HVALS", "HGETALL"):
            return Command([op, key], mode="encoded", pre=[["OBJECT", "ENCODING", key]])
        if op == "HSCAN":
            return self.xscan(op, key)
        # HRANDFIELD key [count [WITHVALUES]]
        args = [op, key]
        if self.rng.random() < 0.75:
            args.append(self.rng.choice(
                ["1", "2", "3", "5", "-1", "-2", "-5", "0", "10", "100", "9223372036854775807"]
                if not self.bad(0.08) else
                ["abc", "-9223372036854775808", "1.5", "4611686018427387904", ""]))
            r = self.rng.random()
            if r < 0.5:
                args.append(self.opt("WITHVALUES"))
            elif r < 0.55:
                args.append(self.rng.choice(["WITHVALUE", "1", "WITHVALUES x"]))
            elif r < 0.58:
                args += ["WITHVALUES", "WITHVALUES"]
        return Command(args, mode="randpick", pre=[["HGETALL", key]])

    # Sets.

    def set_type_cmd(self):
        op = self.rng.choices(
            ["SADD", "SREM", "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SPOP",
             "SRANDMEMBER", "SMOVE", "SINTER", "SINTERSTORE", "SINTERCARD", "SUNION",
             "SUNIONSTORE", "SDIFF", "SDIFFSTORE", "SSCAN"],
            weights=[14, 5, 5, 3, 2, 3, 4, 4, 3, 3, 2, 2, 3, 2, 3, 2, 3])[0]
        key = self.skey() if op == "SADD" else self.read_key("set")
        if op == "SADD":
            self.wrote("set", key)
            return Command([op, key] + [self.member() for _ in range(self.rng.randint(1, 5))])
        if op in ("SREM", "SMISMEMBER"):
            return Command([op, key] + [self.member() for _ in range(self.rng.randint(1, 3))])
        if op == "SISMEMBER":
            return Command([op, key, self.member()])
        if op == "SCARD":
            return Command([op, key])
        if op == "SMEMBERS":
            return Command([op, key], mode="encoded", pre=[["OBJECT", "ENCODING", key]])
        if op == "SPOP":
            args = [op, key]
            if self.rng.random() < 0.6:
                # 5, 6, 10, 18 and 500 leave a fifth of a set of 6, 7, 11, 20 or 513 or less:
                # Redis then rebuilds the set from the members it keeps.
                args.append(self.rng.choice(["1", "1", "2", "2", "3", "5", "6", "10", "18", "500",
                                             "0", "100", "9223372036854775807"])
                            if not self.bad(0.08) else self.rng.choice(["-1", "abc", "1.5", ""]))
                if self.bad(0.03):
                    args.append("1")  # SPOP takes one count at most: a syntax error
            return Command(args, mode="spop", pre=[["SMEMBERS", key]])
        if op == "SRANDMEMBER":
            args = [op, key]
            if self.rng.random() < 0.75:
                args.append(self.rng.choice(["1", "2", "3", "5", "0", "-1", "-3", "-10", "10",
                                             "100", "9223372036854775807"])
                            if not self.bad(0.08) else
                            self.rng.choice(["abc", "-9223372036854775808", "1.5", ""]))
            return Command(args, mode="randpick", pre=[["SMEMBERS", key]])
        if op == "SMOVE":
            return Command([op, key, self.skey(), self.member()])
        keys = [key] + [self.read_key("set") for _ in range(self.rng.choice([0, 1, 1, 2]))]
        if op in ("SINTER", "SDIFF"):
            return Command([op] + keys, mode="unordered")
        if op == "SUNION":
            return Command([op] + keys, mode="sunion")
        if op in ("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"):
            dst = self.rng.choice(["s2", "sdst"]) if self.rng.random() < 0.5 else self.skey()
            self.wrote("set", dst)
            return Command([op, dst] + keys)
        if op == "SINTERCARD":
            numkeys = str(len(keys))
            if self.bad(0.1):
                numkeys = self.rng.choice(["0", "-1", "abc", str(len(keys) + 1), ""])
            args = [op, numkeys] + keys
            r = self.rng.random()
            if r < 0.4:
                args += [self.opt("LIMIT"), self.rng.choice(["0", "1", "2", "5"])
                         if not self.bad(0.15) else self.rng.choice(["-1", "abc", ""])]
            elif r < 0.45:
                args.append(self.rng.choice(["LIMIT", "FOO"]))
            return Command(args)
        return self.xscan(op, key)  # SSCAN

    def xscan(self, op, key):
        """HSCAN/SSCAN key cursor [MATCH p] [COUNT n]: a full iteration (mode "hscan")."""
        cursor = "0"
        if self.bad(0.08):
            # Invalid cursors only: a valid non-zero one points into a hash table whose layout
            # differs between any two servers.
            cursor = self.rng.choice(["abc", "", " 0", "0x", "18446744073709551616"])
        args = [op, key, cursor]
        for _ in range(self.rng.choice([0, 1, 1, 2])):
            r = self.rng.random()
            if r < 0.45:
                args += [self.opt("MATCH"), self.rng.choice(SCAN_PATTERNS)]
            elif r < 0.85:
                args += [self.opt("COUNT"), self.rng.choice(["1", "2", "10", "1000"])
                         if not self.bad(0.2) else self.rng.choice(["0", "-1", "abc"])]
            elif r < 0.92:
                args += ["TYPE", "string"]  # SCAN's option only: a syntax error here
            else:
                args.append(self.rng.choice(["MATCH", "COUNT", "NOVALUES", "FOO"]))
        return Command(args, mode="hscan")

    def big_value(self):
        """A hash or set past the listpack/intset limits (512 entries), or just under them."""
        n = self.rng.choice([20, 511, 512, 513, 520])
        r = self.rng.random()
        key = self.hkey() if r < 0.4 else self.skey()
        self.wrote("hash" if r < 0.4 else "set", key)
        if r < 0.4:
            args = ["HSET", key]
            for i in range(n):
                args += ["f%d" % i, str(i)]
            return Command(args)
        if r < 0.85:
            return Command(["SADD", key] + [str(i * 3 - 7) for i in range(n)])
        return Command(["SADD", key] + ["m%d" % i for i in range(n)])

    # Strings beyond SET/GET.

    def string_ext(self):
        op = self.rng.choices(
            ["MSET", "MSETNX", "MGET", "GETDEL", "GETEX", "GETSET", "APPEND", "STRLEN",
             "GETRANGE", "SETRANGE", "SUBSTR", "INCRBYFLOAT", "LCS"],
            weights=[5, 3, 5, 3, 5, 3, 5, 3, 4, 4, 2, 5, 4])[0]
        key = self.key()
        if op in ("MSET", "MSETNX"):
            args = [op]
            for _ in range(self.rng.choice([1, 1, 2, 3])):
                args += [self.key(), self.value()]
            if self.bad():
                args.pop()
            return Command(args)
        if op == "MGET":
            return Command([op] + [self.key() for _ in range(self.rng.randint(1, 4))])
        if op in ("GETDEL", "STRLEN"):
            return Command([op, key])
        if op == "GETSET":
            return Command([op, key, self.value()])
        if op == "APPEND":
            return Command([op, key, self.rng.choice(TEXTS + ["", "1", "0", "-"])])
        if op in ("GETRANGE", "SUBSTR"):
            return Command([op, key] + [self.rng.choice(RANGE_INDEXES) if not self.bad()
                                        else self.rng.choice(BAD_INTS) for _ in range(2)])
        if op == "SETRANGE":
            # No offset near 512 MB that passes the size check: it would allocate that much.
            offset = self.rng.choice(["0", "1", "3", "5", "12"]) if not self.bad(0.12) else \
                self.rng.choice(["-1", "abc", "536870912", "9223372036854775807", "1.5"])
            return Command([op, key, offset, self.rng.choice(TEXTS + ["", "Z", "12"])])
        if op == "INCRBYFLOAT":
            return Command([op, key, self.rng.choice(FLOAT_INCRS)])
        if op == "LCS":
            args = [op, key, self.key()]
            for _ in range(self.rng.choice([0, 0, 1, 2, 3])):
                r = self.rng.random()
                if r < 0.25:
                    args.append(self.opt("LEN"))
                elif r < 0.5:
                    args.append(self.opt("IDX"))
                elif r < 0.7:
                    args += [self.opt("MINMATCHLEN"), self.rng.choice(["0", "1", "2", "4", "-1"])
                             if not self.bad(0.15) else self.rng.choice(BAD_INTS)]
                elif r < 0.9:
                    args.append(self.opt("WITHMATCHLEN"))
                else:
                    args.append(self.rng.choice(["MINMATCHLEN", "FOO", "STRINGS"]))
            return Command(args)
        # GETEX key [EX s | PX ms | EXAT s | PXAT ms | PERSIST]
        args = [op, key]
        r = self.rng.random()
        if r < 0.25:
            pass
        elif r < 0.4:
            args += [self.opt("EX"), self.ex()]
        elif r < 0.55:
            args += [self.opt("PX"), self.px()]
        elif r < 0.65:
            args += [self.opt("EXAT"), self.abs_s()]
        elif r < 0.75:
            args += [self.opt("PXAT"), self.abs_ms()]
        elif r < 0.88:
            args.append(self.opt("PERSIST"))
        else:
            args += self.rng.choice([["EX"], ["PX", "100000", "EX", "60"], ["FOO"],
                                     ["PERSIST", "EX", "60"], ["EX", "60", "PERSIST"],
                                     ["KEEPTTL"], ["PXAT"]])
        return Command(args)

    # Keyspace commands.

    def keyspace_cmd(self):
        op = self.rng.choices(
            ["RENAME", "RENAMENX", "COPY", "MOVE", "SWAPDB", "TOUCH", "OBJECT", "MEMORY"],
            weights=[4, 3, 5, 3, 1, 2, 6, 2])[0]
        key = self.key()
        if op in ("RENAME", "RENAMENX"):
            return Command([op, key, self.key()])
        if op == "COPY":
            args = [op, key, self.key()]
            for _ in range(self.rng.choice([0, 1, 1, 2])):
                r = self.rng.random()
                if r < 0.45:
                    args += [self.opt("DB"), self.db()]
                elif r < 0.85:
                    args.append(self.opt("REPLACE"))
                else:
                    args.append(self.rng.choice(["DB", "FOO", "NX"]))
            return Command(args)
        if op == "MOVE":
            return Command([op, key, self.db()])
        if op == "SWAPDB":
            return Command([op, self.db(), self.db()])
        if op == "TOUCH":
            return Command([op] + [self.key() for _ in range(self.rng.randint(1, 3))])
        if op == "MEMORY":
            args = ["MEMORY", self.opt("USAGE"), key]
            r = self.rng.random()
            if r < 0.2:
                args += [self.opt("SAMPLES"), self.rng.choice(["0", "1", "5", "-1", "abc"])]
            elif r < 0.25:
                args.append(self.rng.choice(["SAMPLES", "FOO"]))
            elif r < 0.3:
                args = ["MEMORY", self.rng.choice(["FOO", "USAGE"])]
            # MEMORY USAGE finds the key without expiring it: with active expiry on, a lapsed
            # key may or may not be gone yet. EXISTS first removes it on both servers.
            pre = [["EXISTS", key]] if self.active_expiry else []
            return Command(args, mode="memusage", pre=pre)
        sub = self.rng.choices(["ENCODING", "REFCOUNT", "IDLETIME", "FREQ", "HELP", "bad"],
                               weights=[10, 5, 4, 2, 1, 2])[0]
        if sub == "HELP":
            return Command(["OBJECT", self.opt("HELP")])
        if sub == "bad":
            return Command(self.rng.choice([["OBJECT", "ENCODING"], ["OBJECT", "FOO", key],
                                            ["OBJECT", "ENCODING", key, key],
                                            ["OBJECT", "HELP", key]]))
        if sub == "IDLETIME":
            return Command(["OBJECT", self.opt(sub), key], mode="idle", tol=2,
                           pre=[["OBJECT", "REFCOUNT", key]])
        return Command(["OBJECT", self.opt(sub), key])

    def db_cmd(self):
        r = self.rng.random()
        if r < 0.8:
            return Command(["SELECT", "0" if self.rng.random() < 0.4 else self.db()])
        if r < 0.95:
            return Command(["FLUSHDB"] + ([self.rng.choice(["ASYNC", "SYNC"])]
                                          if self.rng.random() < 0.3 else []))
        return Command(["FLUSHALL"])
