"""How fuzz_diff compares two servers' replies: exactly, except where Redis itself may answer
differently from run to run or server to server (TTLs and clock readings within a tolerance,
hash-table orders as sets, random picks by shape and membership, HELLO without its id,
SORT's groups, geo COUNT ANY by membership). See fuzz_diff.py's docstring for the rules and
tests/clients/README.md for why each one holds.

Also the full-iteration helpers (SCAN, HSCAN) whose results are compared as sets.
"""

from collections import Counter

from fuzz.commands import redis_int
from fuzz.tracking import mask_redirect


def strip_hello_id(value):
    """HELLO's reply (a map in RESP3, a flat array in RESP2) with the id value blanked."""
    kind, data = value
    if kind == "%":
        return (kind, [(k, (":", 0) if k == ("$", b"id") else v) for k, v in data])
    if kind == "*" and data:
        items = list(data)
        for i in range(0, len(items) - 1, 2):
            if items[i] == ("$", b"id"):
                items[i + 1] = (":", 0)
        return (kind, items)
    return value


def within(a, b, tol):
    """Structural equality with integers allowed to differ by tol."""
    if a[0] != b[0]:
        return False
    if a[0] in ":(":
        return abs(a[1] - b[1]) <= tol
    if a[0] in "*~>" and a[1] is not None and b[1] is not None:
        return len(a[1]) == len(b[1]) and all(within(x, y, tol) for x, y in zip(a[1], b[1]))
    return a == b


CLOCK_FIELDS = {b"idle", b"seen-time", b"active-time", b"inactive"}


def clocks_marked(cmd, value):
    """The reply with its clock readings (milliseconds) turned into ("clock", n): XPENDING's
    idle times (its extended form), the idle of XINFO CONSUMERS, XINFO STREAM FULL's seen-time
    and the delivery times in its PELs. Fields are found by name in maps and in RESP2's
    flat field-value arrays; a PEL entry is [id, consumer, time, count] (a group's, XPENDING's)
    or [id, time, count] (a consumer's)."""
    if cmd.args[0].upper() == "XPENDING":
        if len(cmd.args) <= 3 or value[0] != "*" or value[1] is None:
            return value
        return ("*", [pel_entry_marked(item, 4) for item in value[1]])
    return _clock_fields(value)


def pel_entry_marked(item, size):
    if item[0] == "*" and item[1] is not None and len(item[1]) == size \
            and item[1][-2][0] == ":":
        items = list(item[1])
        items[-2] = ("clock", items[-2][1])
        return ("*", items)
    return item


def _clock_field(key, value):
    name = key[1] if key[0] in "$+" else None
    if name in CLOCK_FIELDS and value[0] in ":(":
        return ("clock", value[1])
    if name == b"pending" and value[0] == "*" and value[1] is not None:
        return ("*", [pel_entry_marked(pel_entry_marked(e, 4), 3) for e in value[1]])
    return value


def _clock_fields(value):
    kind, data = value
    if kind == "%":
        return (kind, [(k, _clock_field(k, _clock_fields(v))) for k, v in data])
    if kind in "*~>" and data is not None:
        items = [_clock_fields(v) for v in data]
        if kind == "*" and len(items) % 2 == 0:
            for i in range(0, len(items), 2):
                items[i + 1] = _clock_field(items[i], items[i + 1])
        return (kind, items)
    return value


def clocks_within(a, b, tol):
    """Structural equality, except that clock readings may differ by tol."""
    if a[0] == "clock" and b[0] == "clock":
        return abs(a[1] - b[1]) <= tol
    if a[0] != b[0]:
        return False
    if a[0] == "%":
        return len(a[1]) == len(b[1]) and all(
            clocks_within(ka, kb, tol) and clocks_within(va, vb, tol)
            for (ka, va), (kb, vb) in zip(a[1], b[1]))
    if a[0] in "*~>" and a[1] is not None and b[1] is not None:
        return len(a[1]) == len(b[1]) and all(clocks_within(x, y, tol)
                                              for x, y in zip(a[1], b[1]))
    return a == b


def sort_arrays(value):
    kind, data = value
    if kind in "*~" and data is not None:
        return (kind, sorted((sort_arrays(v) for v in data), key=repr))
    if kind == "%":
        return (kind, sorted(((sort_arrays(k), sort_arrays(v)) for k, v in data), key=repr))
    return value


def function_collision(value):
    """Whether a reply is FUNCTION LOAD's "Function <name> already exists": when several of a
    library's functions are taken, Redis names the first its hash table yields, an order seeded
    at random per process."""
    kind, data = value
    return kind == "-" and data.startswith(b"ERR Function ") and data.endswith(b" already exists")


def unordered(value, pairs=False):
    """An array or set as a sorted multiset (pairs=True: of consecutive field-value pairs, as
    HGETALL replies in RESP2), a map as its sorted pairs; anything else as it is."""
    kind, data = value
    if kind == "%":
        return (kind, sorted(data, key=repr))
    if kind in "*~" and data is not None:
        if pairs:
            return (kind, sorted(zip(data[0::2], data[1::2]), key=repr), len(data) % 2)
        return (kind, sorted(data, key=repr))
    return value


def atom(item):
    """A reply element as something hashable: the bytes of a string, else its repr."""
    return item[1] if item[0] == "$" and item[1] is not None else repr(item)


def elements(value):
    """The strings of an array or set reply ([] for anything else)."""
    if value[0] in "*~" and value[1] is not None:
        return [atom(item) for item in value[1]]
    return []


def hash_pairs(value):
    """HGETALL's reply as a dict (RESP2 flat array or RESP3 map)."""
    if value[0] == "%":
        return {atom(k): atom(v) for k, v in value[1]}
    items = elements(value)
    return dict(zip(items[0::2], items[1::2]))


def parse_int(arg):
    try:
        return int(arg)
    except ValueError:
        return None


HASHTABLE = ("$", b"hashtable")
ZSET_TYPE = ("+", b"zset")  # TYPE's reply
SKIPLIST = ("$", b"skiplist")  # a sorted set's member table: ZSCAN's order is the seed's
SHARED_REFCOUNT = (":", 2147483647)  # OBJECT REFCOUNT of a shared integer (OBJ_SHARED_REFCOUNT)
# The stream node sizes a sequence may lower (fuzz/stream_commands.py): set at each sequence's
# start, so that a shrunk sequence without the command that put them back stays self-contained,
# and when the tester lets go of the servers.
STREAM_NODE_DEFAULTS = ["CONFIG", "SET", "stream-node-max-entries", "100",
                        "stream-node-max-bytes", "4096"]
# The same for the sparse HyperLogLog limit (fuzz/hll_commands.py lowers it).
HLL_DEFAULTS = ["CONFIG", "SET", "hll-sparse-max-bytes", "3000"]


def pick_ok(cmd, before, reply):
    """Whether a random pick (SRANDMEMBER, HRANDFIELD, SPOP) is one the value `before` (the
    SMEMBERS or HGETALL reply read just before) allows."""
    name = cmd.args[0].upper()
    content = hash_pairs(before) if name == "HRANDFIELD" else None
    universe = set(content) if content is not None else set(elements(before))
    if len(cmd.args) < 3:  # one pick, or nil for a missing key
        if reply[0] in "$_" and reply[1] is None:
            return not universe
        return reply[0] == "$" and reply[1] in universe
    if reply[0] not in "*~" or reply[1] is None:
        return False
    count = parse_int(cmd.args[2])
    if count is None:
        return False
    items = reply[1]
    if name == "HRANDFIELD" and len(cmd.args) == 4:  # WITHVALUES
        if items and items[0][0] == "*":  # RESP3: [field, value] pairs
            if any(item[0] != "*" or item[1] is None or len(item[1]) != 2 for item in items):
                return False
            pairs = [(atom(item[1][0]), atom(item[1][1])) for item in items]
        elif len(items) % 2:
            return False
        else:
            pairs = [(atom(items[i]), atom(items[i + 1])) for i in range(0, len(items), 2)]
        if any(content.get(f) != v for f, v in pairs):
            return False
        picks = [f for f, _ in pairs]
    else:
        if any(item[0] != "$" for item in items):
            return False
        picks = [item[1] for item in items]
    if not set(picks) <= universe:
        return False
    if not universe:
        return not picks
    if count >= 0:
        return len(picks) == min(count, len(universe)) and len(set(picks)) == len(picks)
    return len(picks) == -count


def replies_match(cmd, a, b):
    try:
        return compare(cmd, a, b)
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return False  # a reply not shaped as the comparison expects: a difference


def compare(cmd, a, b):
    if a[0] == "lost" or b[0] == "lost":
        return a == b
    if cmd.pre and cmd.mode not in ("randpick", "spop", "encoded", "idle", "geoany", "sortset"):
        # Probes compared exactly, then the command's own reply.
        if a[1][:-1] != b[1][:-1]:
            return False
        a, b = a[1][-1], b[1][-1]
    if cmd.mode == "encoded":
        (enc_a, a), (enc_b, b) = a[1], b[1]
        if enc_a != enc_b:
            return False
        if enc_a != HASHTABLE:
            return a == b
        return unordered(a, cmd.args[0].upper() == "HGETALL") == \
            unordered(b, cmd.args[0].upper() == "HGETALL")
    if cmd.mode == "unordered":
        return unordered(a) == unordered(b)
    if cmd.mode == "sunion":
        # The union is built in a new set: an intset (sorted) while every member is an integer
        # and there are at most 512, a hashtable (any order) otherwise.
        if a == b:
            return True
        items = elements(a)
        if a[0] in "*~" and len(items) <= 512 and all(redis_int(x) for x in items):
            return False
        return unordered(a) == unordered(b)
    if cmd.mode in ("randpick", "spop"):
        (before_a, a), (before_b, b) = a[1], b[1]
        pairs = cmd.args[0].upper() == "HRANDFIELD"
        if unordered(before_a, pairs) != unordered(before_b, pairs):
            return False
        if a == b:
            return True
        if a[0] != b[0] or a[0] == "-":
            return False
        return pick_ok(cmd, before_a, a) and pick_ok(cmd, before_b, b)
    if cmd.mode == "hscan":
        (enc_a, first_a, items_a), (enc_b, first_b, items_b) = a[1], b[1]
        if enc_a != enc_b or items_a != items_b:
            return False
        # A listpack or intset is answered in one reply (cursor 0), in its own order.
        return enc_a in (HASHTABLE, SKIPLIST) or first_a == first_b
    if cmd.mode == "memusage":
        return a == b or (a[0] == b[0] == ":")
    if cmd.mode == "idle":
        (ref_a, a), (ref_b, b) = a[1], b[1]
        if ref_a != ref_b:
            return False
        if ref_a == SHARED_REFCOUNT:
            # A shared integer's LRU clock is touched by every key that holds it (and was set
            # when the server started): only the reply's type is certain.
            return a[0] == b[0] and (a[0] != "-" or a == b)
        return within(a, b, cmd.tol)
    if cmd.mode == "exact":
        return a == b
    if cmd.mode == "clock":
        return clocks_within(clocks_marked(cmd, a), clocks_marked(cmd, b), cmd.tol)
    if cmd.mode == "tol":
        return within(a, b, cmd.tol)
    if cmd.mode == "sorted":
        return sort_arrays(a) == sort_arrays(b)
    if cmd.mode == "load":
        return a == b or (function_collision(a) and function_collision(b))
    if cmd.mode == "nil_or_not":
        return a[0] == b[0] and (a[1] is None) == (b[1] is None)
    if cmd.mode == "hello":
        return strip_hello_id(a) == strip_hello_id(b)
    if cmd.mode == "redirect":
        return mask_redirect(a) == mask_redirect(b)
    if cmd.mode == "geoany":
        (full_a, a), (full_b, b) = a[1], b[1]
        if full_a != full_b:
            return False
        return a == b or (a[0] == b[0] == "*" and any_pick_ok(cmd, full_a, a)
                          and any_pick_ok(cmd, full_b, b))
    if cmd.mode == "sortset":
        return sortset_match(cmd, a[1], b[1])
    if cmd.mode == "scan":
        return a == b
    raise ValueError(cmd.mode)


def any_pick_ok(cmd, full, reply):
    """Whether a search's COUNT n ANY reply holds min(n, all) distinct results, each one of the
    whole search's (the probe, same centre and shape: the same distances and coordinates)."""
    if full[0] != "*" or full[1] is None or reply[1] is None:
        return False
    words = [w.upper() for w in cmd.args]
    count = parse_int([cmd.args[i + 1] for i in range(len(words) - 2)
                       if words[i] == "COUNT" and words[i + 2] == "ANY"][0])
    picks = [repr(item) for item in reply[1]]
    return (len(picks) == min(count, len(full[1])) and len(set(picks)) == len(picks)
            and set(picks) <= {repr(item) for item in full[1]})


def sort_groups(cmd, value):
    """A SORT reply as the sorted list of its element groups (an element or its GET values),
    or the reply itself when it is not an array."""
    if value[0] not in "*~" or value[1] is None:
        return value
    size = max(1, sum(1 for word in cmd.args if word.upper() == "GET"))
    items = [repr(item) for item in value[1]]
    return sorted(tuple(items[i:i + size]) for i in range(0, len(items), size))


def sortset_match(cmd, probes_a, probes_b):
    """SORT where the order a hash table yields elements in may show (fuzz/sort_commands.py):
    the errno reset and OBJECT ENCODING (of a set; TYPE of a sorted set) probes exactly, then
    the reply exactly unless the value is a hashtable set or a sorted set; for those the
    element groups as a multiset, and under a LIMIT (whose probe is the whole SORT) each
    server's groups within its own whole SORT."""
    (*probes_a, a), (*probes_b, b) = probes_a, probes_b
    if probes_a[:2] != probes_b[:2]:
        return False
    if probes_a[1] not in (HASHTABLE, ZSET_TYPE) or a == b and probes_a == probes_b:
        return probes_a == probes_b and a == b
    if len(probes_a) == 2:
        return sort_groups(cmd, a) == sort_groups(cmd, b)
    full_a, full_b = probes_a[2], probes_b[2]
    if sort_groups(cmd, full_a) != sort_groups(cmd, full_b):
        return False
    if a[0] not in "*~" or a[1] is None:
        return a == b
    groups_a, groups_b = sort_groups(cmd, a), sort_groups(cmd, b)
    return (a[0] == b[0] and len(groups_a) == len(groups_b)
            and not Counter(groups_a) - Counter(sort_groups(cmd, full_a))
            and not Counter(groups_b) - Counter(sort_groups(cmd, full_b)))


def scan_all(conn, args):
    """A full iteration of `args` (SCAN 0 ...): ("keys", frozenset) or the first error reply."""
    keys, rounds = set(), 0
    while True:
        conn.send(args)
        value = conn.read_reply()
        if value[0] != "*":
            return value
        cursor = value[1][0][1]
        keys.update(item[1] for item in value[1][1][1])
        args = [args[0], cursor] + list(args[2:])
        rounds += 1
        if cursor == b"0" or rounds > 100_000:
            return ("keys", frozenset(keys))


def hscan_all(conn, cmd):
    """OBJECT ENCODING of the key, then a full HSCAN/SSCAN iteration from the command's
    cursor: ("multi", [encoding, first reply, ("items", frozenset | None)]). The items are the
    members (SSCAN) or (field, value) pairs (HSCAN); None when a reply was not a scan page."""
    args = list(cmd.args)
    conn.send(["OBJECT", "ENCODING", args[1]])
    encoding = conn.read_reply()
    first, items, rounds = None, set(), 0
    while True:
        conn.send(args)
        value = conn.read_reply()
        first = first or value
        if (value[0] != "*" or value[1] is None or len(value[1]) != 2
                or value[1][0][0] != "$" or value[1][1][0] != "*" or value[1][1][1] is None):
            return ("multi", [encoding, first, ("items", None)])
        page = [atom(item) for item in value[1][1][1]]
        if args[0].upper() in ("HSCAN", "ZSCAN"):
            if len(page) % 2:
                return ("multi", [encoding, first, ("items", None)])
            items.update(zip(page[0::2], page[1::2]))
        else:
            items.update(page)
        cursor = value[1][0][1]
        args[2] = cursor
        rounds += 1
        if cursor == b"0" or rounds > 100_000:
            return ("multi", [encoding, first, ("items", frozenset(items))])


def popped(value):
    """The members an SPOP reply names, or None when it names none (error, wrong shape)."""
    if value[0] == "$":
        return [] if value[1] is None else [value[1]]
    if value[0] == "_":
        return []
    if value[0] in "*~" and value[1] is not None:
        return elements(value)
    return None
