"""RDB files of every version (1 to 10) and every encoding Redis 7.0 reads, loaded by warden.

The files come from a generator of our own, written here from the format's facts (redis 7.0.15
src/rdb.c, rdb.h, ziplist.c, zipmap.c, intset.c, listpack.c, t_stream.c, and the older tags for
what each version could hold); nothing is taken from warden's C++ code. Each positive file is
loaded at start by redis-server 7.0.15 and by warden (WARDEN_BIN, exported by
tests/clients/run.sh), and the two data sets must be equal: every database's keys, TYPE,
PEXPIRETIME and contents in a canonical order, the FUNCTION LIST libraries with their code, and
INFO persistence's rdb_last_load_keys_loaded / _expired (each also equal to what the generator
expects). redis-check-rdb must pass every positive file that holds no empty collection, so
the generator itself is checked deeply. Each negative file must stop both servers at start.

A file only holds what its version could hold:
  1  Redis 2.0-2.2  types 0-4, EXPIRETIME (seconds)      6  2.6-3.0  ziplist int8/int24/immediates
  2  2.4            zipmap, ziplist, intset, zset zl     7  3.2      quicklist, AUX, RESIZEDB
  3  2.5 (unstable) EXPIRETIME_MS                        8  4.0      ZSET_2 (binary doubles)
  4  2.5 (unstable) hash ziplist                         9  5.0-6.2  stream (v1), IDLE, FREQ
  5  2.6 (unstable) CRC64 trailer                        10 7.0      listpacks, quicklist 2,
                                                                     stream v2, FUNCTION(2)
Every server gets `--save ""`, a temp directory of its own and --dbfilename, and is stopped by
its PID. No sleeps: waits poll with a deadline (a bounded wait on the process itself).
"""

import math
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections import namedtuple

import pytest
import redis

WAIT_S = 10
DATABASES = 16

# Deadlines: far in the past (dropped at load) or the future (kept), fixed so PEXPIRETIME is exact.
PAST_S = 1_000_000_000                  # 2001, as EXPIRETIME seconds
FUTURE_S = 2_100_000_000                # 2036, fits EXPIRETIME's signed 32 bits
PAST_MS = 1_000_000_000_123
FUTURE_MS = 4_102_444_800_456           # 2100


# --- CRC64 (Jones, reflected, init 0, no xorout) and LZF -----------------------------------------

def _crc64_table():
    poly = 0x95AC9329AC4BC9B5  # 0xad93d23594c935a9 bit-reversed
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc)
    return table


_CRC64_TABLE = _crc64_table()


def crc64(data, crc=0):
    for byte in data:
        crc = _CRC64_TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc


assert crc64(b"123456789") == 0xE9C6D914C4B8D9CA


def lzf_literals(data):
    """Valid LZF made of literal runs only: a control byte len-1 before up to 32 bytes."""
    out = bytearray()
    for i in range(0, len(data), 32):
        run = data[i:i + 32]
        out.append(len(run) - 1)
        out += run
    return bytes(out)


def lzf_compress(data):
    """Valid LZF with back references (greedy, a table of 3-byte prefixes): a reference of
    length L (3..264) at distance D (1..8192) is ((L-2)<<5 | (D-1)>>8) [L-9] (D-1)&0xff, the
    middle byte only when L-2 >= 7."""
    out = bytearray()
    literals = bytearray()
    last_seen = {}
    i = 0

    def flush():
        out.extend(lzf_literals(bytes(literals)))
        literals.clear()

    while i < len(data):
        match_len = 0
        if i + 3 <= len(data):
            prefix = data[i:i + 3]
            candidate = last_seen.get(prefix)
            last_seen[prefix] = i
            if candidate is not None and i - candidate <= 8192:
                match_len = 3
                while (i + match_len < len(data) and match_len < 264
                       and data[candidate + match_len] == data[i + match_len]):
                    match_len += 1
        if match_len:
            flush()
            offset = i - candidate - 1
            if match_len - 2 < 7:
                out.append(((match_len - 2) << 5) | (offset >> 8))
            else:
                out.append((7 << 5) | (offset >> 8))
                out.append(match_len - 2 - 7)
            out.append(offset & 0xFF)
            i += match_len
        else:
            literals.append(data[i])
            i += 1
    flush()
    return bytes(out)


def lzf_decompress(data):
    """Only to check the two encoders above."""
    out = bytearray()
    i = 0
    while i < len(data):
        ctrl = data[i]
        i += 1
        if ctrl < 32:
            out += data[i:i + ctrl + 1]
            i += ctrl + 1
            continue
        length = ctrl >> 5
        ref = len(out) - ((ctrl & 0x1F) << 8) - 1
        if length == 7:
            length += data[i]
            i += 1
        ref -= data[i]
        i += 1
        assert ref >= 0
        for _ in range(length + 2):
            out.append(out[ref])
            ref += 1
    return bytes(out)


for _sample in (b"a" * 100 + b"bcd" * 50 + bytes(range(256)), b"xy", b"abcabcabcabc" * 40):
    assert lzf_decompress(lzf_compress(_sample)) == _sample
    assert lzf_decompress(lzf_literals(_sample)) == _sample
assert len(lzf_compress(b"a" * 100)) < 10  # the back-reference path is taken


# --- primitives (rdb.c rdbSaveLen, rdbSaveRawString, rdbSaveDoubleValue) -------------------------

def b(value):
    return value if isinstance(value, bytes) else str(value).encode()


def canonical_int(data, max_len=None):
    """The integer a writer would store `data` as (string2ll: no sign '+', no leading zero,
    int64 range), or None."""
    if not data or (max_len is not None and len(data) > max_len):
        return None
    try:
        text = data.decode("ascii")
        value = int(text)
    except (UnicodeDecodeError, ValueError):
        return None
    if str(value) != text or not -2**63 <= value < 2**63:
        return None
    return value


def length(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def string(data, enc="auto"):
    """An RDB string. enc: auto (INT8/16/32 when canonical, like rdbTryIntegerEncoding, else
    raw), raw, lzf (with back references), lzf-literal (literal runs only)."""
    data = b(data)
    if enc == "auto":
        value = canonical_int(data, 11)
        if value is not None and -2**31 <= value < 2**31:
            if -128 <= value < 128:
                return b"\xc0" + struct.pack("<b", value)
            if -32768 <= value < 32768:
                return b"\xc1" + struct.pack("<h", value)
            return b"\xc2" + struct.pack("<i", value)
        enc = "raw"
    if enc == "raw":
        return length(len(data)) + data
    packed = lzf_compress(data) if enc == "lzf" else lzf_literals(data)
    return b"\xc3" + length(len(packed)) + length(len(data)) + packed


def ascii_double(score):
    """Type 3's double: 253 nan, 254 +inf, 255 -inf, else a length byte and the text. A str
    is written verbatim."""
    if isinstance(score, str):
        return bytes([len(score)]) + score.encode()
    if math.isnan(score):
        return b"\xfd"
    if math.isinf(score):
        return b"\xfe" if score > 0 else b"\xff"
    text = str(int(score)) if score == int(score) and abs(score) < 2**53 else "%.17g" % score
    return bytes([len(text)]) + text.encode()


def raw_id(ms, seq):
    return struct.pack(">QQ", ms, seq)


# --- value bodies, by RDB type -------------------------------------------------------------------

STRING, LIST, SET, ZSET, HASH, ZSET_2 = 0, 1, 2, 3, 4, 5
HASH_ZIPMAP, LIST_ZIPLIST, SET_INTSET, ZSET_ZIPLIST, HASH_ZIPLIST = 9, 10, 11, 12, 13
LIST_QUICKLIST, STREAM_LISTPACKS = 14, 15
HASH_LISTPACK, ZSET_LISTPACK, LIST_QUICKLIST_2, STREAM_LISTPACKS_2 = 16, 17, 18, 19

# The first RDB version whose writer could produce each type (rdb.h / redis.h of each tag).
TYPE_SINCE = {STRING: 1, LIST: 1, SET: 1, ZSET: 1, HASH: 1, HASH_ZIPMAP: 2, LIST_ZIPLIST: 2,
              SET_INTSET: 2, ZSET_ZIPLIST: 2, HASH_ZIPLIST: 4, LIST_QUICKLIST: 7, ZSET_2: 8,
              STREAM_LISTPACKS: 9, HASH_LISTPACK: 10, ZSET_LISTPACK: 10, LIST_QUICKLIST_2: 10,
              STREAM_LISTPACKS_2: 10}


def body_strings(items, enc="auto"):
    """Types 1 and 2: count, then the strings."""
    return length(len(items)) + b"".join(string(x, enc) for x in items)


def body_zset(pairs):
    """Type 3: count, then member and ASCII double."""
    return length(len(pairs)) + b"".join(string(m) + ascii_double(s) for m, s in pairs)


def body_zset2(pairs):
    """Type 5: count, then member and 8-byte little-endian double."""
    return length(len(pairs)) + b"".join(string(m) + struct.pack("<d", s) for m, s in pairs)


def body_hash(pairs):
    return length(len(pairs)) + b"".join(string(f) + string(v) for f, v in pairs)


def body_quicklist(ziplists, enc="raw"):
    """Type 14: node count, then each node's ziplist as a string."""
    return length(len(ziplists)) + b"".join(string(z, enc) for z in ziplists)


def body_quicklist2(nodes, enc="raw"):
    """Type 18: node count, then per node its container (2 packed listpack, 1 plain element)
    and the node as a string."""
    out = length(len(nodes))
    for container, data in nodes:
        out += length(container) + string(data, enc)
    return out


Group = namedtuple("Group", "name last_id entries_read pel consumers")
# pel: [(id, delivery_time_ms, delivery_count)]; consumers: [(name, seen_time_ms, [id, ...])]


def body_stream(nodes, count, last_id, groups, v2=None, enc="raw"):
    """Types 15 and 19: the nodes (16-byte big-endian master ID, listpack as a string in
    `enc`), length, last ID, for 19 (v2 = (first_id, max_deleted_id, entries_added)) the extra
    metadata, then the groups: name, last ID, for 19 entries_read, the PEL with NACKs, the
    consumers with their PEL IDs."""
    out = length(len(nodes))
    for master_id, lp in nodes:
        out += string(raw_id(*master_id)) + string(lp, enc)
    out += length(count) + length(last_id[0]) + length(last_id[1])
    if v2 is not None:
        (first_id, max_deleted, entries_added) = v2
        out += length(first_id[0]) + length(first_id[1])
        out += length(max_deleted[0]) + length(max_deleted[1]) + length(entries_added)
    out += length(len(groups))
    for g in groups:
        out += string(g.name) + length(g.last_id[0]) + length(g.last_id[1])
        if v2 is not None:
            out += length(g.entries_read)
        out += length(len(g.pel))
        for entry_id, delivered_ms, deliveries in g.pel:
            out += raw_id(*entry_id) + struct.pack("<q", delivered_ms) + length(deliveries)
        out += length(len(g.consumers))
        for name, seen_ms, ids in g.consumers:
            out += string(name) + struct.pack("<q", seen_ms) + length(len(ids))
            out += b"".join(raw_id(*i) for i in ids)
    return out


# --- encoded blobs (ziplist, zipmap, intset, listpack, stream listpack) --------------------------

def ziplist(entries, legacy=False):
    """A ziplist (ziplist.c): zlbytes, zltail, zllen, entries (prevlen, encoding, data), 0xFF.
    Integers, and strings a writer would store as integers, take the smallest integer
    encoding; legacy=True (RDB 2-5) knows only int16/int32/int64."""
    body = bytearray()
    prev_size = 0
    tail = 10
    for item in entries:
        value = item if isinstance(item, int) else canonical_int(b(item), 31)
        if value is None:
            data = b(item)
            n = len(data)
            if n < 64:
                enc = bytes([n])
            elif n < 16384:
                enc = bytes([0x40 | n >> 8, n & 0xFF])
            else:
                enc = b"\x80" + struct.pack(">I", n)
            enc += data
        elif legacy:
            if -2**15 <= value < 2**15:
                enc = b"\xc0" + struct.pack("<h", value)
            elif -2**31 <= value < 2**31:
                enc = b"\xd0" + struct.pack("<i", value)
            else:
                enc = b"\xe0" + struct.pack("<q", value)
        elif 0 <= value <= 12:
            enc = bytes([0xF1 + value])
        elif -2**7 <= value < 2**7:
            enc = b"\xfe" + struct.pack("<b", value)
        elif -2**15 <= value < 2**15:
            enc = b"\xc0" + struct.pack("<h", value)
        elif -2**23 <= value < 2**23:
            enc = b"\xf0" + struct.pack("<i", value)[:3]
        elif -2**31 <= value < 2**31:
            enc = b"\xd0" + struct.pack("<i", value)
        else:
            enc = b"\xe0" + struct.pack("<q", value)
        prevlen = bytes([prev_size]) if prev_size < 254 else b"\xfe" + struct.pack("<I", prev_size)
        tail = 10 + len(body)
        entry = prevlen + enc
        body += entry
        prev_size = len(entry)
    total = 10 + len(body) + 1
    count = min(len(entries), 0xFFFF)
    return struct.pack("<IIH", total, tail, count) + bytes(body) + b"\xff"


def zipmap(pairs, free=None):
    """A zipmap (zipmap.c): zmlen (254 = count unknown), then per pair len field len free
    value and `free` unused bytes, 0xFF. Lengths over 253 take 254 + 4 bytes."""
    free = free or {}

    def zlen(n):
        return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)

    out = bytearray([min(len(pairs), 254)])
    for field, value in pairs:
        field, value = b(field), b(value)
        spare = free.get(field, 0)
        out += zlen(len(field)) + field + zlen(len(value)) + bytes([spare]) + value
        out += b"\x00" * spare
    return bytes(out) + b"\xff"


def intset(values):
    """An intset (intset.c): encoding (2, 4, 8: the width its widest value needs), count,
    sorted little-endian values."""
    values = sorted(values)
    if all(-2**15 <= v < 2**15 for v in values):
        width, fmt = 2, "<h"
    elif all(-2**31 <= v < 2**31 for v in values):
        width, fmt = 4, "<i"
    else:
        width, fmt = 8, "<q"
    return struct.pack("<II", width, len(values)) + b"".join(struct.pack(fmt, v) for v in values)


def _lp_backlen(n):
    if n <= 127:
        return bytes([n])
    if n < 16383:
        return bytes([n >> 7, (n & 127) | 128])
    if n < 2097151:
        return bytes([n >> 14, ((n >> 7) & 127) | 128, (n & 127) | 128])
    return bytes([n >> 21, ((n >> 14) & 127) | 128, ((n >> 7) & 127) | 128, (n & 127) | 128])


def _lp_entry(item):
    value = item if isinstance(item, int) else canonical_int(b(item))
    if value is None:
        data = b(item)
        n = len(data)
        if n < 64:
            enc = bytes([0x80 | n]) + data
        elif n < 4096:
            enc = bytes([0xE0 | n >> 8, n & 0xFF]) + data
        else:
            enc = b"\xf0" + struct.pack("<I", n) + data
    elif 0 <= value <= 127:
        enc = bytes([value])
    elif -4096 <= value <= 4095:
        v = value & 0x1FFF
        enc = bytes([0xC0 | v >> 8, v & 0xFF])
    elif -2**15 <= value < 2**15:
        enc = b"\xf1" + struct.pack("<h", value)
    elif -2**23 <= value < 2**23:
        enc = b"\xf2" + struct.pack("<i", value)[:3]
    elif -2**31 <= value < 2**31:
        enc = b"\xf3" + struct.pack("<i", value)
    else:
        enc = b"\xf4" + struct.pack("<q", value)
    return enc + _lp_backlen(len(enc))


def listpack(entries):
    """A listpack (listpack.c): total bytes, element count (65535 = unknown), entries
    (encoding, data, backlen), 0xFF."""
    body = b"".join(_lp_entry(e) for e in entries)
    return struct.pack("<IH", 6 + len(body) + 1, min(len(entries), 0xFFFF)) + body + b"\xff"


SAMEFIELDS, DELETED = 2, 1


def stream_node(master_id, master_fields, entries):
    """One stream node's listpack (t_stream.c): the master entry (count, deleted, field
    count, fields, 0), then per entry: flags, ms and seq relative to the master ID, the
    field names unless they are the master's (SAMEFIELDS), the values, and lp-count.
    entries: [((ms, seq), [(field, value), ...], deleted)]."""
    live = sum(1 for *_, deleted in entries if not deleted)
    items = [live, len(entries) - live, len(master_fields), *master_fields, 0]
    for (ms, seq), pairs, deleted in entries:
        fields = [f for f, _ in pairs]
        flags = (DELETED if deleted else 0) | (SAMEFIELDS if fields == list(master_fields) else 0)
        items += [flags, ms - master_id[0], seq - master_id[1]]
        if flags & SAMEFIELDS:
            items += [v for _, v in pairs]
            items.append(len(pairs) + 3)
        else:
            items += [len(pairs), *fields, *[v for _, v in pairs]]
            items.append(2 * len(pairs) + 4)
    return listpack(items)


# --- the file writer -----------------------------------------------------------------------------

OP_FUNCTION2, OP_FUNCTION, OP_IDLE, OP_FREQ = 245, 246, 248, 249
OP_AUX, OP_RESIZEDB, OP_EXPIRETIME_MS, OP_EXPIRETIME, OP_SELECTDB, OP_EOF = range(250, 256)


class RdbFile:
    """One RDB file, written front to back. Refuses what its version could not hold, and
    counts the keys a master loads (not empty, not expired) and drops as expired."""

    def __init__(self, version):
        self.version = version
        self.out = bytearray(b"REDIS%04d" % version)
        self.loaded = 0
        self.expired = 0
        self.has_empty = False

    def _need(self, since, what):
        assert self.version >= since, "%s needs RDB %d, file is %d" % (what, since, self.version)

    def raw(self, data):
        self.out += data
        return self

    def aux(self, key, value):
        self._need(7, "AUX")
        return self.raw(bytes([OP_AUX]) + string(key) + string(value))

    def select_db(self, db):
        return self.raw(bytes([OP_SELECTDB]) + length(db))

    def resize_db(self, keys, expires):
        self._need(7, "RESIZEDB")
        return self.raw(bytes([OP_RESIZEDB]) + length(keys) + length(expires))

    def function2(self, code):
        self._need(10, "FUNCTION2")
        return self.raw(bytes([OP_FUNCTION2]) + string(code))

    def function_rc(self, name, engine, code, description=None):
        """7.0-rc1/rc2's FUNCTION record: name, engine, has-description (+ description),
        code without its #! line."""
        self._need(10, "FUNCTION")
        out = bytes([OP_FUNCTION]) + string(name) + string(engine)
        if description is None:
            out += length(0)
        else:
            out += length(1) + string(description)
        return self.raw(out + string(code))

    def key(self, rdb_type, key, body, expire_s=None, expire_ms=None, idle=None, freq=None,
            empty=False):
        self._need(TYPE_SINCE[rdb_type], "type %d" % rdb_type)
        deadline_ms = None
        if expire_s is not None:
            self.raw(bytes([OP_EXPIRETIME]) + struct.pack("<i", expire_s))
            deadline_ms = expire_s * 1000
        if expire_ms is not None:
            self._need(3, "EXPIRETIME_MS")
            self.raw(bytes([OP_EXPIRETIME_MS]) + struct.pack("<q", expire_ms))
            deadline_ms = expire_ms
        if idle is not None:
            self._need(9, "IDLE")
            self.raw(bytes([OP_IDLE]) + length(idle))
        if freq is not None:
            self._need(9, "FREQ")
            self.raw(bytes([OP_FREQ, freq]))
        self.raw(bytes([rdb_type]) + string(key) + body)
        # A master drops a key whose deadline has passed; -1 is Redis's "no deadline".
        if empty:
            self.has_empty = True
        elif deadline_ms is not None and deadline_ms != -1 and deadline_ms < time.time() * 1000:
            self.expired += 1
        else:
            self.loaded += 1
        return self

    def finish(self, crc="good"):
        """EOF, then from RDB 5 the CRC64 of everything before it: good, zero (not checked),
        or bad."""
        self.raw(bytes([OP_EOF]))
        if self.version >= 5:
            value = {"good": crc64(self.out), "zero": 0, "bad": crc64(self.out) ^ 0x10}[crc]
            self.raw(struct.pack("<Q", value))
        return bytes(self.out)


# --- positive files ------------------------------------------------------------------------------

Case = namedtuple("Case", "name build args probe crc", defaults=((), None, "good"))
# build() -> RdbFile, finished with `crc`; args: extra flags for both servers; probe: "idle" or
# "freq" reads OBJECT IDLETIME / FREQ of every key before anything can touch one.


def v1_basic():
    f = RdbFile(1)
    f.select_db(0)
    f.key(STRING, "str:raw", string("hello world"))
    f.key(STRING, "str:empty", string(""))
    f.key(STRING, b"bin:\x00\xff\r\n", string(b"\x00\x01\xfe\xff"))
    f.key(STRING, "str:int8", string("123"))
    f.key(STRING, "str:int8-neg", string("-128"))
    f.key(STRING, "str:int16", string("12345"))
    f.key(STRING, "str:int16-neg", string("-300"))
    f.key(STRING, "str:int32", string("2000000000"))
    f.key(STRING, "str:int32-neg", string("-2147483648"))
    f.key(STRING, "str:not-int", string("0123"))
    f.key(STRING, "str:big-int", string("9223372036854775807"))
    f.key(STRING, "str:lzf", string("a" * 60 + "bcd" * 20 + "xyz", "lzf"))
    f.key(STRING, "str:lzf-literal", string("literal runs only " * 5, "lzf-literal"))
    f.key(LIST, "list:plain", body_strings(["a", "17", "-5000", "", "x" * 30 + "y" * 40, "a"]))
    f.key(LIST, "list:lzf", body_strings(["e%d" % i for i in range(5)] + ["q" * 100], "lzf"))
    f.key(SET, "set:strings", body_strings(["x", "y", "z", "1"]))
    f.key(SET, "set:ints", body_strings(["1", "-2", "30000", "4000000000"]))
    f.key(SET, "set:large", body_strings(["m%d" % i for i in range(600)]))
    f.key(ZSET, "zset:ascii", body_zset([
        ("a", 1), ("b", -2.5), ("c", math.inf), ("d", -math.inf), ("e", 0.1),
        ("f", 1e300), ("g", "3.0"), ("h", "-0.125"), ("i", 5e-324), ("j", "1e3")]))
    f.key(ZSET, "zset:large", body_zset([("m%d" % i, i / 7) for i in range(200)]))
    f.key(HASH, "hash:small", body_hash([("f1", "v1"), ("n", "1000"), ("empty", "")]))
    f.key(HASH, "hash:large", body_hash([("f%d" % i, "v%d" % i) for i in range(200)]))
    f.key(HASH, "hash:long-value", body_hash([("f", "v" * 100)]))
    f.key(STRING, "ttl:future", string("kept"), expire_s=FUTURE_S)
    f.key(HASH, "ttl:future-hash", body_hash([("a", "b")]), expire_s=FUTURE_S + 1)
    f.key(STRING, "ttl:past", string("dropped"), expire_s=PAST_S)
    f.key(LIST, "ttl:past-list", body_strings(["a"]), expire_s=PAST_S)
    f.select_db(1)
    f.key(STRING, "same-name", string("db1"))
    f.key(SET, "db1:set", body_strings(["only"]))
    f.select_db(15)
    f.key(STRING, "same-name", string("db15"), expire_s=FUTURE_S)
    f.select_db(0)  # back again: keys land in the database selected last
    f.key(STRING, "back-in-db0", string("yes"))
    return f


def v1_empty():
    f = RdbFile(1)
    f.select_db(0)
    f.key(LIST, "empty:list", body_strings([]), empty=True)
    f.key(SET, "empty:set", body_strings([]), empty=True)
    f.key(ZSET, "empty:zset", body_zset([]), empty=True)
    f.key(HASH, "empty:hash", body_hash([]), empty=True)
    f.key(LIST, "empty:expired", body_strings([]), expire_s=PAST_S, empty=True)
    f.key(STRING, "kept", string("v"))
    f.select_db(2)
    f.key(SET, "empty:db2", body_strings([]), empty=True)
    return f


def v2_compact():
    f = RdbFile(2)
    f.select_db(0)
    f.key(HASH_ZIPMAP, "zipmap:small", string(zipmap(
        [("name", "ann"), ("n", "42"), ("empty", ""), ("free", "abc")], free={b"free": 3})))
    f.key(HASH_ZIPMAP, "zipmap:long-value", string(zipmap(
        [("short", "s"), ("long", "L" * 300), ("f" * 260, "long field")])))
    f.key(HASH_ZIPMAP, "zipmap:254-or-more", string(zipmap(
        [("k%d" % i, "v%d" % i) for i in range(300)]), "lzf"))
    f.key(LIST_ZIPLIST, "ziplist:list", string(ziplist(
        ["a", 1, -1, 12, 300, -32768, 70000, -2**31, 2**40, -2**63, 2**63 - 1, "b" * 100,
         "007", "", "x" * 31 + "1"], legacy=True)))
    f.key(LIST_ZIPLIST, "ziplist:list-lzf", string(ziplist(
        ["item-%d" % (i % 4) for i in range(50)], legacy=True), "lzf"))
    f.key(SET_INTSET, "intset:16", string(intset([-5, 0, 7, 300, -32768, 32767])))
    f.key(SET_INTSET, "intset:32", string(intset([-100000, 1, 100000, 2**31 - 1])))
    f.key(SET_INTSET, "intset:64", string(intset([-2**63, 0, 2**63 - 1, 2**40])))
    f.key(SET_INTSET, "intset:large", string(intset(range(0, 1200, 2)), "lzf"))
    f.key(ZSET_ZIPLIST, "zset:ziplist", string(ziplist(
        ["low", "-inf", "a", 1, "b", "2.5", "c", 3, "d", 3, "big", 70000, "high", "inf"],
        legacy=True)))
    f.key(STRING, "ttl:future", string("v"), expire_s=FUTURE_S)
    f.key(HASH_ZIPMAP, "ttl:past-zipmap", string(zipmap([("a", "b")])), expire_s=PAST_S)
    return f


def v3_ms_expire():
    f = RdbFile(3)
    f.select_db(0)
    f.key(STRING, "ms:future", string("v"), expire_ms=FUTURE_MS)
    f.key(STRING, "ms:past", string("v"), expire_ms=PAST_MS)
    f.key(STRING, "s:future", string("v"), expire_s=FUTURE_S)
    f.key(HASH_ZIPMAP, "ms:zipmap", string(zipmap([("f", "v"), ("g", "1")])),
          expire_ms=FUTURE_MS + 1)
    f.key(LIST_ZIPLIST, "ms:ziplist", string(ziplist(["x", 5, "y"], legacy=True)),
          expire_ms=PAST_MS)
    f.key(SET_INTSET, "ms:intset", string(intset([3, 1, 2])), expire_ms=FUTURE_MS + 2)
    f.select_db(7)
    f.key(STRING, "ms:db7", string("seven"), expire_ms=FUTURE_MS + 3)
    return f


def v4_hash_ziplist():
    f = RdbFile(4)
    f.select_db(0)
    f.key(HASH_ZIPLIST, "hash:ziplist", string(ziplist(
        ["f", "v", "n", 5, "big", 2**40, "neg", -7, "empty", ""], legacy=True)))
    f.key(HASH_ZIPLIST, "hash:ziplist-large", string(ziplist(
        [x for i in range(200) for x in ("field-%d" % i, i)], legacy=True), "lzf"))
    f.key(HASH_ZIPLIST, "hash:ziplist-long-value", string(ziplist(
        ["f", "v" * 300], legacy=True)))
    f.key(ZSET_ZIPLIST, "zset:ziplist", string(ziplist(
        ["a", 1, "b", "1.5"], legacy=True)), expire_ms=FUTURE_MS)
    return f


def v5_crc():
    f = RdbFile(5)
    f.select_db(0)
    f.key(STRING, "crc:str", string("checked"))
    f.key(STRING, "crc:lzf", string("z" * 200, "lzf"))
    f.key(LIST, "crc:list", body_strings(["1", "2", "three"]))
    f.key(ZSET, "crc:zset", body_zset([("a", 0.5), ("b", -math.inf)]))
    f.key(HASH_ZIPLIST, "crc:hash", string(ziplist(["f", "v"], legacy=True)))
    f.key(LIST_ZIPLIST, "crc:ziplist", string(ziplist([1, 2, 3], legacy=True)),
          expire_ms=FUTURE_MS)
    f.select_db(3)
    f.key(STRING, "crc:db3", string("three"), expire_ms=PAST_MS)
    return f


def v6_ziplist_encodings():
    every_int = [0, 1, 12, 13, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
                 2**23 - 1, -2**23, 2**23, -2**23 - 1, 2**31 - 1, -2**31, 2**31, -2**31 - 1,
                 2**63 - 1, -2**63]
    strings = ["", "s", "x" * 63, "y" * 64, "z" * 16383, "w" * 16384, "12a", "-0", "+1",
               "1" * 32]
    f = RdbFile(6)
    f.select_db(0)
    f.key(LIST_ZIPLIST, "zl:ints", string(ziplist(every_int)))
    f.key(LIST_ZIPLIST, "zl:strings", string(ziplist(strings), "lzf"))
    # A 300-byte entry makes the next one's prevlen take 5 bytes.
    f.key(LIST_ZIPLIST, "zl:big-prevlen", string(ziplist(["p" * 300, 7, "q" * 253, "r"])))
    f.key(ZSET_ZIPLIST, "zl:zset", string(ziplist(
        ["n", -2**40, "m", -129, "a", 0, "b", 12, "c", "12.5", "d", 2**23, "e", 2**63 - 1])))
    f.key(HASH_ZIPLIST, "zl:hash", string(ziplist(
        ["imm", 3, "i8", -100, "i16", 1000, "i24", 100000, "i32", 2**30, "i64", 2**50,
         "s", "text", 7, "numeric field"])))
    f.key(ZSET_ZIPLIST, "zl:zset-large", string(ziplist(
        [x for i in range(200) for x in ("m%03d" % i, i)])), expire_ms=FUTURE_MS)
    return f


def v6_empty():
    f = RdbFile(6)
    f.select_db(0)
    f.key(LIST_ZIPLIST, "empty:ziplist-list", string(ziplist([])), empty=True)
    f.key(ZSET_ZIPLIST, "empty:ziplist-zset", string(ziplist([])), empty=True)
    f.key(HASH_ZIPLIST, "empty:ziplist-hash", string(ziplist([])), empty=True)
    f.key(STRING, "kept", string("v"))
    return f


def v7_quicklist():
    f = RdbFile(7)
    f.aux("redis-ver", "3.2.0").aux("redis-bits", "64").aux("ctime", "1466000000")
    f.aux("used-mem", "821000").aux("%info-field", "logged by Redis").aux("unknown", "skipped")
    f.select_db(0).resize_db(5, 2)
    f.key(LIST_QUICKLIST, "ql:list", body_quicklist([
        ziplist(["a", "b", 1, 2]), ziplist([]), ziplist(["c", 2**40, "d" * 100]),
        ziplist(["last"])]))
    f.key(LIST_QUICKLIST, "ql:lzf-nodes", body_quicklist(
        [ziplist(["node%d-%d" % (n, i) for i in range(20)]) for n in range(3)], "lzf"))
    f.key(LIST_QUICKLIST, "ql:expiring", body_quicklist([ziplist([1])]), expire_ms=FUTURE_MS)
    f.key(STRING, "str", string("3.2"), expire_ms=PAST_MS)
    f.key(SET_INTSET, "intset", string(intset([1, 2, 3])))
    f.select_db(5).resize_db(1, 0)
    f.key(HASH_ZIPLIST, "db5:hash", string(ziplist(["f", 1])))
    f.select_db(9).resize_db(1000, 1000)  # a hint only: more than the keys that follow
    f.key(STRING, "db9:str", string("nine"))
    return f


def v7_empty():
    f = RdbFile(7)
    f.select_db(0).resize_db(3, 0)
    f.key(LIST_QUICKLIST, "empty:no-nodes", body_quicklist([]), empty=True)
    f.key(LIST_QUICKLIST, "empty:empty-nodes", body_quicklist([ziplist([]), ziplist([])]),
          empty=True)
    f.key(STRING, "kept", string("v"))
    return f


def v8_zset2():
    f = RdbFile(8)
    f.aux("redis-ver", "4.0.14").aux("redis-bits", "64").aux("ctime", "1560000000")
    f.aux("used-mem", "1000000").aux("aof-preamble", "0")
    f.select_db(0).resize_db(4, 1)
    f.key(ZSET_2, "z2:special", body_zset2([
        ("a", 1.0), ("b", -2.5), ("c", math.inf), ("d", -math.inf), ("e", -0.0), ("f", 0.1),
        ("g", 5e-324), ("h", 1.7976931348623157e308), ("i", 1 / 3)]))
    f.key(ZSET_2, "z2:large", body_zset2([("m%d" % i, i * 1.25 - 100) for i in range(200)]))
    f.key(ZSET_2, "z2:long-member", body_zset2([("m" * 100, 1.0), ("n", 2.0)]),
          expire_ms=FUTURE_MS)
    f.key(LIST_QUICKLIST, "ql", body_quicklist([ziplist(["4.0"])]))
    return f


def _stream_v1_nodes():
    node1 = stream_node((1700000000000, 0), ["item", "qty"], [
        ((1700000000000, 0), [("item", "apple"), ("qty", "1")], False),
        ((1700000000000, 1), [("item", "pear"), ("qty", "2"), ("note", "ripe")], False),
        ((1700000000001, 0), [("item", "gone"), ("qty", "9")], True),
        ((1700000000002, 0), [("qty", "3"), ("item", "fig")], False),
    ])
    # The second node's master ID has seq 3: its entries' seq deltas go negative.
    node2 = stream_node((1700000000010, 3), ["a"], [
        ((1700000000010, 3), [("a", "1")], False),
        ((1700000000011, 0), [("a", "2")], False),
        ((1700000000011, 1), [("a", "x" * 100), ("b", "")], False),
    ])
    return [((1700000000000, 0), node1), ((1700000000010, 3), node2)]


def _stream_groups(v2):
    pel = [((1700000000000, 0), 1700000100000, 1), ((1700000000000, 1), 1700000100500, 3),
           ((1700000000001, 0), 1700000100600, 2), ((1700000000010, 3), 1700000100700, 1)]
    consumers = [("alice", 1700000200000, [(1700000000000, 0), (1700000000001, 0)]),
                 ("bob", 1700000200100, [(1700000000000, 1), (1700000000010, 3)]),
                 ("carol", 1700000200200, [])]
    return [Group("g1", (1700000000010, 3), 5 if v2 else None, pel, consumers),
            Group("g2", (0, 0), 0 if v2 else None, [], []),
            Group("g3", (1700000000002, 0), 2**64 - 1 if v2 else None, [], [])]


def v9_stream():
    f = RdbFile(9)
    f.aux("redis-ver", "6.2.14").aux("redis-bits", "64").aux("ctime", "1700000300")
    f.aux("used-mem", "900000").aux("repl-stream-db", "0")
    f.aux("repl-id", "0123456789abcdef0123456789abcdef01234567").aux("repl-offset", "0")
    f.aux("lua", "return 1").aux("aof-preamble", "0")
    f.select_db(0).resize_db(4, 1)
    f.key(STREAM_LISTPACKS, "stream", body_stream(
        _stream_v1_nodes(), 6, (1700000000020, 0), _stream_groups(False)))
    f.key(STREAM_LISTPACKS, "stream:empty", body_stream(
        [], 0, (5, 5), [Group("g", (5, 5), None, [], [("idle", 1700000000000, [])])]))
    f.key(STREAM_LISTPACKS, "stream:lzf", body_stream(
        [((1, 1), stream_node((1, 1), ["f"], [((1, 1), [("f", "v" * 50)], False)]))],
        1, (1, 1), [], enc="lzf"), expire_ms=FUTURE_MS)
    f.key(ZSET_ZIPLIST, "zset", string(ziplist(["a", 1])))
    return f


def v9_idle():
    f = RdbFile(9)
    f.select_db(0)
    f.key(STRING, "idle:100", string("v"), idle=100)
    f.key(STRING, "idle:70000", string("v"), idle=70000)
    f.key(HASH_ZIPLIST, "idle:hash", string(ziplist(["f", "v"])), idle=5000)
    f.key(STRING, "idle:none", string("v"))
    f.select_db(4)
    f.key(STRING, "idle:db4", string("v"), idle=20000000, expire_ms=FUTURE_MS)
    return f


def v9_freq():
    f = RdbFile(9)
    f.select_db(0)
    f.key(STRING, "freq:0", string("v"), freq=0)
    f.key(STRING, "freq:7", string("v"), freq=7)
    f.key(STRING, "freq:255", string("v"), freq=255)
    f.key(SET_INTSET, "freq:set", string(intset([1])), freq=100)
    f.key(STRING, "freq:none", string("v"))
    return f


def _listpack_values():
    return [0, 127, 128, -1, -4096, 4095, 4096, -4097, 32767, -32768, 32768, 2**23 - 1,
            -2**23, 2**23, 2**31 - 1, -2**31, 2**31, 2**63 - 1, -2**63, "", "s", "x" * 63,
            "y" * 64, "z" * 4095, "w" * 4096, "-0", "007", "1.5"]


def v10_rc_functions():
    """As 7.0-rc1 and rc2 wrote: the FUNCTION opcode, listpack types, stream type 15."""
    f = RdbFile(10)
    f.aux("redis-ver", "7.0.0").aux("redis-bits", "64").aux("ctime", "1640000000")
    f.aux("used-mem", "1000000").aux("aof-preamble", "0")
    f.function_rc("oldlib", "LUA",
                  "redis.register_function('oldf', function(keys, args) return 'old' end)",
                  description="a library from 7.0-rc1")
    f.function_rc("nodesc", "LUA",
                  "redis.register_function{function_name='ro', callback=function() return 1 end,"
                  " flags={'no-writes'}}")
    f.select_db(0).resize_db(3, 0)
    f.key(HASH_LISTPACK, "lp:hash", string(listpack(["f", "v", "n", 1])))
    f.key(LIST_QUICKLIST_2, "ql2", body_quicklist2([(2, listpack(["a", 1]))]))
    f.key(STREAM_LISTPACKS, "stream", body_stream(
        _stream_v1_nodes(), 6, (1700000000011, 1), _stream_groups(False)[:1]))
    return f


def v10_listpacks():
    values = _listpack_values()
    f = RdbFile(10)
    f.aux("redis-ver", "7.0.15").aux("redis-bits", "64").aux("ctime", "1700000400")
    f.aux("used-mem", "1200000").aux("aof-base", "0")
    f.function2("#!lua name=mylib\n"
                "redis.register_function('echo', function(keys, args) return args[1] end)\n"
                "redis.register_function{function_name='ro', callback=function() return 2 end,"
                " flags={'no-writes', 'allow-stale'}, description='read only'}")
    f.function2("#!lua name=second\nredis.register_function('two', function() return 2 end)")
    f.select_db(0).resize_db(10, 2)
    f.key(HASH_LISTPACK, "lp:hash", string(listpack(
        [x for i, v in enumerate(values) for x in ("f%d" % i, v)])))
    f.key(HASH_LISTPACK, "lp:hash-lzf", string(listpack(
        [x for i in range(40) for x in ("field%d" % i, "value%d" % i)]), "lzf"))
    f.key(ZSET_LISTPACK, "lp:zset", string(listpack(
        ["lo", "-inf", "a", -5, "b", 0, "c", "0.25", "d", 4096, "e", 2**40, "hi", "inf"])))
    f.key(ZSET_LISTPACK, "lp:zset-large", string(listpack(
        [x for i in range(150) for x in ("m%03d" % i, i * 3)]), "lzf"))
    f.key(LIST_QUICKLIST_2, "ql2:packed", body_quicklist2([
        (2, listpack(values)), (2, listpack(["second", "node"]))]))
    f.key(LIST_QUICKLIST_2, "ql2:plain", body_quicklist2([
        (2, listpack(["before"])), (1, b"P" * 5000), (1, b"small plain"),
        (2, listpack([])), (2, listpack(["after", 1]))]))
    f.key(LIST_QUICKLIST_2, "ql2:lzf", body_quicklist2(
        [(2, listpack(["n%d" % i for i in range(30)])), (1, b"Q" * 300)], "lzf"))
    f.key(STREAM_LISTPACKS_2, "stream", body_stream(
        _stream_v1_nodes(), 6, (1700000000020, 0), _stream_groups(True),
        v2=((1700000000000, 0), (1700000000020, 0), 8)), expire_ms=FUTURE_MS)
    f.key(STREAM_LISTPACKS_2, "stream:empty", body_stream(
        [], 0, (7, 0), [Group("g", (7, 0), 3, [], [])], v2=((0, 0), (7, 0), 3)))
    f.key(STRING, "past", string("v"), expire_ms=PAST_MS)
    f.select_db(3).resize_db(2, 1)
    f.key(SET_INTSET, "db3:intset", string(intset([5, -5])))
    f.key(STRING, "db3:past", string("v"), expire_ms=PAST_MS)
    return f


def v10_empty():
    f = RdbFile(10)
    f.select_db(0)
    f.key(HASH_LISTPACK, "empty:lp-hash", string(listpack([])), empty=True)
    f.key(ZSET_LISTPACK, "empty:lp-zset", string(listpack([])), empty=True)
    f.key(LIST_QUICKLIST_2, "empty:ql2-no-nodes", body_quicklist2([]), empty=True)
    f.key(LIST_QUICKLIST_2, "empty:ql2-empty-node", body_quicklist2([(2, listpack([]))]),
          empty=True)
    f.key(STRING, "kept", string("v"))
    return f


def expire_zero():
    """A deadline of 0 (the epoch) is in the past like any other: dropped."""
    f = RdbFile(9)
    f.select_db(0)
    f.key(STRING, "ms:zero", string("v"), expire_ms=0)
    f.key(STRING, "kept", string("v"))
    return f


def expire_seconds_zero():
    f = RdbFile(2)
    f.select_db(0)
    f.key(STRING, "s:zero", string("v"), expire_s=0)
    f.key(STRING, "kept", string("v"))
    return f


def expire_negative_seconds():
    """EXPIRETIME's 4 bytes are a signed int32 (rdbLoadTime): 0xfffffff0 is 16 s before 1970."""
    f = RdbFile(2)
    f.select_db(0)
    f.key(STRING, "s:negative", string("v"), expire_s=-16)
    f.key(STRING, "kept", string("v"))
    return f


POSITIVE = [
    Case("v1-basic", v1_basic),
    Case("v1-empty-collections", v1_empty),
    Case("v2-zipmap-ziplist-intset", v2_compact),
    Case("v3-expiretime-ms", v3_ms_expire),
    Case("v4-hash-ziplist", v4_hash_ziplist),
    Case("v5-crc", v5_crc),
    Case("v5-zero-crc", v5_crc, crc="zero"),
    Case("v6-ziplist-encodings", v6_ziplist_encodings),
    Case("v6-empty-ziplists", v6_empty),
    Case("v7-quicklist-aux-resizedb", v7_quicklist),
    Case("v7-empty-quicklists", v7_empty),
    Case("v8-zset2", v8_zset2),
    Case("v9-stream", v9_stream),
    Case("v9-idle", v9_idle, probe="idle"),
    # LFU: FREQ applies (without decay, so OBJECT FREQ is exact); a key without one gets 5.
    Case("v9-freq", v9_freq, ("--maxmemory-policy", "allkeys-lfu", "--lfu-decay-time", "0"),
         probe="freq"),
    Case("v10-rc-function", v10_rc_functions),
    Case("v10-listpacks-stream2-function2", v10_listpacks),
    Case("v10-zero-crc", v10_listpacks, crc="zero"),
    Case("v10-empty-listpacks", v10_empty),
    Case("expire-ms-zero", expire_zero),
    Case("expire-seconds-zero", expire_seconds_zero),
    Case("expire-seconds-negative", expire_negative_seconds),
]


def build(case):
    f = case.build()
    return f, f.finish(case.crc)


# --- negative files: both servers must refuse to start -------------------------------------------

def _small_v10():
    f = RdbFile(10)
    f.aux("redis-ver", "7.0.15")
    f.select_db(0).resize_db(3, 0)
    f.key(STRING, "a", string("some value"))
    f.key(HASH_LISTPACK, "h", string(listpack(["f", "v", "g", "w"])))
    f.key(LIST_QUICKLIST_2, "l", body_quicklist2([(2, listpack(["x", "y", "z"]))]))
    return f


def bad_version(number):
    def make():
        data = bytearray(_small_v10().finish())
        data[5:9] = b"%04d" % number
        # The CRC covers the header: rewrite it so only the version is wrong.
        data[-8:] = struct.pack("<Q", crc64(bytes(data[:-8])))
        return bytes(data)
    return make


def bad_crc():
    return _small_v10().finish("bad")


def truncated():
    data = _small_v10().finish()
    return data[:len(data) - 20]


def missing_eof():
    f = RdbFile(1)
    f.select_db(0)
    f.key(STRING, "a", string("v"))
    return bytes(f.out)


def unknown_type(type_byte):
    def make():
        f = RdbFile(10)
        f.select_db(0)
        f.key(STRING, "a", string("v"))
        f.raw(bytes([type_byte]) + string("k") + string("v"))
        return f.finish()
    return make


def _one_key(version, rdb_type, body):
    f = RdbFile(version)
    f.select_db(0)
    f.key(rdb_type, "k", body)
    return f.finish()


def zipmap_bad_length():
    blob = bytearray(zipmap([("field", "value"), ("g", "w")]))
    blob[7] = 200  # the first value's length byte: far past the end
    return _one_key(2, HASH_ZIPMAP, string(bytes(blob)))


def zipmap_empty():
    return _one_key(2, HASH_ZIPMAP, string(zipmap([])))


def zipmap_duplicate():
    return _one_key(2, HASH_ZIPMAP, string(zipmap([("f", "1"), ("f", "2")])))


def ziplist_bad_zlbytes():
    blob = bytearray(ziplist(["a", "b", 3]))
    blob[0] += 1
    return _one_key(6, LIST_ZIPLIST, string(bytes(blob)))


def ziplist_bad_entry_length():
    blob = bytearray(ziplist(["abc", "de"]))
    blob[11] = 60  # "abc"'s 6-bit length: past the end, with zlbytes still right
    return _one_key(6, LIST_ZIPLIST, string(bytes(blob)))


def quicklist_bad_ziplist():
    blob = bytearray(ziplist(["a", "b"]))
    blob[4] = 200  # zltail past the end
    return _one_key(7, LIST_QUICKLIST, body_quicklist([bytes(blob)]))


def zset_nan_ascii():
    return _one_key(1, ZSET, body_zset([("a", 1), ("nan", math.nan)]))


def zset2_nan():
    return _one_key(8, ZSET_2, body_zset2([("a", 1.0), ("nan", math.nan)]))


def intset_empty():
    return _one_key(2, SET_INTSET, string(intset([])))


def listpack_bad_size():
    blob = bytearray(listpack(["f", "v"]))
    blob[0] += 3
    return _one_key(10, HASH_LISTPACK, string(bytes(blob)))


def lzf_bad_length():
    data = b"q" * 50
    packed = lzf_compress(data)
    body = b"\xc3" + length(len(packed)) + length(len(data) + 1) + packed
    return _one_key(5, STRING, body)


def unknown_string_encoding():
    return _one_key(5, STRING, b"\xc4\x00")


def duplicate_key():
    f = RdbFile(10)
    f.select_db(0)
    f.key(STRING, "k", string("1"))
    f.key(STRING, "k", string("2"))
    return f.finish()


def select_db_out_of_range():
    f = RdbFile(10)
    f.select_db(DATABASES)
    f.key(STRING, "k", string("v"))
    return f.finish()


def stream_consumer_pel_unknown():
    node = stream_node((1, 0), ["f"], [((1, 0), [("f", "v")], False)])
    group = Group("g", (1, 0), 1, [((1, 0), 10, 1)], [("c", 10, [(1, 0), (2, 0)])])
    return _one_key(10, STREAM_LISTPACKS_2,
                    body_stream([((1, 0), node)], 1, (1, 0), [group], v2=((1, 0), (0, 0), 1)))


NEGATIVE = {
    "version-11": bad_version(11),
    "version-0": bad_version(0),
    "bad-crc": bad_crc,
    "truncated": truncated,
    "missing-eof": missing_eof,
    "unknown-type-8": unknown_type(8),
    "unknown-type-20": unknown_type(20),
    "zipmap-bad-length": zipmap_bad_length,
    "zipmap-empty": zipmap_empty,
    "zipmap-duplicate-field": zipmap_duplicate,
    "ziplist-bad-zlbytes": ziplist_bad_zlbytes,
    "ziplist-bad-entry-length": ziplist_bad_entry_length,
    "quicklist-bad-ziplist": quicklist_bad_ziplist,
    "zset-nan-ascii": zset_nan_ascii,
    "zset2-nan": zset2_nan,
    "intset-empty": intset_empty,
    "listpack-bad-size": listpack_bad_size,
    "lzf-bad-length": lzf_bad_length,
    "unknown-string-encoding": unknown_string_encoding,
    "duplicate-key": duplicate_key,
    "selectdb-out-of-range": select_db_out_of_range,
    "stream-consumer-pel-unknown": stream_consumer_pel_unknown,
}


# --- servers -------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def warden_bin():
    binary = os.environ.get("WARDEN_BIN")
    if not binary:
        raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
    return os.path.abspath(binary)  # the servers run in their own directories


class Server:
    """redis-server or warden started on an RDB file copied into a directory of its own."""

    def __init__(self, kind, data, extra=()):
        self.kind = kind
        self.dir = tempfile.mkdtemp(prefix="rdb-%s-" % kind)
        with open(os.path.join(self.dir, "dump.rdb"), "wb") as out:
            out.write(data)
        common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                  "--dir", self.dir, "--dbfilename", "dump.rdb",
                  "--databases", str(DATABASES), *extra]
        self.port_file = os.path.join(self.dir, "port")
        if kind == "redis-server":
            self.port = free_port()
            argv = ["redis-server", "--port", str(self.port), *common]
        else:
            self.port = None
            argv = [warden_bin(), "--port", "0", "--port-file", self.port_file, *common]
        self.log_path = os.path.join(self.dir, "server.log")
        try:
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                             cwd=self.dir)
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")[-3000:]

    def settle(self, deadline):
        """Returns "ready" once it answers PING, or "exited". Between tries it waits on the
        process itself, so an exit ends the wait at once."""
        while True:
            if self.proc.poll() is not None:
                return "exited"
            if self.port is None and os.path.exists(self.port_file):
                with open(self.port_file) as f:
                    text = f.read().strip()
                self.port = int(text) if text else None
            if self.port is not None:
                try:
                    with redis.Redis(port=self.port, socket_timeout=WAIT_S) as c:
                        if c.ping():
                            return "ready"
                except redis.BusyLoadingError:
                    pass
                except redis.ConnectionError:
                    pass
            if time.monotonic() > deadline:
                raise AssertionError("%s neither started nor exited:\n%s"
                                     % (self.kind, self.log()))
            try:
                self.proc.wait(timeout=0.01)
            except subprocess.TimeoutExpired:
                pass

    def client(self):
        """redis-py without its reply parsers: every reply as the server sent it."""
        c = redis.Redis(port=self.port, socket_timeout=WAIT_S)
        c.response_callbacks.clear()
        return c

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def start_both(data, extra=()):
    """Both servers, started side by side; each one's settle() state."""
    servers = []
    try:
        for kind in ("redis-server", "warden"):
            servers.append(Server(kind, data, extra))
        deadline = time.monotonic() + WAIT_S
        return servers, [s.settle(deadline) for s in servers]
    except BaseException:
        for s in servers:
            s.stop()
        raise


# --- the data set in a canonical form ------------------------------------------------------------

def probe(c, what):
    """OBJECT IDLETIME or FREQ of every key, before any command can touch one."""
    subcommand = {"idle": "IDLETIME", "freq": "FREQ"}[what]
    out = {}
    for db in range(DATABASES):
        c.execute_command("SELECT", db)
        for key in c.execute_command("KEYS", "*"):
            out[(db, key)] = c.execute_command("OBJECT", subcommand, key)
    c.execute_command("SELECT", 0)
    return out


def stream_info(c, key):
    info = c.execute_command("XINFO", "STREAM", key, "FULL", "COUNT", "0")
    pairs = dict(zip(info[0::2], info[1::2]))
    pairs.pop(b"radix-tree-nodes", None)  # the radix tree's own shape, not the data
    return pairs


def value_of(c, key, kind):
    if kind == b"string":
        return c.execute_command("GET", key)
    if kind == b"list":
        return c.execute_command("LRANGE", key, 0, -1)
    if kind == b"set":
        return sorted(c.execute_command("SMEMBERS", key))
    if kind == b"zset":
        return c.execute_command("ZRANGE", key, 0, -1, "WITHSCORES")
    if kind == b"hash":
        flat = c.execute_command("HGETALL", key)
        return sorted(zip(flat[0::2], flat[1::2]))
    if kind == b"stream":
        return (c.execute_command("XRANGE", key, "-", "+"), stream_info(c, key))
    raise AssertionError("unexpected type %r of %r" % (kind, key))


def data_set(c):
    out = {}
    for db in range(DATABASES):
        c.execute_command("SELECT", db)
        for key in sorted(c.execute_command("KEYS", "*")):
            kind = c.execute_command("TYPE", key)
            out[(db, key)] = (kind, c.execute_command("PEXPIRETIME", key), value_of(c, key, kind))
    c.execute_command("SELECT", 0)
    return out


def libraries(c):
    """FUNCTION LIST WITHCODE by library name, each library's functions by name (Redis lists
    both in its dicts' order)."""
    out = []
    for lib in c.execute_command("FUNCTION", "LIST", "WITHCODE"):
        fields = dict(zip(lib[0::2], lib[1::2]))
        fields[b"functions"] = sorted(fields[b"functions"], key=lambda fn: fn[1])
        out.append(fields)
    return sorted(out, key=lambda lib: lib[b"library_name"])


def load_counts(c):
    info = c.execute_command("INFO", "persistence").decode()
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return (int(fields["rdb_last_load_keys_loaded"]), int(fields["rdb_last_load_keys_expired"]))


def snapshot(server, what):
    with server.client() as c:
        probed = probe(c, what) if what else None
        return {"probe": probed, "data": data_set(c), "functions": libraries(c),
                "counts": load_counts(c)}


# --- tests ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", POSITIVE, ids=[c.name for c in POSITIVE])
def test_file_loads_as_on_redis(case, tmp_path):
    f, data = build(case)
    path = tmp_path / "dump.rdb"
    path.write_bytes(data)
    if not f.has_empty:  # redis-check-rdb counts an empty collection as an error
        check = subprocess.run(["redis-check-rdb", str(path)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=WAIT_S)
        assert check.returncode == 0, check.stdout.decode(errors="replace")[-2000:]

    servers, states = start_both(data, case.args)
    try:
        assert states == ["ready", "ready"], "\n".join(
            "%s %s:\n%s" % (s.kind, state, s.log()) for s, state in zip(servers, states))
        redis_side, warden_side = (snapshot(s, case.probe) for s in servers)
    finally:
        for s in servers:
            s.stop()

    assert redis_side["counts"] == (f.loaded, f.expired)  # the generator's own expectation
    assert sorted(warden_side["data"]) == sorted(redis_side["data"])
    for key, value in redis_side["data"].items():
        assert warden_side["data"][key] == value, key
    assert warden_side["functions"] == redis_side["functions"]
    assert warden_side["counts"] == redis_side["counts"]
    if case.probe == "idle":  # seconds since the load: a second or two may pass between reads
        for key, idle in redis_side["probe"].items():
            assert abs(warden_side["probe"][key] - idle) <= 2, key
    else:
        assert warden_side["probe"] == redis_side["probe"]


@pytest.mark.parametrize("name", sorted(NEGATIVE))
def test_bad_file_stops_both_servers(name):
    data = NEGATIVE[name]()
    servers, states = start_both(data)
    try:
        codes = [s.proc.returncode for s in servers]
        assert states == ["exited", "exited"], "\n".join(
            "%s %s:\n%s" % (s.kind, state, s.log()) for s, state in zip(servers, states))
        assert all(code != 0 for code in codes), codes
    finally:
        for s in servers:
            s.stop()
