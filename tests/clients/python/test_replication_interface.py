"""Replication between warden and redis-server 7.0.15: the commands' refusals and the tools
and inputs around the protocol (sections 8-10 of test_replication.py's list):

   8 REPLICAOF / REPLCONF / PSYNC / WAIT errors, REPLCONF ACK/GETACK from a client
   9 redis-cli --rdb / --functions-rdb (checked by redis-check-rdb, loaded by redis-server) and
     --replica against a master; a raw PSYNC's payload and the stream after it
  10 bad input: a replica that closes or sends garbage mid-sync, a dead master port (the
     replica retries with Redis's handshake), REPLICAOF to itself, a master sending a corrupt
     or cut-short payload

Servers, waits and helpers: replication_support.py. No sleeps: every wait polls with a
deadline and waits on a server process between tries.
"""

from replication_support import *  # noqa: F401,F403 (the shared servers and helpers)


# --- 8. REPLICAOF and REPLCONF errors ------------------------------------------------------------

def command_steps(dead_port):
    """(command, Redis's reply) on one connection; dead_port: a port nothing listens on."""
    dead = str(dead_port)
    not_integer = b"-ERR value is not an integer or out of range\r\n"
    arity = b"-ERR wrong number of arguments for '%s' command\r\n"
    return [
        (("REPLICAOF", "127.0.0.1", "notaport"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1", "70000"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1", "-1"), b"-ERR Invalid master port\r\n"),
        (("REPLICAOF", "127.0.0.1"), arity % b"replicaof"),
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("SLAVEOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLCONF", "foo", "bar"), b"-ERR Unrecognized REPLCONF option: foo\r\n"),
        (("REPLCONF", "listening-port"), b"-ERR syntax error\r\n"),
        (("REPLCONF", "listening-port", "abc"), not_integer),
        (("REPLCONF", "listening-port", "6380"), b"+OK\r\n"),
        (("REPLCONF", "capa", "eof", "capa", "psync2"), b"+OK\r\n"),
        (("REPLCONF", "capa", "whatever"), b"+OK\r\n"),
        (("REPLCONF", "ip-address", "10.0.0.1"), b"+OK\r\n"),
        (("REPLCONF",), b"+OK\r\n"),
        (("REPLCONF", "rdb-only", "2"),
         b"-ERR value is out of range, value must between 0 and 1\r\n"),
        (("REPLCONF", "rdb-only", "0"), b"+OK\r\n"),
        (("REPLCONF", "rdb-filter-only", "nonsense"),
         b"-ERR Unsupported rdb-filter-only option: nonsense\r\n"),
        (("PSYNC", "?"), arity % b"psync"),
        (("PSYNC", "?", "notanumber"), not_integer),
        (("SYNC", "extra"), arity % b"sync"),
        (("WAIT", "1"), arity % b"wait"),
        (("WAIT", "x", "0"), not_integer),
        (("WAIT", "0", "x"), b"-ERR timeout is not an integer or out of range\r\n"),
        (("WAIT", "0", "-1"), b"-ERR timeout is negative\r\n"),
        (("WAIT", "0", "0"), b":0\r\n"),
        (("ROLE", "extra"), arity % b"role"),
        (("REPLICAOF", "127.0.0.1", dead), b"+OK\r\n"),
        (("REPLICAOF", "127.0.0.1", dead), b"+OK Already connected to specified master\r\n"),
        (("SLAVEOF", "127.0.0.1", dead), b"+OK Already connected to specified master\r\n"),
        (("REPLICAOF", "localhost", dead), b"+OK\r\n"),  # another host name: another master
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLICAOF", "NO", "ONE"), b"+OK\r\n"),
        (("REPLICAOF", "no", "one"), b"+OK\r\n"),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_replicaof_and_replconf_errors(servers, kind):
    server, reference = servers(kind, "redis")
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        steps = command_steps(s.getsockname()[1])
        got = transcript(server, [step for step, _ in steps])
        want = transcript(reference, [step for step, _ in steps])
    assert want == steps  # the expectations are Redis's own
    for (step, reply), (_, expected) in zip(got, steps):
        assert reply == expected, step
    assert server.alive()


@pytest.mark.parametrize("kind", KINDS)
def test_replconf_ack_and_getack_from_a_client_have_no_reply(servers, kind):
    """REPLCONF ACK and GETACK from an ordinary client are ignored without a reply."""
    server = servers(kind)
    with server.conn() as c:
        c.send_raw(encode("REPLCONF", "ACK", "10") + encode("REPLCONF", "GETACK", "*")
                   + encode("REPLCONF", "ACK", "x") + encode("PING"))
        assert c.reply(WAIT_S) == b"+PONG\r\n"
        assert c.call("ECHO", "next") == b"$4\r\nnext\r\n"
    assert repl(server)["connected_slaves"] == "0"


# --- 9. redis-cli --rdb and --replica ------------------------------------------------------------

def check_rdb(path):
    out = subprocess.run([REDIS_CHECK_RDB, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0 and "RDB looks OK!" in text, text
    return text


@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_redis_cli_rdb(servers, kind, diskless, tmp_path):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    keys = populate(master)
    path = str(tmp_path / "cli.rdb")
    out = subprocess.run([REDIS_CLI, "-p", str(master.port), "--rdb", path],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    # rdb-only asks for a socket payload only when the master syncs diskless
    if diskless == "yes":
        tail = ("SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n"
                "Transfer finished with success after \\d+ bytes\n" % re.escape(path))
    else:
        tail = ("SYNC sent to master, writing \\d+ bytes to '%s'\n"
                "Transfer finished with success.\n" % re.escape(path))
    head = "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\n"
    assert re.fullmatch(head + tail, text), text
    check_rdb(path)
    with open(path, "rb") as f:
        data = f.read()
    loaded = servers({"kind": "redis", "rdb": data})
    assert_same_data(master, loaded, expect_keys=keys)
    assert repl(master)["connected_slaves"] == "0"
    # only the functions
    fpath = str(tmp_path / "functions.rdb")
    out = subprocess.run([REDIS_CLI, "-p", str(master.port), "--functions-rdb", fpath],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=WAIT_S)
    text = out.stdout.decode(errors="replace")
    assert out.returncode == 0, text
    assert re.fullmatch(  # a filtered payload always goes by socket
        "sending REPLCONF capa eof\nsending REPLCONF rdb-only 1\n"
        "sending REPLCONF rdb-filter-only functions\n"
        "SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n"
        "Transfer finished with success after \\d+ bytes\n" % re.escape(fpath), text), text
    check_rdb(fpath)
    with open(fpath, "rb") as f:
        functions_only = servers({"kind": "redis", "rdb": f.read()})
    got = snapshot(functions_only)
    assert got["data"] == {}
    assert got["functions"] == snapshot(master)["functions"]


def read_lines(proc, count, deadline_s=WAIT_S, skip=()):
    """`count` lines from proc's stdout (lines in `skip` not counted), or fails at the deadline."""
    lines = []
    buf = b""
    deadline = time.monotonic() + deadline_s
    fd = proc.stdout.fileno()
    while len(lines) < count:
        while b"\n" in buf and len(lines) < count:
            line, buf = buf.split(b"\n", 1)
            if line not in skip:
                lines.append(line)
        if len(lines) >= count:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("only %r (and %r) within %ss" % (lines, buf, deadline_s))
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("redis-cli ended after %r %r" % (lines, buf))
            buf += chunk
    return lines


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_redis_cli_replica(servers, kind):
    master = servers(kind)
    master.call("SET", "k", "v")
    proc = subprocess.Popen([REDIS_CLI, "-p", str(master.port), "--replica"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        head = read_lines(proc, 4)
        assert head[:3] == [b"sending REPLCONF capa eof", b"sending REPLCONF rdb-filter-only ",
                            b"SYNC with master, discarding bytes of bulk transfer until EOF "
                            b"marker..."], head
        assert re.fullmatch(rb"SYNC done after \d+ bytes\. Logging commands from master\.",
                            head[3]), head
        with master.conn() as c:
            for cmd in [("SET", "a", "1"), ("select", "3"), ("lpush", "l", "x", "y"),
                        ("SELECT", "0"), ("INCR", "a"),
                        ("EVAL", "redis.call('DEL', KEYS[1]) return 1", 1, "a"),
                        ("set", "b", "2", "px", "100000"), ("MULTI",), ("SET", "c", "1"),
                        ("EXEC",), ("MULTI",), ("INCR", "n"), ("INCR", "n"), ("EXEC",)]:
                assert not c.call(*cmd).startswith(b"-"), cmd
        lines = read_lines(proc, 13, skip={b'"ping"'})
        deadline = int(lines[7].split(b'"')[-2])
        assert abs(deadline - 100000 - time.time() * 1000) < 5000, lines[7]
        assert lines == [
            b"sending REPLCONF ACK 0", b'"SET","a","1"', b'"SELECT","3"', b'"lpush","l","x","y"',
            b'"SELECT","0"', b'"INCR","a"', b'"DEL","a"',
            b'"SET","b","2","PXAT","%d"' % deadline,  # a relative TTL goes out absolute
            b'"SET","c","1"',  # a transaction of one write goes out bare
            b'"MULTI"', b'"INCR","n"', b'"INCR","n"', b'"EXEC"'], lines
    finally:
        proc.kill()
        proc.wait()
    assert master.call("PING") == b"+PONG\r\n"


# --- 10. bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_raw_psync_payload(servers, kind, diskless, tmp_path):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    keys = populate(master)
    sock, line = start_psync(master.port)
    offset = int(line.split()[2])
    with sock:
        payload = read_payload(sock)
        # then the stream: what the master writes next, counted from the +FULLRESYNC offset
        assert master.call("SET", "after", "sync") == b"+OK\r\n"
        want = (b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n"
                b"*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$4\r\nsync\r\n")
        stream = b""
        deadline = time.monotonic() + WAIT_S
        while len(stream.replace(PING, b"")) < len(want):
            # an EOF-marked payload's stream starts at the replica's first ACK
            sock.sendall(encode("REPLCONF", "ACK", offset))
            sock.settimeout(0.05)
            try:
                stream += sock.recv(65536)
            except socket.timeout:
                assert time.monotonic() < deadline, "no stream after the payload: %r" % stream
        assert stream.replace(PING, b"") == want
        assert int(repl(master)["master_repl_offset"]) == offset + len(stream)
    assert master.call("DEL", "after") == b":1\r\n"
    assert payload.startswith(b"REDIS0010")
    path = tmp_path / "payload.rdb"
    path.write_bytes(payload)
    check_rdb(str(path))
    loaded = servers({"kind": "redis", "rdb": payload})
    assert_same_data(master, loaded, expect_keys=keys)


def big_master(servers, kind, diskless):
    master = servers((kind, ["--repl-diskless-sync", diskless]))
    add_big_values(master)
    populate(master)
    return master


@pytest.mark.parametrize("how", ["close-at-once", "close-mid-payload", "garbage"])
@pytest.mark.parametrize("diskless", ["yes", "no"], ids=["diskless", "disk"])
@pytest.mark.parametrize("kind", UNDER_TEST)
def test_broken_replica_does_not_disturb_master(servers, kind, diskless, how):
    master = big_master(servers, kind, diskless)
    want = snapshot(master)
    sock, _ = start_psync(master.port)
    with sock:
        if how == "close-mid-payload":
            read_exactly(sock, 100_000, time.monotonic() + WAIT_S)
        elif how == "garbage":
            sock.sendall(b"\x00\xff not resp at all \r\n*zz\r\n$-7\r\n" * 50)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    assert master.call("PING") == b"+PONG\r\n"
    assert master.call("SET", "after", "1") == b"+OK\r\n"
    wait_until(lambda: repl(master)["connected_slaves"] == "0", [master], "the replica gone")
    assert master.call("DEL", "after") == b":1\r\n"
    got = snapshot(master)
    assert got["data"] == want["data"] and got["functions"] == want["functions"]
    # and a real replica still syncs
    replica = servers("redis")
    attach(replica, master)
    assert_same_data(master, replica)


def read_request(sock, buf, deadline):
    """One RESP request from a replica talking to a fake master: (parsed args, rest of buf)."""
    while True:
        end = reply_end(buf)
        if end is not None:
            return parse(buf[:end]), buf[end:]
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        assert chunk, "the replica closed the link (had %r)" % buf
        buf += chunk


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_replica_handshake_and_retry(servers, kind):
    """REPLICAOF to a port nothing listens on: OK, the link down, the data kept; the replica
    retries, and once something listens there it sends Redis's handshake, twice (a refused
    PSYNC makes it try again)."""
    replica = servers(kind)
    assert replica.call("SET", "k", "v") == b"+OK\r\n"
    replid = repl(replica)["master_replid"]
    with socket.socket() as listener:  # bound, not listening yet: connections are refused
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        assert replica.call("REPLICAOF", "127.0.0.1", str(port)) == b"+OK\r\n"
        info = repl(replica)
        assert (info["role"], info["master_port"], info["master_link_status"]) == (
            "slave", str(port), "down")
        assert replica.call("GET", "k") == b"$1\r\nv\r\n"
        assert replica.call("SET", "k", "w") == READONLY
        listener.listen(4)
        for attempt in range(2):
            listener.settimeout(WAIT_S)
            link, _ = listener.accept()
            with link:
                deadline = time.monotonic() + WAIT_S
                seen, buf = [], b""
                for reply in (b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n",
                              b"-ERR this master refuses\r\n"):
                    request, buf = read_request(link, buf, deadline)
                    seen.append(request)
                    link.sendall(reply)
            assert seen == [[b"PING"],
                            [b"REPLCONF", b"listening-port", str(replica.port).encode()],
                            [b"REPLCONF", b"capa", b"eof", b"capa", b"psync2"],
                            [b"PSYNC", replid.encode(), b"1"]], (attempt, seen)
        info = repl(replica)
        assert (info["role"], info["master_link_status"]) == ("slave", "down")
    assert replica.call("GET", "k") == b"$1\r\nv\r\n"
    assert replica.alive()


@pytest.mark.parametrize("kind", UNDER_TEST)
def test_replicaof_itself(servers, kind):
    """REPLICAOF its own address: OK, then a link that fails at PSYNC (NOMASTERLINK) and is
    tried again, the data kept and the server serving; REPLICAOF NO ONE ends it."""
    server = servers(kind)
    assert server.call("SET", "k", "v") == b"+OK\r\n"
    with server.conn() as c:  # one connection for the polling: the count is the link's own

        def connections():
            text = parse(c.call("INFO", "stats")).decode()
            return int(re.search(r"total_connections_received:(\d+)", text).group(1))

        before = connections()
        assert c.call("REPLICAOF", "127.0.0.1", str(server.port)) == b"+OK\r\n"
        wait_until(lambda: connections() >= before + 2, [server], "a second attempt")
        info = parse(c.call("INFO", "replication")).decode()
        assert "role:slave\r\n" in info and "master_link_status:down\r\n" in info, info
        assert c.call("GET", "k") == b"$1\r\nv\r\n"
        assert c.call("SET", "k", "w") == READONLY
        assert c.call("REPLICAOF", "NO", "ONE") == b"+OK\r\n"
        assert c.call("SET", "k", "w") == b"+OK\r\n"
    assert server.alive()


@pytest.mark.parametrize("kind", UNDER_TEST)
@pytest.mark.parametrize("payload", ["corrupt", "cut"])
def test_bad_payload_from_a_master(servers, kind, payload):
    """A master whose full sync is not an RDB (a bad checksum) or stops half-way: the replica
    stays up, its link down, and asks again; a payload cut short leaves the old data set as it
    was (nothing is flushed before the payload is whole). redis-server 7.0 exits on the corrupt
    payload (its RDB loader's "Internal error in RDB reading"): a crash warden does not copy
    (README, Known differences), checked here so that the difference stays known."""
    replica = servers(kind)
    redis_crashes = payload == "corrupt" and replica.binary == "redis-server"
    assert replica.call("SET", "k", "v") == b"+OK\r\n"
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        assert replica.call("REPLICAOF", "127.0.0.1", str(port)) == b"+OK\r\n"
        for attempt in range(1 if redis_crashes else 2):
            listener.settimeout(WAIT_S)
            link, _ = listener.accept()
            with link:
                deadline = time.monotonic() + WAIT_S
                buf = b""
                for reply in (b"+PONG\r\n", b"+OK\r\n", b"+OK\r\n"):
                    _, buf = read_request(link, buf, deadline)
                    link.sendall(reply)
                request, buf = read_request(link, buf, deadline)
                assert request[0] == b"PSYNC", (attempt, request)
                link.sendall(b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n")
                if payload == "corrupt":
                    body = b"REDIS0010" + b"\xfe\x00\xfb\x01\x00\x00\x01k\x01v\xff" + b"\x01" * 8
                    link.sendall(b"$%d\r\n" % len(body) + body)
                else:
                    link.sendall(b"$100000\r\nREDIS0010" + b"\x00" * 100)
                # The replica gives up on this link (it closes it, or waits for the rest).
                link.shutdown(socket.SHUT_WR)
                link.settimeout(WAIT_S)
                try:
                    while link.recv(65536):
                        pass
                except (socket.timeout, ConnectionError):
                    pass
        if redis_crashes:
            assert replica.proc.wait(timeout=WAIT_S) != 0
            assert "Internal error in RDB reading" in replica.log()
            return
        info = repl(replica)
        assert (info["role"], info["master_link_status"]) == ("slave", "down")
    assert replica.alive()
    if payload == "cut":
        assert replica.call("GET", "k") == b"$1\r\nv\r\n"
