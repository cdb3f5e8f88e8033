"""The makers of stream commands (Redis 7.0), mixed into commands.Generator like ZsetMakers, with
the argument pools they draw from.

Entry ids never come from the servers' clocks, which differ: XADD gets explicit ids (`ms-seq`,
`ms`, `ms-*`) chosen from a model of each stream's last id, so most XADDs succeed and some are
deliberately too small or malformed. The model (StreamModel) is a hint, not the truth: other
makers' FLUSHDB, SWAPDB or SELECT move streams away from it, which only costs some successes.
`*` is sent only where its id is certain or not compared:

- on "xfut", whose ids are all past any clock (ms >= FUTURE_MS), always with NOMKSTREAM: Redis
  then takes the last id plus one, on both servers alike, and a missing key answers nil. No
  command ever creates "xfut" with a smaller last id (no MKSTREAM, no RENAME or COPY onto it,
  XSETID only to future ids);
- on "xclock", which gets ids from the real clock: those XADDs are compared by reply type only,
  and the key is otherwise only ever given to XLEN, TYPE, EXISTS and DEL (never read by id).

Consumer groups and their PELs make clock readings part of some replies: XPENDING's idle times,
XINFO CONSUMERS' idle, XINFO STREAM FULL's seen-time and delivery times. Those commands use the
"clock" comparison (fuzz_diff.py): those integers within CLOCK_TOL_MS, everything else exactly
(radix-tree-keys and radix-tree-nodes included). Whatever decides what a command does is kept
far from any clock: min-idle-time and XPENDING's IDLE are 0 or an hour, and the delivery
times that XCLAIM sets (IDLE, TIME) are now, two hours ago, 1970 or the future (which Redis
takes as now).

Now and then stream-node-max-entries (2..5) or stream-node-max-bytes (small) is lowered, so
that nodes split often and `~` trimming meets node boundaries; the maker puts the default back
within a few dozen stream commands (and fuzz_diff.py sets both defaults at every sequence's
start)."""

from dataclasses import dataclass, field

from fuzz.command import Command

STREAM_KEYS = ["x0", "x1", "x2"]
FUTURE_KEY = "xfut"
CLOCK_KEY = "xclock"
SHARED_STREAM_KEYS = ["k0", "h0", "s0", "l0", "z0"]  # strings, hashes, sets, lists, zsets
MISSING_STREAM_KEY = "xnone"  # never written
NUL_STREAM_KEY = "x\x00y"  # Redis prints names into some errors with %s: up to the NUL
FUTURE_MS = 9_000_000_000_000  # the year 2255
MAX_U64 = 18446744073709551615
MAX_ID = "%d-%d" % (MAX_U64, MAX_U64)
GROUPS = ["g1", "g2", "g3"]
CONSUMERS = ["alice", "bob", "carol"]
# Field names stay clear of the names the clock comparison looks for (idle, seen-time, pending).
SFIELDS = ["f", "g", "name", "n", "1", "", "f\x00", "field-with-a-longer-name"]
SVALUES = ["v", "1", "-1", "0", "", "hello world", "12345678901", "9223372036854775807",
           "9223372036854775808", "1.5", "x" * 70, "-0"]
BIG_VALUE = "B" * 1500  # a few of these fill a 4096-byte node
# Ids no parser accepts (as stream ids: strict where "-" and "+" are refused).
MALFORMED_IDS = ["abc", "-1", "1-", "-", "+", "1-2-3", "", "18446744073709551616", "1.5", " 1",
                 "1-18446744073709551616", "0x10", "-5-0", "1--1", "(1"]
BAD_IDS = ["0-0"] + MALFORMED_IDS
COUNTS = ["0", "1", "2", "3", "5", "10", "100", "-1"]
BAD_COUNTS = ["abc", "", "1.5", "9223372036854775808"]
MAXLENS = ["0", "1", "2", "5", "10", "20", "50", "100", "300"]
LIMITS = ["0", "1", "2", "10", "100", "1000"]
NODE_ENTRIES = ["2", "3", "4", "5"]
NODE_BYTES = ["64", "100", "200", "300"]
CLOCK_TOL_MS = 1000
GROUP_OPS = ("XREADGROUP", "XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM")
HOUR_MS = 3_600_000


def fmt(stream_id):
    return "%d-%d" % stream_id


def id_order(bound):
    """Where a range bound sits, roughly (ms, seq); (0, 0) for anything unusual."""
    text = bound.lstrip("(")
    if text == "+":
        return (MAX_U64, MAX_U64)
    ms, _, seq = text.partition("-")
    if ms.isdigit() and (seq.isdigit() or not seq):
        return (int(ms), int(seq or 0))
    return (0, 0)


@dataclass
class StreamModel:
    """What the generator believes of one stream key: its last id, recent ids, its groups."""
    last: tuple = (0, 0)
    ids: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    exists: bool = False
    delivered: dict = field(default_factory=dict)  # group -> ids read with ">" (not acked)

    def added(self, stream_id):
        self.exists = True
        if stream_id > self.last:
            self.last = stream_id
        self.ids.append(stream_id)
        del self.ids[:-40]

    def copy(self):
        return StreamModel(self.last, list(self.ids), list(self.groups), self.exists,
                           {g: list(ids) for g, ids in self.delivered.items()})


class StreamMakers:
    # The generator's state for streams (models by key, the pending config restore) lives in
    # the Generator's `streams` dict.

    def models(self):
        """The models of the selected database's stream keys."""
        return self.streams.setdefault("dbs", {}).setdefault(self.streams.get("db", 0), {})

    def smodel(self, key):
        models = self.models()
        if key not in models:
            models[key] = StreamModel(last=(FUTURE_MS, 0) if key == FUTURE_KEY else (0, 0))
        return models[key]

    def observe(self, cmd):
        """Follows the commands of every maker that change which database the models describe
        (SELECT, SWAPDB, FLUSHDB, FLUSHALL), as far as the arguments tell."""
        words = [a.upper() if isinstance(a, str) else a for a in cmd.args]
        dbs = self.streams.setdefault("dbs", {})
        here = self.streams.get("db", 0)
        valid = [str(n) for n in range(16)]
        if words[0] == "SELECT" and len(words) == 2 and words[1] in valid:
            self.streams["db"] = int(words[1])
        elif words[0] == "SWAPDB" and len(words) == 3 and words[1] in valid and \
                words[2] in valid:
            a, b = int(words[1]), int(words[2])
            dbs[a], dbs[b] = dbs.get(b, {}), dbs.get(a, {})
        elif words[0] == "FLUSHDB":
            dbs.pop(here, None)
        elif words[0] == "FLUSHALL":
            dbs.clear()

    def xkey(self, writable=False):
        """A stream key for reading and most writes (never xclock): mostly the streams' own,
        then keys of other types (WRONGTYPE; written to rarely), a missing key, any key."""
        r = self.rng.random()
        if r < (0.8 if writable else 0.72):
            # Mostly x0, so that one stream grows long enough to span several nodes.
            return self.rng.choices(STREAM_KEYS, weights=[5, 2, 1])[0]
        if r < (0.93 if writable else 0.84):
            return FUTURE_KEY
        if r < (0.96 if writable else 0.92):
            return self.rng.choice(SHARED_STREAM_KEYS)
        if r < 0.96:
            return MISSING_STREAM_KEY
        if r < 0.975:
            return NUL_STREAM_KEY
        return self.key()

    def gkey(self):
        """A key for the consumer-group commands: mostly one the model gives groups."""
        models = self.models()
        grouped = [k for k in STREAM_KEYS + [FUTURE_KEY] if k in models and models[k].groups]
        if grouped and self.rng.random() < 0.75:
            return self.rng.choice(grouped)
        return self.xkey()

    def xgroup_name(self, key):
        groups = self.smodel(key).groups
        if groups and self.rng.random() < 0.85:
            return self.rng.choice(groups)
        if self.bad(0.03):
            return self.rng.choice(["", "G1", "nogroup", "g\x00h", "g1\x00"])
        return self.rng.choice(GROUPS)

    def consumer(self):
        if self.bad(0.03):
            return self.rng.choice(["", "x\x00y", "ALICE"])
        return self.rng.choice(CONSUMERS)

    def known_id(self, key):
        """An id the stream had (perhaps deleted or trimmed since), or one near it."""
        model = self.smodel(key)
        if model.ids and self.rng.random() < 0.85:
            return self.rng.choice(model.ids)
        ms = model.last[0]
        return (max(0, ms + self.rng.choice([-2, -1, 0, 1, 3])), self.rng.choice([0, 0, 1, 2]))

    def old_id(self, key):
        """An id from the older part of the stream (MINID trims some, not most)."""
        ids = sorted(self.smodel(key).ids)
        if ids and self.rng.random() < 0.8:
            return self.rng.choice(ids[: max(1, len(ids) // 3)])
        return self.known_id(key)

    def range_id(self, key, low):
        """An XRANGE/XPENDING bound: special, complete, incomplete, exclusive or bad."""
        r = self.rng.random()
        if r < 0.25:
            return "-" if low else "+"
        if r < 0.3:
            return "+" if low else "-"
        if r < 0.6:
            return fmt(self.known_id(key))
        if r < 0.72:
            return str(self.known_id(key)[0])  # incomplete: ms-0 as a start, ms-max as an end
        if r < 0.9:
            return "(" + (fmt(self.known_id(key)) if self.rng.random() < 0.8 else
                          str(self.known_id(key)[0]))
        return self.rng.choice(BAD_IDS + ["(-", "(+", "((1", "(" + MAX_ID, "(0-0", MAX_ID,
                                          "(" + str(MAX_U64)])

    def fields(self, big=False):
        pairs = []
        for _ in range(self.rng.choice([1, 1, 1, 2, 2, 3])):
            value = BIG_VALUE if big or self.rng.random() < 0.02 else self.rng.choice(SVALUES)
            pairs += [self.rng.choice(SFIELDS), value]
        if self.bad(0.04):
            pairs.pop()  # an odd number of field/value words
        return pairs

    def new_id(self, key, model):
        """An explicit XADD id: the id as sent and the id Redis makes of it if all goes well
        (None for ids meant to fail)."""
        last = model.last
        if key == FUTURE_KEY and last[0] < FUTURE_MS:
            last = (FUTURE_MS, 0)
        r = self.rng.random()
        if r < 0.5:
            ms = last[0] + self.rng.choice([0, 0, 1, 1, 2, 3, 10, 1000])
            seq = last[1] + self.rng.choice([1, 1, 2, 7]) if ms == last[0] else \
                self.rng.choice([0, 0, 1, 5])
            return fmt((ms, seq)), (ms, seq)
        if r < 0.64:
            ms = last[0] + self.rng.choice([1, 1, 2, 50])
            return str(ms), (ms, 0)
        if r < 0.8:
            ms = last[0] + self.rng.choice([0, 0, 1, 4])
            made = (ms, last[1] + 1) if ms == last[0] else (ms, 0)
            return "%d-*" % ms, made
        if r < 0.93 and last > (0, 0):
            # Too small: the last id itself, an older one, its ms alone, an older ms-*.
            older = (max(0, last[0] - self.rng.choice([0, 1, 5])), 0)
            return self.rng.choice([fmt(last), fmt(older), str(last[0]),
                                    "%d-*" % max(0, last[0] - 1)]), None
        # (On xfut nothing that could make the stream with an id below the clock.)
        low = ["0-1", "0-*"] if key != FUTURE_KEY else []
        return self.rng.choice(BAD_IDS + low + ["%d-*" % MAX_U64, MAX_ID,
                                                "%d-%d" % (MAX_U64, MAX_U64 - 1)]), None

    def trim_args(self, key):
        """MAXLEN|MINID [=|~] threshold [LIMIT count], valid or not."""
        strategy = self.rng.choice(["MAXLEN", "MAXLEN", "MINID"])
        args = [self.opt(strategy)]
        exact = self.rng.choice(["", "", "=", "~", "~"])
        if exact:
            args.append(exact)
        if strategy == "MAXLEN":
            args.append(self.rng.choices(MAXLENS, weights=[1, 1, 1, 2, 3, 3, 3, 3, 2])[0]
                        if not self.bad(0.06) else
                        self.rng.choice(["-1", "abc", "", "1.5", "9223372036854775808"]))
        else:
            r = self.rng.random()
            if r < 0.7:
                args.append(fmt(self.old_id(key)))
            elif r < 0.9:
                args.append(str(self.old_id(key)[0]))
            else:
                args.append(self.rng.choice(BAD_IDS + ["(1-0"]))
        if self.rng.random() < (0.4 if exact == "~" else 0.06):
            args += [self.opt("LIMIT"), self.rng.choice(LIMITS) if not self.bad(0.08) else
                     self.rng.choice(["-1", "abc", ""])]
        if self.bad(0.03):
            args.append(self.rng.choice(["MAXLEN", "LIMIT", "~", "FOO"]))
        return args

    def stream_cmd(self):
        state = self.streams
        # A lowered node size goes back to the default after a few dozen stream commands.
        if state.get("restore", -1) == 0:
            state["restore"] = -1
            name, default = state.pop("restore_cmd")
            return Command(["CONFIG", "SET", name, default])
        if state.get("restore", -1) > 0:
            state["restore"] -= 1
        op = self.rng.choices(
            ["XADD", "XRANGE", "XREVRANGE", "XLEN", "XDEL", "XTRIM", "XSETID", "XREAD", "XGROUP",
             "XREADGROUP", "XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM", "XINFO", "KEYSPACE",
             "CLOCK", "BIG", "CONFIG", "ARITY"],
            weights=[30, 8, 5, 3, 4, 3, 3, 6, 10, 11, 5, 6, 6, 5, 8, 5, 2, 2.5, 1.2, 1.5])[0]
        if op not in ("XADD", "BIG", "CONFIG") and self.rng.random() < 0.5 and \
                not any(m.exists for m in self.models().values()):
            op = "XADD" if self.rng.random() < 0.9 else "BIG"  # nothing to read yet
        elif op in GROUP_OPS and self.rng.random() < 0.8 and \
                not any(m.groups for m in self.models().values()):
            op = "XGROUP_CREATE"  # no group to work with yet (as far as the model knows)
        return getattr(self, "stream_" + op.lower())()

    def stream_xadd(self):
        key = self.xkey(writable=True)
        model = self.smodel(key)
        args = ["XADD", key]
        star = key == FUTURE_KEY and self.rng.random() < 0.35
        if star or self.rng.random() < 0.08:
            args.append(self.opt("NOMKSTREAM"))
        if key != FUTURE_KEY and self.rng.random() < 0.02:
            # `*` on the clock after an option that cannot parse: the error comes before any
            # id is made (no other option goes with it, which could make it valid).
            return Command(args + self.rng.choice([["FOO"], ["MAXLEN", "abc"], ["LIMIT", "1"],
                                                   ["MINID", "~"], ["MAXLEN", "~"]]) +
                           ["*"] + self.fields())
        if self.rng.random() < 0.2:
            args += self.trim_args(key)
        if star:
            # Past any clock, `*` takes the last id plus one on both servers (NOMKSTREAM: a
            # missing xfut stays missing, never made with an id from the clock).
            sent, made = "*", (model.last[0], model.last[1] + 1)
        else:
            sent, made = self.new_id(key, model)
        fields = self.fields(big=self.rng.random() < 0.01)
        if made is not None and len(fields) % 2 == 0 and (model.exists or "NOMKSTREAM" not in
                                                           [a.upper() for a in args]):
            model.added(made)
        return Command(args + [sent] + fields)

    def stream_xrange(self, rev=False):
        key = self.xkey()
        start, end = self.range_id(key, True), self.range_id(key, False)
        if self.rng.random() < 0.7 and id_order(start) > id_order(end):
            start, end = end, start  # mostly a range that holds something
        args = ["XREVRANGE", key, end, start] if rev else ["XRANGE", key, start, end]
        if self.rng.random() < 0.35:
            args += [self.opt("COUNT"), self.rng.choice(COUNTS) if not self.bad(0.1) else
                     self.rng.choice(BAD_COUNTS)]
        if self.bad(0.03):
            args.append(self.rng.choice(["COUNT", "FOO"]))
        return Command(args)

    def stream_xrevrange(self):
        return self.stream_xrange(rev=True)

    def stream_xlen(self):
        return Command(["XLEN", self.rng.choice([self.xkey(), CLOCK_KEY])])

    def stream_xdel(self):
        key = self.xkey()
        ids = [fmt(self.known_id(key)) for _ in range(self.rng.choice([1, 1, 2, 3]))]
        if self.bad(0.06):
            ids.append(self.rng.choice(BAD_IDS + ["5"]))
        return Command(["XDEL", key] + ids)

    def stream_xtrim(self):
        key = self.xkey()
        args = ["XTRIM", key] + self.trim_args(key)
        if self.bad(0.03):
            args = ["XTRIM", key] + self.rng.choice([[], ["FOO", "1"], ["MAXLEN"], ["~", "1"]])
        return Command(args)

    def stream_xsetid(self):
        key = self.xkey()
        model = self.smodel(key)
        r = self.rng.random()
        if r < 0.6:
            new = (model.last[0] + self.rng.choice([0, 0, 1, 100]), model.last[1] +
                   self.rng.choice([0, 1, 3]))
            if key == FUTURE_KEY:
                new = max(new, (FUTURE_MS, 0))
            sent = fmt(new)
            if new > model.last:
                model.last = new
        elif r < 0.8 and key != FUTURE_KEY:
            sent = fmt((max(0, model.last[0] - self.rng.choice([1, 5])), 0))  # smaller
        elif r < 0.9:
            sent = str(max(model.last[0], FUTURE_MS if key == FUTURE_KEY else 0) + 5)
            model.last = max(model.last, (int(sent), 0))
        else:
            # (0-0 would be taken by an empty xfut, below the clock.)
            sent = self.rng.choice((BAD_IDS if key != FUTURE_KEY else MALFORMED_IDS) +
                                   ["$", "*", MAX_ID])
        args = ["XSETID", key, sent]
        for _ in range(self.rng.choice([0, 0, 1, 1, 2])):
            if self.rng.random() < 0.5:
                args += [self.opt("ENTRIESADDED"), self.rng.choice(
                    ["0", "1", "3", "10", "100", "1000"] if not self.bad(0.15) else
                    ["-1", "abc", ""])]
            else:
                base = model.last if key != FUTURE_KEY else max(model.last, (FUTURE_MS, 0))
                args += [self.opt("MAXDELETEDID"), self.rng.choice(
                    [fmt(self.known_id(key)), fmt(base), "0-0", "0-1",
                     fmt((base[0] + 10, 0))] if not self.bad(0.1) else BAD_IDS)]
        if self.bad(0.03):
            args.append(self.rng.choice(["ENTRIESADDED", "FOO", "MAXDELETEDID"]))
        return Command(args)

    def read_ids(self, keys, group):
        ids = []
        for key in keys:
            r = self.rng.random()
            if group:
                if r < 0.6:
                    ids.append(">")
                elif r < 0.8:
                    ids.append(self.rng.choice(["0", "0-0"]))
                elif r < 0.95:
                    ids.append(fmt(self.known_id(key)))
                else:
                    ids.append(self.rng.choice(BAD_IDS + ["$", "+"]))
            else:
                if r < 0.45:
                    ids.append(self.rng.choice(["0", "0-0"]))
                elif r < 0.75:
                    ids.append(fmt(self.known_id(key)))
                elif r < 0.85:
                    ids.append(str(self.known_id(key)[0]))
                elif r < 0.93:
                    ids.append("$")
                else:
                    ids.append(self.rng.choice(BAD_IDS + [">", "+"]))
        return ids

    def stream_xread(self):
        keys = [self.xkey() for _ in range(self.rng.choice([1, 1, 1, 2, 3]))]
        args = ["XREAD"]
        if self.rng.random() < 0.4:
            args += [self.opt("COUNT"), self.rng.choice(COUNTS) if not self.bad(0.1) else
                     self.rng.choice(BAD_COUNTS)]
        args.append(self.opt("STREAMS"))
        args += keys + self.read_ids(keys, group=False)
        if self.bad(0.04):
            args.pop()  # unbalanced
        if self.bad(0.02):
            args = self.rng.choice([["XREAD", "STREAMS"], ["XREAD", "COUNT", "1"],
                                    ["XREAD", "FOO", "STREAMS", keys[0], "0"],
                                    ["XREAD", "NOACK", "STREAMS", keys[0], "0"]])
        return Command(args)

    def stream_xgroup_create(self):
        return self.stream_xgroup(sub="CREATE")

    def stream_xgroup(self, sub=None):
        sub = sub or self.rng.choices(["CREATE", "SETID", "DESTROY", "CREATECONSUMER",
                                       "DELCONSUMER", "HELP", "bad"],
                                      weights=[10, 3, 2, 3, 2, 0.3, 0.7])[0]
        key = self.xkey() if sub == "CREATE" else self.gkey()
        model = self.smodel(key)
        group = self.xgroup_name(key)
        if sub == "HELP":
            return Command(["XGROUP", self.opt("HELP")])
        if sub == "bad":
            return Command(self.rng.choice([["XGROUP"], ["XGROUP", "FOO", key, group],
                                            ["XGROUP", "CREATE", key], ["XGROUP", "CREATE"],
                                            ["XGROUP", "DESTROY", key, group, "x"],
                                            ["XGROUP", "CREATECONSUMER", key, group],
                                            ["XGROUP", "HELP", "x"]]))
        if sub in ("CREATE", "SETID"):
            if sub == "CREATE" and self.rng.random() < 0.7:
                group = self.rng.choice([g for g in GROUPS if g not in model.groups] or GROUPS)
            r = self.rng.random()
            if r < 0.25:
                start = "$"
            elif r < 0.65:
                start = self.rng.choice(["0", "0-0"])
            elif r < 0.9:
                start = fmt(self.known_id(key))
            elif r < 0.95:
                start = self.rng.choice(["-", "+"])
            else:
                start = self.rng.choice(BAD_IDS + [">"])
            args = ["XGROUP", self.opt(sub), key, group, start]
            mkstream = sub == "CREATE" and key != FUTURE_KEY and \
                self.rng.random() < (0.15 if model.exists else 0.75)
            if mkstream:
                args.append(self.opt("MKSTREAM"))
                model.exists = True
            if self.rng.random() < 0.25:
                args += [self.opt("ENTRIESREAD"), self.rng.choice(
                    ["0", "1", "2", "5", "100", "-1"] if not self.bad(0.1) else
                    ["-2", "abc", ""])]
            if self.bad(0.03):
                args.append(self.rng.choice(["FOO", "ENTRIESREAD", "MKSTREAM"]))
            if sub == "CREATE" and model.exists and group not in model.groups:
                model.groups.append(group)
            return Command(args)
        if sub == "DESTROY":
            if group in model.groups:
                model.groups.remove(group)
            return Command(["XGROUP", self.opt(sub), key, group])
        return Command(["XGROUP", self.opt(sub), key, group, self.consumer()])

    def stream_xreadgroup(self):
        first = self.gkey()
        group = self.xgroup_name(first)
        keys = [first]
        for _ in range(self.rng.choice([0, 0, 0, 1, 2])):
            # More streams, mostly ones that the model gives the same group.
            same = [k for k, m in self.models().items() if group in m.groups]
            keys.append(self.rng.choice(same) if same and self.rng.random() < 0.8 else
                        self.gkey())
        args = ["XREADGROUP", self.opt("GROUP"), group, self.consumer()]
        options = []
        if self.rng.random() < 0.45:
            options += [self.opt("COUNT"), self.rng.choice(COUNTS) if not self.bad(0.1) else
                        self.rng.choice(BAD_COUNTS)]
        if self.rng.random() < 0.15:
            options.append(self.opt("NOACK"))
        if len(options) == 3 and self.rng.random() < 0.5:
            options = options[2:] + options[:2]
        ids = self.read_ids(keys, group=True)
        args += options + [self.opt("STREAMS")] + keys + ids
        upper = [a.upper() for a in options]
        if "NOACK" not in upper:
            count = None
            if "COUNT" in upper and options[upper.index("COUNT") + 1].isdigit():
                count = int(options[upper.index("COUNT") + 1]) or None  # COUNT 0: no limit
            for key, read in zip(keys, ids):
                if read == ">":
                    model = self.smodel(key)
                    seen = model.delivered.setdefault(group, [])
                    seen += [i for i in sorted(model.ids) if i not in seen][:count]
                    del seen[:-40]
        if self.bad(0.04):
            args.pop()  # unbalanced
        if self.bad(0.02):
            args = self.rng.choice([["XREADGROUP", "GROUP", "g1", "STREAMS", first, ">"],
                                    ["XREADGROUP", "STREAMS", first, ">"],
                                    ["XREADGROUP", "GROUP", "g1", "alice", "FOO", "STREAMS",
                                     first, ">"],
                                    ["XREADGROUP", "GROUP", "g1", "alice", "STREAMS"]])
        return Command(args)

    def pel_ids(self, key, group):
        """Ids for XACK and XCLAIM: mostly ones the model says the group read."""
        delivered = self.smodel(key).delivered.get(group)
        ids = []
        for _ in range(self.rng.choice([1, 1, 2, 3, 4])):
            r = self.rng.random()
            if delivered and r < 0.6:
                ids.append(fmt(self.rng.choice(delivered)))
            else:
                ids.append(fmt(self.old_id(key) if r < 0.8 else self.known_id(key)))
        if self.bad(0.05):
            ids.append(self.rng.choice(BAD_IDS + ["5"]))
        return ids

    def stream_xack(self):
        key = self.gkey()
        group = self.xgroup_name(key)
        ids = self.pel_ids(key, group)
        delivered = self.smodel(key).delivered.get(group, [])
        delivered[:] = [i for i in delivered if fmt(i) not in ids]
        return Command(["XACK", key, group] + ids)

    def min_idle(self):
        r = self.rng.random()
        if r < 0.7:
            return "0"
        if r < 0.95:
            return str(HOUR_MS)
        return self.rng.choice(["-1", "abc", "", "1.5"])

    def stream_xpending(self):
        key = self.gkey()
        args = ["XPENDING", key, self.xgroup_name(key)]
        if self.rng.random() < 0.7:
            if self.rng.random() < 0.25:
                args += [self.opt("IDLE"), self.rng.choice(["0", str(HOUR_MS)])
                         if not self.bad(0.1) else self.rng.choice(["-1", "abc"])]
            args += [self.range_id(key, True), self.range_id(key, False),
                     self.rng.choice(COUNTS) if not self.bad(0.06) else
                     self.rng.choice(BAD_COUNTS)]
            if self.rng.random() < 0.3:
                args.append(self.consumer())
            if self.bad(0.02):
                args.append("FOO")
        elif self.bad(0.05):
            args += self.rng.choice([["-"], ["-", "+"], ["IDLE", "0"], ["IDLE"]])
        return Command(args, mode="clock", tol=CLOCK_TOL_MS)

    def stream_xclaim(self):
        key = self.gkey()
        group = self.xgroup_name(key)
        args = ["XCLAIM", key, group, self.consumer(), self.min_idle()]
        args += self.pel_ids(key, group)
        for _ in range(self.rng.choice([0, 0, 1, 1, 2, 3])):
            r = self.rng.random()
            if r < 0.15:
                args += [self.opt("IDLE"), self.rng.choice(["0", str(2 * HOUR_MS)])
                         if not self.bad(0.1) else self.rng.choice(["-1", "abc"])]
            elif r < 0.35:
                args += [self.opt("TIME"), self.rng.choice(
                    [str(self.base_ms - 2 * HOUR_MS), "1", str(self.base_ms + 1_000_000_000)])
                    if not self.bad(0.1) else self.rng.choice(["-5", "abc"])]
            elif r < 0.5:
                args += [self.opt("RETRYCOUNT"), self.rng.choice(["0", "1", "5", "100"])
                         if not self.bad(0.1) else self.rng.choice(["-1", "abc"])]
            elif r < 0.65:
                args.append(self.opt("FORCE"))
            elif r < 0.85:
                args.append(self.opt("JUSTID"))
            elif r < 0.97:
                args += [self.opt("LASTID"), fmt(self.known_id(key)) if not self.bad(0.1)
                         else self.rng.choice(BAD_IDS)]
            else:
                args.append(self.rng.choice(["IDLE", "FOO", "TIME"]))
        return Command(args)

    def stream_xautoclaim(self):
        key = self.gkey()
        r = self.rng.random()
        start = self.rng.choice(["0", "0-0", "-"]) if r < 0.6 else \
            fmt(self.known_id(key)) if r < 0.95 else self.rng.choice(BAD_IDS + ["+", "(1"])
        args = ["XAUTOCLAIM", key, self.xgroup_name(key), self.consumer(), self.min_idle(),
                start]
        if self.rng.random() < 0.5:
            args += [self.opt("COUNT"), self.rng.choice(["1", "2", "3", "10", "100"])
                     if not self.bad(0.1) else
                     self.rng.choice(["0", "-1", "abc", "9223372036854775807"])]
        if self.rng.random() < 0.25:
            args.append(self.opt("JUSTID"))
        if self.bad(0.03):
            args.append(self.rng.choice(["COUNT", "FOO"]))
        return Command(args)

    def stream_xinfo(self):
        key = self.gkey()
        sub = self.rng.choices(["STREAM", "FULL", "GROUPS", "CONSUMERS", "HELP", "bad"],
                               weights=[4, 4, 3, 3, 0.3, 0.7])[0]
        if sub == "STREAM":
            return Command(["XINFO", self.opt("STREAM"), key])
        if sub == "FULL":
            args = ["XINFO", self.opt("STREAM"), key, self.opt("FULL")]
            if self.rng.random() < 0.4:
                args += [self.opt("COUNT"), self.rng.choice(["0", "1", "2", "5", "-1"])
                         if not self.bad(0.1) else self.rng.choice(["abc", ""])]
            return Command(args, mode="clock", tol=CLOCK_TOL_MS)
        if sub == "GROUPS":
            return Command(["XINFO", self.opt("GROUPS"), key])
        if sub == "CONSUMERS":
            return Command(["XINFO", self.opt("CONSUMERS"), key, self.xgroup_name(key)],
                           mode="clock", tol=CLOCK_TOL_MS)
        if sub == "HELP":
            return Command(["XINFO", self.opt("HELP")])
        return Command(self.rng.choice([["XINFO"], ["XINFO", "FOO", key],
                                        ["XINFO", "STREAM", key, "FOO"],
                                        ["XINFO", "STREAM", key, "FULL", "COUNT"],
                                        ["XINFO", "CONSUMERS", key], ["XINFO", "GROUPS"]]))

    def forget(self, key):
        """The model of a key just deleted or renamed away (a new stream starts from 0-0)."""
        self.models().pop(key, None)

    def stream_keyspace(self):
        op = self.rng.choices(["TYPE", "OBJECT", "EXISTS", "DEL", "COPY", "RENAME", "RENAMENX",
                               "MEMORY"], weights=[3, 3, 1, 3, 4, 3, 1, 1])[0]
        key = self.xkey()
        if op in ("TYPE", "EXISTS"):
            return Command([op, self.rng.choice([key, key, CLOCK_KEY])])
        if op == "OBJECT":
            return Command(["OBJECT", self.rng.choice(["ENCODING", "ENCODING", "REFCOUNT"]), key])
        if op == "MEMORY":
            return Command(["MEMORY", "USAGE", key], mode="memusage")
        if op == "DEL":
            keys = [self.rng.choice([key, key, CLOCK_KEY])]
            if self.rng.random() < 0.2:
                keys.append(self.xkey())
            for k in keys:
                self.forget(k)
            return Command(["DEL"] + keys)
        # COPY/RENAME onto a stream key other than xfut (whose last id must stay in the
        # future), now and then onto a key of another type.
        dst = self.rng.choice(STREAM_KEYS) if self.rng.random() < 0.95 else \
            self.rng.choice(SHARED_STREAM_KEYS)
        if op == "COPY":
            args = ["COPY", key, dst]
            if self.rng.random() < 0.5:
                args.append(self.opt("REPLACE"))
            if self.rng.random() < 0.15:
                args += [self.opt("DB"), self.rng.choice(["0", "1"])]
            elif key != dst:
                self.models()[dst] = self.smodel(key).copy()
            return Command(args)
        if key != dst:
            self.models()[dst] = self.smodel(key).copy()
            self.forget(key)
        return Command([op, key, dst])

    def stream_clock(self):
        """XADD `*` on the real clock: compared by reply type only, on a key never read by id."""
        args = ["XADD", CLOCK_KEY]
        if self.rng.random() < 0.15:
            args.append(self.opt("NOMKSTREAM"))
        if self.rng.random() < 0.3:
            args += [self.opt("MAXLEN")] + (["="] if self.rng.random() < 0.5 else []) + \
                [self.rng.choice(["1", "3", "10"])]
        args += ["*"] + self.fields()
        return Command(args, mode="nil_or_not")

    def stream_big(self):
        """10 to 250 entries in one script (past the default node size of 100)."""
        key = self.rng.choice(STREAM_KEYS + [FUTURE_KEY])
        model = self.smodel(key)
        base = max(model.last[0], FUTURE_MS if key == FUTURE_KEY else 0) + 1
        n = self.rng.choice([10, 30, 120, 250])
        for i in range(1, n + 1):
            model.added((base + i, i % 3))
        return Command(["EVAL", "local base = tonumber(ARGV[1]) for i = 1, tonumber(ARGV[2]) "
                        "do redis.call('xadd', KEYS[1], string.format('%d-%d', base + i, i % 3), "
                        "'f', i, 'g', 'v' .. (i % 7)) end return redis.call('xlen', KEYS[1])",
                        "1", key, str(base), str(n)])

    def stream_config(self):
        if self.streams.get("restore", -1) >= 0:
            return self.stream_xadd()
        name, values, default = self.rng.choice([
            ("stream-node-max-entries", NODE_ENTRIES, "100"),
            ("stream-node-max-entries", NODE_ENTRIES, "100"),
            ("stream-node-max-bytes", NODE_BYTES, "4096")])
        self.streams["restore"] = self.rng.randint(5, 40)
        self.streams["restore_cmd"] = (name, default)
        return Command(["CONFIG", "SET", name, self.rng.choice(values)])

    def stream_arity(self):
        op, counts = self.rng.choice([
            ("XADD", [0, 1, 2, 3]), ("XRANGE", [0, 1, 2]), ("XREVRANGE", [1, 2]), ("XLEN", [0, 2]),
            ("XDEL", [0, 1]), ("XTRIM", [0, 1, 2]), ("XSETID", [0, 1]), ("XREAD", [0, 1, 2]),
            ("XREADGROUP", [0, 1, 3]), ("XACK", [0, 1, 2]), ("XPENDING", [0, 1]),
            ("XCLAIM", [0, 3, 4]), ("XAUTOCLAIM", [0, 4]), ("XINFO", [0]), ("XGROUP", [0]),
        ])
        return Command([op] + [self.xkey() for _ in range(self.rng.choice(counts))])
