"""The makers of bitmap commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD,
BITFIELD_RO), mixed into commands.Generator like the others, with the argument pools they draw
from. Bitmaps are strings: the same keys also get GET, APPEND, SETRANGE, GETRANGE and STRLEN,
and the string keys of the other makers get bit commands (and the bitmap keys a hash or a set
now and then, for WRONGTYPE). Every reply is deterministic, so each command is compared exactly.

Offsets stay within a few KB (32,768 bits) but for rare larger ones (up to 2^20 bits, 128 KB)
and invalid ones (negative, past 2^32 - 1, not integers). No valid offset near the 512 MB limit
is sent: it would allocate that much on both servers."""

from fuzz.command import Command

OWN_BIT_KEYS = ["b0", "b1", "b2"]  # and "bdst", BITOP's destination
SHARED_BIT_KEYS = ["k0", "k1", "lock:a", "p0"]  # strings of the other makers, an HLL
OTHER_TYPE_KEYS = ["h0", "s0", "l0", "z0"]
SMALL_BITS = ["0", "1", "2", "7", "8", "9", "15", "16", "31", "63", "64", "100", "127"]
MODERATE_BITS = ["255", "256", "1000", "4095", "4096", "8191", "20000", "32767"]
LARGE_BITS = ["65536", "100000", "1048575", "1048576"]
BAD_BITS = ["-1", "abc", "", "1.5", "4294967296", "9223372036854775807", " 1", "0x10",
            "18446744073709551616"]
READ_ONLY_BITS = ["4294967295"]  # the largest offset: fine to read, never written
BIT_VALUES = ["0", "1"]
BAD_BIT_VALUES = ["2", "-1", "abc", "", "01", "1.0"]
# Byte (or bit) indexes of BITCOUNT, BITPOS and GETRANGE.
BIT_INDEXES = ["0", "1", "2", "3", "-1", "-2", "-3", "5", "10", "100", "-100", "1000", "4095",
               "9223372036854775807", "-9223372036854775808"]
BIT_TYPES = ["u1", "u2", "u3", "u4", "u5", "u7", "u8", "u15", "u16", "u31", "u32", "u33",
             "u63", "i1", "i2", "i3", "i4", "i5", "i7", "i8", "i16", "i31", "i32", "i33",
             "i63", "i64"]
BAD_BIT_TYPES = ["u64", "i65", "u0", "i0", "x8", "i", "U8", "I8", "u-1", "", "u08", "i 8"]
FIELD_VALUES = ["0", "1", "-1", "2", "5", "7", "8", "15", "16", "-16", "100", "127", "128",
                "-128", "255", "256", "1000", "65535", "65536", "-65536", "2147483647",
                "-2147483648", "4294967295", "9223372036854775807", "-9223372036854775808"]
BAD_FIELD_VALUES = ["abc", "", "1.5", "18446744073709551615", "9223372036854775808", " 1"]
BIT_TEXTS = ["\xff", "\x00", "foobar", "abc", "\xf0\x0f", "\x80", "\x01\x02\x03", "1", "xyz"]


class BitMakers:
    def bkey(self):
        r = self.rng.random()
        if r < 0.72:
            return self.rng.choice(OWN_BIT_KEYS)
        if r < 0.9:
            return self.rng.choice(SHARED_BIT_KEYS)
        if r < 0.95:
            return self.rng.choice(OTHER_TYPE_KEYS)
        return self.key()

    def bit_offset(self, read=False):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(SMALL_BITS)
        if r < 0.88:
            return self.rng.choice(MODERATE_BITS)
        if r < 0.92:
            return str(self.rng.randint(0, 32767))
        if r < 0.95:
            return self.rng.choice(LARGE_BITS)
        if read and r < 0.97:
            return self.rng.choice(READ_ONLY_BITS)
        return self.rng.choice(BAD_BITS)

    def bit_index(self):
        return self.rng.choice(BIT_INDEXES) if not self.bad() else self.rng.choice(
            ["abc", "", "1.5", " 1", "9223372036854775808"])

    def field_type(self):
        return self.rng.choice(BAD_BIT_TYPES) if self.bad(0.04) else self.rng.choice(BIT_TYPES)

    def field_offset(self):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(SMALL_BITS)
        if r < 0.7:
            return "#" + self.rng.choice(["0", "1", "2", "3", "5", "10", "100"])
        if r < 0.9:
            return self.rng.choice(MODERATE_BITS)
        if r < 0.94:
            return self.rng.choice(["#1000", "#4000", "65536"])
        # (No "#N" that only a wide type pushes past 2^32 - 1 bits: with a narrow one it is a
        # valid offset hundreds of MB in.)
        return self.rng.choice(["-1", "#-1", "#", "abc", "", "4294967296", "#4294967296",
                                "#9223372036854775807", "1.5", "# 1"])

    def field_value(self):
        return self.rng.choice(BAD_FIELD_VALUES) if self.bad(0.04) else \
            self.rng.choice(FIELD_VALUES)

    def bitfield_ops(self, read_only):
        """BITFIELD's subcommands: mostly GETs for BITFIELD_RO, mixed for BITFIELD."""
        args = []
        for _ in range(self.rng.choice([1, 1, 2, 2, 3, 4, 6])):
            r = self.rng.random()
            if r < (0.85 if read_only else 0.35):
                args += [self.opt("GET"), self.field_type(), self.field_offset()]
            elif r < (0.9 if read_only else 0.6):
                args += [self.opt("SET"), self.field_type(), self.field_offset(),
                         self.field_value()]
            elif r < (0.93 if read_only else 0.82):
                args += [self.opt("INCRBY"), self.field_type(), self.field_offset(),
                         self.field_value()]
            elif r < 0.97:
                mode = self.rng.choice(["WRAP", "SAT", "FAIL"]) if not self.bad(0.08) else \
                    self.rng.choice(["FOO", "", "SATURATE"])
                args += [self.opt("OVERFLOW"), self.opt(mode)]
            else:
                # A subcommand cut short, or an unknown one.
                args += self.rng.choice([["GET", "u8"], ["SET", "u8", "0"], ["INCRBY"],
                                         ["OVERFLOW"], ["FOO", "u8", "0"], ["GET"]])
        return args

    def bit_cmd(self):
        op = self.rng.choices(
            ["SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO",
             "GET", "APPEND", "SETRANGE", "GETRANGE", "STRLEN", "SET", "BIG", "SCRIPT"],
            weights=[16, 8, 8, 8, 6, 12, 4, 4, 3, 3, 2, 2, 2, 0.5, 1])[0]
        key = self.bkey()
        if op == "SETBIT":
            value = self.rng.choice(BIT_VALUES) if not self.bad(0.04) else \
                self.rng.choice(BAD_BIT_VALUES)
            return Command([op, key, self.bit_offset(), value])
        if op == "GETBIT":
            return Command([op, key, self.bit_offset(read=True)])
        if op == "BITCOUNT":
            args = [op, key]
            r = self.rng.random()
            if r < 0.75:
                args += [self.bit_index(), self.bit_index()]
                if self.rng.random() < 0.5:
                    args.append(self.opt(self.rng.choice(["BYTE", "BIT"]))
                                if not self.bad(0.06) else self.rng.choice(["BITS", "", "x"]))
            elif r < 0.8:
                args.append(self.bit_index())  # a start without an end: a syntax error
            elif r < 0.83:
                args += ["0", "-1", "BIT", "BIT"]
            return Command(args)
        if op == "BITPOS":
            bit = self.rng.choice(BIT_VALUES) if not self.bad(0.05) else \
                self.rng.choice(BAD_BIT_VALUES)
            args = [op, key, bit]
            n = self.rng.choice([0, 1, 2, 2, 3])
            if n >= 1:
                args.append(self.bit_index())
            if n >= 2:
                args.append(self.bit_index())
            if n >= 3:
                args.append(self.opt(self.rng.choice(["BYTE", "BIT"]))
                            if not self.bad(0.06) else self.rng.choice(["BITS", "x"]))
            return Command(args)
        if op == "BITOP":
            name = self.rng.choice(["AND", "OR", "XOR", "NOT"]) if not self.bad(0.04) else \
                self.rng.choice(["NAND", "", "ANDOR", "NOT1"])
            dest = self.rng.choice(["bdst", "bdst", "b0", "b1", "k0"])
            sources = [self.bkey() for _ in range(
                1 if name.upper() == "NOT" and not self.bad(0.1) else self.rng.randint(1, 4))]
            return Command([op, self.opt(name), dest] + sources)
        if op in ("BITFIELD", "BITFIELD_RO"):
            ops = self.bitfield_ops(op == "BITFIELD_RO")
            if op == "BITFIELD" and self.rng.random() < 0.03:
                ops = []  # BITFIELD key alone: an empty reply, and no key made
            return Command([op, key] + ops)
        if op == "GET":
            return Command([op, key])
        if op == "APPEND":
            return Command([op, key, self.rng.choice(BIT_TEXTS)])
        if op == "SETRANGE":
            offset = self.rng.choice(["0", "1", "3", "8", "100", "4000"]) if not self.bad() \
                else self.rng.choice(["-1", "536870912", "abc"])
            return Command([op, key, offset, self.rng.choice(BIT_TEXTS)])
        if op == "GETRANGE":
            return Command([op, key, self.bit_index(), self.bit_index()])
        if op == "STRLEN":
            return Command([op, key])
        if op == "SET":
            return Command([op, key, self.rng.choice(BIT_TEXTS + ["0", "12345", "-1"])])
        if op == "BIG":
            # A run of set bits over a few KB in one script (bitcounts over whole words).
            step = self.rng.choice(["1", "3", "7", "13"])
            body = ("for i = 0, 4000, tonumber(ARGV[1]) do redis.call('setbit', KEYS[1], i, 1) "
                    "end return redis.call('bitcount', KEYS[1])")
            return Command(["EVAL", body, "1", self.rng.choice(OWN_BIT_KEYS), step])
        # BITFIELD and BITFIELD_RO from a script (BITFIELD_RO is allowed in read-only ones).
        ops = self.bitfield_ops(True)
        body = "return redis.call('%s', KEYS[1], unpack(ARGV))" % self.rng.choice(
            ["bitfield_ro", "bitfield"])
        return Command([self.rng.choice(["EVAL", "EVAL_RO"]), body, "1", key] + ops)
