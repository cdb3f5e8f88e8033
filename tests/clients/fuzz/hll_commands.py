"""The makers of HyperLogLog commands (PFADD, PFCOUNT, PFMERGE, PFDEBUG), mixed into
commands.Generator like the others. An HLL is a string in Redis's own byte layout (a 16-byte
header, then sparse opcodes or 12,288 bytes of dense registers), which warden keeps exactly: GET
of an HLL key is compared byte for byte, like every other reply here.

Values grow from sparse to dense by batches of hundreds or thousands of elements, and by
lowering hll-sparse-max-bytes now and then (fuzz_diff.py puts Redis's default, 3000, back at
each sequence's start). Now and then an HLL is corrupted: the tester reads a key's value (GET,
compared exactly) and SETs it back mutated (a bit flipped in the header or the registers, cut
short, extended, a valid cached cardinality written in), so that the next PFCOUNT, PFADD,
PFMERGE or PFDEBUG meets it; their errors ("WRONGTYPE Key is not a valid HyperLogLog string
value.", "INVALIDOBJ Corrupted HLL object detected") must match too. The mutation is decided
when the sequence is generated, and applied to whatever the GET read (HllMutation); a shrunk
reproduction prints the bytes that were SET."""

from dataclasses import dataclass

from fuzz.command import Command

OWN_HLL_KEYS = ["p0", "p1", "p2"]  # and "pdst", PFMERGE's destination
SHARED_HLL_KEYS = ["k0", "k1", "b0"]  # strings and bitmaps of the other makers
OTHER_TYPE_KEYS = ["h0", "s0", "z0"]
FEW_ELEMENTS = ["a", "b", "c", "", "foo", "x\x00y", "1", "2", "-1", "hello world", "L" * 70]
SPARSE_LIMITS = ["0", "1", "10", "50", "100", "300", "1000", "3000", "3000", "20000"]
BAD_SPARSE_LIMITS = ["-1", "abc", ""]
HLL_HEADER = 16


@dataclass
class HllMutation:
    """SET key <the value read by the probe, mutated>: what fuzz_diff.Pair sends after reading
    the probe's reply from the reference server (both servers get the same bytes, and the
    probe's replies are compared exactly first)."""
    key: str
    op: str  # "flip", "header", "truncate", "append", "card", "splice"
    at: float  # where, as a fraction of the length (of the registers past the header)
    value: int  # the XOR mask, the byte, the count, the cached cardinality

    def __call__(self, probe_replies):
        reply = probe_replies[-1]
        data = reply[1] if reply[0] == "$" and reply[1] is not None else b""
        return ["SET", self.key, self.mutate(bytearray(data))]

    def mutate(self, data):
        body = max(0, len(data) - HLL_HEADER)
        if self.op == "flip" and body:
            data[HLL_HEADER + int(self.at * body)] ^= self.value or 1
        elif self.op == "splice" and body:
            pos = HLL_HEADER + int(self.at * body)
            data[pos:pos + 1 + self.value % 3] = bytes([self.value]) * (1 + self.value % 3)
        elif self.op == "header" and data:
            # The magic (0-3), the encoding (4), the unused bytes (5-7), the cache (8-15).
            pos = int(self.at * min(len(data), HLL_HEADER))
            data[pos] = self.value
        elif self.op == "truncate":
            cuts = [0, 3, 4, 15, 16, 17, len(data) // 2, len(data) - 1, len(data) - 2]
            data = data[:max(0, cuts[self.value % len(cuts)])]
        elif self.op == "append":
            data += [b"\x00", b"\x7f", b"\x80", b"\x40\x00", b"\xff\xff", b"x" * 40][
                self.value % 6]
        elif self.op == "card" and len(data) >= HLL_HEADER:
            # A valid cache (the top bit of the last byte clear): PFCOUNT answers it as it is.
            data[8:16] = (self.value & ((1 << 63) - 1)).to_bytes(8, "little")
        return bytes(data)

    def describe(self):
        return "<the value read just before, %s at %.2f with %d>" % (self.op, self.at,
                                                                      self.value)


class HllMakers:
    def pkey(self):
        r = self.rng.random()
        if r < 0.78:
            return self.rng.choice(OWN_HLL_KEYS)
        if r < 0.93:
            return self.rng.choice(SHARED_HLL_KEYS)
        if r < 0.97:
            return self.rng.choice(OTHER_TYPE_KEYS)
        return self.key()

    def hll_element(self):
        r = self.rng.random()
        if r < 0.2:
            return self.rng.choice(FEW_ELEMENTS)
        if r < 0.7:
            return "e%d" % self.rng.randint(0, 300)
        return "e%d" % self.rng.randint(0, 100000)

    def hll_batch(self, n):
        start = self.rng.randint(0, 100000)
        return ["%s%d" % (self.rng.choice(["e", "m", ""]), start + i) for i in range(n)]

    def hll_cmd(self):
        op = self.rng.choices(
            ["PFADD", "PFCOUNT", "PFCOUNTN", "PFMERGE", "GET", "CORRUPT", "BATCH", "CONFIG",
             "PFDEBUG", "APPEND", "SCRIPT"],
            weights=[20, 10, 5, 6, 8, 4, 2, 1.5, 2, 1, 1])[0]
        key = self.pkey()
        if op == "PFADD":
            n = self.rng.choice([0, 1, 1, 2, 3, 5, 10])
            return Command([op, key] + [self.hll_element() for _ in range(n)])
        if op == "BATCH":
            # Enough for the sparse form to pass hll-sparse-max-bytes at Redis's default.
            n = self.rng.choice([100, 300, 1000, 2500])
            return Command(["PFADD", self.rng.choice(OWN_HLL_KEYS)] + self.hll_batch(n))
        if op == "PFCOUNT":
            # One key: PFCOUNT also writes the cached cardinality into the value.
            return Command([op, key])
        if op == "PFCOUNTN":
            keys = [key] + [self.pkey() for _ in range(self.rng.randint(1, 3))]
            return Command(["PFCOUNT"] + keys)
        if op == "PFMERGE":
            dest = self.rng.choice(["pdst", "pdst", "p0", "p1", "k1"])
            sources = [self.pkey() for _ in range(self.rng.choice([0, 1, 1, 2, 3]))]
            return Command([op, dest] + sources)
        if op == "GET":
            return Command([op, self.rng.choice(OWN_HLL_KEYS + ["pdst", key])])
        if op == "CORRUPT":
            source = self.rng.choice(OWN_HLL_KEYS + ["pdst"])
            target = source if self.rng.random() < 0.8 else self.rng.choice(OWN_HLL_KEYS)
            mutation = HllMutation(
                key=target, op=self.rng.choice(["flip", "flip", "splice", "header", "truncate",
                                                "append", "card"]),
                at=self.rng.random(), value=self.rng.randint(0, 255) if self.rng.random() < 0.8
                else self.rng.randint(0, 1 << 40))
            if mutation.op in ("flip", "splice", "header"):
                mutation.value &= 0xFF
            return Command(["SET", target, mutation.describe()], pre=[["GET", source]],
                           derive=mutation)
        if op == "CONFIG":
            value = self.rng.choice(BAD_SPARSE_LIMITS) if self.bad(0.05) else \
                self.rng.choice(SPARSE_LIMITS)
            return Command(["CONFIG", "SET", "hll-sparse-max-bytes", value])
        if op == "PFDEBUG":
            sub = self.rng.choices(["ENCODING", "TODENSE", "DECODE", "GETREG", "FOO"],
                                   weights=[6, 3, 3, 1, 0.5])[0]
            return Command(["PFDEBUG", self.opt(sub), key])
        if op == "APPEND":
            return Command([op, key, self.rng.choice(["x", "\x00", "\x7f\xff"])])
        # PFADD and PFCOUNT from a script (EVAL_RO refuses PFCOUNT: it may write its cache).
        body = self.rng.choice([
            "return redis.call('pfcount', KEYS[1])",
            "return redis.pcall('pfadd', KEYS[1], ARGV[1])",
            "redis.call('pfadd', KEYS[1], ARGV[1]) return redis.call('pfcount', KEYS[1])",
        ])
        return Command([self.rng.choice(["EVAL", "EVAL", "EVAL_RO"]), body, "1", key,
                        self.hll_element()])
