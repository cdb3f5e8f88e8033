"""One generated command and how the tester compares its two replies (see commands.py)."""

from dataclasses import dataclass, field


@dataclass
class Command:
    """One generated command and how its two replies are compared.

    mode: "exact" (raw bytes), "tol" (integers within `tol`), "sorted" (arrays as sorted lists),
    "scan" (a full SCAN iteration from cursor 0, compared as key sets), "nil_or_not"
    (RANDOMKEY: both nil or both a key), "hello" (the map without its id), and for hashes and
    sets (see the module docstring): "encoded" (OBJECT ENCODING first, then exact or as a
    multiset), "unordered" (a multiset), "sunion", "randpick" and "spop" (the whole value
    first, then the pick checked against it), "hscan" (OBJECT ENCODING, then a full HSCAN/SSCAN
    iteration), "memusage" (reply type only), "idle" (OBJECT REFCOUNT first, then within `tol`),
    "load" (FUNCTION LOAD: exact, but any two "Function <name> already exists" match),
    and for streams "clock" (the clock readings in XPENDING, XINFO CONSUMERS and XINFO STREAM
    FULL replies, idle times, seen-times and delivery times, within `tol` ms; every other part
    of the reply exactly).
    For geo searches "geoany" (COUNT n ANY: exact, or each server's reply checked against its
    own whole search, the probe), for SORT "sortset" (OBJECT ENCODING of a set or TYPE of a
    sorted set first; for a hashtable set or a sorted set, element groups compared as a
    multiset, each within the server's own whole SORT under a LIMIT), for tracking "redirect"
    (any redirect client id blanked).
    `pre` holds the commands sent (to both servers, just before this one) whose replies the
    comparison uses.
    `conn` names the connection the command goes on: "main", or the tracking connections
    (fuzz/tracking.py) "track" and "sub".
    `derive`, when set, makes the arguments actually sent from the reference server's probe
    replies (fuzz/hll_commands.py's HllMutation); `args` then only describes them, and the
    tester keeps what it last sent in `sent`, for the reproduction.
    """
    args: list
    mode: str = "exact"
    tol: int = 0
    pre: list = field(default_factory=list)
    conn: str = "main"
    derive: object = None
    sent: list = None

    def case_line(self):
        """The command in tests/differential case-file syntax (several lines when probes or a
        comment go with it)."""
        return "\n  ".join(self.case_lines())

    def case_lines(self):
        lines = self._case_lines()
        if self.conn != "main":
            lines[-1] = "%s: %s" % (self.conn, lines[-1])
        return lines

    def _case_lines(self):
        words = " ".join(quote(a) for a in (self.sent or self.args))
        pre = [" ".join(quote(a) for a in p) for p in self.pre]
        if self.mode == "tol":
            return ["~%d %s" % (self.tol, words)]
        if self.mode == "sorted":
            return ["sorted " + words]
        if self.mode == "scan":
            return ["scanall " + " ".join(quote(a) for a in self.args[2:])]
        if self.mode in ("nil_or_not", "hello", "memusage"):
            return ["type " + words]
        if self.mode == "encoded":
            return ["# exact when OBJECT ENCODING is not hashtable, else sorted"] + pre + [words]
        if self.mode == "unordered":
            return ["sorted " + words]
        if self.mode == "sunion":
            return ["# exact when every member is an integer (an intset), else sorted",
                    words]
        if self.mode == "randpick":
            return ["# a random pick: type, count and membership in the value read first"] + \
                ["sorted " + p for p in pre] + ["type " + words]
        if self.mode == "spop":
            return ["# a random pop, checked against the members read first; then both "
                    "servers SREM whatever either popped"] + ["sorted " + p for p in pre] + \
                ["type " + words]
        if self.mode == "hscan":
            return ["# a full iteration from this cursor, compared as a set (exactly when "
                    "OBJECT ENCODING is not hashtable)", "OBJECT ENCODING " + quote(self.args[1]),
                    words]
        if self.mode == "clock":
            # A case file has no per-field tolerance: ~N loosens every integer of the reply.
            return ["# idle, seen and delivery times within %d ms, the rest exactly" % self.tol,
                    "~%d %s" % (self.tol, words)]
        if self.mode == "idle":
            return pre + ["~%d %s" % (self.tol, words)]
        if self.mode == "load":
            return ["# exact, but a taken function's name may differ: the servers hash in "
                    "different orders", words]
        if self.mode == "geoany":
            return ["# COUNT ANY: exact, or each result within its server's whole search",
                    "sorted " + pre[0], "type " + words]
        if self.mode == "sortset":
            return ["# exact unless a hashtable set or a sorted set: then element groups as a "
                    "multiset (within the whole SORT under a LIMIT)"] + pre + ["sorted " + words]
        if self.mode == "redirect":
            return ["type " + words]
        return pre + [words]


def quote(arg):
    data = arg if isinstance(arg, bytes) else str(arg).encode()
    plain = data and all(33 <= c < 127 and c not in b"\"'\\#" for c in data)
    if plain:
        return data.decode()
    out = []
    for c in data:
        if c == 0x22:
            out.append('\\"')
        elif c == 0x5C:
            out.append("\\\\")
        elif 32 <= c < 127:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return '"' + "".join(out) + '"'
