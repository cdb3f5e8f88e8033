"""DEBUG SNAPSHOT and --preload through redis-py against a real warden process.

These are warden's own test controls, so they run on warden alone (targets()["warden"]). Every
type and encoding comes back from a snapshot with its TTL on warden's clock (frozen here so a
PTTL is exact); a deadline that passes between SAVE and LOAD expires the key; LOAD fails a WATCH
and wakes a client blocked on a key it brings back; LIST, DROP and the two caps answer as
documented. The --preload scenarios start warden processes of their own from WARDEN_BIN
(exported by tests/clients/run.sh), with a fixture file, and check a bad line stops the start.
No sleeps: waits poll with a deadline.
"""

import os
import socket
import subprocess
import tempfile
import time

import pytest
import redis

from conftest import targets
from resp_conn import Conn
from blocking_transcripts import wait_blocked

WAIT_S = 5


@pytest.fixture
def r():
    client = redis.Redis(port=targets()["warden"].port, decode_responses=False)
    client.flushall()
    client.execute_command("DEBUG", "CLOCK", "FREEZE")
    yield client
    for entry in client.execute_command("DEBUG", "SNAPSHOT", "LIST"):
        client.execute_command("DEBUG", "SNAPSHOT", "DROP", entry[1])
    client.config_set("snapshot-max-count", "64")
    client.config_set("snapshot-max-bytes", "1gb")
    client.execute_command("DEBUG", "CLOCK", "REAL")
    client.flushall()
    client.close()


def snapshot(r, action, *args):
    return r.execute_command("DEBUG", "SNAPSHOT", action, *args)


def fill_every_type(r):
    r.set("str:int", "12345")
    r.set("str:embstr", "hello")
    r.set("str:raw", "x" * 100)
    r.append("str:appended", "abc")
    r.hset("hash:packed", mapping={"f1": "v1", "f2": "v2"})
    r.hset("hash:table", mapping={"f%d" % i: "v%d" % i for i in range(600)})
    r.sadd("set:ints", 3, 1, 2)
    r.sadd("set:strings", "a", "b", "c")
    r.sadd("set:table", *("m%d" % i for i in range(600)))
    r.zadd("zset:packed", {"a": 1, "b": 2.5, "c": -3})
    r.zadd("zset:sorted", {"m%d" % i: i / 3 for i in range(300)})
    r.rpush("list:small", "a", "b", "c")
    r.rpush("list:large", *("e%d" % i for i in range(1000)))
    r.set("ttl:string", "v", px=30000)
    r.expire("hash:packed", 50)
    r.pexpire("zset:sorted", 70000)
    r.execute_command("SELECT", "3")
    r.set("db3:key", "three")
    r.execute_command("SELECT", "0")


def dump(r):
    """Every key of databases 0 and 3: type, encoding, PTTL and contents (sorted where the
    order is the table's)."""
    out = {}
    for db in (0, 3):
        r.execute_command("SELECT", db)
        for key in sorted(r.keys("*")):
            kind = r.type(key)
            if kind == b"string":
                value = r.get(key)
            elif kind == b"hash":
                value = sorted(r.hgetall(key).items())
            elif kind == b"set":
                value = sorted(r.smembers(key))
            elif kind == b"zset":
                value = r.zrange(key, 0, -1, withscores=True)
            else:
                value = r.lrange(key, 0, -1)
            out[(db, key)] = (kind, r.object("encoding", key), r.pttl(key), value)
    r.execute_command("SELECT", 0)
    return out


def test_load_restores_every_type_encoding_and_ttl(r):
    fill_every_type(r)
    before = dump(r)
    assert snapshot(r, "SAVE", "base") == b"OK"
    r.set("str:int", "changed")
    r.delete("hash:table", "list:large")
    r.hset("hash:packed", "f3", "v3")
    r.sadd("set:ints", "not-an-int")
    r.set("extra", "x")
    r.execute_command("SELECT", 3)
    r.flushdb()
    r.execute_command("SELECT", 0)
    r.execute_command("DEBUG", "CLOCK", "ADVANCE", "10000")

    assert snapshot(r, "LOAD", "base") == b"OK"

    after = dump(r)
    assert after.keys() == before.keys()
    for key, (kind, encoding, pttl, value) in before.items():
        expected_pttl = pttl - 10000 if pttl > 0 else pttl
        assert after[key] == (kind, encoding, expected_pttl, value), key


def test_deadline_passed_between_save_and_load_expires_key(r):
    r.set("short", "v", px=1000)
    r.set("long", "v", px=60000)
    snapshot(r, "SAVE", "base")
    r.execute_command("DEBUG", "CLOCK", "ADVANCE", "5000")
    r.set("short", "rewritten")

    snapshot(r, "LOAD", "base")

    assert r.exists("short") == 0
    assert r.pttl("long") == 55000
    assert r.dbsize() == 1


def test_load_twice_gives_the_same_data(r):
    r.rpush("queue", "a", "b")
    snapshot(r, "SAVE", "base")
    snapshot(r, "LOAD", "base")
    r.lpop("queue")

    snapshot(r, "LOAD", "base")

    assert r.lrange("queue", 0, -1) == [b"a", b"b"]


def test_list_and_drop(r):
    r.set("k", "v")
    snapshot(r, "SAVE", "b")
    snapshot(r, "SAVE", "a")

    listing = snapshot(r, "LIST")

    assert [entry[1] for entry in listing] == [b"a", b"b"]
    assert listing[0][0::2] == [b"name", b"keys", b"bytes", b"time-ms"]
    assert listing[0][3] == 1 and listing[0][5] > 0
    assert listing[0][7] == int(r.execute_command("DEBUG", "CLOCK")[1])
    assert snapshot(r, "DROP", "a") == 1
    assert snapshot(r, "DROP", "a") == 0
    assert [entry[1] for entry in snapshot(r, "LIST")] == [b"b"]
    with pytest.raises(redis.ResponseError, match="^no such snapshot 'a'$"):
        snapshot(r, "LOAD", "a")


def test_count_cap(r):
    r.config_set("snapshot-max-count", "2")
    snapshot(r, "SAVE", "one")
    snapshot(r, "SAVE", "two")

    with pytest.raises(redis.ResponseError) as err:
        snapshot(r, "SAVE", "three")

    assert str(err.value) == ("snapshot limit reached: 2 snapshots (snapshot-max-count); "
                              "DROP one first")
    assert snapshot(r, "SAVE", "two") == b"OK"  # replacing counts nothing new


def test_byte_cap(r):
    r.rpush("big", *("element-%d" % i for i in range(5000)))
    r.config_set("snapshot-max-bytes", "10kb")

    with pytest.raises(redis.ResponseError) as err:
        snapshot(r, "SAVE", "big")

    assert str(err.value) == ("snapshot needs more than the 10240 bytes left of "
                              "snapshot-max-bytes (10240)")
    assert snapshot(r, "LIST") == []
    assert r.config_get("snapshot-max-bytes") == {"snapshot-max-bytes": "10240"}


def test_load_fails_watch_of_other_client(r):
    r.set("balance", "10")
    snapshot(r, "SAVE", "base")
    other = redis.Redis(port=targets()["warden"].port)
    try:
        with other.pipeline() as pipe:
            pipe.watch("balance")
            snapshot(r, "LOAD", "base")
            pipe.multi()
            pipe.set("balance", "20")
            with pytest.raises(redis.WatchError):
                pipe.execute()
    finally:
        other.close()
    assert r.get("balance") == b"10"


def test_load_wakes_client_blocked_on_restored_list(r):
    r.rpush("jobs", "job-1")
    snapshot(r, "SAVE", "base")
    r.delete("jobs")
    port = targets()["warden"].port
    with Conn(port) as observer, Conn(port) as waiter:
        waiter.id()
        waiter.send("BLPOP", "jobs", "0")
        wait_blocked(observer, waiter)

        snapshot(r, "LOAD", "base")

        assert waiter.reply() == b"*2\r\n$4\r\njobs\r\n$5\r\njob-1\r\n"
    assert r.exists("jobs") == 0


# --- --preload -----------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def warden_argv(*extra):
    binary = os.environ.get("WARDEN_BIN")
    if not binary:
        raise pytest.UsageError("WARDEN_BIN is not set: run through tests/clients/run.sh")
    return [binary, "--save", "", "--enable-debug-command", "yes", *extra]


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


FIXTURE = """# users and a queue
SET greeting "hello\\x20world"
HSET user:1 name 'Ann' role "admin"

RPUSH jobs a b c
SET lease tok PX 60000
SELECT 2
SET in-db-2 yes
"""


def run_with_preload(argv):
    port = free_port()
    proc = subprocess.Popen(argv + ["--port", str(port)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                client = redis.Redis(port=port)
                if client.ping():
                    return port, proc, client
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError("warden did not start: %r" % proc.communicate()[0])
    except BaseException:
        proc.kill()
        proc.wait()
        raise


def check_fixture_loaded(client):
    assert client.get("greeting") == b"hello world"
    assert client.hgetall("user:1") == {b"name": b"Ann", b"role": b"admin"}
    assert client.lrange("jobs", 0, -1) == [b"a", b"b", b"c"]
    assert 0 < client.pttl("lease") <= 60000
    client.execute_command("SELECT", 2)
    assert client.get("in-db-2") == b"yes"


@pytest.mark.parametrize("via", ["flag", "config-file"])
def test_preload_runs_fixture_before_serving(via):
    with tempfile.TemporaryDirectory() as d:
        fixture = write(d, "fixture.txt", FIXTURE)
        if via == "flag":
            argv = warden_argv("--preload", fixture)
        else:
            conf = write(d, "warden.conf", "preload %s\n" % fixture)
            argv = warden_argv()
            argv.insert(1, conf)
        port, proc, client = run_with_preload(argv)
        try:
            check_fixture_loaded(client)
        finally:
            client.close()
            proc.terminate()
            proc.wait(timeout=WAIT_S)


@pytest.mark.parametrize("text,message", [
    ("SET a 1\n# fine so far\nINCR a b\nSET never 1\n",
     "fixture.txt:3: ERR wrong number of arguments for 'incr' command"),
    ("SET a 1\nSET b \"unclosed\n", "fixture.txt:2: unbalanced quotes"),
    ("SET a 1\nNOSUCHCOMMAND x\n",
     "fixture.txt:2: ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'x' "),
])
def test_preload_error_stops_start_naming_file_and_line(text, message):
    with tempfile.TemporaryDirectory() as d:
        fixture = write(d, "fixture.txt", text)
        port = free_port()
        proc = subprocess.run(warden_argv("--preload", fixture, "--port", str(port)),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=WAIT_S)
    assert proc.returncode != 0
    output = proc.stdout.decode()
    assert ("Preload failed: %s/%s" % (d, message)) in output, output
    assert "Ready to accept connections" not in output
