"""The makers of list commands, mixed into commands.Generator like TypedMakers. Every list reply
is deterministic, so each command is compared exactly. Lists use keys of their own most of the
time, sometimes the string, hash and set keys (WRONGTYPE both ways), and now and then grow past
the inline bound (a pushed batch of 150, or long elements)."""

from fuzz.command import Command

OWN_LIST_KEYS = ["l0", "l1", "l2"]
ELEMENTS = ["a", "b", "c", "a", "1", "2", "-1", "", "x y", "e\x00", "L" * 70]
LIST_INDEXES = ["0", "1", "2", "-1", "-2", "-3", "5", "-5", "100", "-100",
                "9223372036854775807", "-9223372036854775808"]
LIST_COUNTS = ["0", "1", "2", "3", "5", "10", "-1", "-2", "9223372036854775807",
               "-9223372036854775808"]


class ListMakers:
    def lkey(self):
        r = self.rng.random()
        if r < 0.85:
            return self.rng.choice(OWN_LIST_KEYS)
        return self.key()

    def element(self):
        return self.rng.choice(ELEMENTS)

    def lindex(self):
        return self.rng.choice(LIST_INDEXES) if not self.bad() else self.rng.choice(
            ["abc", "", "1.5", " 1", "9223372036854775808"])

    def end_word(self):
        if self.bad(0.03):
            return self.rng.choice(["MIDDLE", "", "LEFTT"])
        return self.opt(self.rng.choice(["LEFT", "RIGHT"]))

    def list_cmd(self):
        op = self.rng.choices(
            ["LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LLEN", "LRANGE", "LINDEX",
             "LSET", "LINSERT", "LREM", "LTRIM", "LPOS", "LMOVE", "RPOPLPUSH", "LMPOP", "BATCH"],
            weights=[10, 10, 3, 3, 6, 6, 3, 8, 5, 4, 4, 4, 3, 6, 4, 3, 4, 1])[0]
        key = self.lkey()
        if op == "BATCH":
            # Past the inline bound of 128 elements in one command.
            return Command([self.rng.choice(["RPUSH", "LPUSH"]), key] +
                           [self.element() for _ in range(150)])
        if op in ("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"):
            return Command([op, key] + [self.element() for _ in range(self.rng.randint(1, 4))])
        if op in ("LPOP", "RPOP"):
            args = [op, key]
            if self.rng.random() < 0.5:
                args.append(self.rng.choice(LIST_COUNTS) if not self.bad() else "abc")
            if self.bad(0.02):
                args.append("1")
            return Command(args)
        if op == "LLEN":
            return Command([op, key])
        if op in ("LRANGE", "LTRIM"):
            return Command([op, key, self.lindex(), self.lindex()])
        if op == "LINDEX":
            return Command([op, key, self.lindex()])
        if op == "LSET":
            return Command([op, key, self.lindex(), self.element()])
        if op == "LINSERT":
            where = self.opt(self.rng.choice(["BEFORE", "AFTER"])) if not self.bad() else "MID"
            return Command([op, key, where, self.element(), self.element()])
        if op == "LREM":
            return Command([op, key, self.rng.choice(LIST_COUNTS), self.element()])
        if op == "LPOS":
            args = [op, key, self.element()]
            for _ in range(self.rng.choice([0, 0, 1, 2, 3])):
                name = self.rng.choice(["RANK", "COUNT", "MAXLEN"])
                if name == "RANK":
                    value = self.rng.choice(["1", "2", "-1", "-2", "3", "0",
                                             "-9223372036854775808", "9223372036854775807"])
                else:
                    value = self.rng.choice(["0", "1", "2", "3", "-1", "100"])
                args += [self.opt(name), value if not self.bad() else "abc"]
            if self.bad(0.03):
                args.append(self.rng.choice(["RANK", "FOO"]))
            return Command(args)
        if op == "LMOVE":
            return Command([op, key, self.lkey(), self.end_word(), self.end_word()])
        if op == "RPOPLPUSH":
            return Command([op, key, self.lkey()])
        # LMPOP numkeys key... LEFT|RIGHT [COUNT n]
        keys = [self.lkey() for _ in range(self.rng.randint(1, 3))]
        numkeys = str(len(keys)) if not self.bad() else self.rng.choice(["0", "-1", "abc", "9"])
        args = [op, numkeys] + keys + [self.end_word()]
        if self.rng.random() < 0.5:
            args += [self.opt("COUNT"), self.rng.choice(["1", "2", "5", "0", "-1", "abc"])]
        if self.bad(0.03):
            args.append("COUNT")
        return Command(args)
