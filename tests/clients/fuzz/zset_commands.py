"""The makers of sorted set commands, mixed into commands.Generator, with the argument pools
they draw from. Sorted set replies are ordered by (score, member), so nearly all are compared
exactly; random picks (ZRANDMEMBER with a count that does not cover the set) by reply type, and
ZSCAN as a full iteration (a skiplist's member table iterates in a seed-dependent order).

Lex ranges are only meaningful when all scores are equal: they go to "zlex", which only ever
gets score 0 (ZADD/ZINCRBY on it add 0)."""

from fuzz.command import Command

OWN_ZSET_KEYS = ["z0", "z1", "z2"]  # and "zdst", the destination of the STORE commands
SHARED_ZSET_KEYS = ["k0", "lock:c", "s0", "h0"]  # strings, sets and hashes live here too
LEX_KEY = "zlex"
UUIDS = ["3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b", "7d9e0a12-3b4c-4d5e-8f60-718293a4b5c6",
         "0A1B2C3D-4E5F-4A6B-9C7D-8E9F0A1B2C3D"]
ZMEMBERS = ["a", "b", "c", "d", "e", "m1", "m2", "10", "-1", "", "a\x00b", "x" * 65] + UUIDS
SCORES = ["0", "1", "2", "3", "-1", "1.5", "0.1", "-0", "10", "1e17", "inf", "-inf", "+inf",
          "1700000000000", "1700000000001", "9007199254740993", "2.5e-5", "0x10", "5."]
BAD_SCORES = ["nan", "abc", "", " 1", "1 ", "1e400", "--1", "1x"]
INCREMENTS = ["1", "-1", "0.5", "0.2", "inf", "-inf", "0", "-0", "100"]
RANGE_SCORES = ["-inf", "+inf", "0", "1", "(1", "2", "(2", "1.5", "(0.1", "10", "1e17", "(inf",
                "-1", "", "( 1"]
BAD_RANGE_SCORES = ["nan", "abc", "1x", "((1", "[1"]
LEX_BOUNDS = ["-", "+", "[a", "(a", "[c", "(c", "[m1", "(e", "[", "(", "[x"]
BAD_LEX_BOUNDS = ["a", "", "-x", "++", "{a"]
RANKS = ["0", "1", "2", "-1", "-2", "-100", "100", "3", "9223372036854775807"]
LIMIT_VALUES = ["0", "1", "2", "-1", "-5", "5", "100"]


class ZsetMakers:
    def zkey(self):
        r = self.rng.random()
        if r < 0.7:
            return self.rng.choice(OWN_ZSET_KEYS)
        if r < 0.8:
            return LEX_KEY
        return self.rng.choice(SHARED_ZSET_KEYS) if r < 0.95 else self.key()

    def lex_key(self):
        # Lex ranges only on the equal-score key (or a missing one).
        return LEX_KEY if self.rng.random() < 0.95 else "nokey"

    def zmember(self):
        return self.rng.choice(ZMEMBERS)

    def zscore(self):
        return self.rng.choice(BAD_SCORES) if self.bad(0.04) else self.rng.choice(SCORES)

    def zrange_bound(self, lex):
        if lex:
            return self.rng.choice(BAD_LEX_BOUNDS) if self.bad(0.05) else \
                self.rng.choice(LEX_BOUNDS)
        return self.rng.choice(BAD_RANGE_SCORES) if self.bad(0.05) else \
            self.rng.choice(RANGE_SCORES)

    def zlimit(self):
        if self.rng.random() < 0.7:
            return []
        return [self.opt("LIMIT"), self.rng.choice(LIMIT_VALUES), self.rng.choice(LIMIT_VALUES)]

    def zset_cmd(self):
        op = self.rng.choices(
            ["ZADD", "ZINCRBY", "ZSCORE", "ZMSCORE", "ZCARD", "ZREM", "ZRANK", "ZREVRANK",
             "ZRANGE", "ZRANGESTORE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX",
             "ZREVRANGEBYLEX", "ZREVRANGE", "ZCOUNT", "ZLEXCOUNT", "ZREMRANGEBYSCORE",
             "ZREMRANGEBYRANK", "ZREMRANGEBYLEX", "ZPOPMIN", "ZPOPMAX", "ZMPOP", "ZRANDMEMBER",
             "ZSCAN", "ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE",
             "ZINTERCARD", "BIG"],
            weights=[20, 5, 5, 3, 3, 5, 3, 2, 8, 3, 4, 2, 3, 2, 2, 3, 2, 3, 2, 2, 3, 3, 2, 3,
                     2, 2, 2, 2, 2, 2, 1, 2, 0.5])[0]
        key = self.zkey()
        lex = key == LEX_KEY
        if op == "ZADD":
            args = [op, key]
            for word in ("NX", "XX", "GT", "LT", "CH", "INCR"):
                if self.rng.random() < 0.1:
                    args.append(self.opt(word))
            for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
                args += ["0" if lex else self.zscore(), self.zmember()]
            if self.bad(0.03):
                args.pop()
            return Command(args)
        if op == "ZINCRBY":
            return Command([op, key, "0" if lex else self.rng.choice(INCREMENTS),
                            self.zmember()])
        if op in ("ZSCORE", "ZRANK", "ZREVRANK"):
            return Command([op, key, self.zmember()])
        if op in ("ZMSCORE", "ZREM"):
            return Command([op, key] + [self.zmember() for _ in range(self.rng.randint(1, 3))])
        if op == "ZCARD":
            return Command([op, key])
        if op in ("ZRANGE", "ZRANGESTORE"):
            args = [op] + (["zdst"] if op == "ZRANGESTORE" else []) + [key]
            by = self.rng.choice(["", "", "BYSCORE", "BYLEX"])
            if by == "BYLEX":
                key = args[-1] = self.lex_key()
            if by:
                args += [self.zrange_bound(by == "BYLEX"), self.zrange_bound(by == "BYLEX"),
                         self.opt(by)]
            else:
                args += [self.rng.choice(RANKS), self.rng.choice(RANKS)]
            if self.rng.random() < 0.3:
                args.append(self.opt("REV"))
            if by or self.bad(0.1):
                args += self.zlimit()
            if op == "ZRANGE" and by != "BYLEX" and self.rng.random() < 0.4:
                args.append(self.opt("WITHSCORES"))
            return Command(args)
        if op in ("ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX"):
            by_lex = "LEX" in op
            if by_lex:
                key = self.lex_key()
            args = [op, key, self.zrange_bound(by_lex), self.zrange_bound(by_lex)]
            if not by_lex and self.rng.random() < 0.4:
                args.append(self.opt("WITHSCORES"))
            return Command(args + self.zlimit())
        if op == "ZREVRANGE":
            args = [op, key, self.rng.choice(RANKS), self.rng.choice(RANKS)]
            if self.rng.random() < 0.4:
                args.append(self.opt("WITHSCORES"))
            return Command(args)
        if op in ("ZCOUNT", "ZREMRANGEBYSCORE"):
            return Command([op, key, self.zrange_bound(False), self.zrange_bound(False)])
        if op in ("ZLEXCOUNT", "ZREMRANGEBYLEX"):
            return Command([op, self.lex_key(), self.zrange_bound(True),
                            self.zrange_bound(True)])
        if op == "ZREMRANGEBYRANK":
            return Command([op, key, self.rng.choice(RANKS), self.rng.choice(RANKS)])
        if op in ("ZPOPMIN", "ZPOPMAX"):
            args = [op, key]
            if self.rng.random() < 0.5:
                args.append(self.rng.choice(["0", "1", "2", "5", "-1", "x"]))
            return Command(args)
        if op == "ZMPOP":
            keys = [key] + [self.zkey() for _ in range(self.rng.choice([0, 0, 1, 2]))]
            args = [op, str(len(keys) if not self.bad(0.05) else self.rng.choice(["0", "x", "9"]))]
            args += keys + [self.opt(self.rng.choice(["MIN", "MAX"]))]
            if self.rng.random() < 0.4:
                args += [self.opt("COUNT"), self.rng.choice(["1", "2", "10", "0", "-1"])]
            return Command(args)
        if op == "ZRANDMEMBER":
            args = [op, key]
            if self.rng.random() < 0.8:
                args.append(self.rng.choice(["0", "1", "2", "5", "-3", "1000", "x"]))
                if self.rng.random() < 0.4:
                    args.append(self.opt("WITHSCORES"))
            # Only a count covering the whole set is certain; otherwise compare the reply type.
            deterministic = len(args) > 2 and args[2] in ("0", "1000", "x")
            return Command(args, mode="exact" if deterministic else "nil_or_not")
        if op == "ZSCAN":
            args = [op, key, "0"]
            if self.rng.random() < 0.3:
                args += [self.opt("MATCH"), self.rng.choice(["*", "a*", "m?", "*b"])]
            if self.rng.random() < 0.3:
                args += [self.opt("COUNT"), self.rng.choice(["1", "5", "100"])]
            return Command(args, mode="hscan")
        if op == "BIG":
            # Past 128 members: the skiplist.
            return Command(["EVAL", "for i=1,140 do redis.call('zadd', KEYS[1], i % 9, 'big'..i)"
                            " end return redis.call('zcard', KEYS[1])", "1",
                            self.rng.choice(OWN_ZSET_KEYS)])
        # The set algebra: ZUNION/ZINTER/ZDIFF [STORE], ZINTERCARD.
        keys = [key] + [self.rng.choice(OWN_ZSET_KEYS + ["s0", "s1", "nokey"])
                        for _ in range(self.rng.choice([0, 1, 1, 2]))]
        args = [op] + (["zdst"] if op.endswith("STORE") else []) + [str(len(keys))] + keys
        if self.bad(0.05):
            args[args.index(str(len(keys)))] = self.rng.choice(["0", "x", "9"])
        if op in ("ZUNION", "ZINTER", "ZUNIONSTORE", "ZINTERSTORE"):
            if self.rng.random() < 0.3:
                args += [self.opt("WEIGHTS")] + [self.rng.choice(["1", "2", "-1", "0.5", "0",
                                                                  "inf", "x"])
                                                 for _ in keys]
            if self.rng.random() < 0.3:
                args += [self.opt("AGGREGATE"), self.rng.choice(["SUM", "MIN", "MAX", "max",
                                                                 "AVG"])]
        if op in ("ZUNION", "ZINTER", "ZDIFF") and self.rng.random() < 0.5:
            args.append(self.opt("WITHSCORES"))
        if op == "ZINTERCARD" and self.rng.random() < 0.4:
            args += [self.opt("LIMIT"), self.rng.choice(["0", "1", "2", "-1"])]
        return Command(args)
