"""Replication between warden and redis-server 7.0.15, both roles, over the real protocol.

Each test starts the servers it needs: warden from WARDEN_BIN (default build/warden) and
redis-server from /usr/bin, each in a temp directory of its own with `--save ""`, on a free
loopback port (warden binds port 0 and writes a port file), and stops them by PID. A test that
takes a pair runs once per (master, replica): warden -> redis-server, redis-server -> warden and
warden -> warden; one that takes a trio mixes three servers. Where a reply is compared with
Redis's, the test runs the same steps on a redis-server of its own and also pins the literal.
No sleeps: every wait polls with a deadline and, between tries, waits on a server process
itself (so a crash ends the wait at once, with the servers' logs in the failure).

REPLICATION_ALL_REDIS=1 runs every "warden" role with redis-server instead: the whole file then
passes, which shows that each expectation is Redis's own.

   1 full sync, diskless and disk-based, of every type and encoding, TTLs, four databases and a
     function library, compared key by key; two replicas at once or one after the other; the
     diskless delay honoured
   2 the stream after the sync: thousands of mixed writes (pipelines, MULTI, EVAL, FCALL,
     expiring keys, big values, other databases), WAIT, offsets; what each command propagates
     as, byte for byte against Redis, and the replica applying each of those forms
   3 partial resync after CLIENT KILL of the link, from either side
   4 a replica restarted from its own dump.rdb (repl-id / repl-offset) resyncs partially; a
     master restarted from its dump.rdb takes its replica back partially
   5 failover by hand among three servers; chained replicas
   6 READONLY, WAIT on a replica, MASTERDOWN, NOREPLICAS, WAIT's offsets against a raw replica,
     expired keys kept on a replica until the master's DEL, PUBLISH reaching a replica
   7 ROLE, INFO replication and CLIENT LIST of the link, against the same topology on Redis

Sections 8-10 (errors, redis-cli, bad input) are in test_replication_interface.py; what both
files share is in replication_support.py.
"""


from replication_support import *  # noqa: F401,F403 (the shared servers and helpers)


# --- 1. full sync --------------------------------------------------------------------------------

@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_full_sync_of_every_type(servers, pair, diskless):
    master, replica = servers((pair[0], ["--repl-diskless-sync", diskless]), pair[1])
    keys = populate(master)
    before = stats(master)
    attach(replica, master)
    after = stats(master)
    assert after["sync_full"] == before["sync_full"] + 1
    assert after["sync_partial_ok"] == before["sync_partial_ok"]
    assert_same_data(master, replica, expect_keys=keys)
    settled(master, [replica])


def test_diskless_sync_delay_is_waited_once(servers):
    """repl-diskless-sync-delay 2: the sync starts after two seconds, not never (the keepalive
    newlines sent while the replica waits do not restart the delay)."""
    master, replica = servers(("warden", ["--repl-diskless-sync-delay", "2"]), "redis")
    assert master.call("SET", "k", "v") == b"+OK\r\n"
    started = time.monotonic()
    assert replica.call("REPLICAOF", "127.0.0.1", str(master.port)) == b"+OK\r\n"
    wait_until(lambda: link_up(replica, master), [master, replica], "the delayed sync",
               timeout=2 + WAIT_S)
    assert time.monotonic() - started >= 1.9
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


@pytest.mark.parametrize("when", ["together", "one-after-the-other"])
@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_two_replicas(servers, kind, diskless, when):
    """Two replicas of one master: asking at the same moment (the second while the first one's
    snapshot is being written) or the second once the first is online. Both get the data set
    and then the stream."""
    master, r1, r2 = servers((kind, ["--repl-diskless-sync", diskless]), "redis", "redis")
    populate(master)
    add_big_values(master)
    if when == "together":
        for r in (r1, r2):
            assert r.call("REPLICAOF", "127.0.0.1", str(master.port)) == b"+OK\r\n"
        for r in (r1, r2):
            wait_until(lambda: link_up(r, master), [master, r1, r2], "%r's link up" % r)
    else:
        attach(r1, master)
        attach(r2, master)
    assert write_and_wait(master, 2, ("SET", "after", "both")) == [b"+OK\r\n", b":2\r\n"]
    settled(master, [r1, r2])
    assert_same_data(master, r1)
    assert_same_data(master, r2)


# --- 2. the stream -------------------------------------------------------------------------------


def workload(rng, count):
    """`count` mixed writes as batches of commands (some in MULTI/EXEC)."""
    cmds = []
    db = 0
    for i in range(count):
        r = rng.random()
        n = rng.randrange(40)
        early = i < count // 2
        if r < 0.10:
            cmds.append(("SET", "str:%d" % n, "v%d" % i, "PX", rng.randrange(100000, 200000)))
        elif r < 0.14 and early:
            cmds.append(("SET", "short:%d" % i, "gone", "PX", rng.randrange(1, 5)))
        elif r < 0.20:
            cmds.append(("INCR", "cnt:%d" % n))
        elif r < 0.23:
            cmds.append(("INCRBYFLOAT", "flt:%d" % (n % 5), "1.25"))
        elif r < 0.27:
            cmds.append(("DEL", "str:%d" % n, "cnt:%d" % n))
        elif r < 0.33:
            cmds.append(("LPUSH", "list:%d" % (n % 8), "e%d" % i))
        elif r < 0.36:
            cmds.append(("RPOP", "list:%d" % (n % 8)))
        elif r < 0.38:
            cmds.append(("LMOVE", "list:%d" % (n % 8), "list:%d" % (n % 3), "LEFT", "RIGHT"))
        elif r < 0.42:
            cmds.append(("SADD", "set:%d" % (n % 6), *("m%d" % rng.randrange(100)
                                                       for _ in range(3))))
        elif r < 0.44:
            cmds.append(("SPOP", "set:%d" % (n % 6)))
        elif r < 0.48:
            cmds.append(("HSET", "hash:%d" % (n % 6), "f%d" % (i % 30), i))
        elif r < 0.50:
            cmds.append(("HINCRBY", "hash:%d" % (n % 6), "ctr", 3))
        elif r < 0.54:
            cmds.append(("ZADD", "zset:%d" % (n % 4), rng.randrange(-1000, 1000) / 8,
                         "m%d" % rng.randrange(60)))
        elif r < 0.56:
            cmds.append(("ZPOPMIN", "zset:%d" % (n % 4)))
        elif r < 0.60:
            cmds.append(("XADD", "stream:%d" % (n % 2), "*", "i", i))
        elif r < 0.62:
            cmds.append(("XREADGROUP", "GROUP", "grp", "c%d" % (n % 3), "COUNT", 2,
                         "STREAMS", "stream:%d" % (n % 2), ">"))
        elif r < 0.63:
            cmds.append(("XAUTOCLAIM", "stream:%d" % (n % 2), "grp", "c9", 0, "0-0", "COUNT", 1))
        elif r < 0.64:
            cmds.append(("XTRIM", "stream:%d" % (n % 2), "MAXLEN", 50))
        elif r < 0.68:
            cmds.append(("EVAL", SCRIPT, 3, "cnt:%d" % n, "str:s%d" % n, "set:%d" % (n % 6),
                         "lua"))
        elif r < 0.71:
            cmds.append(("FCALL", "rset", 1, "str:f%d" % n, "fn%d" % i))
        elif r < 0.73:
            cmds.append(("FCALL", "rpush_count", 2, "cnt:%d" % n, "list:%d" % (n % 8), i))
        elif r < 0.76:
            cmds.append(("EXPIRE", "str:%d" % n, rng.randrange(1000, 2000)))
        elif r < 0.77:
            cmds.append(("PERSIST", "str:%d" % n))
        elif r < 0.79:
            cmds.append(("GETEX", "str:%d" % n, "PX", rng.randrange(100000, 200000)))
        elif r < 0.80:
            cmds.append(("GETDEL", "str:f%d" % n))
        elif r < 0.82:
            cmds.append(("SETEX", "str:x%d" % n, 5000, i))
        elif r < 0.84:
            cmds.append(("COPY", "str:%d" % n, "str:copy%d" % n, "DB", 3, "REPLACE"))
        elif r < 0.85:
            cmds.append(("MOVE", "str:f%d" % n, 9))
        elif r < 0.86:
            cmds.append(("SET", "str:big%d" % (n % 4), rng.randbytes(rng.randrange(60000, 90000))))
        elif r < 0.90:
            db = rng.choice(WORKLOAD_DBS)
            cmds.append(("SELECT", db))
        elif r < 0.95:
            body = [("INCR", "cnt:%d" % n), ("LPUSH", "list:%d" % (n % 8), "tx%d" % i),
                    ("SET", "str:%d" % n, "tx", "KEEPTTL"), ("HSET", "hash:tx", "f", i)]
            cmds += [("MULTI",), *body[:rng.randrange(1, 5)], ("EXEC",)]
        else:
            cmds.append(("SET", "str:nx%d" % n, i, "NX", "EX", 100000))
    cmds.append(("SELECT", 0))
    return cmds


def write_and_wait(server, replicas, *cmds):
    """The commands, then WAIT <replicas> 5000 on the same connection (WAIT waits for the
    offset of the connection's own last write); the replies, the last one WAIT's."""
    with server.conn() as c:
        replies = [c.call(*cmd, timeout=WAIT_S) for cmd in cmds]
        return replies + [c.call("WAIT", replicas, 5000, timeout=WAIT_S)]


def run_workload(server, cmds, batch=300, wait=None):
    """Sends the workload in pipelined batches; no reply may be an error. With `wait`, ends
    with WAIT <wait> 5000 on the same connection and returns its reply."""
    with server.conn() as c:
        setup = [("FUNCTION", "LOAD", "REPLACE", FUNCTION_CODE)]
        for db in WORKLOAD_DBS:
            setup += [("SELECT", db), ("DEL", "stream:0", "stream:1"),
                      ("XGROUP", "CREATE", "stream:0", "grp", "$", "MKSTREAM"),
                      ("XGROUP", "CREATE", "stream:1", "grp", "$", "MKSTREAM")]
        setup.append(("SELECT", 0))
        for cmd in setup:
            assert not c.call(*cmd).startswith(b"-"), cmd
        for start in range(0, len(cmds), batch):
            part = cmds[start:start + batch]
            c.send_raw(b"".join(encode(*cmd) for cmd in part))
            for cmd in part:
                reply = c.reply(WAIT_S)
                assert not reply.startswith(b"-"), (cmd[:2], reply)
        if wait is not None:
            return c.call("WAIT", wait, 5000, timeout=WAIT_S)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_stream_of_mixed_writes(servers, pair):
    master, replica = servers(*pair)
    master.call("SET", "before", "sync")
    attach(replica, master)
    assert run_workload(master, workload(random.Random(2), 4000), wait=1) == b":1\r\n"
    offset, _ = settled(master, [replica])
    assert repl(replica)["master_repl_offset"] == offset
    assert_same_data(master, replica, propagated=True)


# Each step (a command, or a list of them on one connection) and what Redis 7.0.15 propagates
# for it, in order: relative TTLs as absolute PXAT/PEXPIREAT, INCRBYFLOAT as SET ... KEEPTTL,
# pops as the pop that took place, blocking commands as their non-blocking form, XREADGROUP as
# XCLAIM, a script's or transaction's writes bare when there is one, in MULTI/EXEC when more.
PLIB = ("#!lua name=plib\nredis.register_function('w', function(k, a) "
        "return redis.call('SET', k[1], a[1]) end)")
PROPAGATION = [
    (('SET', 's', 'v', 'PX', 100000),
     [[b'SELECT', b'0'], [b'SET', b's', b'v', b'PXAT', b'<ms>']]),
    (('SET', 's2', 'v', 'EX', 100),
     [[b'SET', b's2', b'v', b'PXAT', b'<ms>']]),
    (('SETEX', 's3', 100, 'v'),
     [[b'SET', b's3', b'v', b'PXAT', b'<ms>']]),
    (('PSETEX', 's4', 100000, 'v'),
     [[b'SET', b's4', b'v', b'PXAT', b'<ms>']]),
    (('SET', 's5', 'v', 'EXAT', 4102444800),
     [[b'SET', b's5', b'v', b'PXAT', b'4102444800000']]),
    (('SET', 's', 'w', 'KEEPTTL'),
     [[b'SET', b's', b'w', b'KEEPTTL']]),
    (('SET', 'nx', '1', 'NX'),
     [[b'SET', b'nx', b'1', b'NX']]),
    (('SET', 'nx', '2', 'NX'),
     []),
    (('SET', 's', 'x', 'GET'),
     [[b'SET', b's', b'x']]),
    (('EXPIRE', 's2', 200),
     [[b'PEXPIREAT', b's2', b'<ms>']]),
    (('PEXPIRE', 's3', 200000),
     [[b'PEXPIREAT', b's3', b'<ms>']]),
    (('EXPIREAT', 's4', 4102444800),
     [[b'PEXPIREAT', b's4', b'4102444800000']]),
    (('EXPIRE', 's2', 300, 'NX'),
     []),
    (('EXPIRE', 's5', 1),
     [[b'PEXPIREAT', b's5', b'<ms>']]),
    (('EXPIRE', 's5', -1),
     [[b'DEL', b's5']]),
    (('TTL', 's'),
     []),
    (('GETEX', 's', 'PX', 5000),
     [[b'PEXPIREAT', b's', b'<ms>']]),
    (('GETEX', 's', 'PERSIST'),
     [[b'PERSIST', b's']]),
    (('GETEX', 's'),
     []),
    (('GETDEL', 's3'),
     [[b'DEL', b's3']]),
    (('GETDEL', 's3'),
     []),
    (('INCRBYFLOAT', 'f', '1.5'),
     [[b'SET', b'f', b'1.5', b'KEEPTTL']]),
    (('INCR', 'i'),
     [[b'INCR', b'i']]),
    (('DECRBY', 'i', 3),
     [[b'DECRBY', b'i', b'3']]),
    (('APPEND', 'a', 'x'),
     [[b'APPEND', b'a', b'x']]),
    (('SETRANGE', 'a', 3, 'y'),
     [[b'SETRANGE', b'a', b'3', b'y']]),
    (('MSET', 'm1', 1, 'm2', 2),
     [[b'MSET', b'm1', b'1', b'm2', b'2']]),
    (('MSETNX', 'm1', 1, 'm3', 3),
     []),
    (('HSET', 'h', 'a', 1),
     [[b'HSET', b'h', b'a', b'1']]),
    (('HINCRBYFLOAT', 'h', 'b', '2.5'),
     [[b'HSET', b'h', b'b', b'2.5']]),
    (('HINCRBY', 'h', 'a', 2),
     [[b'HINCRBY', b'h', b'a', b'2']]),
    (('HDEL', 'h', 'zz'),
     []),
    (('SADD', 'one', 'm'),
     [[b'SADD', b'one', b'm']]),
    (('SPOP', 'one'),
     [[b'SREM', b'one', b'm']]),
    (('SADD', 'two', 'm1'),
     [[b'SADD', b'two', b'm1']]),
    (('SPOP', 'two', 5),
     [[b'DEL', b'two']]),
    (('SPOP', 'none'),
     []),
    (('SMOVE', 'none', 'two', 'x'),
     []),
    (('RPUSH', 'l', 'a', 'b', 'c', 'd'),
     [[b'RPUSH', b'l', b'a', b'b', b'c', b'd']]),
    (('LPOP', 'l'),
     [[b'LPOP', b'l']]),
    (('LPOP', 'l', 2),
     [[b'LPOP', b'l', b'2']]),
    (('BLPOP', 'l', 0),
     [[b'LPOP', b'l']]),
    (('RPUSH', 'l', 'e', 'f', 'g'),
     [[b'RPUSH', b'l', b'e', b'f', b'g']]),
    (('BLMOVE', 'l', 'l2', 'LEFT', 'RIGHT', 0),
     [[b'LMOVE', b'l', b'l2', b'LEFT', b'RIGHT']]),
    (('BRPOPLPUSH', 'l', 'l2', 0),
     [[b'RPOPLPUSH', b'l', b'l2']]),
    (('LMPOP', 1, 'l2', 'LEFT', 'COUNT', 1),
     [[b'LPOP', b'l2', b'1']]),
    (('BLMPOP', 0, 1, 'l', 'RIGHT'),
     [[b'RPOP', b'l', b'1']]),
    (('RPOP', 'l'),
     []),
    (('ZADD', 'z', 1, 'a', 2, 'b', 3, 'c', 4, 'd'),
     [[b'ZADD', b'z', b'1', b'a', b'2', b'b', b'3', b'c', b'4', b'd']]),
    (('ZPOPMIN', 'z'),
     [[b'ZPOPMIN', b'z']]),
    (('BZPOPMAX', 'z', 0),
     [[b'ZPOPMAX', b'z']]),
    (('ZMPOP', 1, 'z', 'MIN'),
     [[b'ZPOPMIN', b'z', b'1']]),
    (('BZMPOP', 0, 1, 'z', 'MAX', 'COUNT', 5),
     [[b'ZPOPMAX', b'z', b'1']]),
    (('ZINCRBY', 'z', 1.5, 'q'),
     [[b'ZINCRBY', b'z', b'1.5', b'q']]),
    (('ZADD', 'z', 'INCR', 1, 'q'),
     [[b'ZADD', b'z', b'INCR', b'1', b'q']]),
    (('DEL', 'missing'),
     []),
    (('DEL', 'a', 'missing'),
     [[b'DEL', b'a', b'missing']]),
    (('UNLINK', 'f'),
     [[b'UNLINK', b'f']]),
    (('EXISTS', 'i'),
     []),
    (('XADD', 'x', '*', 'f', 'v'),
     [[b'XADD', b'x', b'<id>', b'f', b'v']]),
    (('XADD', 'x', '5-1', 'f', 'v'),
     []),
    (('XADD', 'x', '5-*', 'f', 'v'),
     []),
    (('XADD', 'x', 'MAXLEN', '~', 1, '*', 'f', 'v'),
     [[b'XADD', b'x', b'MAXLEN', b'=', b'2', b'<id>', b'f', b'v']]),
    (('XGROUP', 'CREATE', 'x', 'g', '0'),
     [[b'XGROUP', b'CREATE', b'x', b'g', b'0']]),
    (('XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', 1, 'STREAMS', 'x', '>'),
     [[b'XCLAIM', b'x', b'g', b'c1', b'0', b'<id>', b'TIME', b'<ms>', b'RETRYCOUNT', b'1',
       b'FORCE', b'JUSTID', b'LASTID', b'<id>']]),
    (('XREADGROUP', 'GROUP', 'g', 'c1', 'NOACK', 'COUNT', 1, 'STREAMS', 'x', '>'),
     [[b'XGROUP', b'SETID', b'x', b'g', b'<id>', b'ENTRIESREAD', b'2']]),
    (('XAUTOCLAIM', 'x', 'g', 'c2', 0, '0-0'),
     [[b'XCLAIM', b'x', b'g', b'c2', b'0', b'<id>', b'TIME', b'<ms>', b'RETRYCOUNT', b'2',
       b'FORCE', b'JUSTID', b'LASTID', b'<id>']]),
    (('XCLAIM', 'x', 'g', 'c3', 0, '5-1'),
     []),
    (('XACK', 'x', 'g', '5-1'),
     []),
    (('XGROUP', 'CREATECONSUMER', 'x', 'g', 'c4'),
     [[b'XGROUP', b'CREATECONSUMER', b'x', b'g', b'c4']]),
    (('XGROUP', 'DELCONSUMER', 'x', 'g', 'c4'),
     [[b'XGROUP', b'DELCONSUMER', b'x', b'g', b'c4']]),
    (('XGROUP', 'SETID', 'x', 'g', '$'),
     [[b'XGROUP', b'SETID', b'x', b'g', b'$']]),
    (('XDEL', 'x', '5-1'),
     []),
    (('XTRIM', 'x', 'MAXLEN', 0),
     [[b'XTRIM', b'x', b'MAXLEN', b'0']]),
    (('XSETID', 'x', '9-9'),
     [[b'XSETID', b'x', b'9-9']]),
    (('XGROUP', 'DESTROY', 'x', 'g'),
     [[b'XGROUP', b'DESTROY', b'x', b'g']]),
    (('EVAL', "redis.call('SET', KEYS[1], 'e') return 1", 1, 'e1'),
     [[b'SET', b'e1', b'e']]),
    (('EVAL', "redis.call('SET', KEYS[1], 'e') redis.call('INCR', KEYS[2]) return 1", 2, 'e1',
      'i'),
     [[b'MULTI'], [b'SET', b'e1', b'e'], [b'INCR', b'i'], [b'EXEC']]),
    (('EVAL', "return redis.call('GET', KEYS[1])", 1, 'e1'),
     []),
    (('EVAL', "redis.call('SET', KEYS[1], 'e', 'PX', 100000) return 1", 1, 'e2'),
     [[b'SET', b'e2', b'e', b'PXAT', b'<ms>']]),
    (('EVAL', "redis.call('SELECT', 2) redis.call('SET', KEYS[1], 'in2') return 1", 1, 'e3'),
     [[b'SELECT', b'2'], [b'SET', b'e3', b'in2'], [b'SELECT', b'0']]),
    (('FUNCTION', 'LOAD', PLIB),
     [[b'FUNCTION', b'LOAD', PLIB.encode()]]),
    (('FCALL', 'w', 1, 'fk', 'fv'),
     [[b'SET', b'fk', b'fv']]),
    (('SELECT', 3),
     [[b'SELECT', b'3']]),
    (('SET', 'd3', 1),
     [[b'SET', b'd3', b'1']]),
    (('MOVE', 'd3', 4),
     [[b'MOVE', b'd3', b'4']]),
    (('SELECT', 0),
     [[b'SELECT', b'0']]),
    (('COPY', 'i', 'i2', 'DB', 5),
     [[b'COPY', b'i', b'i2', b'DB', b'5']]),
    (('SWAPDB', 4, 5),
     [[b'SWAPDB', b'4', b'5']]),
    (('PUBLISH', 'ch', 'msg'),
     [[b'PUBLISH', b'ch', b'msg']]),
    (('RENAME', 'i2', 'i3'),
     []),
    (('FLUSHDB',),
     [[b'FLUSHDB']]),
    (('SELECT', 5),
     [[b'SELECT', b'5']]),
    (('FUNCTION', 'DELETE', 'plib'),
     [[b'FUNCTION', b'DELETE', b'plib']]),
    (('FLUSHALL',),
     [[b'FLUSHALL']]),
    (('SELECT', 0),
     [[b'SELECT', b'0']]),
    ([('MULTI',), ('INCR', 'i'), ('EXEC',)],
     [[b'INCR', b'i']]),
    ([('MULTI',), ('INCR', 'i'), ('SET', 'm', 1), ('EXEC',)],
     [[b'MULTI'], [b'INCR', b'i'], [b'SET', b'm', b'1'], [b'EXEC']]),
    ([('MULTI',), ('GET', 'i'), ('EXEC',)],
     []),
    ([('MULTI',), ('SELECT', 6), ('SET', 'in6', 1), ('SELECT', 0), ('EXEC',)],
     [[b'SELECT', b'6'], [b'SET', b'in6', b'1'], [b'SELECT', b'0']]),
]


@pytest.mark.parametrize("kind", KINDS)
def test_propagated_commands(servers, kind):
    master, reference = servers(kind, "redis")
    steps = [step if isinstance(step, list) else [step] for step, _ in PROPAGATION]
    replies, got = propagated(master, steps)
    want_replies, _ = propagated(reference, steps)
    for step, reply, want in zip(steps, replies, want_replies):
        assert [re.sub(rb"1\d{12}-\d+", b"<id>", r) for r in reply] == [
            re.sub(rb"1\d{12}-\d+", b"<id>", r) for r in want], step
    assert len(got) == len(PROPAGATION)
    wrong = ["%r\n  propagated %r\n  Redis:     %r" % (step, segment, want)
             for (step, want), segment in zip(PROPAGATION, got) if segment != want]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_replica_applies_each_propagated_form(servers, pair):
    """The steps of PROPAGATION (but the flushes) on a master: the replica ends up equal."""
    master, replica = servers(*pair)
    attach(replica, master)
    with master.conn() as c:
        for step, _ in PROPAGATION:
            step = step if isinstance(step, list) else [step]
            if step[0][0] in ("FLUSHDB", "FLUSHALL") or step[0][:2] == ("FUNCTION", "DELETE"):
                continue
            for cmd in step:
                c.call(*cmd, timeout=WAIT_S)
        assert c.call("WAIT", 1, 5000) == b":1\r\n"
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


# --- 3. partial resync after a killed link ------------------------------------------------------

@pytest.mark.parametrize("side", ["master", "replica"], ids=["kill-on-master", "kill-on-replica"])
@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_partial_resync_after_killed_link(servers, pair, side):
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    run_workload(master, workload(random.Random(3), 500))
    settled(master, [replica])
    before = stats(master)
    gap = workload(random.Random(4), 300)
    if side == "master":  # the kill and the gap's writes in one go, before any reconnect
        with master.conn() as c:
            c.send_raw(encode("CLIENT", "KILL", "TYPE", "replica")
                       + b"".join(encode(*cmd) for cmd in gap))
            assert c.reply(WAIT_S) == b":1\r\n"
            for cmd in gap:
                assert not c.reply(WAIT_S).startswith(b"-"), cmd
    else:
        assert replica.call("CLIENT", "KILL", "TYPE", "master") == b":1\r\n"
        run_workload(master, gap)
    wait_until(lambda: stats(master)["sync_partial_ok"] > before["sync_partial_ok"]
               and link_up(replica, master), [master, replica], "a partial resync")
    after = stats(master)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1
    assert after["sync_full"] == before["sync_full"]
    assert write_and_wait(master, 1, ("SET", "after", "resync")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


# --- 4. a restarted replica ----------------------------------------------------------------------

def rdb_aux(path):
    """The AUX fields redis-check-rdb reports for a file."""
    out = subprocess.run([REDIS_CHECK_RDB, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    return dict(re.findall(r"AUX FIELD (\S+) = '([^']*)'", text))


@pytest.mark.parametrize("how", ["shutdown-save", "save"])
@pytest.mark.parametrize("pair", [("redis", "warden"), ("warden", "warden"),
                                  ("warden", "redis")],
                         ids=["redis-to-warden", "warden-to-warden", "warden-to-redis"])
def test_restarted_replica_resyncs_partially(servers, pair, how):
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    run_workload(master, workload(random.Random(5), 300))
    offset, _ = settled(master, [replica])
    replid = repl(master)["master_replid"]
    directory = replica.dir
    if how == "save":
        assert replica.call("SAVE") == b"+OK\r\n"
        replica.stop(keep_dir=True)
    else:
        with replica.conn() as c:
            c.send("SHUTDOWN", "SAVE")
            assert c.read_until_eof(timeout=WAIT_S) == b""
        assert replica.proc.wait(timeout=WAIT_S) == 0
    aux = rdb_aux(os.path.join(directory, "dump.rdb"))
    assert aux["repl-id"] == replid
    assert int(aux["repl-offset"]) == int(offset)
    before = stats(master)
    run_workload(master, workload(random.Random(6), 200))  # while the replica is down
    replica = servers({"kind": pair[1], "directory": directory,
                       "extra": ["--replicaof", "127.0.0.1", str(master.port)]})
    wait_until(lambda: link_up(replica, master), [master, replica], "the restarted link")
    after = stats(master)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1
    assert after["sync_full"] == before["sync_full"]
    assert write_and_wait(master, 1, ("SET", "after", "restart")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_restarted_master_resyncs_partially(servers, pair):
    """A master stopped with SHUTDOWN SAVE comes back on its port from its dump.rdb with its
    replication ID and offset: its replica continues partially."""
    master, replica = servers(*pair)
    populate(master)
    attach(replica, master)
    assert run_workload(master, workload(random.Random(14), 200), wait=1) == b":1\r\n"
    offset, _ = settled(master, [replica])
    replid = repl(master)["master_replid"]
    with master.conn() as c:
        c.send("SHUTDOWN", "SAVE")
        assert c.read_until_eof(timeout=WAIT_S) == b""
    assert master.proc.wait(timeout=WAIT_S) == 0
    aux = rdb_aux(os.path.join(master.dir, "dump.rdb"))
    assert aux["repl-id"] == replid  # Redis's SHUTDOWN may add a GETACK to the offset
    assert int(aux["repl-offset"]) >= int(offset)
    wait_until(lambda: repl(replica)["master_link_status"] == "down", [replica], "link down")
    master = servers({"kind": pair[0], "directory": master.dir, "port": master.port})
    # the saved history becomes the second ID, a new one starts where it ended
    restored = repl(master)
    saved = int(aux["repl-offset"])
    assert restored["master_replid"] != replid and HEX40.match(restored["master_replid"])
    assert (restored["master_replid2"], restored["second_repl_offset"],
            restored["repl_backlog_active"], restored["repl_backlog_first_byte_offset"]) == (
        replid, str(saved + 1), "1", str(saved + 1))
    assert int(restored["master_repl_offset"]) >= saved  # keys expired at load add their DELs
    wait_until(lambda: link_up(replica, master), [master, replica], "the restarted link")
    assert stats(master) == {"sync_full": 0, "sync_partial_ok": 1, "sync_partial_err": 0}
    assert repl(replica)["master_replid"] == restored["master_replid"]
    assert write_and_wait(master, 1, ("SET", "after", "restart")) == [b"+OK\r\n", b":1\r\n"]
    settled(master, [replica])
    assert_same_data(master, replica, propagated=True)


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_publish_reaches_subscribers_of_the_replica(servers, pair):
    master, replica = servers(*pair)
    attach(replica, master)
    with replica.conn() as sub:
        assert sub.call("SUBSCRIBE", "news") == b"*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
        with master.conn() as c:
            assert c.call("PUBLISH", "news", "hello") == b":0\r\n"  # no subscriber on the master
            assert c.call("SELECT", 4) == b"+OK\r\n"
            script = "return redis.call('PUBLISH', 'news', 'from lua')"
            assert c.call("EVAL", script, 0) == b":0\r\n"
        assert sub.reply(WAIT_S) == b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello\r\n"
        assert sub.reply(WAIT_S) == (b"*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n"
                                     b"$8\r\nfrom lua\r\n")


# --- 5. failover by hand -------------------------------------------------------------------------

TRIOS = [("warden", "warden", "warden"), ("redis", "warden", "redis"),
         ("warden", "redis", "warden")]


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_failover_by_hand(servers, trio):
    """a is the master of b and c; b is promoted; c and then a follow b, both partially."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, a)
    assert run_workload(a, workload(random.Random(7), 400), wait=2) == b":2\r\n"
    settled(a, [b, c])
    old_id = repl(a)["master_replid"]
    assert b.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    promoted = repl(b)
    assert promoted["role"] == "master"
    assert promoted["master_replid2"] == old_id
    assert promoted["master_replid"] != old_id
    before = stats(b)
    attach(c, b)
    assert a.call("SET", "a-last", "write") == b"+OK\r\n"  # a's own, lost when it follows b
    attach(a, b)
    after = stats(b)
    assert after["sync_full"] == before["sync_full"] + 1  # a wrote past the point b took over
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 1  # c
    assert run_workload(b, workload(random.Random(8), 300), wait=2) == b":2\r\n"
    settled(b, [a, c])
    assert a.call("EXISTS", "a-last") == b":0\r\n"
    assert_same_data(b, a, propagated=True)
    assert_same_data(b, c, propagated=True)


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_failover_old_master_continues_partially(servers, trio):
    """Without writes of its own in between, the old master continues from the new one."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, a)
    run_workload(a, workload(random.Random(9), 300))
    settled(a, [b, c])
    assert b.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    before = stats(b)
    with a.conn() as conn:  # a stops taking writes the moment it follows b
        assert conn.call("REPLICAOF", "127.0.0.1", str(b.port)) == b"+OK\r\n"
    attach(c, b)
    wait_until(lambda: link_up(a, b), [a, b], "the old master following")
    after = stats(b)
    assert after["sync_partial_ok"] == before["sync_partial_ok"] + 2
    assert after["sync_full"] == before["sync_full"]
    assert run_workload(b, workload(random.Random(10), 300), wait=2) == b":2\r\n"
    settled(b, [a, c])
    assert_same_data(b, a, propagated=True)
    assert_same_data(b, c, propagated=True)


@pytest.mark.parametrize("trio", TRIOS, ids=["-".join(t) for t in TRIOS])
def test_chained_replicas(servers, trio):
    """a -> b -> c: b relays a's stream as it is, so c's offset is a's; b's own link to a
    dropped and resumed partially leaves c connected, without a resync of its own."""
    a, b, c = servers(*trio)
    populate(a)
    attach(b, a)
    attach(c, b)
    assert run_workload(a, workload(random.Random(12), 400), wait=1) == b":1\r\n"
    settled(a, [b, c])  # c counts the stream b relays: a's offsets
    assert_same_data(a, c, propagated=True)
    before_a, before_b = stats(a), stats(b)
    assert b.call("CLIENT", "KILL", "TYPE", "master") == b":1\r\n"
    run_workload(a, workload(random.Random(13), 200))
    wait_until(lambda: stats(a)["sync_partial_ok"] > before_a["sync_partial_ok"]
               and link_up(b, a), [a, b, c], "b's partial resync")
    assert stats(a)["sync_full"] == before_a["sync_full"]
    assert write_and_wait(a, 1, ("SET", "after", "chain")) == [b"+OK\r\n", b":1\r\n"]
    settled(a, [b, c])
    assert stats(b) == before_b  # c never asked b for another sync
    assert repl(c)["master_link_status"] == "up"
    assert_same_data(a, c, propagated=True)


# --- 6. replica and master refusals --------------------------------------------------------------

WAIT_ON_REPLICA = (b"-ERR WAIT cannot be used with replica instances. Please also note that "
                   b"since Redis 4.0 if a replica is configured to be writable (which is not the "
                   b"default) writes to replicas are just local and are not propagated.\r\n")
MASTERDOWN = (b"-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
              b"'no'.\r\n")
NOREPLICAS = b"-NOREPLICAS Not enough good replicas to write.\r\n"


REPLICA_STEPS = [
    ("SET", "k", "v"), ("GET", "s:int"), ("DEL", "s:int"), ("INCR", "s:counter"),
    ("EVAL", "return redis.call('SET', KEYS[1], 'x')", 1, "k"),
    ("EVAL", "return redis.call('GET', KEYS[1])", 1, "s:int"),
    ("EVAL_RO", "return redis.call('GET', KEYS[1])", 1, "s:int"),
    ("FCALL", "rset", 1, "k", "v"), ("FCALL", "rget", 1, "s:int"),
    ("FCALL_RO", "rget", 1, "s:int"),
    ("MULTI",), ("SET", "k", "v"), ("GET", "s:int"), ("EXEC",),
    ("WAIT", 1, 0), ("WAIT", 0, 0),
    ("FUNCTION", "DELETE", "repllib"), ("FLUSHALL",), ("PUBLISH", "ch", "m"),
    ("SELECT", 1), ("SET", "k", "v"), ("GET", "db1:s"), ("SELECT", 0),
]


@pytest.mark.parametrize("master_kind", KINDS)
def test_replica_refuses_writes(servers, master_kind):
    master, replica, reference = servers(master_kind, "warden", "redis")
    populate(master)
    attach(replica, master)
    attach(reference, master)
    got = transcript(replica, REPLICA_STEPS)
    want = transcript(reference, REPLICA_STEPS)
    replies = dict((i, reply) for i, (_, reply) in enumerate(got))
    assert replies[0] == READONLY
    assert replies[1] == b"$5\r\n12345\r\n"
    assert replies[4].startswith(b"-READONLY You can't write against a read only replica.")
    assert replies[14] == WAIT_ON_REPLICA
    assert got == want
    # replica-read-only no: writes are local, WAIT still refused
    for s in (replica, reference):
        assert s.call("CONFIG", "SET", "replica-read-only", "no") == b"+OK\r\n"
    steps = [("SET", "local", "1"), ("GET", "local"), ("WAIT", 1, 0)]
    got = transcript(replica, steps)
    assert got == transcript(reference, steps)
    assert [reply for _, reply in got] == [b"+OK\r\n", b"$1\r\n1\r\n", WAIT_ON_REPLICA]
    assert master.call("EXISTS", "local") == b":0\r\n"


STALE_STEPS = [("GET", "k"), ("PING",), ("SET", "k", "v"), ("DBSIZE",), ("ECHO", "x"),
               ("CONFIG", "GET", "replica-serve-stale-data")]


@pytest.mark.parametrize("master_kind", KINDS)
def test_masterdown_when_stale_data_is_refused(servers, master_kind):
    master, replica, reference = servers(
        master_kind, ("warden", ["--replica-serve-stale-data", "no"]),
        ("redis", ["--replica-serve-stale-data", "no"]))
    master.call("SET", "k", "v")
    attach(replica, master)
    attach(reference, master)
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"
    master.crash()
    for s in (replica, reference):
        wait_until(lambda: repl(s)["master_link_status"] == "down", [s], "the link down")
    got = transcript(replica, STALE_STEPS)
    assert got == transcript(reference, STALE_STEPS)
    assert got[0][1] == MASTERDOWN
    assert got[1][1] == MASTERDOWN
    info = replica.info("replication")
    assert info["role"] == "slave" and info["master_link_status"] == "down"
    assert replica.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


NOREPLICA_STEPS = [
    ("SET", "k", "v"), ("GET", "k"), ("DEL", "k"),
    ("EVAL", "return redis.call('SET', KEYS[1], 'x')", 1, "k"),
    ("EVAL", "return redis.call('GET', KEYS[1])", 1, "k"),
    ("MULTI",), ("SET", "k", "v"), ("EXEC",),
    ("MULTI",), ("GET", "k"), ("EXEC",),
]


@pytest.mark.parametrize("kind", KINDS)
def test_noreplicas(servers, kind):
    master, reference, replica = servers(kind, "redis", "redis")
    for s in (master, reference):
        assert s.call("CONFIG", "SET", "min-replicas-to-write", "1") == b"+OK\r\n"
    got = transcript(master, NOREPLICA_STEPS)
    assert got == transcript(reference, NOREPLICA_STEPS)
    assert got[0][1] == NOREPLICAS
    assert got[1][1] == b"$-1\r\n"
    assert "min_slaves_good_slaves:0" in master.value("INFO", "replication").decode()
    attach(replica, master)
    wait_until(lambda: repl(master).get("min_slaves_good_slaves") == "1", [master, replica],
               "a good replica")
    assert write_and_wait(master, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"


GETACK = b"*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n"


@pytest.mark.parametrize("kind", KINDS)
def test_wait_counts_acknowledged_offsets(servers, kind):
    """WAIT against a raw replica that ACKs only when told: a connection that wrote nothing
    is served at once, a write waits for an ACK of its offset, each WAIT that blocks asks the
    replicas for one (REPLCONF GETACK *), and INFO shows the acknowledged offset."""
    master = servers((kind, ["--repl-diskless-sync", "no"]))
    sock, line = start_psync(master.port)
    offset = int(line.split()[2])
    received = b""

    def read_until(want):
        nonlocal received
        deadline = time.monotonic() + WAIT_S
        while received.replace(PING, b"") != want:
            assert want.startswith(received.replace(PING, b"")), received
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            received += sock.recv(65536)

    def ack():
        sock.sendall(encode("REPLCONF", "ACK", offset + len(received)))

    with sock:
        read_payload(sock)
        ack()
        wait_until(lambda: "state=online,offset=%d," % offset in repl(master).get("slave0", ""),
                   [master], "the first ACK")
        with master.conn() as c:
            # this connection wrote nothing: nothing to wait for, and no GETACK
            assert c.call("WAIT", 1, 100) == b":1\r\n"
            assert c.call("SET", "k", "v") == b"+OK\r\n"
            started = time.monotonic()
            assert c.call("WAIT", 1, 100) == b":0\r\n"
            assert time.monotonic() - started >= 0.09
            stream = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                      b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n" + GETACK)
            read_until(stream)
            c.send("WAIT", 1, 0)
            read_until(stream + GETACK)
            with pytest.raises(ReplyTimeout):
                c.reply(timeout=0.05)
            ack()
            assert c.reply(WAIT_S) == b":1\r\n"
            assert c.call("WAIT", 2, 50) == b":1\r\n"
        acked = "state=online,offset=%d," % (offset + len(received))
        wait_until(lambda: acked in repl(master)["slave0"], [master], "INFO's offset")


EXPIRED_STEPS = [("GET", "k"), ("EXISTS", "k"), ("TTL", "k"), ("PTTL", "k"), ("TYPE", "k"),
                 ("DBSIZE",), ("KEYS", "*"), ("SCAN", 0), ("RANDOMKEY",), ("GET", "keep"),
                 ("OBJECT", "ENCODING", "k"), ("STRLEN", "k"), ("MGET", "k", "keep")]


@pytest.mark.parametrize("master_kind", KINDS)
def test_replica_keeps_expired_keys_until_the_masters_del(servers, master_kind):
    """A replica does not expire keys itself: past its deadline a key reads as missing but
    stays until the master's DEL comes (here from the master's own lookup, its active expiry
    switched off)."""
    master, replica, reference = servers(master_kind, "warden", "redis")
    assert master.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"+OK\r\n"
    for s in (replica, reference):
        assert s.call("DEBUG", "SET-ACTIVE-EXPIRE", "0") == b"+OK\r\n"
        attach(s, master)
    assert write_and_wait(master, 2, ("SET", "k", "v", "PX", 100), ("SET", "keep", "v")) == [
        b"+OK\r\n", b"+OK\r\n", b":2\r\n"]
    for s in (replica, reference):
        wait_until(lambda: s.call("EXISTS", "k") == b":0\r\n", [master, s], "the deadline")
    got = transcript(replica, EXPIRED_STEPS)
    assert got == transcript(reference, EXPIRED_STEPS)
    assert dict(got)[("DBSIZE",)] == b":2\r\n"  # still held
    assert dict(got)[("GET", "k")] == b"$-1\r\n"
    with master.conn() as c:
        assert c.call("GET", "k") == b"$-1\r\n"  # the master deletes it: DEL goes out
        assert c.call("WAIT", 2, 5000) == b":2\r\n"
    for s in (replica, reference):
        assert s.call("DBSIZE") == b":1\r\n"


# --- 7. ROLE and INFO replication ----------------------------------------------------------------

HEX40 = re.compile(r"^[0-9a-f]{40}$")
VARYING = {"master_port", "master_last_io_seconds_ago", "slave_read_repl_offset",
           "slave_repl_offset", "master_repl_offset", "repl_backlog_first_byte_offset",
           "repl_backlog_histlen", "master_link_down_since_seconds"}


def info_shape(server):
    """INFO replication as (field, value) in order, values that legitimately differ masked."""
    text = server.value("INFO", "replication").decode()
    lines = text.split("\r\n")
    assert lines[0] == "# Replication" and lines[-1] == "", lines
    out = []
    for line in lines[1:-1]:
        name, value = line.split(":", 1)
        if name in VARYING:
            assert re.match(r"^-?\d+$", value), line
            value = "<int>"
        elif name in ("master_replid", "master_replid2"):
            assert HEX40.match(value), line
            value = "<zeros>" if value == "0" * 40 else "<id>"
        elif re.match(r"^slave\d+$", name):
            fields = [f.split("=", 1) for f in value.split(",")]
            value = ",".join("%s=%s" % (k, "<int>" if k in ("port", "offset", "lag") else v)
                             for k, v in fields)
        out.append((name, value))
    return out


def role_shape(server):
    role = server.value("ROLE")

    def mask(item):
        if isinstance(item, list):
            return [mask(x) for x in item]
        if isinstance(item, int):
            return "<int>"
        return item

    shaped = mask(role)
    if role[0] == b"master":  # the replicas' [ip, port, offset] are strings
        shaped[2] = [[r[0], "<port>" if r[1].isdigit() else r[1],
                      "<offset>" if r[2].isdigit() else r[2]] for r in role[2]]
    return shaped


def shapes(master, replica):
    return {"master info": info_shape(master), "master role": role_shape(master),
            "replica info": info_shape(replica), "replica role": role_shape(replica)}


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_role_and_info_shape(servers, pair):
    master, replica, ref_master, ref_replica = servers(*pair, "redis", "redis")
    alone = [info_shape(s) for s in (master, ref_master)]
    assert alone[0] == alone[1]
    assert role_shape(master) == role_shape(ref_master) == [b"master", "<int>", []]
    for m, r in ((master, replica), (ref_master, ref_replica)):
        attach(r, m)
        assert write_and_wait(m, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
        settled(m, [r])
    got, want = shapes(master, replica), shapes(ref_master, ref_replica)
    for part in want:
        assert got[part] == want[part], part
    assert want["replica role"] == [b"slave", b"127.0.0.1", "<int>", b"connected", "<int>"]
    # the same values where the two must agree
    role = master.value("ROLE")
    assert role[0] == b"master" and len(role[2]) == 1
    assert role[2][0][:2] == [b"127.0.0.1", str(replica.port).encode()]
    replica_role = replica.value("ROLE")
    assert replica_role[2] == master.port
    # min-replicas-* adds min_slaves_good_slaves; the link down adds its own field
    for m in (master, ref_master):
        m.call("CONFIG", "SET", "min-replicas-to-write", "1")
    master.crash()
    ref_master.crash()
    for r in (replica, ref_replica):
        wait_until(lambda: repl(r)["master_link_status"] == "down", [r], "the link down")
    assert info_shape(replica) == info_shape(ref_replica)
    down = role_shape(replica)
    assert down == role_shape(ref_replica)
    assert down[3] in (b"connect", b"connecting")


CLIENT_FIELDS = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub",
                 "psub", "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs",
                 "rbp", "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir",
                 "resp"]


def client_line(server, kind):
    text = server.value("CLIENT", "LIST", "TYPE", kind).decode()
    lines = text.splitlines()
    assert len(lines) == 1, text
    fields = [f.split("=", 1) for f in lines[0].split(" ")]
    # lib-name and lib-ver are Redis 7.2's, not the link's business here
    return {k: v for k, v in fields if k not in ("lib-name", "lib-ver")}, [
        k for k, _ in fields if k not in ("lib-name", "lib-ver")]


@pytest.mark.parametrize("pair", PAIRS, ids=PAIR_IDS)
def test_client_list_of_the_link(servers, pair):
    """CLIENT LIST TYPE replica on the master and TYPE master on the replica: one connection
    seen from both ends, with Redis's fields."""
    master, replica = servers(*pair)
    attach(replica, master)
    assert write_and_wait(master, 1, ("SET", "k", "v")) == [b"+OK\r\n", b":1\r\n"]
    on_master, names = client_line(master, "replica")
    assert names == CLIENT_FIELDS
    on_replica, names = client_line(replica, "master")
    assert names == CLIENT_FIELDS
    assert (on_master["flags"], on_master["db"], on_master["cmd"], on_master["user"]) == (
        "S", "0", "replconf", "default")
    assert (on_replica["flags"], on_replica["db"], on_replica["user"]) == (
        "M", "0", "(superuser)")
    assert on_replica["addr"] == "127.0.0.1:%d" % master.port
    assert on_replica["addr"] == on_master["laddr"]
    assert on_replica["laddr"] == on_master["addr"]
    for fields in (on_master, on_replica):
        assert int(fields["fd"]) > 0, fields
        assert 0 <= int(fields["age"]) < 60 and 0 <= int(fields["idle"]) < 60, fields
    assert client_line(master, "slave")[0]["id"] == on_master["id"]
