"""Client-side caching (CLIENT TRACKING) in the randomized tester: its makers, mixed into
commands.Generator like the others, and the extra connections fuzz_diff.Pair opens for them.

A sequence that tracks uses up to three connections per server: the tester's own ("main"), a
tracking connection ("track") and a redirect target ("sub"). The track connection turns
tracking on (default mode, BCAST with prefixes, OPTIN, OPTOUT, NOLOOP; RESP3 after HELLO 3, or
REDIRECT to sub, which either SUBSCRIBEs to __redis__:invalidate in RESP2 or speaks RESP3) and
reads keys; the main connection keeps writing them through every other maker. After every
command, on whichever connection, the tester sends PING on track and sub and reads every
frame that arrives before the PONG, on both servers: those frames (invalidation pushes,
"message"s of __redis__:invalidate, their order, the order of keys inside one push) must be
identical. A command sent on track or sub is answered by its reply, after any push it caused
that arrived first: those pushes are part of what is compared. After a full SCAN, which removes
the lapsed keys it meets in hash table order, only the set of invalidated keys is compared.

The ids differ between the servers: REDIRECT's argument is sent as each server's own id of the
sub connection (the REDIRECT_ID placeholder), and CLIENT TRACKINGINFO and CLIENT GETREDIR are
compared with any redirect id blanked ("redirect").

Tracking needs keys to expire only when a command touches them (lazy expiry: an invalidation
from active expiry would arrive at a moment that depends on the servers' timers), so the
makers only run in sequences with active expiry off; elsewhere tracking_cmd makes a read on
the main connection instead."""

from fuzz.command import Command
from fuzz.resp import RespConnection

TRACK = "track"
SUB = "sub"
REDIRECT_ID = "<id of sub>"
INVALIDATE_CHANNEL = "__redis__:invalidate"
PREFIXES = ["k", "lock:", "h", "s", "", "b", "p", "w_", "k0", "l", "z", "g"]


def redis_safe_prefixes(parts):
    """CLIENT TRACKING's option groups without a PREFIX that overlaps a later one unless it is
    the first PREFIX. Redis 7.0's checkPrefixCollisionsOrReply returns the index of the first
    of two overlapping prefixes: past the first, that reads as success, and Redis answers the
    overlap error, turns tracking on anyway and answers +OK as well (two replies to one
    command). warden answers the error alone; two prefixes overlapping the first are sent."""
    kept, prefixes = [], []
    for part in parts:
        if part[0].upper() == "PREFIX" and len(part) == 2:
            if any(a.startswith(b) or b.startswith(a) for a in [part[1]] for b in prefixes[1:]):
                continue
            prefixes.append(part[1])
        kept.append(part)
    return kept


def is_push(value, subscribed):
    """Whether a frame is an out-of-band message rather than a command's reply."""
    if value[0] == ">":
        return True
    return (subscribed and value[0] == "*" and value[1] is not None and len(value[1]) == 3
            and value[1][0] == ("$", b"message"))


def is_pong(value):
    return value == ("+", b"PONG") or value == ("*", [("$", b"pong"), ("$", b"")])


def invalidated_keys(frames):
    """The keys a sync's frames invalidate, as a sorted list of (connection, key or None for
    "all"), whatever pushes they came in: for a full SCAN, which removes lapsed keys in hash
    table order, page by page."""
    keys = []
    for name, value in frames[1]:
        payload = value[1][-1] if value[0] in ">*" and value[1] else value
        if payload[0] in "*~" and payload[1] is not None:
            keys += [(name, repr(item)) for item in payload[1]]
        else:
            keys.append((name, repr(payload)))
    return sorted(keys)


def mask_redirect(value):
    """CLIENT TRACKINGINFO or GETREDIR with a client id (any positive integer where the
    redirect goes) turned into 1."""
    kind, data = value
    if kind == ":" and data > 0:
        return (":", 1)
    if kind == "%":
        return (kind, [(k, mask_redirect(v) if k == ("$", b"redirect") else v)
                       for k, v in data])
    if kind == "*" and data:
        items = list(data)
        for i in range(0, len(items) - 1, 2):
            if items[i] == ("$", b"redirect"):
                items[i + 1] = mask_redirect(items[i + 1])
        return (kind, items)
    return value


class TrackingSide:
    """The track and sub connections to one server, opened when a command first needs them.
    The sub connection's CLIENT ID is read as soon as it opens (a subscribed RESP2 connection
    could not ask later)."""

    def __init__(self, port):
        self.port = port
        self.conns = {}
        self.sub_id = None
        self.subscribed = False

    def conn(self, name):
        if name not in self.conns:
            self.conns[name] = RespConnection(self.port)
            if name == SUB:
                self.sub_id = self.conns[name].call("CLIENT", "ID")[1]
        return self.conns[name]

    def send(self, cmd):
        conn = self.conn(cmd.conn)
        args = list(cmd.args)
        if REDIRECT_ID in args:
            self.conn(SUB)
            args = [str(self.sub_id) if a == REDIRECT_ID else a for a in args]
        conn.send(args)
        if cmd.conn == SUB and args[0].upper() == "SUBSCRIBE":
            self.subscribed = True

    def read(self, cmd):
        """The command's reply, or ("frames", [pushes that came first..., reply])."""
        conn = self.conns[cmd.conn]
        subscribed = cmd.conn == SUB and self.subscribed
        frames = []
        while True:
            value = conn.read_reply()
            if not is_push(value, subscribed):
                return ("frames", frames + [value]) if frames else value
            frames.append(value)

    def sync(self):
        """Every frame waiting on the track and sub connections, read up to a PING's reply:
        ("frames", [...]) over both connections, each frame tagged with its connection."""
        names = [name for name in (TRACK, SUB) if name in self.conns]
        for name in names:
            self.conns[name].send(["PING"])
        frames = []
        for name in names:
            while True:
                value = self.conns[name].read_reply()
                if is_pong(value):
                    break
                frames.append((name, value))
        return ("frames", frames)

    def close(self):
        for conn in self.conns.values():
            conn.close()
        self.conns = {}


class TrackingMakers:
    # The generator's state for tracking (what was set up, whether tracking is on) lives in the
    # Generator's `tracking` dict: a hint, not the truth.

    def tracking_cmd(self):
        if self.active_expiry:
            return self.get_family()
        state = self.tracking
        if not state.get("setup"):
            state["setup"] = True
            r = self.rng.random()
            if r < 0.55:
                state["resp3"] = True
                return Command(["HELLO", "3"], mode="hello", conn=TRACK)
            state["redirect"] = True
            if r < 0.85:
                return Command(["SUBSCRIBE", INVALIDATE_CHANNEL], conn=SUB)
            if r < 0.95:
                return Command(["HELLO", "3"], mode="hello", conn=SUB)
            return Command(["PING"], conn=SUB)  # a RESP2 target that never subscribed
        r = self.rng.random()
        if not state.get("on") and r < 0.6 or r < 0.06:
            return self.tracking_switch()
        if r < 0.12:
            words = ["yes", "no", "YES"] if not self.bad(0.1) else ["maybe", ""]
            return Command(["CLIENT", "CACHING", self.rng.choice(words)], conn=TRACK)
        if r < 0.15:
            return Command(self.rng.choice([["CLIENT", "TRACKINGINFO"], ["CLIENT", "GETREDIR"]]),
                           mode="redirect", conn=TRACK)
        if r < 0.2:
            # A write of the tracking connection's own (NOLOOP decides whether it hears of it).
            key = self.key()
            return Command(self.rng.choice([["SET", key, self.value()], ["DEL", key],
                                            ["INCR", key], ["APPEND", key, "x"]]), conn=TRACK)
        if r < 0.22:
            return Command(["SELECT", self.rng.choice(["0", "0", "1"])], conn=TRACK)
        if r < 0.225:
            state["on"] = False
            state["resp3"] = False
            return Command(["RESET"], conn=TRACK)
        if r < 0.23:
            resp = self.rng.choice(["2", "3"])
            state["resp3"] = resp == "3"
            return Command(["HELLO", resp], mode="hello", conn=TRACK)
        return self.tracking_read()

    def tracking_switch(self):
        state = self.tracking
        if state.get("on") and self.rng.random() < 0.5:
            state["on"] = False
            return Command(["CLIENT", "TRACKING", self.opt("OFF")], conn=TRACK)
        parts = []  # the options, in groups that stay together when shuffled
        if state.get("redirect") and self.rng.random() < 0.85:
            parts.append([self.opt("REDIRECT"), REDIRECT_ID if not self.bad(0.03) else "999999"])
        r = self.rng.random()
        if r < 0.4:
            pass
        elif r < 0.65:
            parts.append([self.opt("BCAST")])
            for _ in range(self.rng.choice([0, 1, 1, 2, 3])):
                parts.append([self.opt("PREFIX"), self.rng.choice(PREFIXES)])
        elif r < 0.8:
            parts.append([self.opt("OPTIN")])
        elif r < 0.95:
            parts.append([self.opt("OPTOUT")])
        else:
            parts.append(self.rng.choice([["PREFIX", "k"], ["OPTIN", "OPTOUT"],
                                          ["BCAST", "OPTIN"], ["FOO"], ["REDIRECT"], ["PREFIX"],
                                          ["OPTIN", "BCAST"]]))
        if self.rng.random() < 0.3:
            parts.append([self.opt("NOLOOP")])
        self.rng.shuffle(parts)
        state["on"] = True
        return Command(["CLIENT", "TRACKING", self.opt("ON")] +
                       [w for p in redis_safe_prefixes(parts) for w in p], conn=TRACK)

    def tracking_read(self):
        """A read on the tracking connection: the keys it reads are the ones it is told of."""
        key = self.key()
        reads = [
            lambda: ["GET", key],
            lambda: ["GET", self.rng.choice(["k0", "k1", "k2", "lock:a"])],
            lambda: ["MGET", key, self.key(), self.key()],
            lambda: ["EXISTS", key],
            lambda: ["STRLEN", key],
            lambda: ["TYPE", key],
            lambda: ["HGET", self.hkey(), self.field()],
            lambda: ["HLEN", self.hkey()],
            lambda: ["SCARD", self.skey()],
            lambda: ["SISMEMBER", self.skey(), self.member()],
            lambda: ["LRANGE", self.lkey(), "0", "-1"],
            lambda: ["ZRANGE", self.zkey(), "0", "-1", "WITHSCORES"],
            lambda: ["GETBIT", self.bkey(), self.rng.choice(["0", "3", "100"])],
            lambda: ["PFCOUNT", self.pkey(), self.pkey()],
            lambda: ["GEOPOS", self.gkey_geo(), "Palermo"],
            lambda: ["EVAL_RO", "return redis.call('get', KEYS[1])", "1", key],
            lambda: ["SORT_RO", self.rng.choice(["lsort", "l0", "isort"]), "ALPHA"],
        ]
        return Command(self.rng.choice(reads)(), conn=TRACK)
